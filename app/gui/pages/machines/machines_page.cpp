// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/machines/machines_page.h"

#include "common/error_style.h"
#include "common/folding_form.h"
#include "common/number_text.h"
#include "common/plot_legibility.h"
#include "common/replot_after_resize.h"
#include "common/shown_tab_size.h"
#include "pages/machines/instruction_picture.h"
#include "plot_builder.h"
#include "plot_frame.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"
#include "fpx/machines/machine_file.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <limits>

namespace fpx::gui {
namespace {

// The promotion slider's unit: its positions are 0, 16, 32, … 512 elements; each machine
// promotes at the next multiple of its instruction's products.
constexpr int kPromoteStep = 16;
constexpr int kPromoteMax = 512;

// The default vectors (fp8_e4m3, c = 0): on Hopper (E = 0, F = 13) a2·b2 = 1.875·2^-11 loses
// its last bit at 2^-14 and a3·b3 = 2^-14 vanishes; Blackwell (F = 25) keeps both.
constexpr const char* kDefaultA = "1, 0.0078125, 0.0078125, 0.5";
constexpr const char* kDefaultB = "1, 0.1171875, 0.0078125, 0.375";

QString text(const std::string& utf8) {
    return QString::fromStdString(utf8);
}

bool writeText(const QString& path, const std::string& text, QString* error) {
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Text) &&
        file.write(QByteArray::fromStdString(text)) == qint64(text.size()) && file.commit())
        return true;
    if (error)
        *error = QObject::tr("cannot write %1").arg(path);
    return false;
}

} // namespace

MachinesPage::MachinesPage(QWidget* parent)
    : Page(parent), sweepRunner_(this, [this](ErrorSweepResult r) { applySweep(std::move(r)); }),
      tableRunner_(this, [this](MachineComparison c) { applyComparison(std::move(c)); }) {
    connect(this, &MachinesPage::finished, this, [this] { workEnded(); });
    // One column in one scroll area: the machine file and the element (what every view reads),
    // the form of the view shown, folding away where the window is too short for it and the
    // view (common/folding_form.h), and the views at the page's whole width. The error plot keeps
    // a legible height at every zoom (common/plot_legibility.h).
    QVBoxLayout* layout = scrollingPlotsLayout(*this);
    auto* scroll = findChild<QScrollArea*>();
    scroll->setObjectName("machineScroll");
    QWidget* groups = buildForm();
    auto* top = new QHBoxLayout;
    top->addWidget(openFile_);
    auto* elementLabel = new QLabel(tr("&Element"), this);
    elementLabel->setBuddy(element_);
    top->addWidget(elementLabel);
    top->addWidget(element_, 1);
    top->addWidget(export_);
    layout->addLayout(top);
    layout->addWidget(fileLabel_);
    fold_ = new FoldingForm(this);
    fold_->setObjectName("machineFold");
    fold_->header()->addWidget(progress_);
    fold_->header()->addWidget(status_, 1);
    fold_->setForm(groups);
    layout->addWidget(fold_);
    fitForm();

    views_ = new QTabWidget(this);
    views_->setObjectName("machineViews");
    // One instruction: the picture (scrolling when a long window does not fit) and its summary.
    auto* instruction = new QWidget(views_);
    auto* instructionColumn = new QVBoxLayout(instruction);
    instructionColumn->setContentsMargins(0, 0, 0, 0);
    auto* pictureScroll = new QScrollArea(instruction);
    pictureScroll->setObjectName("machinePictureScroll");
    pictureScroll->setWidgetResizable(true);
    picture_ = new InstructionPicture(pictureScroll);
    pictureScroll->setWidget(picture_);
    instructionColumn->addWidget(pictureScroll, 1);
    summary_ = new QLabel(instruction);
    summary_->setObjectName("machineSummary");
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    instructionColumn->addWidget(summary_);
    views_->addTab(instruction, tr("One instruction"));
    views_->setTabToolTip(0, tr("The instruction term by term: aligned on the largest exponent, "
                                "cut to F bits, added, rounded into the output."));

    // The plot in a page of its own: the least height the legibility pass gives it counts only
    // while its tab is shown (common/shown_tab_size.h), so that having shown it once does not
    // make the other views taller.
    auto* plotPage = new QWidget(views_);
    auto* plotColumn = new QVBoxLayout(plotPage);
    plotColumn->setContentsMargins(0, 0, 0, 0);
    plot_ = new QCustomPlot(plotPage);
    plot_->setObjectName("machineErrorPlot");
    plot_->setMinimumHeight(240);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plotColumn->addWidget(plot_);
    views_->addTab(plotPage, tr("Error against K"));
    views_->setTabToolTip(1, tr("How far each machine's dot products are from the exact ones as "
                                "K grows, with and without promotion."));
    plots::drawMessage(*plot_, tr("Error against K"), tr("Measured when shown."));

    auto* tablePage = new QWidget(views_);
    auto* tableColumn = new QVBoxLayout(tablePage);
    tableColumn->setContentsMargins(0, 0, 0, 0);
    tableCaption_ = new QLabel(tablePage);
    tableCaption_->setObjectName("machineTableCaption");
    tableCaption_->setWordWrap(true);
    tableCaption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    tableColumn->addWidget(tableCaption_);
    table_ = new QTableWidget(0, machine_table::ColumnCount, tablePage);
    table_->setObjectName("machineTable");
    machine_table::setUp(*table_);
    tableColumn->addWidget(table_, 1);
    views_->addTab(tablePage, tr("Every machine"));
    sizeTabsByShownPage(*views_);
    views_->setTabToolTip(2, tr("One dot product on every machine that takes the element, "
                                "results that disagree marked."));
    layout->addWidget(views_, 1);
    replotAfterResize(*plot_);
    fold_->setRoom(scroll, [this, layout] {
        // The tabs, and under them the error plot at its least height, or a dozen lines of the
        // picture or the table.
        const int view = currentView() == View::Error
                             ? leastHeight(*plot_)
                             : fontMetrics().lineSpacing() * kPlotMinimumLines;
        return std::max(0, layout->spacing()) + views_->tabBar()->sizeHint().height() + view +
               layout->contentsMargins().bottom() + 4;
    });

    progressTimer_.setInterval(50);
    connect(&progressTimer_, &QTimer::timeout, this, [this] {
        const auto [done, total] = sweepRunner_.progress();
        if (total > 0) {
            progress_->setRange(0, int(total));
            progress_->setValue(int(done));
        }
    });
    connect(views_, &QTabWidget::currentChanged, this, [this] {
        updateGroups();
        refreshVisible();
    });
    updateMachineList();
    updatePromoteLabel();
    updateGroups();
    redrawInstruction();
}

