// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page.h"
#include "pages/explorer/explorer_controller.h"
#include "pages/explorer/explorer_page_state.h"

#include <QList>
#include <QPointer>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QSplitter;
class QTableView;
class QTabWidget;
class QTimer;

namespace fpx::gui {

class BitCellsDelegate;
class DetailPanel;
class ExplorerHistory;
class FocusFrameDelegate;
class FormatTableModel;
class PlotsPanel;
class TableFitter;

// The Explorer page: the value field with rounding and overflow selectors, one row per format
// with clickable bits, and the Details and Plots tabs of the selected row. Busy while the rows
// of the newest change or the shown plot are still being computed.
class ExplorerPage : public Page {
    Q_OBJECT

  public:
    explicit ExplorerPage(QWidget* parent = nullptr);
    ~ExplorerPage() override;

    bool busy() const override;

    // The page's options and typed state (common/page_options.h): apply() sets the fields
    // that are set and returns the first problem as "--key: what is wrong"; state() is what
    // the page shows, every field set.
    using State = ExplorerPageState;
    static std::span<const PageOption<State>> options();
    QString apply(const State& state);
    State state() const;

    ExplorerController* controller() const { return controller_; }
    FormatTableModel* model() const { return model_; }
    QTableView* table() const { return table_; }
    QLineEdit* valueEdit() const { return valueEdit_; }
    DetailPanel* detailPanel() const { return detail_; }
    BitCellsDelegate* bitsDelegate() const { return bitsDelegate_; }
    PlotsPanel* plotsPanel() const { return plots_; }
    // Keeps every shown column of the table whole and inside the view.
    TableFitter* tableFitter() const { return fitter_; }
    ExplorerHistory* history() const { return history_; }
    // The table over the lower tabs: its state is remembered between runs.
    QSplitter* splitter() const { return splitter_; }
    // Divides the height between the table and the lower tabs for the tab shown: the Details
    // 2 parts in 5, the Plots all but the table's header and first two rows, so that a plot
    // has a legible height on a projector. Done at each change of tab.
    void fitSplitToTab();
    // For the window's status bar: "Computing … the rows below still show the previous
    // value." while a slow value is worked out, and how long the last update took.
    QLabel* computingLabel() const { return computingLabel_; }
    QLabel* timingLabel() const { return timing_; }

    // The page's actions for the window's menus, separators included: File (export the bit
    // diagram), Edit (undo, redo, copies) and View (formats, same bits, stepping, Back and
    // Forward, edit the value).
    QList<QAction*> fileActions() const { return fileActions_; }
    QList<QAction*> editActions() const { return editActions_; }
    QList<QAction*> viewActions() const { return viewActions_; }

    // The rounding selectors as a user sets them (the controller follows).
    void setRoundingChoices(RoundingMode mode, OverflowPolicy policy);
    // Shows the Details (0) or Plots (1) tab under the table.
    void showLowerTab(int index);
    int selectedRow() const;
    void selectRow(int row);
    // Rows of the selection, or all rows when nothing is selected.
    std::vector<const ExplorerRow*> diagramRows() const;
    bool exportBitDiagram(const QString& path) const; // .png or .svg by suffix
    // The bit cells follow the font (and so the zoom) and the width the table has.
    void refreshLayout();
    void openFormatManager();
    void openSameBits();

  signals:
    // "Edit value" (Ctrl+L) was chosen from another page: show this one.
    void showRequested();
    // A short message for the window's status bar ("Copied 12 characters").
    void statusMessage(const QString& message, int timeoutMs);

  private:
    void buildActions();
    void refreshDetail();
    void showInputError(const QString& message, int position);
    // Says, after a short delay, that the rows shown are still those of the previous value.
    void showComputing(bool computing);
    // The notice's text for the newest input, while it is shown.
    void refreshComputingNotice();
    void copyText(const QString& text);

    ExplorerController* controller_;
    FormatTableModel* model_;
    QLineEdit* valueEdit_;
    QLabel* errorLabel_;
    QComboBox* roundCombo_;
    QComboBox* overflowCombo_;
    QTableView* table_;
    BitCellsDelegate* bitsDelegate_;
    FocusFrameDelegate* textDelegate_;
    TableFitter* fitter_;
    DetailPanel* detail_;
    PlotsPanel* plots_;
    QTabWidget* lowerTabs_;
    QSplitter* splitter_;
    QLabel* timing_;
    QLabel* computingLabel_;
    QTimer* computingNotice_;
    ExplorerHistory* history_ = nullptr;
    QList<QAction*> fileActions_;
    QList<QAction*> editActions_;
    QList<QAction*> viewActions_;
    // What copies, exports or steps from the rows: off while they are a previous value's.
    QList<QAction*> rowsActions_;
    bool tableHadFocus_ = false; // when the rows were greyed
    // Where the focus went when the table was greyed: the table takes it back only from there
    // (or from nowhere).
    QPointer<QWidget> focusWhileGreyed_;
};

} // namespace fpx::gui
