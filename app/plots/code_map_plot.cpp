// SPDX-License-Identifier: GPL-3.0-or-later
#include "code_map_plot.h"

#include <qcustomplot.h>

#include <QFontMetrics>

#include <algorithm>

namespace fpx::plots {

namespace {

// The class colours, in the order of ValueClass's codes (0 zero, 1 subnormal, 2 normal,
// 3 infinity, 4 NaN), and the key that names them under the maps.
QCPColorGradient classColours() {
    QCPColorGradient gradient;
    gradient.setLevelCount(5);
    gradient.setColorStops({{0.0, QColor(0x9a, 0xa0, 0xa6)},
                            {0.25, QColor(0x9c, 0xc8, 0xf0)},
                            {0.5, QColor(0x3d, 0x7e, 0xe8)},
                            {0.75, QColor(0xe8, 0x9a, 0x2e)},
                            {1.0, QColor(0xde, 0x4b, 0x42)}});
    gradient.setColorInterpolation(QCPColorGradient::ciRGB);
    return gradient;
}

QSharedPointer<QCPAxisTickerText> hexTicks(int count) {
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    for (int n = 0; n < count; ++n)
        ticks->addTick(n, QString::number(n, 16));
    return ticks;
}

void drawMap(QCPAxisRect& rect, const FormatSeries& s, bool firstColumn) {
    const int codes = int(s.codeClasses.size());
    const int columns = std::min(16, codes);
    const int rows = codes / columns;
    QCPAxis* x = rect.axis(QCPAxis::atBottom);
    QCPAxis* y = rect.axis(QCPAxis::atLeft);
    x->setLabel(s.id);
    // One name for the rows, on the left column only: the maps beside it share it.
    y->setLabel(firstColumn && rows > 1 ? QObject::tr("high bits") : QString());
    y->setRangeReversed(true);
    auto* map = new QCPColorMap(x, y);
    map->setName(s.id + QObject::tr(" codes"));
    map->data()->setSize(columns, rows);
    // A map of n > 1 cells a side is drawn half a cell past the centres 0 and n − 1; a single
    // row spans its range exactly, so that range is the cell's own.
    map->data()->setRange(QCPRange(0, columns - 1),
                          rows > 1 ? QCPRange(0, rows - 1) : QCPRange(-0.5, 0.5));
    for (int code = 0; code < codes; ++code)
        map->data()->setCell(code % columns, code / columns,
                             s.codeClasses[static_cast<std::size_t>(code)]);
    map->setGradient(classColours());
    map->setDataRange(QCPRange(0, 4));
    map->setInterpolate(false);
    map->removeFromLegend();
    x->setTicker(hexTicks(columns));
    y->setTicker(hexTicks(rows));
    x->grid()->setVisible(false);
    y->grid()->setVisible(false);
    x->setRange(-0.5, columns - 0.5);
    y->setRange(-0.5, rows - 0.5);
    // Each row of cells a third of a line of text at least, two lines for a single row: below
    // that a 256-code map's rows merge into a smudge.
    const int line = QFontMetrics(y->tickLabelFont()).height();
    rect.setMinimumSize(0, std::max(2 * line, rows * line / 3));
}

} // namespace

void buildCodeMaps(QCustomPlot& plot, const PlotData& data) {
    std::vector<const FormatSeries*> shown;
    for (const FormatSeries& s : data.series)
        if (!s.codeClasses.empty())
            shown.push_back(&s);
    QCPAxisRect* first = plot.axisRect();
    if (shown.empty()) {
        first->axis(QCPAxis::atBottom)
            ->setLabel(QObject::tr("no format of at most 8 bits is shown: no code map"));
        return;
    }
    // Two maps a row: one column of six maps leaves each a strip on a projector, six columns
    // leave each cell a few pixels wide.
    const int columns = shown.size() > 1 ? 2 : 1;
    QCPLayoutGrid* layout = plot.plotLayout();
    int at = 0;
    while (at < layout->rowCount() && layout->element(at, 0) != first)
        ++at;
    layout->take(first);
    auto* grid = new QCPLayoutGrid;
    grid->setObjectName("codeMaps");
    layout->addElement(at, 0, grid);
    for (std::size_t i = 0; i < shown.size(); ++i) {
        QCPAxisRect* rect = i == 0 ? first : new QCPAxisRect(&plot);
        rect->setObjectName("codeMap");
        const int row = int(i) / columns;
        grid->addElement(row, int(i) % columns, rect);
        drawMap(*rect, *shown[i], i % std::size_t(columns) == 0);
    }
    // Each row of maps as tall as its tallest map has rows of cells, and three lines of text
    // more (its axis): a 16-row map then gives each row of cells a tick label's height, and an
    // FP4 strip does not take as much room as a 256-code map.
    for (int row = 0; row < grid->rowCount(); ++row) {
        std::size_t cells = 1;
        for (int column = 0; column < grid->columnCount(); ++column)
            if (std::size_t i = std::size_t(row * columns + column); i < shown.size())
                cells = std::max(cells, shown[i]->codeClasses.size() / 16);
        grid->setRowStretchFactor(row, double(cells) + 3);
    }
    auto* key = new QCPTextElement(
        &plot, QObject::tr("row × 16 + column = code; grey 0 · pale subnormal · blue normal · "
                           "orange ∞ · red NaN"));
    key->setObjectName("codeKey");
    layout->addElement(layout->rowCount(), 0, key);
    layout->setRowStretchFactor(layout->rowCount() - 1, 0.001);
}

} // namespace fpx::plots