MachinesPage::~MachinesPage() = default;

void MachinesPage::fitForm() {
    // The machine list as tall as its rows, up to 24 of them (a machine file may hold many).
    machines_->setFixedHeight(machines_->sizeHintForRow(0) * std::min(machines_->count(), 24) +
                              2 * machines_->frameWidth() + 4);
}

void MachinesPage::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange && machines_) // the zoom
        fitForm();
    Page::changeEvent(event);
}

QWidget* MachinesPage::buildForm() {
    auto* controls = new QWidget(this);
    controls->setObjectName("machineForm");
    auto* column = new QVBoxLayout(controls);
    column->setContentsMargins(0, 0, 0, 0);

    // One's own machines: a machine file's, first in every list of machines.
    openFile_ = new QPushButton(tr("Open machine file…"), this);
    openFile_->setObjectName("machineOpenFile");
    openFile_->setToolTip(tr("Machines of your own, in a text file (fpx machines --file writes "
                             "the built-in ones as a start): they join the built-in machines."));
    fileLabel_ = new QLabel(this);
    fileLabel_->setObjectName("machineFileLabel");
    fileLabel_->setWordWrap(true);
    fileLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fileLabel_->setVisible(false);

    element_ = new QComboBox(this);
    element_->setObjectName("machineElement");
    element_->setToolTip(tr("The element format the products are of, for every view."));
    for (const std::string& id : machineElements())
        element_->addItem(text(id), text(id));
    // The block formats of the block-scaled instructions, after a separator: typed values are
    // quantized into them along K (docs/behaviour.md, "Machines").
    const std::vector<std::string> blocks = machineBlockElements();
    if (!blocks.empty())
        element_->insertSeparator(element_->count());
    for (const std::string& id : blocks)
        element_->addItem(tr("%1 (block-scaled)").arg(text(id)), text(id));
    element_->setCurrentIndex(std::max(0, element_->findData("fp8_e4m3")));

    // One instruction (and the table's vectors).
    instructionGroup_ = new QGroupBox(tr("One instruction"), controls);
    auto* form = new QFormLayout(instructionGroup_);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    machine_ = new QComboBox(instructionGroup_);
    machine_->setObjectName("machineName");
    machine_->setEditable(true);
    machine_->setInsertPolicy(QComboBox::NoInsert);
    machine_->setToolTip(tr("A machine of the machine file or a built-in one, or the generic "
                            "model fused:F[:G]: F fraction bits kept, G products an instruction."));
    // The default instruction shows a cut best where the window is narrowest: of the machines
    // taking the default element, the one with the fewest fraction bits (of those, the most
    // products).
    const MachineModel* narrowest = nullptr;
    const std::string element = element_->currentData().toString().toStdString();
    for (const MachineModel* m : machinesTaking(element)) {
        const MachineInstruction& i = *m->instructionFor(element);
        const MachineInstruction* best = narrowest ? narrowest->instructionFor(element) : nullptr;
        if (!best || i.model.fractionBits < best->model.fractionBits ||
            (i.model.fractionBits == best->model.fractionBits && i.products > best->products))
            narrowest = m;
    }
    if (narrowest)
        machine_->setCurrentText(text(narrowest->name));
    form->addRow(tr("&Machine"), machine_);
    a_ = new QLineEdit(kDefaultA, instructionGroup_);
    a_->setObjectName("machineA");
    a_->setToolTip(tr("a1, a2, …: values rounded into the element (TF32: through FP32, "
                      "truncated); up to the instruction's products."));
    form->addRow(tr("&a"), a_);
    b_ = new QLineEdit(kDefaultB, instructionGroup_);
    b_->setObjectName("machineB");
    b_->setToolTip(tr("b1, b2, …: as many as a."));
    form->addRow(tr("&b"), b_);
    c_ = new QLineEdit(QStringLiteral("0"), instructionGroup_);
    c_->setObjectName("machineC");
    c_->setToolTip(tr("The accumulator's first value, rounded into the output format."));
    form->addRow(tr("&c"), c_);
    instructionError_ = new QLabel(instructionGroup_);
    instructionError_->setObjectName("machineInstructionError");
    instructionError_->setWordWrap(true);
    styleErrorLabel(*instructionError_);
    instructionError_->setVisible(false);
    form->addRow(instructionError_);
    column->addWidget(instructionGroup_);

    // Error against K.
    // The machines beside the rest of the form: one under the other, the form would be taller
    // than the plot it sits above.
    errorGroup_ = new QGroupBox(tr("Error against K"), controls);
    auto* errorRow = new QHBoxLayout(errorGroup_);
    auto* errorForm = new QFormLayout;
    errorForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    machines_ = new QListWidget(errorGroup_);
    machines_->setObjectName("machineList");
    machines_->setToolTip(tr("The machines plotted; those without an instruction for the "
                             "element are greyed."));
    fillMachines();
    // Every machine in sight: the list is as tall as its rows, up to a point (fitForm).
    machines_->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    errorRow->addWidget(machines_, 0, Qt::AlignTop);
    errorRow->addLayout(errorForm, 1);
    promote_ = new QSlider(Qt::Horizontal, errorGroup_);
    promote_->setObjectName("machinePromote");
    promote_->setRange(0, kPromoteMax / kPromoteStep);
    promote_->setValue(128 / kPromoteStep); // DeepSeek-V3's interval
    promote_->setPageStep(4);
    promote_->setTracking(false); // measure where the slider is let go
    promote_->setToolTip(tr("Promotion: every N elements the instruction's accumulator is added "
                            "into an FP32 total (0: off)."));
    promoteLabel_ = new QLabel(errorGroup_);
    promoteLabel_->setObjectName("machinePromoteLabel");
    errorForm->addRow(tr("&Promote"), promote_);
    errorForm->addRow(QString(), promoteLabel_);
    statistic_ = new QComboBox(errorGroup_);
    statistic_->setObjectName("machineStatistic");
    statistic_->addItem(tr("largest"), "max");
    statistic_->addItem(tr("mean"), "mean");
    statistic_->setToolTip(tr("The largest or the mean relative error of the results."));
    errorForm->addRow(tr("E&rror"), statistic_);
    // Positive values by default: no cancellation, so the error is what the accumulator loses
    // and not the conditioning of the sums.
    dist_ = new QLineEdit(QStringLiteral("uniform:0:1"), errorGroup_);
    dist_->setObjectName("machineDist");
    dist_->setToolTip(tr("The values of A and B: normal:MU:SIGMA, lognormal:MU:SIGMA, "
                         "laplace:B, student:NU or uniform:A:B, rounded into the element."));
    errorForm->addRow(tr("&Values"), dist_);
    auto* size = new QHBoxLayout;
    rows_ = new QSpinBox(errorGroup_);
    rows_->setObjectName("machineRows");
    rows_->setRange(1, 64);
    rows_->setValue(16);
    columns_ = new QSpinBox(errorGroup_);
    columns_->setObjectName("machineColumns");
    columns_->setRange(1, 64);
    columns_->setValue(16);
    size->addWidget(rows_);
    size->addWidget(new QLabel(QStringLiteral("×"), errorGroup_));
    size->addWidget(columns_);
    rows_->setToolTip(tr("m × n results at every K: the rows of A times the columns of B."));
    columns_->setToolTip(rows_->toolTip());
    errorForm->addRow(tr("Res&ults"), size);
    seed_ = new QSpinBox(errorGroup_);
    seed_->setObjectName("machineSeed");
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setValue(1);
    errorForm->addRow(tr("&Seed"), seed_);
    kMax_ = new QComboBox(errorGroup_);
    kMax_->setObjectName("machineKMax");
    for (int k = 64; k <= 16384; k *= 2)
        kMax_->addItem(QString::number(k), k);
    kMax_->setCurrentIndex(kMax_->findData(4096));
    kMax_->setToolTip(tr("The longest K: the plot measures 16, 32, … up to it."));
    errorForm->addRow(tr("Up to &K"), kMax_);
    // The sweep's progress and status stay in sight when the form folds: in its header.
    progress_ = new QProgressBar(this);
    progress_->setObjectName("machineProgress");
    progress_->setTextVisible(false);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    progress_->setMaximumWidth(fontMetrics().averageCharWidth() * 12);
    status_ = new StatusLine(this);
    status_->setObjectName("machineStatus");
    errorFormError_ = new QLabel(errorGroup_);
    errorFormError_->setObjectName("machineErrorFormError");
    errorFormError_->setWordWrap(true);
    styleErrorLabel(*errorFormError_);
    errorFormError_->setVisible(false);
    errorForm->addRow(errorFormError_);
    column->addWidget(errorGroup_);

    // Every machine.
    tableGroup_ = new QGroupBox(tr("Every machine"), controls);
    auto* tableForm = new QFormLayout(tableGroup_);
    tableForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    tableK_ = new QSpinBox(tableGroup_);
    tableK_->setObjectName("machineTableK");
    tableK_->setRange(0, 65536);
    tableK_->setSpecialValueText(tr("as typed"));
    tableK_->setToolTip(tr("a and b repeated to K elements; K longer than an instruction chains "
                           "instructions."));
    tableForm->addRow(tr("&K"), tableK_);
    tableError_ = new QLabel(tableGroup_);
    tableError_->setObjectName("machineTableError");
    tableError_->setWordWrap(true);
    styleErrorLabel(*tableError_);
    tableError_->setVisible(false);
    tableForm->addRow(tableError_);
    column->addWidget(tableGroup_);

    export_ = new QToolButton(this);
    export_->setObjectName("machineExport");
    export_->setText(tr("Export"));
    export_->setPopupMode(QToolButton::InstantPopup);
    export_->setToolTip(tr("Save the view shown: the picture, the plot or its data, the table."));
    auto* menu = new QMenu(export_);
    connect(menu, &QMenu::aboutToShow, this, &MachinesPage::fillExportMenu);
    export_->setMenu(menu);

    connect(openFile_, &QPushButton::clicked, this, &MachinesPage::openMachineFile);
    connect(machine_, &QComboBox::currentTextChanged, this, &MachinesPage::machineEdited);
    connect(element_, &QComboBox::currentIndexChanged, this, &MachinesPage::elementChosen);
    for (QLineEdit* edit : {a_, b_, c_})
        connect(edit, &QLineEdit::textChanged, this, [this] {
            redrawInstruction();
            tableFormChanged();
        });
    connect(machines_, &QListWidget::itemChanged, this, &MachinesPage::errorFormChanged);
    connect(promote_, &QSlider::valueChanged, this, [this] {
        updatePromoteLabel();
        errorFormChanged();
    });
    connect(promote_, &QSlider::sliderMoved, this, [this](int position) {
        promoteLabel_->setText(
            position == 0 ? tr("off") : tr("every %1 elements").arg(position * kPromoteStep));
    });
    connect(statistic_, &QComboBox::currentIndexChanged, this, [this] {
        if (!sweep_.curves.empty())
            drawErrorAgainstK(*plot_, sweep_,
                              statistic_->currentData() == "mean" ? ErrorStatistic::Mean
                                                                  : ErrorStatistic::Max,
                              own_);
    });
    connect(dist_, &QLineEdit::textChanged, this, &MachinesPage::errorFormChanged);
    for (QSpinBox* spin : {rows_, columns_, seed_})
        connect(spin, &QSpinBox::valueChanged, this, &MachinesPage::errorFormChanged);
    connect(kMax_, &QComboBox::currentIndexChanged, this, &MachinesPage::errorFormChanged);
    connect(tableK_, &QSpinBox::valueChanged, this, &MachinesPage::tableFormChanged);
    return controls;
}

