// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/plots_panel.h"

#include "common/flow_layout.h"
#include "common/folding_form.h"
#include "pages/explorer/explorer_controller.h"
#include "plot_builder.h"
#include "plot_palette.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/value_parser.h"
#include "fpx/quantization/memory_footprint.h"
#include "fpx/quantization/training_recipe.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace fpx::gui {

namespace {

// 37187500000 → "37,187,500,000": exact bytes, grouped to be read aloud.
QString groupedInteger(std::uint64_t n) {
    QString digits = QString::number(n);
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, ',');
    return digits;
}

// `field` after its `label`, as one control of a row that breaks.
void labelled(QWidget& group, const QString& label, QWidget* field) {
    auto* layout = new QHBoxLayout(&group);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(label, &group));
    layout->addWidget(field);
}

} // namespace

PlotsPanel::PlotsPanel(ExplorerController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller),
      runner_(
          this, [this](plots::PlotData data) { applyResult(std::move(data)); },
          [this](const std::string& message) {
              showStatus(QStringLiteral("⚠ ") + QString::fromStdString(message));
              emit plotReady();
          }) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    kindBox_ = new QComboBox(this);
    kindBox_->setObjectName("plotKind");
    for (plots::PlotKind k :
         {plots::PlotKind::Error, plots::PlotKind::Ulp, plots::PlotKind::Precision,
          plots::PlotKind::Range, plots::PlotKind::Values, plots::PlotKind::Codes,
          plots::PlotKind::Memory})
        kindBox_->addItem(plots::plotKindTitle(k), static_cast<int>(k));
    kindBox_->setToolTip(
        tr("Rounding error: the sawtooth of stored − x, and the relative error against ε/2.\n"
           "ULP spacing: the gap between neighbours, a staircase in magnitude.\n"
           "Range: smallest subnormal, smallest normal and largest value, with decimal digits.\n"
           "Representable values: every value of small formats on one line.\n"
           "Code map: every code of small formats in a grid, coloured by what it decodes to.\n"
           "Memory: bytes for N parameters, block scales included; for training, by recipe."));
    fromEdit_ = new QLineEdit(QStringLiteral("0.0625"), this);
    toEdit_ = new QLineEdit(QStringLiteral("8"), this);
    fromEdit_->setObjectName("plotFrom");
    toEdit_->setObjectName("plotTo");
    for (QLineEdit* edit : {fromEdit_, toEdit_}) {
        edit->setMaximumWidth(110);
        edit->setPlaceholderText(tr("auto"));
    }
    ranges_[plots::PlotKind::Error] = {QStringLiteral("0.0625"), QStringLiteral("8")};
    logBox_ = new QCheckBox(tr("log x"), this);
    logBox_->setObjectName("plotLog");
    // The memory plot's own controls, shown in place of the x range when it is up.
    parametersControls_ = new QWidget(this);
    parametersBox_ = new QComboBox(parametersControls_);
    parametersBox_->setObjectName("plotParameters");
    parametersBox_->setEditable(true);
    parametersBox_->addItems({"1B", "7B", "70B", "405B"});
    parametersBox_->setCurrentText("70B");
    parametersBox_->setInsertPolicy(QComboBox::NoInsert);
    parametersBox_->setToolTip(tr("Parameters of the model: a preset, or any count like 13B, "
                                  "350M, 1.5T or 7e9."));
    // Inference by format, or training by recipe: a recipe fixes the format of every array it
    // stores, so the formats shown play no part in it.
    recipeBox_ = new QComboBox(this);
    recipeBox_->setObjectName("plotRecipe");
    recipeBox_->addItem(tr("inference"), QStringLiteral("inference"));
    recipeBox_->addItem(tr("training: BF16 mixed"), QStringLiteral("bf16-mixed"));
    recipeBox_->addItem(tr("training: FP8 (TE)"), QStringLiteral("fp8"));
    recipeBox_->addItem(tr("training: QLoRA"), QStringLiteral("qlora"));
    recipeBox_->addItem(tr("training: all three"), QStringLiteral("training"));
    recipeBox_->setToolTip(
        tr("Inference: the weights of each format shown, block scales included.\n"
           "BF16 mixed: BF16 weights and gradients, FP32 master weights, Adam m and v in FP32 "
           "(16 bytes per parameter).\n"
           "FP8 (Transformer Engine style): as BF16 mixed, plus an FP8 E4M3 copy of the weights "
           "for the matrix multiplies; gradients stay BF16.\n"
           "QLoRA: frozen NF4 weights (double-quantized absmax) without gradients; BF16 "
           "adapters with BF16 gradients and FP32 Adam m and v."));
    adaptersControls_ = new QWidget(this);
    adaptersBox_ = new QComboBox(adaptersControls_);
    adaptersBox_->setObjectName("plotAdapters");
    adaptersBox_->setEditable(true);
    adaptersBox_->addItems({"0.5%", "1%", "2%"});
    adaptersBox_->setInsertPolicy(QComboBox::NoInsert);
    adaptersBox_->setToolTip(tr("QLoRA's adapter parameters: a share of the model's (0.5%) or a "
                                "count (40M). Rank 16 on every linear layer of a LLaMA-style "
                                "model is about 0.3 % (70B) to 0.6 % (7B)."));
    gibBox_ = new QCheckBox(tr("GiB"), this);
    gibBox_->setObjectName("plotGib");
    gibBox_->setToolTip(tr("Bars in GiB (2^30 bytes) instead of GB (10^9 bytes)."));
    labelled(*parametersControls_, tr("parameters"), parametersBox_);
    labelled(*adaptersControls_, tr("adapters"), adaptersBox_);
    for (QWidget* memory : memoryControls())
        memory->hide();
    rubberBand_ = new QToolButton(this);
    rubberBand_->setText(tr("Zoom box"));
    rubberBand_->setCheckable(true);
    rubberBand_->setToolTip(tr("Drag a rectangle to zoom into it (instead of panning)."));
    reset_ = new QPushButton(tr("Reset view"), this);
    reset_->setToolTip(tr("Show all the data again."));
    export_ = new QToolButton(this);
    export_->setText(tr("Export"));
    export_->setPopupMode(QToolButton::InstantPopup);
    export_->setToolTip(tr("Save the plot as PNG, PDF or SVG, or its data as CSV."));
    auto* exportMenu = new QMenu(export_);
    for (const plots::PlotWriter& writer : plots::plotWriters()) {
        exportMenu->addAction(
            writer.description + " (*." + writer.suffix + ")", this, [this, writer] {
                const QString path = QFileDialog::getSaveFileName(
                    this, tr("Export plot"),
                    "fpx-" + plots::plotKindId(request_.kind) + "." + writer.suffix,
                    writer.description + " (*." + writer.suffix + ")");
                if (!path.isEmpty())
                    exportTo(path);
            });
    }
    export_->setMenu(exportMenu);
    // The x range and log switch mean nothing on the memory plot: its own controls take their
    // place, so that the bar fits a 1024-pixel window at 150 %.
    rangeControls_ = new QWidget(this);
    auto* rangeLayout = new QHBoxLayout(rangeControls_);
    rangeLayout->setContentsMargins(0, 0, 0, 0);
    rangeLayout->addWidget(new QLabel(tr("x from"), rangeControls_));
    rangeLayout->addWidget(fromEdit_);
    rangeLayout->addWidget(new QLabel(tr("to"), rangeControls_));
    rangeLayout->addWidget(toEdit_);
    rangeLayout->addWidget(logBox_);
    // What is plotted, then what to do with the view, in rows that break where the page is
    // narrow: in one row they ask for more width than the Explorer has beside the Lessons
    // panel on a 1024-pixel projector. The boxes ask for their whole text but give way to
    // about a dozen characters (their text cut).
    for (QComboBox* box : {kindBox_, recipeBox_})
        box->setMinimumWidth(box->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 12);
    auto* bar = new FlowLayout;
    const std::array<QWidget*, 9> controls{kindBox_,
                                           rangeControls_,
                                           parametersControls_,
                                           recipeBox_,
                                           adaptersControls_,
                                           gibBox_,
                                           rubberBand_,
                                           reset_,
                                           export_};
    for (QWidget* control : controls)
        bar->addWidget(control);
    layout->addLayout(bar);
    plot_ = new QCustomPlot(this);
    plot_->setObjectName("plot");
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectAxes |
                           QCP::iSelectLegend | QCP::iSelectPlottables);
    plot_->setMinimumHeight(220);
    layout->addWidget(plot_, 1);
    // The status (computing…, or what is wrong with the range) is one line over the plot's top
    // edge, the whole message on hover: its text never moves the controls or the plot.
    status_ = new StatusLine(plot_);
    status_->setObjectName("plotStatus");
    status_->setAutoFillBackground(true);
    status_->hide();
    plot_->installEventFilter(this);

    connect(kindBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        setKind(static_cast<plots::PlotKind>(kindBox_->itemData(i).toInt()));
    });
    connect(fromEdit_, &QLineEdit::editingFinished, this, &PlotsPanel::recompute);
    connect(toEdit_, &QLineEdit::editingFinished, this, &PlotsPanel::recompute);
    connect(logBox_, &QCheckBox::toggled, this, &PlotsPanel::recompute);
    connect(parametersBox_->lineEdit(), &QLineEdit::editingFinished, this,
            &PlotsPanel::onParametersEdited);
    connect(parametersBox_, &QComboBox::activated, this, &PlotsPanel::onParametersEdited);
    connect(recipeBox_, &QComboBox::currentIndexChanged, this, [this] {
        updateSwitches();
        recompute();
    });
    connect(adaptersBox_->lineEdit(), &QLineEdit::editingFinished, this,
            &PlotsPanel::onAdaptersEdited);
    connect(adaptersBox_, &QComboBox::activated, this, &PlotsPanel::onAdaptersEdited);
    connect(gibBox_, &QCheckBox::toggled, this, &PlotsPanel::recompute);
    connect(rubberBand_, &QToolButton::toggled, this,
            [this](bool on) { plot_->setSelectionRectMode(on ? QCP::srmZoom : QCP::srmNone); });
    connect(reset_, &QPushButton::clicked, this, [this] {
        plots::buildPlot(*plot_, data_);
        updateMarker();
    });
    connect(plot_, &QCustomPlot::legendClick, this,
            [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
                // A click on a legend entry hides or shows its series.
                auto* entry = qobject_cast<QCPPlottableLegendItem*>(item);
                if (!entry)
                    return;
                QCPAbstractPlottable* plottable = entry->plottable();
                plottable->setVisible(!plottable->visible());
                const plots::PlotTheme theme = plots::plotTheme(plot_->palette());
                entry->setTextColor(plottable->visible() ? theme.foreground : theme.muted);
                plot_->replot();
            });
    connect(plot_, &QCustomPlot::selectionChangedByUser, this, &PlotsPanel::onSelectionChanged);
    connect(plot_, &QCustomPlot::mouseMove, this, &PlotsPanel::onMouseMove);
    connect(controller_, &ExplorerController::formatsChanged, this, &PlotsPanel::recompute);
    connect(controller_, &ExplorerController::optionsChanged, this, &PlotsPanel::recompute);
    connect(controller_, &ExplorerController::rowsChanged, this, &PlotsPanel::updateMarker);
    updateSwitches();
    recompute();
}

