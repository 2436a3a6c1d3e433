// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/plot_legibility.h"

#include "plot_palette.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QFontMetricsF>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <set>

namespace fpx::gui {

namespace {

constexpr const char* kInstalled = "fpxLegible";

// What the page asked of one axis's ticker, so that every pass thins from that and not from what
// an earlier pass left: a wider plot (a smaller zoom) gets its ticks back. A page that sets a new
// ticker, or new ticks or a new count on the same one, is seen as asking anew.
struct AxisTicks {
    QWeakPointer<QCPAxisTicker> ticker;
    int ownCount = 0;
    int appliedCount = 0;
    QMap<double, QString> ownTicks;
    QMap<double, QString> appliedTicks;
    bool labelsHidden = false; // this pass turned the labels off: no room for two
    bool drawn = false;        // its margin has been measured again after its first draw
};

class Legibility : public QObject {
  public:
    explicit Legibility(QCustomPlot& plot) : QObject(&plot), plot_(&plot) {
        connect(&plot, &QCustomPlot::afterLayout, this, &Legibility::afterLayout);
        connect(&plot, &QCustomPlot::afterReplot, this, &Legibility::measureDrawnAxes);
    }

  private:
    void afterLayout();
    void measureDrawnAxes();
    bool wrapTexts();
    void relayout();
    bool fitTicks(QCPAxis& axis);
    bool fitLegend();
    void drawThinnestOnTop();
    void keepMinimumHeight();