bool MachinesPage::busy() const {
    return sweepRunner_.busy() || tableRunner_.busy();
}

void MachinesPage::showView(View view) {
    views_->setCurrentIndex(int(view));
}

MachinesPage::View MachinesPage::currentView() const {
    return View(views_->currentIndex());
}

QString MachinesPage::summaryText() const {
    return summary_->text();
}

const std::optional<DrawnInstruction>& MachinesPage::instruction() const {
    return picture_->drawn();
}

QString MachinesPage::errorText() const {
    switch (currentView()) {
    // Shown or not: a folded form still has its problem.
    case View::Instruction:
        return !instructionError_->isHidden() ? instructionError_->text() : QString();
    case View::Error:
        return !errorFormError_->isHidden() ? errorFormError_->text() : QString();
    case View::Table:
        return !tableError_->isHidden() ? tableError_->text() : QString();
    }
    return {};
}

void MachinesPage::updateGroups() {
    // The form shows what the view shown reads: the vectors for the picture and the table.
    const View view = currentView();
    instructionGroup_->setVisible(view != View::Error);
    errorGroup_->setVisible(view == View::Error);
    tableGroup_->setVisible(view == View::Table);
    progress_->setVisible(view == View::Error);
    status_->setVisible(view == View::Error);
}

void MachinesPage::machineEdited() {
    // A machine without the element switches the element to its first one.
    std::string error;
    const std::optional<MachineModel> machine =
        findMachine(machine_->currentText().trimmed().toStdString(), error, own_);
    if (machine && !machine->instructionFor(element_->currentData().toString().toStdString()) &&
        !machine->instructions.empty() && !machine->instructions.front().elements.empty()) {
        const QSignalBlocker blocker(element_);
        setElementId(text(machine->instructions.front().elements.front()));
        updateMachineList();
        errorFormChanged();
    }
    redrawInstruction();
    tableFormChanged();
}