PlotsPanel::~PlotsPanel() = default;

void PlotsPanel::setKind(plots::PlotKind kind) {
    const int index = kindBox_->findData(static_cast<int>(kind));
    if (kindBox_->currentIndex() != index) {
        kindBox_->setCurrentIndex(index); // comes back here through the signal
        return;
    }
    if (kind != request_.kind) {
        ranges_[request_.kind] = {fromEdit_->text(), toEdit_->text()};
        const auto range = ranges_.find(kind);
        const QSignalBlocker blockFrom(fromEdit_), blockTo(toEdit_);
        fromEdit_->setText(range == ranges_.end() ? QString() : range->second.first);
        toEdit_->setText(range == ranges_.end() ? QString() : range->second.second);
    }
    request_.kind = kind;
    updateSwitches();
    recompute();
}

void PlotsPanel::setXRange(const QString& from, const QString& to) {
    fromEdit_->setText(from);
    toEdit_->setText(to);
    ranges_[request_.kind] = {from, to};
    recompute();
}

std::pair<QString, QString> PlotsPanel::xRange() const {
    return {fromEdit_->text(), toEdit_->text()};
}

// The switches that mean nothing for this kind are disabled and say why.
void PlotsPanel::updateSwitches() {
    const plots::PlotSwitches sw = plots::plotSwitches(request_.kind);
    const QString rangeTip =
        request_.kind == plots::PlotKind::Error
            ? tr("The x range of the error plot (any value: 1/16, 2^-4).")
            : tr("The x range to show (any value: 1/16, 2^-4); empty: the plot's own first "
                 "view. ULP and range plots show the magnitudes |from| … |to|.");
    for (QLineEdit* edit : {fromEdit_, toEdit_}) {
        edit->setEnabled(sw.range);
        edit->setToolTip(sw.range ? rangeTip : sw.rangeWhy);
    }
    logBox_->setEnabled(sw.log);
    logBox_->setToolTip(sw.log ? sw.logMeaning : sw.logWhy);
    logBox_->setText(request_.kind == plots::PlotKind::Values ? tr("symmetric log") : tr("log x"));
    for (QWidget* memory : memoryControls())
        memory->setVisible(request_.kind == plots::PlotKind::Memory);
    // The x range and log switch where they mean something: not for the memory bars or the
    // code map's grid.
    rangeControls_->setVisible(sw.range || sw.log);
    const QString recipe = recipeBox_->currentData().toString();
    const bool qlora = recipe == "qlora" || recipe == "training";
    adaptersControls_->setVisible(request_.kind == plots::PlotKind::Memory && qlora);
}

