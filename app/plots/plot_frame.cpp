// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_frame.h"

#include <qcustomplot.h>

#include <QPainter>
#include <QPixmap>

#include <algorithm>

namespace fpx::plots {

namespace {

// Clears the plot and puts a legend in its layout at (row, 0), above what follows.
QCPLegend* startPlot(QCustomPlot& plot, int row, int legendColumns, int legendPointSize) {
    plot.clearPlottables();
    plot.clearItems();
    plot.plotLayout()->clear();
    auto* legend = new QCPLegend;
    plot.plotLayout()->addElement(row, 0, legend);
    plot.plotLayout()->setRowStretchFactor(row, 0.01);
    plot.plotLayout()->setRowSpacing(2);
    plot.legend = legend;
    styleLegend(*legend, legendPointSize);
    legend->setWrap(legendColumns);
    fitLegendToWidth(plot); // rewraps `legendColumns` as the plot is resized or zoomed
    return legend;
}

// Clears the plot and lays out its title (row 0) and legend (row 1); the axis rects go below.
void startPlot(QCustomPlot& plot, const QString& title, int legendColumns) {
    startPlot(plot, 1, legendColumns, FrameFonts{}.legend);
    plot.plotLayout()->addElement(0, 0, makeTitle(plot, title));
    plot.plotLayout()->setRowStretchFactor(0, 0.01);
}

} // namespace

QCPTextElement* makeTitle(QCustomPlot& plot, const QString& text, int pointSize) {
    return new QCPTextElement(&plot, text, QFont("sans", pointSize, QFont::Bold));
}

void styleLegend(QCPLegend& legend, int pointSize) {
    legend.setLayer("legend");
    legend.setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend.setFont(QFont("sans", pointSize));
    legend.setBorderPen(Qt::NoPen);
    legend.setMargins(QMargins(2, 0, 2, 0));
}

std::vector<QCPAxisRect*> resetPanelsPlot(QCustomPlot& plot, const QStringList& titles,
                                          int legendColumns, const FrameFonts& fonts) {
    startPlot(plot, 0, legendColumns, fonts.legend);
    auto* panels = new QCPLayoutGrid;
    plot.plotLayout()->addElement(1, 0, panels);
    std::vector<QCPAxisRect*> made;
    for (int column = 0; column < titles.size(); ++column) {
        panels->addElement(0, column, makeTitle(plot, titles[column], fonts.title));
        auto* rect = new QCPAxisRect(&plot);
        panels->addElement(1, column, rect);
        made.push_back(rect);
    }
    panels->setRowStretchFactor(0, 0.01);
    return made;
}

QCPAxisRect* resetPlot(QCustomPlot& plot, const QString& title, int legendColumns) {
    startPlot(plot, title, legendColumns);
    auto* rect = new QCPAxisRect(&plot);
    plot.plotLayout()->addElement(2, 0, rect);
    return rect;
}

std::vector<QCPAxisRect*> resetStackedPlot(QCustomPlot& plot, const QString& title, int rects,
                                           int legendColumns) {
    startPlot(plot, title, legendColumns);
    auto* margins = new QCPMarginGroup(&plot);
    std::vector<QCPAxisRect*> made;
    for (int r = 0; r < rects; ++r) {
        auto* rect = new QCPAxisRect(&plot);
        rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
        for (QCPAxis* axis : rect->axes())
            setStackedAxisFonts(*axis);
        plot.plotLayout()->addElement(2 + r, 0, rect);
        made.push_back(rect);
    }
    return made;
}

void setStackedAxisFonts(QCPAxis& axis) {
    axis.setTickLabelFont(QFont("sans", 8));
    axis.setLabelFont(QFont("sans", 9));
}

int legendColumns(const QCustomPlot& plot, const QString& longestEntry) {
    const int entry = QFontMetrics(QFont("sans", 8)).horizontalAdvance(longestEntry);
    return std::max(1, plot.width() / (entry + 40));
}

QIcon seriesSwatch(int index) {
    QPixmap swatch(24, 12);
    swatch.fill(Qt::transparent);
    QPainter painter(&swatch);
    QPen pen = seriesPen(index, 3);
    painter.setPen(pen);
    painter.drawLine(1, 6, 23, 6);
    return QIcon(swatch);
}

void drawMessage(QCustomPlot& plot, const QString& title, const QString& message, Meaning meaning) {
    QCPAxisRect* rect = resetPlot(plot, title);
    plot.legend->setVisible(false);
    for (QCPAxis* axis : rect->axes()) { // no data: no axes to read
        axis->setVisible(false);
        axis->grid()->setVisible(false);
    }
    auto* text = new QCPItemText(&plot);
    text->setClipToAxisRect(false);
    text->position->setType(QCPItemPosition::ptViewportRatio);
    text->position->setCoords(0.5, 0.5);
    // Item text does not wrap: break the message into lines that fit the plot.
    const QFontMetrics metrics(QFont("sans", 10));
    const int width = std::max(200, plot.width() - 40);
    QStringList lines;
    for (const QString& word : message.split(' ', Qt::SkipEmptyParts)) {
        if (!lines.isEmpty() && metrics.horizontalAdvance(lines.back() + ' ' + word) <= width)
            lines.back() += ' ' + word;
        else
            lines << word;
    }
    text->setText(lines.join('\n'));
    text->setFont(QFont("sans", 10));
    const PlotTheme theme = plotTheme(plot.palette());
    text->setColor(meaningColour(meaning, theme));
    applyTheme(plot, theme);
    plot.replot();
}

} // namespace fpx::plots