void MachinesPage::elementChosen() {
    // The drawn machine follows an element it has no instruction for: the first that has one.
    const std::string element = element_->currentData().toString().toStdString();
    std::string error;
    const std::optional<MachineModel> machine =
        findMachine(machine_->currentText().trimmed().toStdString(), error, own_);
    if (machine && !machine->instructionFor(element)) {
        const std::vector<const MachineModel*> taking = machinesTaking(element, own_);
        if (!taking.empty()) {
            const QSignalBlocker blocker(machine_);
            machine_->setCurrentText(text(taking.front()->name));
        }
    }
    updateMachineList();
    redrawInstruction();
    errorFormChanged();
    tableFormChanged();
}

QString MachinesPage::setElementId(const QString& id) {
    std::string error;
    const std::optional<MachineElement> element = findPageElement(id.toStdString(), error);
    if (!element)
        return QString::fromStdString(error);
    const QString canonical = text(element->id);
    int index = element_->findData(canonical);
    if (index < 0) { // an element only the generic model takes
        element_->addItem(element->block ? tr("%1 (block-scaled)").arg(canonical) : canonical,
                          canonical);
        index = element_->count() - 1;
    }
    element_->setCurrentIndex(index);
    return {};
}

std::vector<const MachineModel*> MachinesPage::catalogue() const {
    return machineCatalogue(own_);
}

