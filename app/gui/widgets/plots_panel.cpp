// SPDX-License-Identifier: GPL-3.0-or-later
#include "plots_panel.h"

#include "models/explorer_controller.h"
#include "plot_builder.h"

#include "fpx/conversion.h"
#include "fpx/decimal_text.h"
#include "fpx/value_parser.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <cmath>

namespace fpx::gui {

namespace {

double nearestDouble(const ExactValue& v) {
    if (!v.isFinite())
        return std::nan("");
    return std::strtod(toSignificantDigits(v, 17).c_str(), nullptr);
}

} // namespace

PlotsPanel::PlotsPanel(ExplorerController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QHBoxLayout;
    kindBox_ = new QComboBox(this);
    kindBox_->setObjectName("plotKind");
    for (plots::PlotKind k : {plots::PlotKind::Error, plots::PlotKind::Ulp, plots::PlotKind::Range,
                              plots::PlotKind::Values, plots::PlotKind::Memory})
        kindBox_->addItem(plots::plotKindTitle(k), static_cast<int>(k));
    kindBox_->setToolTip(
        tr("Rounding error: the sawtooth of stored − x, and the relative error against ε/2.\n"
           "ULP spacing: the gap between neighbours, a staircase in magnitude.\n"
           "Range: smallest subnormal, smallest normal and largest value, with decimal digits.\n"
           "Representable values: every value of small formats on one line.\n"
           "Memory: bytes for N parameters, block scales included."));
    fromEdit_ = new QLineEdit(QStringLiteral("0.0625"), this);
    toEdit_ = new QLineEdit(QStringLiteral("8"), this);
    fromEdit_->setToolTip(tr("Start of the x range of the error plot (any value: 1/16, 2^-4)."));
    toEdit_->setToolTip(tr("End of the x range of the error plot."));
    fromEdit_->setMaximumWidth(110);
    toEdit_->setMaximumWidth(110);
    logBox_ = new QCheckBox(tr("log x"), this);
    logBox_->setToolTip(
        tr("Logarithmic x axis (error plot, positive ranges): every binade gets the same width."));
    symlogBox_ = new QCheckBox(tr("symmetric log"), this);
    symlogBox_->setToolTip(
        tr("Values plot: a symmetric logarithmic axis, to see small and large values together."));
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
    status_ = new QLabel(this);
    bar->addWidget(kindBox_);
    bar->addWidget(new QLabel(tr("x from"), this));
    bar->addWidget(fromEdit_);
    bar->addWidget(new QLabel(tr("to"), this));
    bar->addWidget(toEdit_);
    bar->addWidget(logBox_);
    bar->addWidget(symlogBox_);
    bar->addStretch();
    bar->addWidget(status_);
    bar->addWidget(rubberBand_);
    bar->addWidget(reset_);
    bar->addWidget(export_);
    layout->addLayout(bar);
    plot_ = new QCustomPlot(this);
    plot_->setObjectName("plot");
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectAxes |
                           QCP::iSelectLegend | QCP::iSelectPlottables);
    plot_->setMinimumHeight(220);
    layout->addWidget(plot_, 1);

    connect(&watcher_, &QFutureWatcher<plots::PlotData>::finished, this, &PlotsPanel::applyResult);
    connect(kindBox_, &QComboBox::currentIndexChanged, this, [this](int i) {
        setKind(static_cast<plots::PlotKind>(kindBox_->itemData(i).toInt()));
    });
    connect(fromEdit_, &QLineEdit::editingFinished, this, &PlotsPanel::recompute);
    connect(toEdit_, &QLineEdit::editingFinished, this, &PlotsPanel::recompute);
    connect(logBox_, &QCheckBox::toggled, this, &PlotsPanel::recompute);
    connect(symlogBox_, &QCheckBox::toggled, this, &PlotsPanel::recompute);
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
                entry->setTextColor(plottable->visible() ? Qt::black : Qt::gray);
                plot_->replot();
            });
    connect(plot_, &QCustomPlot::selectionChangedByUser, this, &PlotsPanel::onSelectionChanged);
    connect(plot_, &QCustomPlot::mouseMove, this, &PlotsPanel::onMouseMove);
    connect(controller_, &ExplorerController::formatsChanged, this, &PlotsPanel::recompute);
    connect(controller_, &ExplorerController::optionsChanged, this, &PlotsPanel::recompute);
    connect(controller_, &ExplorerController::rowsChanged, this, &PlotsPanel::updateMarker);
    recompute();
}

PlotsPanel::~PlotsPanel() {
    watcher_.waitForFinished();
}

void PlotsPanel::setKind(plots::PlotKind kind) {
    const int index = kindBox_->findData(static_cast<int>(kind));
    if (kindBox_->currentIndex() != index)
        kindBox_->setCurrentIndex(index); // comes back here through the signal
    request_.kind = kind;
    recompute();
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
    request_.logarithmic = logBox_->isChecked();
    request_.symmetricLog = symlogBox_->isChecked();
    const ParsedValue from = parseValue(fromEdit_->text().toStdString());
    const ParsedValue to = parseValue(toEdit_->text().toStdString());
    if (from && to && from.value->isFinite() && to.value->isFinite() &&
        compare(*from.value, *to.value) < 0) {
        request_.from = nearestDouble(*from.value);
        request_.to = nearestDouble(*to.value);
    }
    if (request_.logarithmic && request_.from <= 0)
        request_.logarithmic = false;
    // Values and code maps only make sense for small formats.
    if (request_.kind == plots::PlotKind::Values) {
        std::vector<FormatSpec> small;
        for (const FormatSpec& spec : request_.formats)
            if (spec.totalBits() <= 8)
                small.push_back(spec);
        request_.formats = small;
    }
    if (watcher_.isRunning()) {
        pending_ = true; // one more round when this one finishes
        return;
    }
    status_->setText(tr("computing…"));
    watcher_.setFuture(
        QtConcurrent::run([request = request_] { return plots::computePlotData(request); }));
}

void PlotsPanel::applyResult() {
    if (pending_) {
        pending_ = false;
        recompute();
        return;
    }
    data_ = watcher_.result();
    plots::buildPlot(*plot_, data_);
    updateMarker();
    status_->clear();
    emit plotReady();
}

void PlotsPanel::updateMarker() {
    if (request_.kind != plots::PlotKind::Error && request_.kind != plots::PlotKind::Values)
        return;
    double x = nearestDouble(controller_->inputValue());
    if (request_.kind == plots::PlotKind::Values && request_.symmetricLog && std::isfinite(x))
        x = std::copysign(std::log10(1 + std::abs(x) / 0.01), x);
    plots::setValueMarker(*plot_, x);
}

QString PlotsPanel::readoutAt(double x) const {
    QStringList lines;
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
    QToolTip::showText(event->globalPosition().toPoint(), readoutAt(x), plot_);
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
