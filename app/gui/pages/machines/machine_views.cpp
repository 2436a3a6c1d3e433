// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/machines/machine_views.h"

#include "common/number_text.h"
#include "common/zoom.h"
#include "plot_frame.h"
#include "plot_palette.h"

#include "fpx/exact/decimal_text.h"

#include <qcustomplot.h>

#include <QHeaderView>
#include <QTableWidget>

#include <cmath>

namespace fpx::gui {

void drawErrorAgainstK(QCustomPlot& plot, const ErrorSweepResult& result, ErrorStatistic statistic,
                       std::span<const MachineModel> own) {
    const bool max = statistic == ErrorStatistic::Max;
    const QString what =
        max ? QObject::tr("Largest relative error") : QObject::tr("Mean relative error");
    QString title = QObject::tr("%1 of %2×%3 dot products, %4 elements from %5")
                        .arg(what)
                        .arg(qulonglong(result.request.m))
                        .arg(qulonglong(result.request.n))
                        .arg(QString::fromStdString(result.request.element.id),
                             QString::fromStdString(result.request.distribution.text));
    if (result.cancelled)
        title += QObject::tr(" (cancelled)");
    QCPAxisRect* rect = plots::resetPlot(plot, title, 3);
    const plots::PlotTheme theme = plots::plotTheme(plot.palette());
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    auto xTicker = QSharedPointer<QCPAxisTickerLog>::create();
    xTicker->setLogBase(2);
    xTicker->setSubTickCount(0);
    x->setScaleType(QCPAxis::stLogarithmic);
    x->setTicker(xTicker);
    x->setNumberFormat("f");
    x->setNumberPrecision(0);
    // Short axis names, whole on a projector at any plot size: the title says what is measured.
    x->setLabel(QObject::tr("K"));
    y->setScaleType(QCPAxis::stLogarithmic);
    y->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    y->setNumberFormat("eb");
    y->setNumberPrecision(0);
    y->grid()->setSubGridVisible(true);

    // One colour per machine, by its place among the built-in machines and then one's own, so
    // that a machine keeps its colour whichever others are plotted; its promoted curve dashed
    // in the same colour.
    std::vector<std::string> order;
    for (const MachineModel& machine : builtInMachines())
        order.push_back(machine.name);
    for (const MachineModel& machine : own)
        order.push_back(machine.name);
    for (const MachineModel& machine : result.request.machines)
        if (std::find(order.begin(), order.end(), machine.name) == order.end())
            order.push_back(machine.name);
    double low = HUGE_VAL, high = 0;
    bool exactSomewhere = false;
    for (const MachineErrorCurve& curve : result.curves) {
        const int colour =
            int(std::find(order.begin(), order.end(), curve.machine) - order.begin());
        const int style = colour % 8 + (curve.promoteEvery > 0 ? 8 : 0) + 16 * (colour / 8);
        QCPGraph* graph = plot.addGraph(x, y);
        QVector<double> xs, ys;
        for (const MachineErrorPoint& p : curve.points) {
            const double e = max ? p.maxRelativeError : p.meanRelativeError;
            xs << double(p.k);
            ys << (e > 0 && p.compared > 0 ? e : std::nan("")); // no point for 0 on a log axis
            if (e > 0) {
                low = std::min(low, e);
                high = std::max(high, e);
            } else if (p.compared > 0) {
                exactSomewhere = true;
            }
        }
        graph->setData(xs, ys, true);
        bool all = !curve.points.empty();
        for (const MachineErrorPoint& p : curve.points)
            all = all && p.compared > 0 && (max ? p.maxRelativeError : p.meanRelativeError) == 0;
        const QPen pen = plots::seriesPen(style, 2);
        graph->setPen(pen);
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, pen.color(),
                                               curve.promoteEvery > 0 ? Qt::white : pen.color(),
                                               6));
        graph->setName(curve.promoteEvery > 0 ? QObject::tr("%1, promoted every %2")
                                                    .arg(QString::fromStdString(curve.machine))
                                                    .arg(qulonglong(curve.promoteEvery))
                                              : QString::fromStdString(curve.machine));
        if (all)
            graph->setName(QObject::tr("%1 (exact at every K)").arg(graph->name()));
    }
    // FP32's unit roundoff: what one correctly rounded FP32 result may be off by.
    const double unit = std::ldexp(1.0, -24);
    QCPGraph* reference = plot.addGraph(x, y);
    const std::vector<std::size_t>& ks = result.request.ks;
    if (!ks.empty()) {
        reference->setData({double(ks.front()), double(ks.back())}, {unit, unit}, true);
        x->setRange(double(ks.front()) / 1.3, double(ks.back()) * 1.3);
    }
    reference->setPen(
        QPen(plots::meaningColour(plots::Meaning::Reference, theme), 1.5, Qt::DashLine));
    reference->setName(QObject::tr("FP32 unit roundoff 2^-24"));
    low = std::min(low, unit);
    high = std::max(high, unit);
    // The legend names the curves exact at every K; the notes say what the error is against.
    QStringList notes;
    if (result.request.element.block)
        notes << QObject::tr("Against the exact products of the %1-quantized operands:")
                     .arg(QString::fromStdString(result.request.element.id))
              << QObject::tr("the instructions' error, not the quantization's.");
    // Short lines: the note must fit a plot half a 1024-pixel projector wide at 150 %.
    if (exactSomewhere)
        notes << QObject::tr("A missing point: every result exact at that K")
              << QObject::tr("(0 has no place on a log axis).");
    // With no error to show, a range wide enough for the axis to read; with notes, room below
    // the curves for them.
    const double below = notes.isEmpty() ? 3 : 3 * std::pow(10.0, double(notes.size()) / 2);
    y->setRange(low == high ? low / 1000 : low / below, low == high ? high * 1000 : high * 3);
    if (!notes.isEmpty()) {
        // The legend lists curves only: say why a curve lacks a point.
        auto* note = new QCPItemText(&plot);
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setAxisRect(rect);
        note->position->setCoords(0.02, 0.97);
        note->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        note->setText(notes.join(QLatin1Char('\n')));
        note->setTextAlignment(Qt::AlignLeft);
        // Readable over a curve or the unit roundoff's line that passes behind it.
        note->setBrush(QBrush(theme.legendBackground));
        note->setPadding(QMargins(4, 2, 4, 2));
        note->setColor(theme.foreground);
    }
    plots::applyTheme(plot, theme);
    plot.replot();
}