QString MachinesPage::loadMachineFile(const QString& path) {
    if (path.isEmpty()) {
        machineFile_.clear();
        own_.clear();
        fileLabel_->clear();
        fileLabel_->setVisible(false);
    } else {
        MachineFileParse parse = readMachineFile(path.toStdString());
        if (!parse) {
            const QString error = QString::fromStdString(parse.error);
            fileLabel_->setText(QStringLiteral("⚠ ") + error);
            fileLabel_->setToolTip(QString());
            styleErrorLabel(*fileLabel_);
            fileLabel_->setVisible(true);
            return error;
        }
        machineFile_ = path;
        own_ = std::move(parse.machines);
        fileLabel_->setStyleSheet(QString());
        fileLabel_->setText(own_.size() == 1
                                ? tr("1 machine from %1").arg(QFileInfo(path).fileName())
                                : tr("%1 machines from %2")
                                      .arg(qulonglong(own_.size()))
                                      .arg(QFileInfo(path).fileName()));
        fileLabel_->setToolTip(QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath()));
        fileLabel_->setVisible(true);
    }
    // The combo boxes and the list follow the catalogue; what was measured on machines of the
    // previous file is measured again.
    {
        const QSignalBlocker blockElement(element_);
        for (const std::string& id : machineElements(own_))
            if (element_->findData(text(id)) < 0) {
                // Before the separator and the block formats, where there are some.
                int at = element_->count();
                for (int i = 0; i < element_->count(); ++i)
                    if (!element_->itemData(i).isValid()) {
                        at = i;
                        break;
                    }
                element_->insertItem(at, text(id), text(id));
            }
        for (const std::string& id : machineBlockElements(own_))
            if (element_->findData(text(id)) < 0)
                element_->addItem(tr("%1 (block-scaled)").arg(text(id)), text(id));
    }
    fillMachines();
    fitForm();
    cache_.clear();
    cacheKey_.clear();
    redrawInstruction();
    plotStale_ = tableStale_ = true;
    refreshVisible();
    return {};
}

void MachinesPage::openMachineFile() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open machine file"), machineFile_,
                                     tr("Machine files (*.machines *.txt);;All files (*)"));
    if (!path.isEmpty())
        loadMachineFile(path);
}