bool PlotsPanel::setParameters(const QString& text, QString* error) {
    std::string why;
    const auto count = parseParameterCount(text.toStdString(), why);
    if (!count) {
        if (error)
            *error = QString::fromStdString(why);
        return false;
    }
    request_.parameters = *count;
    const QSignalBlocker block(parametersBox_);
    parametersBox_->setCurrentText(QString::fromStdString(parameterCountText(*count)));
    recompute();
    return true;
}

void PlotsPanel::onParametersEdited() {
    QString error;
    if (!setParameters(parametersBox_->currentText(), &error)) {
        showStatus(error);
        parametersBox_->setToolTip(error);
    }
}

bool PlotsPanel::setAdapterParams(const QString& text, QString* error) {
    std::string why;
    const auto size = parseAdapterSize(text.toStdString(), why);
    if (!size) {
        if (error)
            *error = QString::fromStdString(why);
        return false;
    }
    request_.adapters = *size;
    const QSignalBlocker block(adaptersBox_);
    adaptersBox_->setCurrentText(QString::fromStdString(adapterSizeText(*size)));
    recompute();
    return true;
}

QString PlotsPanel::adapterParams() const {
    return QString::fromStdString(adapterSizeText(request_.adapters));
}

void PlotsPanel::onAdaptersEdited() {
    QString error;
    if (!setAdapterParams(adaptersBox_->currentText(), &error)) {
        showStatus(error);
        adaptersBox_->setToolTip(error);
    }
}