namespace machine_table {

void setUp(QTableWidget& table) {
    table.setColumnCount(ColumnCount);
    // Short headings, their meaning in the tooltips: at 1024 pixels every column fits.
    table.setHorizontalHeaderLabels({QObject::tr("Machine"), QObject::tr("F"), QObject::tr("G"),
                                     QObject::tr("Output"), QObject::tr("Result"),
                                     QObject::tr("Bits"), QObject::tr("Instr."),
                                     QObject::tr("Rel. error"), QObject::tr("vs FP32")});
    table.horizontalHeaderItem(FractionBits)
        ->setToolTip(QObject::tr("Fraction bits kept below the largest exponent"));
    table.horizontalHeaderItem(Products)->setToolTip(QObject::tr("Products an instruction fuses"));
    table.horizontalHeaderItem(Output)->setToolTip(QObject::tr("The instruction's output format"));
    table.horizontalHeaderItem(Result)->setToolTip(
        QObject::tr("What the machine returns: tinted where it is not the exact value rounded to "
                    "nearest in FP32, bold where it differs from most machines"));
    table.horizontalHeaderItem(Bits)->setToolTip(QObject::tr("The result's code in its format"));
    table.horizontalHeaderItem(Instructions)
        ->setToolTip(QObject::tr("Instructions chained for the K elements"));
    table.horizontalHeaderItem(RelativeError)
        ->setToolTip(
            QObject::tr("(result − exact) / exact, of the operands as the machine reads them"));
    table.horizontalHeaderItem(FromNearest)
        ->setToolTip(QObject::tr("The result's distance from the exact value rounded to nearest "
                                 "even in FP32, in FP32 ulps"));
    table.setEditTriggers(QAbstractItemView::NoEditTriggers);
    table.setSelectionBehavior(QAbstractItemView::SelectRows);
    table.verticalHeader()->setVisible(false);
    table.horizontalHeader()->setStretchLastSection(true);
    table.setAlternatingRowColors(true);
}

void fill(QTableWidget& table, const MachineComparison& comparison) {
    table.setRowCount(int(comparison.rows.size()));
    const plots::PlotTheme theme = plots::plotTheme(table.palette());
    auto tint = [&](plots::Meaning meaning) {
        QColor c = plots::meaningColour(meaning, theme);
        c.setAlphaF(0.28f);
        return c;
    };
    for (int r = 0; r < int(comparison.rows.size()); ++r) {
        const MachineComparisonRow& row = comparison.rows[std::size_t(r)];
        auto set = [&](int column, const QString& text, const QString& tip = {}) {
            auto* item = new QTableWidgetItem(text);
            if (!tip.isEmpty())
                item->setToolTip(tip);
            if (column != Machine && column != Output)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table.setItem(r, column, item);
            return item;
        };
        set(Machine, QString::fromStdString(row.machine));
        set(FractionBits, QString::number(row.fractionBits));
        set(Products, QString::number(row.products));
        set(Output, QString::fromStdString(row.output));
        QTableWidgetItem* result =
            set(Result, shortDecimal(row.value, 10),
                fullDecimal(row.value) + QObject::tr("\nexact %1").arg(fullDecimal(row.exact)));
        result->setFont(fixedPitchFont());
        if (row.ulpsFromNearest && *row.ulpsFromNearest != 0)
            result->setBackground(tint(plots::Meaning::Bad));
        if (row.differsFromMajority) {
            QFont bold = fixedPitchFont();
            bold.setBold(true);
            result->setFont(bold);
            result->setToolTip(result->toolTip() + QObject::tr("\ndiffers from most machines"));
        }
        QTableWidgetItem* bits =
            set(Bits, codeHex(*row.format, row.bits),
                QObject::tr("in %1").arg(QString::fromStdString(row.format->id)));
        bits->setFont(fixedPitchFont());
        set(Instructions, QString::number(qulonglong(row.steps)));
        set(RelativeError, row.relative.isNaN()
                               ? QStringLiteral("–")
                               : QString::fromStdString(toSignificantDigits(row.relative, 3)));
        QString ulps = QStringLiteral("–");
        if (row.ulpsFromNearest) {
            const double u = *row.ulpsFromNearest;
            ulps = u == 0 ? QObject::tr("same")
                          : QObject::tr("%1%2 ulp").arg(u > 0 ? "+" : "").arg(u, 0, 'g', 4);
        }
        set(FromNearest, ulps,
            QObject::tr("The result's distance from %1, the exact value rounded to nearest even "
                        "in FP32, in FP32 ulps")
                .arg(fullDecimal(row.fp32Nearest)));
    }
    table.resizeColumnsToContents();
}

} // namespace machine_table

} // namespace fpx::gui
