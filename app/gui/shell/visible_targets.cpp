// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/visible_targets.h"

#include "common/page.h"
#include "pages/explorer/detail_panel.h"
#include "pages/explorer/format_table_model.h"
#include "pages/explorer/plots_panel.h"
#include "pages/explorer/table_fit.h"
#include "shell/main_window.h"

#include "fpx/exact/format_catalogue.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>

#include <qcustomplot.h>

#include <algorithm>
#include <limits>

namespace fpx::gui {
namespace {

QString columnTitle(const QAbstractItemModel& model, int column) {
    return model.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString().toLower();
}

int columnNamed(const QTableView& table, const QString& name) {
    const QAbstractItemModel* model = table.model();
    for (int c = 0; model && c < model->columnCount(); ++c)
        if (columnTitle(*model, c) == name)
            return c;
    return -1;
}

int rowOf(const MainWindow& window, const QString& name) {
    const FormatLookup lookup = findFormat(name.toStdString());
    const std::string id = lookup ? lookup.spec->id : name.toStdString();
    const auto& rows = window.controller()->rows();
    for (std::size_t r = 0; r < rows.size(); ++r)
        if (rows[r].spec.id == id)
            return int(r);
    return -1;
}

// The part of `widget` the window shows: its rectangle, in the window's coordinates, cut by
// every ancestor (a scroll area, a splitter pane, the window itself).
QRect shownPart(const QWidget& widget, const QWidget& window) {
    if (!widget.isVisible())
        return {};
    QRect part(widget.mapTo(&window, QPoint(0, 0)), widget.size());
    for (const QWidget* up = widget.parentWidget(); up && up != &window; up = up->parentWidget())
        part &= QRect(up->mapTo(&window, QPoint(0, 0)), up->size());
    return part & window.rect();
}

bool wholeOnScreen(const QWidget& widget, const QWidget& window) {
    const QRect whole(widget.mapTo(&window, QPoint(0, 0)), widget.size());
    return !whole.isEmpty() && shownPart(widget, window) == whole;
}

// Whether `area`, in the coordinates of `table`'s viewport, is on screen whole.
bool wholeInView(const QTableView& table, const QRect& area, const QWidget& window) {
    const QWidget& viewport = *table.viewport();
    const QRect inWindow(viewport.mapTo(&window, area.topLeft()), area.size());
    return !area.isEmpty() && shownPart(viewport, window).contains(inWindow);
}

QString columnProblem(const MainWindow& window, const QString& name) {
    const QTableView& table = *window.table();
    const int column = columnNamed(table, name);
    if (column < 0)
        return QString("no column '%1' in the Explorer's table").arg(name);
    const QString title = table.model()->headerData(column, Qt::Horizontal).toString();
    if (table.isColumnHidden(column) && TableFitter::inStoredLine(column)) {
        // Its line at the top of the Details tab stands in for it, for the selected row.
        const QLabel& line = *window.detailPanel()->storedLine();
        if (window.currentPage() != MainWindow::Page::Explorer || !line.isVisible() ||
            !wholeOnScreen(line, window))
            return QString("the column %1 stepped out of the narrow table, and the Details "
                           "tab's line that holds it is not shown")
                .arg(title);
        return {};
    }
    if (table.isColumnHidden(column))
        return QString("the column %1 is hidden (the table is too narrow)").arg(title);
    // The column's header-high strip at the top of the rows.
    const QRect strip(table.columnViewportPosition(column), 0, table.columnWidth(column),
                      std::min(table.viewport()->height(), table.fontMetrics().height()));
    if (!wholeInView(table, strip, window))
        return QString("the column %1 is scrolled out of view").arg(title);
    return {};
}

QString rowProblem(const MainWindow& window, const QString& name) {
    const QTableView& table = *window.table();
    const int row = rowOf(window, name);
    if (row < 0)
        return QString("no row '%1' in the Explorer's table").arg(name);
    // The row's format name: the whole height of the row, where its name is.
    const QRect head(table.columnViewportPosition(FormatTableModel::Name),
                     table.rowViewportPosition(row), table.columnWidth(FormatTableModel::Name),
                     table.rowHeight(row));
    if (!wholeInView(table, head, window))
        return QString("the row %1 is scrolled out of view").arg(name);
    return {};
}

QString tabProblem(const MainWindow& window, const QString& name) {
    const QWidget* tab = name == "details" ? static_cast<const QWidget*>(window.detailPanel())
                                           : static_cast<const QWidget*>(window.plotsPanel());
    if (window.currentPage() != MainWindow::Page::Explorer || !tab->isVisible())
        return QString("the Explorer's %1 tab is not shown").arg(name);
    if (shownPart(*tab, window).height() < tab->fontMetrics().height() * 3)
        return QString("the Explorer's %1 tab is squeezed to nothing").arg(name);
    return {};
}

QString plotProblem(const MainWindow& window) {
    const QWidget* page = window.hostedPage(window.currentPage());
    bool anyShown = false;
    // The shortest data of a plot shown whole that is squeezed, and the height it needs.
    int squeezedTo = -1, needed = 0;
    for (const QCustomPlot* plot : page->findChildren<QCustomPlot*>()) {
        if (!plot->isVisible())
            continue;
        anyShown = true;
        const int line = plot->fontMetrics().height();
        if (!wholeOnScreen(*plot, window) || plot->height() < line * kLegiblePlotLines)
            continue;
        // Titles, legend rows and axis labels may take the height: the data must keep some.
        int shortest = std::numeric_limits<int>::max();
        for (const QCPAxisRect* rect : plot->axisRects())
            if (rect->visible())
                shortest = std::min(shortest, rect->height());
        if (shortest >= line * kLegibleDataLines)
            return {};
        squeezedTo = shortest;
        needed = line * kLegibleDataLines;
    }
    if (squeezedTo >= 0)
        return QString("a plot is shown whole, but its titles, legend and labels leave its data "
                       "%1 px high, less than %2 lines (%3 px)")
            .arg(squeezedTo)
            .arg(kLegibleDataLines)
            .arg(needed);
    return anyShown ? QString("no plot of the page is shown whole at a legible height")
                    : QString("the page shows no plot");
}

} // namespace

std::optional<std::vector<VisibleTarget>> parseVisibleTargets(const QString& text, QString& error) {
    std::vector<VisibleTarget> targets;
    for (const QString& item : text.split(',')) {
        const QString entry = item.trimmed().toLower();
        const qsizetype colon = entry.indexOf(':');
        const QString kind = colon < 0 ? entry : entry.left(colon).trimmed();
        const QString name = colon < 0 ? QString() : entry.mid(colon + 1).trimmed();
        VisibleTarget target;
        target.name = name;
        if (kind == "plot" && colon < 0) {
            target.kind = VisibleTarget::Kind::Plot;
        } else if (kind == "column" && !name.isEmpty()) {
            target.kind = VisibleTarget::Kind::Column;
        } else if (kind == "row" && !name.isEmpty()) {
            target.kind = VisibleTarget::Kind::Row;
        } else if (kind == "tab" && (name == "details" || name == "plots")) {
            target.kind = VisibleTarget::Kind::Tab;
        } else {
            error = QString("'%1' is not something to show: expected column:NAME, row:FORMAT, "
                            "tab:details, tab:plots or plot")
                        .arg(item.trimmed());
            return std::nullopt;
        }
        targets.push_back(target);
    }
    return targets;
}

void bringIntoView(MainWindow& window, const std::vector<VisibleTarget>& targets) {
    for (const VisibleTarget& target : targets) {
        if (target.kind == VisibleTarget::Kind::Tab)
            window.showLowerTab(target.name == "details" ? 0 : 1);
        if (target.kind == VisibleTarget::Kind::Column) {
            const int column = columnNamed(*window.table(), target.name);
            if (column >= 0 && window.table()->isColumnHidden(column) &&
                TableFitter::inStoredLine(column))
                window.showLowerTab(0);
        }
        if (target.kind == VisibleTarget::Kind::Row) {
            const int row = rowOf(window, target.name);
            if (row >= 0)
                window.table()->scrollTo(window.table()->model()->index(row, 0));
        }
    }
}

QStringList hiddenTargets(const MainWindow& window, const std::vector<VisibleTarget>& targets) {
    QStringList problems;
    for (const VisibleTarget& target : targets) {
        QString problem;
        switch (target.kind) {
        case VisibleTarget::Kind::Column:
            problem = columnProblem(window, target.name);
            break;
        case VisibleTarget::Kind::Row:
            problem = rowProblem(window, target.name);
            break;
        case VisibleTarget::Kind::Tab:
            problem = tabProblem(window, target.name);
            break;
        case VisibleTarget::Kind::Plot:
            problem = plotProblem(window);
            break;
        }
        if (!problem.isEmpty())
            problems << problem;
    }
    return problems;
}

} // namespace fpx::gui