void PlotsPanel::resetToDefaults() {
    const plots::PlotRequest defaults;
    {
        const QSignalBlocker blockers[] = {
            QSignalBlocker(fromEdit_),     QSignalBlocker(toEdit_),      QSignalBlocker(logBox_),
            QSignalBlocker(recipeBox_),    QSignalBlocker(adaptersBox_), QSignalBlocker(gibBox_),
            QSignalBlocker(parametersBox_)};
        ranges_.clear();
        fromEdit_->clear();
        toEdit_->clear();
        logBox_->setChecked(false);
        recipeBox_->setCurrentIndex(0);
        gibBox_->setChecked(false);
        request_.adapters = defaults.adapters;
        adaptersBox_->setCurrentText(QString::fromStdString(adapterSizeText(defaults.adapters)));
        request_.parameters = defaults.parameters;
        parametersBox_->setCurrentText(
            QString::fromStdString(parameterCountText(defaults.parameters)));
    }
    setKind(defaults.kind);
    recompute();
}

void PlotsPanel::setMemoryRecipes(const std::vector<TrainingRecipe>& recipes) {
    const int index = recipeBox_->findData(QString::fromStdString(memoryRecipesText(recipes)));
    recipeBox_->setCurrentIndex(std::max(index, 0));
}

std::vector<TrainingRecipe> PlotsPanel::memoryRecipes() const {
    std::string error;
    return parseMemoryRecipes(recipeBox_->currentData().toString().toStdString(), error)
        .value_or(std::vector<TrainingRecipe>{});
}

