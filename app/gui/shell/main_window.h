// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/explorer/explorer_controller.h"

#include <QMainWindow>

class QLabel;
class QLineEdit;
class QMenu;
class QSettings;
class QTableView;
class QTabWidget;

namespace fpx::gui {

class ArithmeticPage;
class Page;
class BenchmarksPanel;
class BitCellsDelegate;
class DetailPanel;
class ExplorerHistory;
class ExplorerPage;
class FormatTableModel;
class MachinesPage;
class PlotsPanel;
class PresentationMode;
class QuantizationPage;
class TableFitter;
class TrainingPage;
class ZoomController;

// The explorer's window: the shell that hosts the pages as tabs (the Explorer, Benchmarks,
// Arithmetic, Quantization, Training and Machines pages), with the menus, the status bar, the zoom
// and presentation mode, and what is remembered between runs.
class MainWindow : public QMainWindow {
    Q_OBJECT

  public:
    // `settings` may be null (no persistence, as in tests and screenshots).
    explicit MainWindow(QSettings* settings = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    // The window's pages: the explorer, the benchmarks, arithmetic in every format, the
    // quantization of whole tensors, the mixed-precision training lab and what a matrix engine
    // computes.
    enum class Page { Explorer, Benchmarks, Arithmetic, Quantization, Training, Machines };
    void showPage(Page page);
    Page currentPage() const;
    ExplorerPage* explorerPage() const { return explorer_; }
    BenchmarksPanel* benchmarksPanel() const { return benchmarks_; }
    ArithmeticPage* arithmeticPage() const { return arithmetic_; }
    QuantizationPage* quantizationPage() const { return quantization_; }
    TrainingPage* trainingPage() const { return training_; }
    MachinesPage* machinesPage() const { return machines_; }
    // Each page, as the shell hosts it: to wait for its work, say (common/page.h).
    gui::Page* hostedPage(Page which) const;

    // The zoom of fonts, bit cells and plots (Ctrl+=, Ctrl+-, Ctrl+0, Ctrl+wheel).
    ZoomController* zoom() const { return zoom_; }
    // Full screen, large type, no bars (F5).
    PresentationMode* presentation() const { return presentation_; }

    // The Explorer page's parts, as the command line, lessons and tests reach them.
    ExplorerController* controller() const;
    FormatTableModel* model() const;
    QTableView* table() const;
    QLineEdit* valueEdit() const;
    DetailPanel* detailPanel() const;
    BitCellsDelegate* bitsDelegate() const;
    PlotsPanel* plotsPanel() const;
    TableFitter* tableFitter() const;
    ExplorerHistory* history() const;
    // Shows the Details (0) or Plots (1) tab under the table.
    void showLowerTab(int index);
    int selectedRow() const;
    void selectRow(int row);
    // Rows of the selection, or all rows when nothing is selected.
    std::vector<const ExplorerRow*> diagramRows() const;
    bool exportBitDiagram(const QString& path) const; // .png or .svg by suffix
    void saveSettings();

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    void buildActions();
    void buildViewActions(QMenu* view);
    void placeOnScreen(const QByteArray& geometry);

    QSettings* settings_;
    QTabWidget* pages_;
    ExplorerPage* explorer_;
    BenchmarksPanel* benchmarks_;
    ArithmeticPage* arithmetic_;
    QuantizationPage* quantization_;
    TrainingPage* training_;
    MachinesPage* machines_;
    QLabel* zoomLabel_;
    ZoomController* zoom_;
    PresentationMode* presentation_;
};

} // namespace fpx::gui