    QCustomPlot* plot_;
    std::map<const QCPAxis*, AxisTicks> axes_;
    bool busy_ = false;
};

// The size of `label` as QCustomPlot draws it on `axis`. With beautiful powers ("eb", "gb") a
// number's exponent is typeset: 1e+04 is drawn "10" and a raised "4" in three-quarter type, and
// 2.5e-07 "2.5·10" and "-7"; on a log axis a mantissa of 1 is left out. Measuring the plain
// "1e+04" found labels colliding that are drawn with room to spare.
QSizeF drawnLabelSize(const QCPAxis& axis, const QString& label) {
    const QFont font = axis.tickLabelFont();
    const auto size = [](const QFont& f, const QString& text) {
        return QFontMetricsF(f)
            .boundingRect(QRectF(), Qt::AlignCenter | Qt::TextDontClip, text)
            .size();
    };
    const bool beautiful = axis.numberFormat().contains(QLatin1Char('b'));
    const qsizetype e = label.indexOf(QLatin1Char('e'));
    qsizetype last = e;
    while (last + 1 < label.size() &&
           (label.at(last + 1) == QLatin1Char('+') || label.at(last + 1) == QLatin1Char('-') ||
            label.at(last + 1).isDigit()))
        ++last;
    if (!beautiful || e <= 0 || !label.at(e - 1).isDigit() || last == e)
        return size(font, label);
    QString base = label.left(e);
    base = axis.scaleType() == QCPAxis::stLogarithmic && base == QLatin1String("1")
               ? QStringLiteral("10")
               : base + QChar(0xb7) + QStringLiteral("10");
    QString exponent = label.mid(e + 1, last - e);
    while (exponent.size() > 2 && exponent.at(1) == QLatin1Char('0'))
        exponent.remove(1, 1);
    if (exponent.startsWith(QLatin1Char('+')))
        exponent.remove(0, 1);
    QFont small = font;
    if (small.pointSizeF() > 0)
        small.setPointSizeF(small.pointSizeF() * 0.75);
    else
        small.setPixelSize(int(small.pixelSize() * 0.75));
    const QSizeF drawn = size(font, base);
    return {drawn.width() + size(small, exponent).width() +
                size(font, label.mid(last + 1)).width() + 2,
            drawn.height()};
}

// The extent of `label` along `axis`, and the gap it wants from its neighbours.
double labelExtent(const QCPAxis& axis, const QString& label) {
    const QSizeF size = drawnLabelSize(axis, label);
    const double angle = axis.tickLabelRotation() * std::numbers::pi / 180;
    const double c = std::abs(std::cos(angle)), s = std::abs(std::sin(angle));
    return axis.orientation() == Qt::Horizontal ? size.width() * c + size.height() * s
                                                : size.height() * c + size.width() * s;
}

bool inRange(const QCPAxis& axis, double value) {
    return value >= axis.range().lower && value <= axis.range().upper;
}

QCPAxisTickerText* textTicker(QCPAxis& axis) {
    return dynamic_cast<QCPAxisTickerText*>(axis.ticker().data());
}

// Every `stride`-th of the ticks inside the axis's range (and those outside, which are not
// drawn), so the kept labels are evenly spaced.
QMap<double, QString> everyNth(const QCPAxis& axis, const QMap<double, QString>& ticks,
                               int stride) {
    QMap<double, QString> kept;
    int index = 0;
    for (auto it = ticks.begin(); it != ticks.end(); ++it) {
        if (!inRange(axis, it.key())) {
            kept.insert(it.key(), it.value());
            continue;
        }
        if (index++ % stride == 0)
            kept.insert(it.key(), it.value());
    }
    return kept;
}

bool Legibility::fitTicks(QCPAxis& axis) {
    QSharedPointer<QCPAxisTicker> ticker = axis.ticker();
    // An axis is forgotten as it goes, not at the next layout: a page that rebuilds its plot
    // may get a new axis at the old one's address, which must not inherit its thinned count.
    const auto [entry, added] = axes_.try_emplace(&axis);
    if (added)
        connect(&axis, &QObject::destroyed, this, [this, key = &axis] { axes_.erase(key); });
    AxisTicks& state = entry->second;
    // Labels this pass hid (below) are the page's again once the axis has room.
    const bool hidden = state.labelsHidden && !axis.tickLabels();
    state.labelsHidden = false;
    if (!ticker || !axis.visible() || !(axis.tickLabels() || hidden))
        return false;
    if (axis.axisRect()->width() <= 1 || axis.axisRect()->height() <= 1) {
        // Squashed flat: no room for any label at all.
        state.labelsHidden = true;
        const bool changed = axis.tickLabels();
        axis.setTickLabels(false);
        return changed;
    }
    const bool sameTicker = state.ticker.toStrongRef() == ticker;
    if (QCPAxisTickerText* text = textTicker(axis)) {
        if (hidden) // every-k-th always leaves room for one label
            axis.setTickLabels(true);
        if (!sameTicker || text->ticks() != state.appliedTicks)
            state.ownTicks = text->ticks();
        state.ticker = ticker;
        QMap<double, QString> kept = state.ownTicks;
        const int inside = int(std::count_if(state.ownTicks.keyBegin(), state.ownTicks.keyEnd(),
                                             [&](double k) { return inRange(axis, k); }));
        // Across, a name of several words may break into lines before any name is dropped: a
        // bar without its name ("FP8 (TE)") says less than a name on two lines.
        QMap<double, QString> broken = state.ownTicks;
        if (axis.orientation() == Qt::Horizontal && axis.tickLabelRotation() == 0)
            for (QString& label : broken)
                label.replace(QLatin1Char(' '), QLatin1Char('\n'));
        const auto collide = [&](const QMap<double, QString>& shown) {
            QVector<double> ticks;
            QVector<QString> labels;
            for (auto it = shown.begin(); it != shown.end(); ++it) {
                ticks << it.key();
                labels << it.value();
            }
            return tickLabelsCollide(axis, ticks, labels);
        };
        for (int stride = 1; stride <= std::max(1, inside); ++stride) {
            kept = everyNth(axis, state.ownTicks, stride);
            if (!collide(kept))
                break;
            if (broken != state.ownTicks) {
                kept = everyNth(axis, broken, stride);
                if (!collide(kept))
                    break;
            }
        }
        state.appliedTicks = kept;
        if (kept == text->ticks())
            return hidden;
        text->setTicks(kept);
        return true;
    }
    if (!sameTicker || ticker->tickCount() != state.appliedCount)
        state.ownCount = ticker->tickCount();
    state.ticker = ticker;
    const QString format = axis.numberFormat();
    const QChar formatChar = format.isEmpty() ? QChar('g') : format.at(0);
    int count = state.ownCount;
    for (; count > 1; --count) {
        ticker->setTickCount(count);
        QVector<double> ticks;
        QVector<QString> labels;
        ticker->generate(axis.range(), axis.parentPlot()->locale(), formatChar,
                         axis.numberPrecision(), ticks, nullptr, &labels);
        if (!tickLabelsCollide(axis, ticks, labels))
            break;
    }
    ticker->setTickCount(count);
    bool changed = count != state.appliedCount;
    state.appliedCount = count;
    // An axis too short for even two labels (a squashed plot) shows none rather than a smudge.
    // Hiding them changes the axis's depth, not its length: no back and forth.
    QVector<double> ticks;
    QVector<QString> labels;
    ticker->generate(axis.range(), axis.parentPlot()->locale(), formatChar, axis.numberPrecision(),
                     ticks, nullptr, &labels);
    const bool collide = tickLabelsCollide(axis, ticks, labels);
    if (collide != !axis.tickLabels()) {
        axis.setTickLabels(!collide);
        changed = true;
    }
    state.labelsHidden = collide;
    return changed;
}

// `text` broken into lines of at most `width` pixels in `metrics`, at spaces; a word longer
// than a line keeps a line of its own.
QString wrapped(const QString& text, const QFontMetrics& metrics, int width) {
    QStringList lines;
    for (const QString& paragraph : text.split('\n')) {
        QString line;
        for (const QString& word : paragraph.split(' ', Qt::SkipEmptyParts)) {
            const QString longer = line.isEmpty() ? word : line + ' ' + word;
            if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
                lines << line;
                line = word;
            } else {
                line = longer;
            }
        }
        lines << line;
    }
    return lines.join('\n');
}

// `own`, what the page set, as the pass last wrapped it into `stored` (or anew).
QString ownText(const QString& shown, const QVariant& stored) {
    const QStringList pair = stored.toStringList();
    return pair.size() == 2 && pair[1] == shown ? pair[0] : shown;
}

// Titles, footnotes and the labels of horizontal axes break into lines at the width of their place
// in the layout instead of holding the plot (and so its page and the window) as wide as their
// longest line: at 150 % a footnote alone is wider than a page beside the Lessons panel. The texts
// first give up their width, the layout runs, and only then are they wrapped, so that the lines do
// not depend on what the plot showed before. Whether a text changed.
bool Legibility::wrapTexts() {
    std::vector<QCPTextElement*> texts;
    bool freed = false;
    for (QCPLayoutElement* element : plot_->plotLayout()->elements(true))
        if (auto* text = qobject_cast<QCPTextElement*>(element)) {
            texts.push_back(text);
            // Its width is the layout's to give: the height still follows the wrapped lines.
            if (text->minimumSize() != QSize(1, 0)) {
                text->setMinimumSize(1, 0);
                freed = true;
            }
        }
    if (freed)
        relayout();
    bool changed = freed;
    for (QCPTextElement* text : texts) {
        if (text->rect().width() <= 1)
            continue;
        const QString own = ownText(text->text(), text->property("fpxOwnText"));
        const QString lines = wrapped(own, QFontMetrics(text->font()), text->rect().width());
        text->setProperty("fpxOwnText", QStringList{own, lines});
        if (text->text() != lines) {
            text->setText(lines);
            changed = true;
        }
    }
    for (QCPAxisRect* rect : plot_->axisRects())
        for (QCPAxis* axis : rect->axes(QCPAxis::atBottom | QCPAxis::atTop)) {
            // Only across: a vertical label wrapped to the rect's height would widen the margin
            // and so narrow the rect, whose height then shrinks with the other labels' lines.
            if (!axis->visible() || axis->label().isEmpty() || rect->width() <= 1)
                continue;
            const QString own = ownText(axis->label(), axis->property("fpxOwnLabel"));
            const QString lines = wrapped(own, QFontMetrics(axis->labelFont()), rect->width());
            axis->setProperty("fpxOwnLabel", QStringList{own, lines});
            if (axis->label() != lines) {
                axis->setLabel(lines);
                changed = true;
            }
        }
    return changed;
}

void Legibility::relayout() {
    plot_->plotLayout()->update(QCPLayoutElement::upPreparation);
    plot_->plotLayout()->update(QCPLayoutElement::upMargins);
    plot_->plotLayout()->update(QCPLayoutElement::upLayout);
}

bool Legibility::fitLegend() {
    QCPLegend* legend = plot_->legend;
    if (!legend || !legend->visible() || !plot_->axisRect())
        return false;
    QCPAxisRect* rect = plot_->axisRect();
    const QSize wanted = legend->minimumOuterSizeHint();
    if (legend->layout() == plot_->plotLayout())
        return false; // in a row of its own, wrapped to the plot's width
    if (!rect->insetLayout()->elements(false).contains(legend)) {
        // In a column beside the data: it stays while it is whole and leaves the data at least
        // as wide as itself.
        if (legend->outerRect().height() >= wanted.height() &&
            legend->outerRect().width() >= wanted.width() &&
            rect->outerRect().width() >= legend->outerRect().width())
            return false;
        plots::placeLegendAbove(*plot_);
        plots::wrapLegendToWidth(*plot_);
        return true;
    }
    if (legend->outerRect().width() >= wanted.width() &&
        legend->outerRect().height() >= wanted.height() &&
        rect->rect().contains(legend->outerRect()))
        return false;
    plots::placeLegendAbove(*plot_);
    plots::wrapLegendToWidth(*plot_);
    return true;
}

// Lines on each layer, widest first; markers without a line last of all. Bars and items stay
// under them in the order the page made them.
void Legibility::drawThinnestOnTop() {
    std::map<QCPLayer*, std::vector<QCPAbstractPlottable*>> lines;
    for (int i = 0; i < plot_->plottableCount(); ++i) {
        QCPAbstractPlottable* p = plot_->plottable(i);
        if (qobject_cast<QCPGraph*>(p) || qobject_cast<QCPCurve*>(p))
            lines[p->layer()].push_back(p);
    }
    auto width = [](QCPAbstractPlottable* p) {
        if (auto* graph = qobject_cast<QCPGraph*>(p);
            graph && graph->lineStyle() == QCPGraph::lsNone)
            return -1.0;
        return std::max(1.0, p->pen().widthF());
    };
    for (auto& [layer, drawn] : lines) {
        if (!layer || drawn.size() < 2)
            continue;
        // The layer's own order of these lines.
        std::vector<QCPAbstractPlottable*> current;
        for (QCPLayerable* child : layer->children())
            if (auto* p = qobject_cast<QCPAbstractPlottable*>(child);
                p && std::find(drawn.begin(), drawn.end(), p) != drawn.end())
                current.push_back(p);
        // Lines of one width in the order they were made, not as a previous pass left them: the
        // same plot then draws the same whatever it showed before.
        std::vector<QCPAbstractPlottable*> wanted = drawn;
        std::stable_sort(wanted.begin(), wanted.end(),
                         [&](auto* a, auto* b) { return width(a) > width(b); });
        if (wanted == current)
            continue;
        for (QCPAbstractPlottable* p : wanted)
            p->setLayer(layer); // to the top of its layer, in turn
    }
}

// Whether a layout above `widget` gives way to a taller widget: a scroll area scrolls, where any
// other layout would hold the window taller than the screen.
bool scrollsVertically(const QWidget& widget) {
    for (const QWidget* w = widget.parentWidget(); w; w = w->parentWidget())
        if (auto* scroll = qobject_cast<const QScrollArea*>(w))
            return scroll->verticalScrollBarPolicy() != Qt::ScrollBarAlwaysOff;
    return false;
}

void Legibility::keepMinimumHeight() {
    if (!scrollsVertically(*plot_))
        return; // its page has no room to give: the plot keeps the height the page gives it
    std::set<int> rows;
    for (QCPAxisRect* rect : plot_->axisRects())
        if (rect->visible())
            rows.insert(rect->outerRect().top());
    // What the page asked for, kept apart from what this pass set (as the zoom does with fonts).
    int own = plot_->minimumHeight();
    const QVariantList stored = plot_->property("fpxOwnMinimumHeight").toList();
    if (stored.size() == 2 && stored[1].toInt() == own)
        own = stored[0].toInt();
    // Twelve lines at least; and room for what the layout must show whole (titles, a legend of
    // many rows, the axes' tick labels and names) with six lines of data in each axis rect.
    const int rectRows = std::max<int>(1, int(rows.size()));
    const int layoutNeeds = plot_->plotLayout()->minimumOuterSizeHint().height() +
                            plotMinimumHeight(plot_->font(), 1) * rectRows / 2;
    const int wanted = std::max({own, plotMinimumHeight(plot_->font(), rectRows), layoutNeeds});
    plot_->setProperty("fpxOwnMinimumHeight", QVariantList{own, wanted});
    // A new minimum resizes the plot while it draws, when QCustomPlot takes no resize: it is
    // laid out again at its new size once this replot is done.
    const QSize before = plot_->minimumSize();
    if (plot_->minimumHeight() != wanted)
        plot_->setMinimumHeight(wanted);
    // As wide as the legend's widest entry: one column of them is the least a legend needs.
    int ownWidth = plot_->minimumWidth();
    const QVariantList storedWidth = plot_->property("fpxOwnMinimumWidth").toList();
    if (storedWidth.size() == 2 && storedWidth[1].toInt() == ownWidth)
        ownWidth = storedWidth[0].toInt();
    int widest = 0;
    if (QCPLegend* legend = plot_->legend; legend && legend->visible()) {
        for (int i = 0; i < legend->elementCount(); ++i)
            if (QCPLayoutElement* item = legend->elementAt(i))
                widest = std::max(widest, item->minimumOuterSizeHint().width());
        if (widest > 0)
            widest += legend->margins().left() + legend->margins().right() +
                      plot_->plotLayout()->margins().left() +
                      plot_->plotLayout()->margins().right();
    }
    const int wantedWidth = std::max(ownWidth, widest);
    plot_->setProperty("fpxOwnMinimumWidth", QVariantList{ownWidth, wantedWidth});
    if (plot_->minimumWidth() != wantedWidth)
        plot_->setMinimumWidth(wantedWidth);
    if (plot_->minimumSize() != before)
        plot_->replot(QCustomPlot::rpQueuedReplot);
}

void Legibility::afterLayout() {
    if (busy_)
        return;
    busy_ = true;
    // The legend's place first (out of a column beside the data, the data gets the width),
    // then the texts wrapped to what the layout gives them; a second round settles what the
    // wrapped lines moved. Each round lays out again before the next step measures.
    for (int round = 0; round < 3; ++round) {
        const bool moved = fitLegend();
        if (moved)
            relayout();
        const bool wrappedAnew = wrapTexts();
        if (wrappedAnew)
            relayout();
        if (!moved && !wrappedAnew)
            break;
    }
    bool changed = false;
    for (QCPAxisRect* rect : plot_->axisRects())
        for (QCPAxis* axis : rect->axes())
            changed = fitTicks(*axis) || changed;
    if (changed) // the ticks again, and the margins their labels need
        relayout();
    drawThinnestOnTop();
    keepMinimumHeight();
    busy_ = false;
}

// QCustomPlot measures an axis's margin with the tick-label settings its painter took at the
// axis's last draw: whether a log axis writes 1e-10 as "10⁻¹⁰" or "1·10⁻¹⁰", and whether it
// substitutes exponents at all, reach the painter only when the axis is drawn. A new axis is
// measured before its first draw with the painter's defaults, and that margin is kept while the
// labels stay the same: a plot built anew would be laid out by a stale width, one drawn again
// after its labels changed by the true one. Once each axis has been drawn, its margin is measured
// again and the plot laid out by it, so that a plot looks the same however it was reached.
void Legibility::measureDrawnAxes() {
    bool remeasured = false;
    for (QCPAxisRect* rect : plot_->axisRects())
        for (QCPAxis* axis : rect->axes()) {
            const auto found = axes_.find(axis);
            if (found == axes_.end() || found->second.drawn || !axis->realVisibility())
                continue;
            found->second.drawn = true;
            axis->setNumberFormat(axis->numberFormat()); // drops the cached margin, and only it
            remeasured = true;
        }
    if (remeasured)
        plot_->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace

int plotMinimumHeight(const QFont& font, int rectRows) {
    const double line = QFontMetricsF(font).lineSpacing();
    return int(std::ceil(line * (kPlotMinimumLines + kStackedRectLines * (rectRows - 1))));
}

bool tickLabelsCollide(const QCPAxis& axis, const QVector<double>& ticks,
                       const QVector<QString>& labels) {
    const QFontMetricsF metrics(axis.tickLabelFont());
    const double gap =
        axis.orientation() == Qt::Horizontal ? metrics.averageCharWidth() : metrics.height() / 4;
    struct Placed {
        double at, extent;
    };
    std::vector<Placed> placed;
    for (qsizetype i = 0; i < ticks.size() && i < labels.size(); ++i)
        if (inRange(axis, ticks[i]) && !labels[i].isEmpty())
            placed.push_back({axis.coordToPixel(ticks[i]), labelExtent(axis, labels[i])});
    std::sort(placed.begin(), placed.end(),
              [](const Placed& a, const Placed& b) { return a.at < b.at; });
    for (std::size_t i = 1; i < placed.size(); ++i)
        if (placed[i].at - placed[i - 1].at < (placed[i].extent + placed[i - 1].extent) / 2 + gap)
            return true;
    return false;
}

namespace {

// Gives way downwards only: as wide as its content asks (and its scroll bar), as a plain layout
// would be, so that nothing is cut at the right; as short as the window needs.
class PlotsScrollArea : public QScrollArea {
  public:
    using QScrollArea::QScrollArea;

    QSize minimumSizeHint() const override {
        return withContentWidth(QScrollArea::minimumSizeHint(),
                                widget() ? widget()->minimumSizeHint().width() : 0);
    }
    QSize sizeHint() const override {
        return withContentWidth(QScrollArea::sizeHint(),
                                widget() ? widget()->sizeHint().width() : 0);
    }

  private:
    QSize withContentWidth(QSize hint, int content) const {
        hint.setWidth(std::max(hint.width(), content + verticalScrollBar()->sizeHint().width() +
                                                 2 * frameWidth()));
        return hint;
    }
};

} // namespace

QVBoxLayout* scrollingPlotsLayout(QWidget& page) {
    auto* outer = new QVBoxLayout(&page);
    outer->setContentsMargins(0, 0, 0, 0);
    QScrollArea* scroll = plotsScrollArea(&page);
    outer->addWidget(scroll);
    auto* content = new QWidget(scroll);
    scroll->setWidget(content);
    return new QVBoxLayout(content);
}

QScrollArea* plotsScrollArea(QWidget* parent) {
    auto* scroll = new PlotsScrollArea(parent);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    return scroll;
}

void keepLegible(QCustomPlot& plot) {
    if (keepsLegible(plot))
        return;
    plot.setProperty(kInstalled, true);
    new Legibility(plot);
}

bool keepsLegible(const QCustomPlot& plot) {
    return plot.property(kInstalled).toBool();
}

} // namespace fpx::gui