void PlotsPanel::setMemoryGib(bool gib) {
    gibBox_->setChecked(gib);
}

bool PlotsPanel::memoryGib() const {
    return gibBox_->isChecked();
}

void PlotsPanel::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (stale_)
        recompute();
}

void PlotsPanel::recompute() {
    if (!isVisible()) {
        stale_ = true;
        return;
    }
    stale_ = false;
    request_.formats = controller_->formats();
    request_.options = controller_->roundingOptions();
    const plots::PlotSwitches sw = plots::plotSwitches(request_.kind);
    request_.logarithmic = sw.log && logBox_->isChecked();
    request_.symmetricLog = request_.kind == plots::PlotKind::Values && request_.logarithmic;
    request_.recipes = memoryRecipes();
    request_.gib = gibBox_->isChecked();
    // An x range that does not read, or is empty, leaves the kind's own first view (the
    // error plot's: 1/16 … 8).
    request_.rangeSet = false;
    const ParsedValue from = parseValue(fromEdit_->text().toStdString());
    const ParsedValue to = parseValue(toEdit_->text().toStdString());
    if (sw.range && from && to && from.value->isFinite() && to.value->isFinite() &&
        compare(*from.value, *to.value) < 0) {
        request_.from = nearestDouble(*from.value);
        request_.to = nearestDouble(*to.value);
        request_.rangeSet = true;
    } else if (request_.kind == plots::PlotKind::Error) {
        request_.from = 0.0625;
        request_.to = 8;
    }
    if (request_.kind == plots::PlotKind::Error && request_.logarithmic && request_.from <= 0)
        request_.logarithmic = false;
    // Values and code maps only make sense for small formats.
    if (request_.kind == plots::PlotKind::Values || request_.kind == plots::PlotKind::Codes) {
        std::vector<FormatSpec> small;
        for (const FormatSpec& spec : request_.formats)
            if (spec.totalBits() <= 8)
                small.push_back(spec);
        request_.formats = small;
    }
    showStatus(tr("computing…"));
    // A plot already in flight is dropped when it is done; this one follows it.
    runner_.start([request = request_](JobControl&) { return plots::computePlotData(request); });
}

std::array<QWidget*, 4> PlotsPanel::memoryControls() const {
    return {parametersControls_, recipeBox_, adaptersControls_, gibBox_};
}

void PlotsPanel::showStatus(const QString& text) {
    status_->setStatus(text);
    status_->setVisible(!text.isEmpty());
    placeStatus();
}

void PlotsPanel::placeStatus() {
    const int height = status_->sizeHint().height();
    status_->setGeometry(0, 0, plot_->width(), height);
    status_->raise();
}

bool PlotsPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize)
        placeStatus();
    return QWidget::eventFilter(watched, event);
}

void PlotsPanel::applyResult(plots::PlotData data) {
    data_ = std::move(data);
    plots::buildPlot(*plot_, data_);
    updateMarker();
    showStatus({});
    emit plotReady();
}

void PlotsPanel::updateMarker() {
    if (request_.kind != plots::PlotKind::Error && request_.kind != plots::PlotKind::Values)
        return;
    // No marker for ±∞ or NaN.
    const ExactValue& input = controller_->inputValue();
    double x = input.isFinite() ? nearestDouble(input) : std::nan("");
    if (request_.kind == plots::PlotKind::Values && request_.symmetricLog && std::isfinite(x))
        x = std::copysign(std::log10(1 + std::abs(x) / 0.01), x);
    plots::setValueMarker(*plot_, x);
}

