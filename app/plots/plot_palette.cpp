// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_palette.h"

#include <qcustomplot.h>

#include <algorithm>
#include <numeric>
#include <vector>

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

QBrush seriesBrush(int index) {
    static constexpr Qt::BrushStyle kHatches[] = {Qt::SolidPattern, Qt::BDiagPattern,
                                                  Qt::FDiagPattern, Qt::DiagCrossPattern};
    const int i = ((index % kDistinctSeriesStyles) + kDistinctSeriesStyles) % kDistinctSeriesStyles;
    return QBrush(colourAt(i), kHatches[i / kColours]);
}

int distinctSeriesIndex(int preferred, std::vector<int>& used) {
    for (int k = 0; k < kDistinctSeriesStyles; ++k) {
        const int i = (preferred + k) % kDistinctSeriesStyles;
        if (std::find(used.begin(), used.end(), i) == used.end()) {
            used.push_back(i);
            return i;
        }
    }
    used.push_back(preferred);
    return preferred; // more series than styles: repeating is all that is left
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

void applyTheme(QCustomPlot& plot) {
    applyTheme(plot, plotTheme(plot.palette()));
}

QColor meaningColour(Meaning meaning, const PlotTheme& theme) {
    // On a dark background the same hues, lighter, so that thin lines and text keep their
    // contrast; fills drawn in them read the same in both.
    auto hue = [&](QColor light) { return theme.dark ? light.lighter(135) : light; };
    switch (meaning) {
    case Meaning::Reference:
        return theme.foreground;
    case Meaning::Good:
        return hue(QColor(0x2e, 0x9d, 0x5a));
    case Meaning::Bad:
        return hue(QColor(0xd0, 0x40, 0x2f));
    case Meaning::Caution:
        return hue(QColor(0xe0, 0x8a, 0x00));
    case Meaning::Neutral:
        return theme.dark ? QColor(0xa8, 0xa8, 0xa8) : QColor(0x60, 0x60, 0x60);
    case Meaning::Faint:
        return theme.dark ? QColor(0x58, 0x58, 0x58) : QColor(0xb8, 0xb8, 0xb8);
    }
    return theme.foreground;
}

void placeLegendAbove(QCustomPlot& plot) {
    QCPLegend* legend = plot.legend;
    if (!legend)
        return;
    QCPLayoutGrid* layout = plot.plotLayout();
    if (plot.axisRect() && plot.axisRect()->insetLayout()->elements(false).contains(legend) &&
        plot.axisRect()->insetLayout()->take(legend))
        plot.axisRect()->insetLayout()->simplify();
    else if (QCPLayout* beside = legend->layout();
             beside && beside != layout && beside->take(legend))
        beside->simplify(); // a column of its own beside the data
    if (!layout->hasElement(0, 0) || layout->element(0, 0) != legend) {
        layout->insertRow(0);
        layout->addElement(0, 0, legend);
        layout->setRowStretchFactor(0, 0.001);
        layout->setRowSpacing(0);
    }
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setBorderPen(Qt::NoPen);
    legend->setMargins(QMargins(4, 2, 4, 2));
    fitLegendToWidth(plot);
}

void fitLegendToWidth(QCustomPlot& plot) {
    if (fitsLegendToWidth(plot))
        return;
    plot.setProperty("fpxLegendFits", true);
    QObject::connect(&plot, &QCustomPlot::beforeReplot, &plot,
                     [p = &plot] { wrapLegendToWidth(*p); });
}

bool fitsLegendToWidth(const QCustomPlot& plot) {
    return plot.property("fpxLegendFits").toBool();
}

void wrapLegendToWidth(QCustomPlot& plot) {
    QCPLegend* legend = plot.legend;
    if (!legend)
        return;
    legend->setMinimumSize(1, 0); // the width is the plot's, whatever the entries' hints
    std::vector<int> widths;
    for (int i = 0; i < legend->elementCount(); ++i)
        if (QCPLayoutElement* item = legend->elementAt(i))
            widths.push_back(item->minimumOuterSizeHint().width());
    if (widths.empty())
        return;
    // Filled row by row, entry i sits in column i mod c, and each column is as wide as its
    // widest entry: one long name costs its own column's width, not every column's.
    const int available = plot.width() - legend->margins().left() - legend->margins().right();
    const auto needed = [&](int columns) {
        std::vector<int> column(std::size_t(columns), 0);
        for (std::size_t i = 0; i < widths.size(); ++i)
            column[i % std::size_t(columns)] =
                std::max(column[i % std::size_t(columns)], widths[i]);
        return std::accumulate(column.begin(), column.end(), 0) +
               (columns - 1) * legend->columnSpacing();
    };
    int columns = int(widths.size());
    while (columns > 1 && needed(columns) > available)
        --columns;
    if (columns != legend->wrap() || legend->fillOrder() != QCPLayoutGrid::foColumnsFirst) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // lays the entries anew
    }
}

} // namespace fpx::plots
