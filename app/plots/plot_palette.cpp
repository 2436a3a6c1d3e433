// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_palette.h"

#include <qcustomplot.h>

namespace fpx::plots {

namespace {

constexpr int kColours = 8;
constexpr Qt::PenStyle kDashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine};

QColor colourAt(int i) {
    static const QColor colours[kColours] = {
        QColor(0x00, 0x72, 0xb2), // blue
        QColor(0xd5, 0x5e, 0x00), // vermillion
        QColor(0x00, 0x9e, 0x73), // bluish green
        QColor(0xe6, 0x9f, 0x00), // orange
        QColor(0xcc, 0x79, 0xa7), // reddish purple
        QColor(0x56, 0xb4, 0xe9), // sky blue
        QColor(0x88, 0x88, 0x88), // grey
        QColor(0xa6, 0x76, 0x1d), // brown
    };
    return colours[i % kColours];
}

} // namespace

SeriesStyle seriesStyle(int index) {
    const int i = ((index % kDistinctSeriesStyles) + kDistinctSeriesStyles) % kDistinctSeriesStyles;
    return {colourAt(i), kDashes[i / kColours]};
}

QColor seriesColour(int index) {
    return seriesStyle(index).colour;
}

QPen seriesPen(int index, double width) {
    const SeriesStyle style = seriesStyle(index);
    QPen pen(style.colour, width, style.dash);
    pen.setCapStyle(Qt::FlatCap);
    return pen;
}

PlotTheme plotTheme(const QPalette& palette) {
    PlotTheme t;
    const QColor window = palette.color(QPalette::Window);
    t.dark = window.lightness() < 128;
    if (t.dark) {
        t.background = palette.color(QPalette::Base).lightness() < 128
                           ? palette.color(QPalette::Base)
                           : QColor(0x20, 0x22, 0x26);
        t.foreground = palette.color(QPalette::WindowText).lightness() >= 128
                           ? palette.color(QPalette::WindowText)
                           : QColor(0xe8, 0xe8, 0xe8);
        t.grid = QColor(0x5a, 0x5e, 0x66);
        t.subGrid = QColor(0x3a, 0x3d, 0x44);
        t.legendBackground = t.background.lighter(115);
        t.muted = QColor(0x80, 0x80, 0x80);
    } else {
        t.background = Qt::white;
        t.foreground = Qt::black;
        t.grid = QColor(0xc8, 0xc8, 0xc8);
        t.subGrid = QColor(0xe6, 0xe6, 0xe6);
        t.legendBackground = QColor(0xfa, 0xfa, 0xfa);
        t.muted = Qt::gray;
    }
    return t;
}

void applyTheme(QCustomPlot& plot, const PlotTheme& theme) {
    plot.setBackground(theme.background);
    const QPen axisPen(theme.foreground, 1);
    for (QCPAxisRect* rect : plot.axisRects()) {
        rect->setBackground(theme.background);
        for (QCPAxis* axis : rect->axes()) {
            axis->setBasePen(axisPen);
            axis->setTickPen(axisPen);
            axis->setSubTickPen(axisPen);
            axis->setLabelColor(theme.foreground);
            axis->setTickLabelColor(theme.foreground);
            axis->grid()->setPen(QPen(theme.grid, 0, Qt::DotLine));
            axis->grid()->setSubGridPen(QPen(theme.subGrid, 0, Qt::DotLine));
            axis->grid()->setZeroLinePen(QPen(theme.grid, 1));
        }
    }
    for (QCPLayoutElement* element : plot.plotLayout()->elements(true)) {
        if (auto* text = qobject_cast<QCPTextElement*>(element)) {
            // Coloured texts (the ε/2 labels) keep their series' colour.
            if (text->textColor() == Qt::black || text->textColor() == Qt::white)
                text->setTextColor(theme.foreground);
        } else if (auto* legend = qobject_cast<QCPLegend*>(element)) {
            legend->setBrush(theme.legendBackground);
            legend->setBorderPen(QPen(theme.grid));
            legend->setTextColor(theme.foreground);
            // A legend wrapped into columns has empty cells: item() is null there.
            for (int i = 0; i < legend->itemCount(); ++i)
                if (QCPAbstractLegendItem* item = legend->item(i))
                    item->setTextColor(theme.foreground);
        }
    }
    for (int i = 0; i < plot.itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot.item(i)))
            if (text->color() == Qt::black)
                text->setColor(theme.foreground);
}

} // namespace fpx::plots
