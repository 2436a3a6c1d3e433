// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/machines/machine_views.h"
#include "pages/machines/machines_model.h"
#include "pages/machines/machines_page_state.h"

#include "common/background_runner.h"
#include "common/page.h"

#include <QTimer>

#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

class QComboBox;
class QCustomPlot;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSlider;
class QSpinBox;
class QTabWidget;
class QTableWidget;
class QToolButton;

namespace fpx::gui {

class FoldingForm;
class InstructionPicture;
class StatusLine;

// The Machines page: what a matrix engine computes (docs/behaviour.md, "Machines"). Three
// views under one form (the fields of the view shown, folding away where the window is too
// short for them and the view): one instruction of the chosen machine drawn term by term (computed
// at once, it is one instruction); error against K for several machines, with and without
// promotion, measured in the background; and one dot product on every built-in machine that
// takes the element, in a table, also in the background. The machines and their elements are
// a catalogue: the machines of a machine file the page has loaded (docs/behaviour.md, "Machine
// files"), then the core's built-in ones (builtInMachines), never a list of the page's own.
class MachinesPage : public Page {
    Q_OBJECT

  public:
    using State = MachinesPageState;
    using View = State::View;

    explicit MachinesPage(QWidget* parent = nullptr);
    ~MachinesPage() override;

    // The page's options and typed state (common/page_options.h): apply() sets the fields that
    // are set and returns the first problem as "--key: what is wrong"; state() is the form.
    static std::span<const PageOption<State>> options();
    QString apply(const State& state);
    State state() const;

    // Reads the machine file at `path` (empty: none) and makes its machines the catalogue's
    // first, in place of the previous file's. A file refused leaves the catalogue as it was;
    // the problem, "FILE:LINE:COLUMN: message", is returned and shown under the button.
    QString loadMachineFile(const QString& path);
    QString machineFile() const { return machineFile_; }
    // The machine file's machines, then the built-in ones.
    std::vector<const MachineModel*> catalogue() const;
    const std::vector<MachineModel>& ownMachines() const { return own_; }

    // The error plot's or the table's work in flight, until its result is shown.
    bool busy() const override;

    void showView(View view);
    View currentView() const;

    // The parts, as tests and the shell reach them.
    QComboBox* machineCombo() const { return machine_; }
    QComboBox* elementCombo() const { return element_; }
    QLineEdit* aEdit() const { return a_; }
    QLineEdit* bEdit() const { return b_; }
    QLineEdit* cEdit() const { return c_; }
    QListWidget* machineList() const { return machines_; }
    QSlider* promoteSlider() const { return promote_; }
    QCustomPlot* errorPlot() const { return plot_; }
    QTableWidget* table() const { return table_; }
    InstructionPicture* picture() const { return picture_; }
    QString summaryText() const;
    QLabel* machineFileLabel() const { return fileLabel_; }

    // What the views show: the instruction drawn (nullopt when the form does not read), the
    // last error sweep and comparison shown.
    const std::optional<DrawnInstruction>& instruction() const;
    const ErrorSweepResult& errorResult() const { return sweep_; }
    const MachineComparison& comparison() const { return comparison_; }
    // The problem the page shows, for the view shown (empty when none): a script taking a
    // screenshot hears of it.
    QString errorText() const;

    // The view shown, by the suffix: the instruction as .png or .svg; the plot as .png, .pdf,
    // .svg or its data as .csv; the table as .csv.
    bool exportTo(const QString& path, QString* error = nullptr);

  signals:
    void finished(); // a plot or a table was shown, or refused

  protected:
    void showEvent(QShowEvent* event) override;
    void changeEvent(QEvent* event) override; // the zoom: the machine list's height

  private:
    QWidget* buildForm();
    void fitForm();
    void machineEdited();
    void elementChosen();
    void redrawInstruction();
    void errorFormChanged();
    void tableFormChanged();
    void refreshVisible();
    void startErrorSweep();
    void startTable();
    void applySweep(ErrorSweepResult result);
    void applyComparison(MachineComparison comparison);
    void openMachineFile();
    void fillMachines();
    void updateMachineList();
    void updatePromoteLabel();
    void updateGroups();
    std::optional<ErrorSweepRequest> errorRequest(QString& error) const;
    QString setElementId(const QString& id);
    void fillExportMenu();

    QComboBox* machine_;
    QComboBox* element_;
    QPushButton* openFile_;
    QLabel* fileLabel_;
    QLineEdit* a_;
    QLineEdit* b_;
    QLineEdit* c_;
    QLabel* instructionError_;
    QGroupBox* instructionGroup_;
    QGroupBox* errorGroup_;
    QGroupBox* tableGroup_;
    QListWidget* machines_ = nullptr;
    QComboBox* statistic_;
    QLineEdit* dist_;
    QSpinBox* rows_;
    QSpinBox* columns_;
    QSpinBox* seed_;
    QComboBox* kMax_;
    QSlider* promote_;
    QLabel* promoteLabel_;
    QProgressBar* progress_;
    StatusLine* status_;
    QLabel* errorFormError_;
    QSpinBox* tableK_;
    QLabel* tableError_;
    QToolButton* export_;

    FoldingForm* fold_ = nullptr;
    QTabWidget* views_;
    InstructionPicture* picture_;
    QLabel* summary_;
    QCustomPlot* plot_;
    QLabel* tableCaption_;
    QTableWidget* table_;

    // The loaded machine file and its machines.
    QString machineFile_;
    std::vector<MachineModel> own_;

    QTimer progressTimer_;
    bool plotStale_ = true;
    bool tableStale_ = true;
    ErrorSweepResult sweep_;
    MachineComparison comparison_;
    // Curves measured on the current data (element, distribution, size, seed, longest K), by
    // machine and promotion interval: moving the slider measures only the promoted curves.
    std::string cacheKey_;
    std::map<std::pair<std::string, std::size_t>, MachineErrorCurve> cache_;
    // Declared last, destroyed first: they wait for their jobs before the widgets go.
    BackgroundRunner<ErrorSweepResult> sweepRunner_;
    BackgroundRunner<MachineComparison> tableRunner_;
};

} // namespace fpx::gui
