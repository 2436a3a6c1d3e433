// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/explorer_controller.h"

#include <QMainWindow>
#include <QPointer>

class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QSettings;
class QSplitter;
class QTableView;
class QTabWidget;
class QTimer;

namespace fpx::gui {

class ArithmeticPage;
class BenchmarksPanel;
class BitCellsDelegate;
class DetailPanel;
class ExplorerHistory;
class FormatTableModel;
class PlotsPanel;
class PresentationMode;
class QuantizationPage;
class FocusFrameDelegate;
class TableFitter;
class TrainingPage;
class ZoomController;

// The explorer window: the value field with rounding and overflow selectors, one row per
// format with clickable bits, and the detail panel of the selected row.
class MainWindow : public QMainWindow {
    Q_OBJECT

  public:
    // `settings` may be null (no persistence, as in tests and screenshots).
    explicit MainWindow(QSettings* settings = nullptr, QWidget* parent = nullptr);
    ~MainWindow() override;

    ExplorerController* controller() const { return controller_; }
    FormatTableModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    QLineEdit* valueEdit() const { return valueEdit_; }
    DetailPanel* detailPanel() const { return detail_; }
    BitCellsDelegate* bitsDelegate() const { return bitsDelegate_; }
    PlotsPanel* plotsPanel() const { return plots_; }
    // The zoom of fonts, bit cells and plots (Ctrl+=, Ctrl+-, Ctrl+0, Ctrl+wheel).
    ZoomController* zoom() const { return zoom_; }
    // Full screen, large type, no bars (F5).
    PresentationMode* presentation() const { return presentation_; }
    // Keeps every shown column of the table whole and inside the view.
    TableFitter* tableFitter() const { return fitter_; }
    ExplorerHistory* history() const { return history_; }
    // Shows the Details (0) or Plots (1) tab under the table.
    void showLowerTab(int index);

    // The window's pages: the explorer, the benchmarks, arithmetic in every format, the
    // quantization of whole tensors and the mixed-precision training lab.
    enum class Page { Explorer, Benchmarks, Arithmetic, Quantization, Training };
    void showPage(Page page);
    Page currentPage() const;
    BenchmarksPanel* benchmarksPanel() const { return benchmarks_; }
    ArithmeticPage* arithmeticPage() const { return arithmetic_; }
    QuantizationPage* quantizationPage() const { return quantization_; }
    TrainingPage* trainingPage() const { return training_; }

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
    void refreshDetail();
    void refreshLayout();
    void buildViewActions(QMenu* view);
    void placeOnScreen(const QByteArray& geometry);
    void showInputError(const QString& message, int position);
    // Says, after a short delay, that the rows shown are still those of the previous value.
    void showComputing(bool computing);
    // The notice's text for the newest input, while it is shown.
    void refreshComputingNotice();
    void copyText(const QString& text);
    void openFormatManager();
    void openSameBits();

    QSettings* settings_;
    ExplorerController* controller_;
    FormatTableModel* model_;
    QLineEdit* valueEdit_;
    QLabel* errorLabel_;
    QComboBox* roundCombo_;
    QComboBox* overflowCombo_;
    QTableView* table_;
    BitCellsDelegate* bitsDelegate_;
    DetailPanel* detail_;
    PlotsPanel* plots_;
    QTabWidget* lowerTabs_;
    QTabWidget* pages_;
    BenchmarksPanel* benchmarks_;
    ArithmeticPage* arithmetic_;
    QuantizationPage* quantization_;
    TrainingPage* training_;
    QSplitter* splitter_;
    QLabel* timing_;
    QLabel* computingLabel_;
    // What copies, exports or steps from the rows: off while they are a previous value's.
    QList<QAction*> rowsActions_;
    QTimer* computingNotice_;
    bool tableHadFocus_ = false; // when the rows were greyed
    // Where the focus went when the table was greyed: the table takes it back only from there
    // (or from nowhere).
    QPointer<QWidget> focusWhileGreyed_;
    QLabel* zoomLabel_;
    FocusFrameDelegate* textDelegate_;
    TableFitter* fitter_;
    ZoomController* zoom_;
    PresentationMode* presentation_;
    ExplorerHistory* history_ = nullptr;
};

} // namespace fpx::gui