QString PlotsPanel::readoutAt(double x) const {
    QStringList lines;
    if (request_.kind == plots::PlotKind::Memory) {
        const long index = std::lround(x) - 1;
        if (index < 0 || index >= static_cast<long>(data_.memory.size()))
            return {};
        const MemoryFootprint& f = data_.memory[static_cast<std::size_t>(index)];
        const std::uint64_t unit = plots::memoryUnitBytes(data_.request.gib);
        lines << tr("%1, %2 parameters: %3 bytes (%4 %5)")
                     .arg(QString::fromStdString(f.label),
                          QString::fromStdString(parameterCountText(f.parameters)),
                          groupedInteger(f.totalBytes()),
                          QString::fromStdString(bytesInUnit(f.totalBytes(), unit, 3)),
                          plots::memoryUnitName(data_.request.gib));
        for (const FootprintPart& part : f.parts)
            lines << tr("  %1: %2 bytes (%3)")
                         .arg(QString::fromStdString(part.name), groupedInteger(part.bytes),
                              QString::fromStdString(part.storage));
        return lines.join('\n');
    }
    lines << tr("x = %1").arg(x, 0, 'g', 10);
    if (request_.kind == plots::PlotKind::Error || request_.kind == plots::PlotKind::Values) {
        const ParsedValue exact = parseValue(QString::number(x, 'g', 17).toStdString());
        if (exact) {
            for (const ExplorerRow& row : controller_->rows()) {
                const DecodedCode d = decodeCode(
                    row.spec,
                    roundToFormat(*exact.value, row.spec, controller_->roundingOptions()).code);
                lines << QStringLiteral("%1: %2").arg(
                    QString::fromStdString(row.spec.id),
                    QString::fromStdString(toDecimal(d.value).text).left(40));
            }
        }
    }
    return lines.join('\n');
}

void PlotsPanel::onMouseMove(QMouseEvent* event) {
    QCPAxisRect* rect = plot_->axisRectAt(event->position());
    if (!rect)
        return;
    if (rect->objectName() == "codeMap") {
        // The code under the cursor in the 16×16 map, with its value.
        const int column = static_cast<int>(
            std::lround(rect->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x())));
        const int row = static_cast<int>(
            std::lround(rect->axis(QCPAxis::atLeft)->pixelToCoord(event->position().y())));
        if (column < 0 || column > 15 || row < 0 || row > 15)
            return;
        for (const FormatSpec& spec : request_.formats) {
            if (spec.totalBits() != 8)
                continue;
            const Code code = static_cast<Code>(row * 16 + column);
            const DecodedCode d = decodeCode(spec, code);
            QToolTip::showText(
                event->globalPosition().toPoint(),
                QStringLiteral("%1 %2: %3 (%4)")
                    .arg(QString::fromStdString(spec.id),
                         QString::fromStdString(codeToHex(code, 8)),
                         QString::fromStdString(toDecimal(d.value).text),
                         QString::fromStdString(std::string(valueClassName(d.valueClass)))),
                plot_);
            return;
        }
        return;
    }
    const double x = rect->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x());
    const QString text = readoutAt(x);
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
}

void PlotsPanel::onSelectionChanged() {
    // Drag and zoom follow a selected axis only (QCustomPlot's interaction example).
    for (QCPAxisRect* rect : plot_->axisRects()) {
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        QCPAxis* y = rect->axis(QCPAxis::atLeft);
        Qt::Orientations orientations = Qt::Horizontal | Qt::Vertical;
        if (x->selectedParts().testFlag(QCPAxis::spAxis) ||
            x->selectedParts().testFlag(QCPAxis::spTickLabels))
            orientations = Qt::Horizontal;
        else if (y->selectedParts().testFlag(QCPAxis::spAxis) ||
                 y->selectedParts().testFlag(QCPAxis::spTickLabels))
            orientations = Qt::Vertical;
        rect->setRangeDrag(orientations);
        rect->setRangeZoom(orientations);
    }
}

bool PlotsPanel::exportTo(const QString& path, QString* error) {
    return plots::exportPlot(*plot_, data_, path, error);
}

} // namespace fpx::gui