void MachinesPage::fillMachines() {
    // The machine combo box keeps the text typed; the list keeps each machine's check and
    // checks the machines new to it.
    const std::vector<const MachineModel*> machines = catalogue();
    {
        const QSignalBlocker blocker(machine_);
        const QString current = machine_->currentText();
        machine_->clear();
        for (const MachineModel* machine : machines)
            machine_->addItem(text(machine->name));
        machine_->setCurrentText(current);
    }
    const QSignalBlocker blocker(machines_);
    std::map<QString, Qt::CheckState> checks;
    for (int i = 0; i < machines_->count(); ++i)
        checks[machines_->item(i)->text()] = machines_->item(i)->checkState();
    machines_->clear();
    for (const MachineModel* machine : machines) {
        auto* item = new QListWidgetItem(text(machine->name), machines_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        const auto known = checks.find(item->text());
        item->setCheckState(known == checks.end() ? Qt::Checked : known->second);
        item->setToolTip(text(machine->description));
    }
    updateMachineList();
}

void MachinesPage::updateMachineList() {
    const std::string element = element_->currentData().toString().toStdString();
    const std::vector<const MachineModel*> machines = catalogue();
    const QSignalBlocker blocker(machines_);
    for (int i = 0; i < machines_->count() && std::size_t(i) < machines.size(); ++i) {
        QListWidgetItem* item = machines_->item(i);
        const MachineModel& machine = *machines[std::size_t(i)];
        const MachineInstruction* instruction = machine.instructionFor(element);
        Qt::ItemFlags flags = item->flags();
        item->setFlags(instruction ? flags | Qt::ItemIsEnabled : flags & ~Qt::ItemIsEnabled);
        item->setToolTip(
            instruction
                ? tr("%1\n%2 products an instruction, F = %3")
                      .arg(text(machine.description))
                      .arg(instruction->products)
                      .arg(instruction->model.fractionBits)
                : tr("%1\nno instruction for %2").arg(text(machine.description), text(element)));
    }
}

void MachinesPage::updatePromoteLabel() {
    const int every = promote_->value() * kPromoteStep;
    promoteLabel_->setText(every == 0 ? tr("off") : tr("every %1 elements").arg(every));
}

void MachinesPage::redrawInstruction() {
    InstructionInput input;
    input.machine = machine_->currentText().trimmed().toStdString();
    input.element = element_->currentData().toString().toStdString();
    input.a = a_->text().toStdString();
    input.b = b_->text().toStdString();
    input.c = c_->text().toStdString();
    input.own = own_;
    std::string error;
    InstructionField field = InstructionField::Machine;
    std::optional<DrawnInstruction> drawn = drawInstruction(input, error, &field);
    markInvalid(*a_, !drawn && field == InstructionField::A);
    markInvalid(*b_, !drawn && field == InstructionField::B);
    markInvalid(*c_, !drawn && field == InstructionField::C);
    if (machine_->lineEdit())
        markInvalid(*machine_->lineEdit(), !drawn && field == InstructionField::Machine);
    if (!drawn) {
        const QString message = QString::fromStdString(error);
        instructionError_->setText(QStringLiteral("⚠ ") + message);
        instructionError_->setVisible(true);
        summary_->clear();
        picture_->setInstruction(std::nullopt, QStringLiteral("⚠ ") + message);
        return;
    }
    instructionError_->clear();
    instructionError_->setVisible(false);
    summary_->setText(QString::fromStdString(describeInstruction(*drawn)));
    picture_->setInstruction(std::move(drawn));
}

void MachinesPage::errorFormChanged() {
    plotStale_ = true;
    refreshVisible();
}

void MachinesPage::tableFormChanged() {
    tableStale_ = true;
    refreshVisible();
}

void MachinesPage::showEvent(QShowEvent* event) {
    Page::showEvent(event);
    refreshVisible();
}

void MachinesPage::refreshVisible() {
    // Only what is shown is measured: a hidden plot or table is marked stale and measured when
    // it is shown.
    if (!isVisible())
        return;
    if (currentView() == View::Error && plotStale_)
        startErrorSweep();
    if (currentView() == View::Table && tableStale_)
        startTable();
}

std::optional<ErrorSweepRequest> MachinesPage::errorRequest(QString& error) const {
    ErrorSweepRequest request;
    std::string problem;
    std::optional<MachineElement> element =
        findPageElement(element_->currentData().toString().toStdString(), problem);
    if (!element) {
        error = QString::fromStdString(problem);
        return std::nullopt;
    }
    request.element = std::move(*element);
    const std::vector<const MachineModel*> machines = catalogue();
    for (int i = 0; i < machines_->count() && std::size_t(i) < machines.size(); ++i) {
        const MachineModel& machine = *machines[std::size_t(i)];
        if (machines_->item(i)->checkState() == Qt::Checked &&
            machine.instructionFor(request.element.id))
            request.machines.push_back(machine);
    }
    if (request.machines.empty()) {
        error = tr("check a machine that has an instruction for %1").arg(text(request.element.id));
        return std::nullopt;
    }
    const std::optional<ValueDistribution> distribution =
        parseValueDistribution(dist_->text().trimmed().toStdString(), problem);
    if (!distribution) {
        error = tr("values: %1").arg(QString::fromStdString(problem));
        return std::nullopt;
    }
    request.distribution = *distribution;
    request.m = std::size_t(rows_->value());
    request.n = std::size_t(columns_->value());
    request.seed = std::uint64_t(seed_->value());
    request.ks = powersOfTwoUpTo(std::size_t(kMax_->currentData().toInt()));
    // Bounded work: a point measures m·n dot products of K exact products each, and cannot
    // stop halfway, so the largest point is capped (16×16 up to K = 16384, 64×64 up to 4096).
    constexpr std::size_t kMostProducts = std::size_t(1) << 24;
    if (request.m * request.n * request.ks.back() > kMostProducts) {
        error = tr("%1 × %2 results of K = %3: at most %4 products a point (fewer results or a "
                   "shorter K)")
                    .arg(qulonglong(request.m))
                    .arg(qulonglong(request.n))
                    .arg(qulonglong(request.ks.back()))
                    .arg(qulonglong(kMostProducts));
        return std::nullopt;
    }
    request.promoteEvery = std::size_t(promote_->value() * kPromoteStep);
    return request;
}

void MachinesPage::startErrorSweep() {
    plotStale_ = false;
    QString error;
    std::optional<ErrorSweepRequest> request = errorRequest(error);
    markInvalid(*dist_, !request && error.startsWith(tr("values:")));
    if (!request) {
        // A sweep in flight stops and is not shown: the form says what it lacks instead.
        sweepRunner_.discard([this, error] {
            progressTimer_.stop();
            progress_->setRange(0, 1);
            progress_->setValue(0);
            errorFormError_->setText(QStringLiteral("⚠ ") + error);
            errorFormError_->setVisible(true);
            if (sweep_.curves.empty())
                plots::drawMessage(*plot_, tr("Error against K"), QStringLiteral("⚠ ") + error,
                                   plots::Meaning::Bad);
            emit finished();
        });
        return;
    }
    errorFormError_->setVisible(false);
    const std::string key = request->element.id + "|" + request->distribution.text + "|" +
                            std::to_string(request->m) + "x" + std::to_string(request->n) + "|" +
                            std::to_string(request->seed) + "|" +
                            std::to_string(request->ks.back());
    if (key != cacheKey_) {
        cache_.clear();
        cacheKey_ = key;
    }
    status_->setStatus(tr("Measuring…"));
    progress_->setRange(0, 0);
    progressTimer_.start();
    // The curves measured before on the same data go with the job (copied: the job must not
    // read the page's cache while the GUI thread changes it).
    std::map<std::pair<std::string, std::size_t>, MachineErrorCurve> known = cache_;
    sweepRunner_.start([request = std::move(*request),
                        known = std::move(known)](JobControl& control) {
        return runErrorSweep(
            request,
            [&control](std::size_t done, std::size_t total) {
                return control.progress(done, total);
            },
            [&known](const std::string& machine, std::size_t every) -> const MachineErrorCurve* {
                const auto found = known.find({machine, every});
                return found == known.end() ? nullptr : &found->second;
            });
    });
}

void MachinesPage::applySweep(ErrorSweepResult result) {
    progressTimer_.stop();
    progress_->setRange(0, 1);
    progress_->setValue(result.cancelled ? 0 : 1);
    if (!result.error.empty()) {
        errorFormError_->setText(QStringLiteral("⚠ ") + QString::fromStdString(result.error));
        errorFormError_->setVisible(true);
        status_->setStatus(tr("Nothing measured."));
        emit finished();
        return;
    }
    sweep_ = std::move(result);
    const std::string key =
        sweep_.request.element.id + "|" + sweep_.request.distribution.text + "|" +
        std::to_string(sweep_.request.m) + "x" + std::to_string(sweep_.request.n) + "|" +
        std::to_string(sweep_.request.seed) + "|" + std::to_string(sweep_.request.ks.back());
    if (key == cacheKey_ && !sweep_.cancelled)
        for (const MachineErrorCurve& curve : sweep_.curves)
            cache_[{curve.machine, curve.promoteEvery}] = curve;
    std::size_t points = 0;
    for (const MachineErrorCurve& curve : sweep_.curves)
        points += curve.points.size();
    status_->setStatus(sweep_.cancelled ? tr("Stopped after %1 points.").arg(qulonglong(points))
                                        : tr("%1 curves, %2 results at each of %3 lengths K.")
                                              .arg(qulonglong(sweep_.curves.size()))
                                              .arg(qulonglong(sweep_.request.m * sweep_.request.n))
                                              .arg(qulonglong(sweep_.request.ks.size())));
    drawErrorAgainstK(
        *plot_, sweep_,
        statistic_->currentData() == "mean" ? ErrorStatistic::Mean : ErrorStatistic::Max, own_);
    emit finished();
}

void MachinesPage::startTable() {
    tableStale_ = false;
    std::string error;
    const std::optional<std::vector<ExactValue>> a =
        parseValueList(a_->text().toStdString(), error);
    std::optional<std::vector<ExactValue>> b;
    if (a) {
        b = parseValueList(b_->text().toStdString(), error);
        if (!b)
            error = "b: " + error;
    } else {
        error = "a: " + error;
    }
    std::optional<ExactValue> c = ExactValue();
    if (a && b && !c_->text().trimmed().isEmpty()) {
        const ParsedValue parsed = parseValue(c_->text().trimmed().toStdString());
        c = parsed.value;
        if (!c)
            error = "c: " + parsed.error.message;
    }
    if (!a || !b || !c) {
        const QString message = QString::fromStdString(error);
        tableRunner_.discard([this, message] {
            tableError_->setText(QStringLiteral("⚠ ") + message);
            tableError_->setVisible(true);
            emit finished();
        });
        return;
    }
    tableError_->setVisible(false);
    const std::string element = element_->currentData().toString().toStdString();
    const std::size_t k = std::size_t(tableK_->value());
    // The job has its own copy of one's machines: a file loaded meanwhile replaces the page's.
    tableRunner_.start([element, a = *a, b = *b, c = *c, k, own = own_](JobControl&) {
        return compareMachines(element, a, b, c, k, own);
    });
}

void MachinesPage::applyComparison(MachineComparison comparison) {
    comparison_ = std::move(comparison);
    if (!comparison_.error.empty()) {
        tableError_->setText(QStringLiteral("⚠ ") + QString::fromStdString(comparison_.error));
        tableError_->setVisible(true);
        table_->setRowCount(0);
        tableCaption_->clear();
        emit finished();
        return;
    }
    tableError_->setVisible(false);
    machine_table::fill(*table_, comparison_);
    std::size_t differ = 0, wrong = 0;
    for (const MachineComparisonRow& row : comparison_.rows) {
        differ += row.differsFromMajority ? 1 : 0;
        wrong += row.ulpsFromNearest && *row.ulpsFromNearest != 0 ? 1 : 0;
    }
    const auto results = [](std::size_t n) {
        return n == 1 ? tr("1 result") : tr("%1 results").arg(qulonglong(n));
    };
    const QString quantized =
        comparison_.blockScaled
            ? tr("a and b read as FP32 and quantized along K: a → %1; b → %2. The exact value, "
                 "of the FP32 inputs, includes the quantization's error; that of the quantized "
                 "operands is %3. ")
                  .arg(text(comparison_.quantizedA), text(comparison_.quantizedB),
                       shortDecimal(comparison_.dequantizedExact, 9))
            : QString();
    // Put together rather than one tr() with arguments: a text put in a place holder must not
    // meet the next one's digits ("%6" then "1 result" reads as "%61").
    tableCaption_->setText(
        tr("c + Σ a·b over K = %1 elements of %2 (a and b as typed, repeated), c = %3, on every "
           "machine that takes %2. ")
            .arg(qulonglong(comparison_.k))
            .arg(text(comparison_.element))
            .arg(c_->text().trimmed().isEmpty() ? QStringLiteral("0") : c_->text().trimmed()) +
        quantized +
        (wrong == 0 ? tr("Every result is the exact value rounded to nearest in FP32.")
                    : tr("%1 not the exact value rounded to nearest in FP32 (tinted).")
                          .arg(results(wrong))) +
        (differ == 0
             ? QString()
             : QStringLiteral(" ") + tr("%1 not the majority's (bold).").arg(results(differ))));
    emit finished();
}

void MachinesPage::fillExportMenu() {
    QMenu* menu = export_->menu();
    menu->clear();
    const View view = currentView();
    QStringList suffixes;
    if (view == View::Instruction)
        suffixes = {"png", "svg"};
    else if (view == View::Error)
        for (const plots::PlotWriter& writer : plots::plotWriters())
            suffixes << writer.suffix;
    else
        suffixes = {"csv"};
    const QString name = view == View::Instruction ? "fpx-machine-instruction"
                         : view == View::Error     ? "fpx-machine-error"
                                                   : "fpx-machines";
    for (const QString& suffix : suffixes) {
        const QString filter = suffix.toUpper() + " (*." + suffix + ")";
        menu->addAction(filter, this, [this, filter, name, suffix] {
            const QString path =
                QFileDialog::getSaveFileName(this, tr("Export"), name + "." + suffix, filter);
            QString error;
            if (!path.isEmpty() && !exportTo(path, &error)) {
                QLabel* label = currentView() == View::Error   ? errorFormError_
                                : currentView() == View::Table ? tableError_
                                                               : instructionError_;
                label->setText(QStringLiteral("⚠ ") + error);
                label->setVisible(true);
            }
        });
    }
}

bool MachinesPage::exportTo(const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    switch (currentView()) {
    case View::Instruction:
        return picture_->exportTo(path, error);
    case View::Error:
        if (suffix == "csv")
            return writeText(path, errorSweepCsv(sweep_), error);
        return plots::exportPlot(*plot_, plots::PlotData{}, path, error);
    case View::Table:
        if (suffix != "csv") {
            if (error)
                *error = tr("the table is written as .csv");
            return false;
        }
        return writeText(path, comparisonCsv(comparison_), error);
    }
    return false;
}

} // namespace fpx::gui
