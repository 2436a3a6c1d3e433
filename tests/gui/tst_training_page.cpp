// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer's Training page with real widgets, offscreen: the range view's zone fractions
// against FP16's boundaries written out here (2^−25, 2^−14 − 2^−25, 65520), the loss-scale
// slider shifting the histogram and refitting, BF16 against FP16 on gradient-like values, a
// run of 10^6 values that leaves the GUI thread free and drops stale results, the loss scaler
// against GradScaler's rules by hand, SGD against exact arithmetic by hand, every view's
// export and the headless screenshot.
#include "gui_waits.h"
#include "pages/training/fp8_view.h"
#include "pages/training/loss_scale_view.h"
#include "pages/training/range_view.h"
#include "pages/training/training_page.h"
#include "pages/training/view_frame.h"
#include "pages/training/weights_view.h"
#include "shell/main_window.h"

#include <qcustomplot.h>

#include "cli_runner.h"

#include "fpx/exact/decimal_text.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <cmath>
#include <string>
#include <vector>

using namespace fpx;
using namespace fpx::gui;

namespace {

template <typename View> bool waitFor(View* view, int ms = 240000) {
    return fpx::test::waitWhileBusy(
        view, &ViewFrame::finished, [view] { return view->isBusy(); }, ms);
}

// FP16 under round-to-nearest-even with IEEE overflow, zone by zone, from the format's
// numbers: the tie at 2^−25 goes to the even 0; the tie between the largest subnormal
// (1023 × 2^−24) and 2^−14 goes to the even 2^−14; 65520, halfway to 2^16, overflows.
// The inputs are FP32 and the scale a power of two, so |x|·2^k is exact in double.
struct Fp16Zones {
    std::size_t zero = 0, flushed = 0, subnormal = 0, normal = 0, overflow = 0;
};
Fp16Zones fp16Zones(const TensorView& view, int k) {
    Fp16Zones zones;
    for (std::size_t i = 0; i < view.size(); ++i) {
        const double v = std::abs(std::ldexp(view.at(i), k));
        if (view.at(i) == 0)
            ++zones.zero;
        else if (v <= std::ldexp(1.0, -25))
            ++zones.flushed;
        else if (v < std::ldexp(1.0, -14) - std::ldexp(1.0, -25))
            ++zones.subnormal;
        else if (v < 65520)
            ++zones.normal;
        else
            ++zones.overflow;
    }
    return zones;
}

const RangeFormatFit* fitOf(const RangeResult& result, const std::string& id) {
    for (const RangeFormatFit& f : result.fits)
        if (f.id == id)
            return &f;
    return nullptr;
}

// The first bar plottable of a plot (the range view's histogram).
QCPBars* histogramBars(QCustomPlot* plot) {
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto* bars = qobject_cast<QCPBars*>(plot->plottable(i)); bars && bars->data()->size())
            return bars;
    return nullptr;
}

// The range plot's zone labels (the first band's: fp16) against FP16's zone edges on the
// log2 axis of |x · 2^k| : 2^−25, 2^−14 − 2^−25 and 65520, each label's rectangle in its zone.
void checkZoneLabels(QCustomPlot* plot, int k) {
    (void)k; // the axis is |x · S|: the edges stay where they are as the slider moves
    plot->replot();
    const double flush = -25, normal = std::log2(std::ldexp(1.0, -14) - std::ldexp(1.0, -25));
    const double overflow = std::log2(65520.0);
    int checked = 0;
    for (int i = 0; i < plot->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(plot->item(i));
        if (!text || !text->visible() || text->position->coords().y() != 0 ||
            !text->text().contains('%'))
            continue;
        const QCPAxis* x = text->position->keyAxis();
        double low = -1e9, high = 1e9;
        const QString label = text->property("fpxLongText").toString();
        if (label.startsWith("flushed"))
            high = flush;
        else if (label.startsWith("subnormal"))
            low = flush, high = normal;
        else if (label.startsWith("normal"))
            low = normal, high = overflow;
        else if (label.startsWith("overflow"))
            low = overflow;
        else
            QFAIL(qPrintable("a zone label of no zone: " + label));
        const double from = std::max(x->coordToPixel(low), double(x->axisRect()->left()));
        const double to = std::min(x->coordToPixel(high), double(x->axisRect()->right()));
        const double width = QFontMetricsF(text->font()).horizontalAdvance(text->text());
        const double centre = text->position->pixelPosition().x();
        QVERIFY2(centre - width / 2 >= from - 1 && centre + width / 2 <= to + 1,
                 qPrintable(QString("%1 at %2..%3, its zone %4..%5")
                                .arg(text->text())
                                .arg(centre - width / 2)
                                .arg(centre + width / 2)
                                .arg(from)
                                .arg(to)));
        ++checked;
    }
    QVERIFY(checked > 0);
}

} // namespace

class TestTrainingPage : public QObject {
    Q_OBJECT

  private slots:
    void init();
    void pageAndShortcut();
    void rangeTableFitsANarrowWindow();
    void zonesMatchFp16Boundaries();
    void craftedValuesAtTheEdges();
    void sliderShiftsTheHistogramAndRefits();
    void bf16NeedsNoLossScaling();
    void millionValuesKeepTheWindowResponsive();
    void lossScalerFollowsGradScaler();
    void fp8RecipesRunSideBySide();
    void masterWeightsAgainstExactArithmetic();
    void masterWeightsUpdateRule();
    void pageAgreesWithTheCommandLine();
    void everyViewExports();
    void badInputShowsAnError();
    void screenshotFlag();

  private:
    QTemporaryDir dir_;
};

void TestTrainingPage::init() {
    QVERIFY(dir_.isValid());
}

void TestTrainingPage::pageAndShortcut() {
    MainWindow window;
    window.trainingPage()->rangeView()->setDistribution("normal:0:1e-4", 5000);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_5, Qt::ControlModifier);
    QCOMPARE(window.currentPage(), MainWindow::Page::Training);
    RangeView* range = window.trainingPage()->rangeView();
    QVERIFY(waitFor(range));
    QVERIFY2(range->errorText().isEmpty(), qPrintable(range->errorText()));
    QCOMPARE(range->table()->rowCount(), 3); // fp16, bf16, fp8_e5m2 by default
}

// On a narrow window (830 px, the form beside it) the range table shows every header whole,
// with no sideways scrolling.
void TestTrainingPage::rangeTableFitsANarrowWindow() {
    MainWindow window;
    RangeView* range = window.trainingPage()->rangeView();
    QVERIFY(range->setDistribution("normal:0:1", 4096).isEmpty());
    window.showPage(MainWindow::Page::Training);
    window.resize(830, 720);
    window.show();
    QVERIFY(waitFor(range));
    QCoreApplication::processEvents(); // the layout the rows posted
    QTableWidget* table = range->table();
    QHeaderView* header = table->horizontalHeader();
    int total = 0;
    for (int c = 0; c < table->columnCount(); ++c) {
        const QString name = table->horizontalHeaderItem(c)->text();
        const int needed = header->sectionSizeHint(c);
        QVERIFY2(header->sectionSize(c) >= needed,
                 qPrintable(QString("header %1 is cut: %2 px for %3 px")
                                .arg(name)
                                .arg(header->sectionSize(c))
                                .arg(needed)));
        total += header->sectionSize(c);
    }
    QVERIFY2(total <= table->viewport()->width(),
             qPrintable(
                 QString("%1 px of columns in %2 px").arg(total).arg(table->viewport()->width())));
}

void TestTrainingPage::zonesMatchFp16Boundaries() {
    MainWindow window;
    RangeView* range = window.trainingPage()->rangeView();
    // |x| from about 2^−25 to 2^−7: scaled by 2^24 some overflow, by 2^−6 some flush.
    QVERIFY(range->setDistribution("laplace:1e-3", 40000, 7).isEmpty());
    QVERIFY(range->setFormats("fp16").isEmpty());
    window.showPage(MainWindow::Page::Training);
    window.show();
    QVERIFY(waitFor(range));
    for (int k : {0, 8, 24, -6}) {
        QVERIFY(range->setScaleExponent(k).isEmpty());
        QVERIFY(waitFor(range));
        const RangeResult& result = range->result();
        QCOMPARE(result.scaleExponent, std::int64_t(k));
        const RangeFormatFit* fp16 = fitOf(result, "fp16");
        QVERIFY(fp16 && fp16->fit);
        const Fp16Zones expected = fp16Zones(result.input->view, k);
        QCOMPARE(fp16->fit->count(RangeZone::Zero), expected.zero);
        QCOMPARE(fp16->fit->count(RangeZone::Flushed), expected.flushed);
        QCOMPARE(fp16->fit->count(RangeZone::Subnormal), expected.subnormal);
        QCOMPARE(fp16->fit->count(RangeZone::Normal), expected.normal);
        QCOMPARE(fp16->fit->count(RangeZone::Overflow), expected.overflow);
        if (k == 24)
            QVERIFY(expected.overflow > 0);
        if (k == -6)
            QVERIFY(expected.flushed > 0 && expected.subnormal > 0);
        // The table shows each zone's share within 0.01 % of the fit's, "<0.01 %" for one
        // under that, and the five add up to 100 %.
        double sum = 0;
        const RangeZone columns[] = {RangeZone::Flushed, RangeZone::Subnormal, RangeZone::Normal,
                                     RangeZone::Overflow, RangeZone::Zero};
        for (int c = 0; c < 5; ++c) {
            const double exact = 100 * fp16->fit->fraction(columns[c]);
            const QString cell = range->table()->item(0, 1 + c)->text();
            if (cell == "<0.01 %") {
                QVERIFY2(exact > 0 && exact < 0.01, qPrintable(cell));
                sum += 0.01;
            } else if (exact == 0) {
                QCOMPARE(cell, QString("0"));
            } else {
                QVERIFY2(cell.endsWith(" %"), qPrintable(cell));
                QVERIFY2(std::abs(cell.chopped(2).toDouble() - exact) <= 0.01 + 1e-9,
                         qPrintable(cell + " for " + QString::number(exact)));
                sum += cell.chopped(2).toDouble();
            }
        }
        QVERIFY2(std::abs(sum - 100) < 1e-9, qPrintable(QString::number(sum, 'g', 12)));
        // Each zone's label on the bands lies inside that zone, by FP16's edges written above.
        checkZoneLabels(range->plot(), k);
    }
    // The zone edges drawn under the histogram are FP16's.
    const RangeFormatFit* fp16 = fitOf(range->result(), "fp16");
    QCOMPARE(*fp16->flushLog2, -25.0);
    QCOMPARE(*fp16->overflowLog2, std::log2(65520.0));
}

void TestTrainingPage::craftedValuesAtTheEdges() {
    // The boundaries in FP16, one value a line: 0; 2^−25 (the tie to 0) and the double
    // above it; 2^−24 (the smallest subnormal); 2^−14 − 2^−25 (the tie up to the smallest
    // normal) and the double below it; 65504, 65519.99 and 65520 (the tie to ∞), and −65520.
    const double below = std::nextafter(std::ldexp(1.0, -14) - std::ldexp(1.0, -25), 0.0);
    const std::vector<double> values = {0,
                                        std::ldexp(1.0, -25),
                                        std::nextafter(std::ldexp(1.0, -25), 1.0),
                                        std::ldexp(1.0, -24),
                                        std::ldexp(1.0, -14) - std::ldexp(1.0, -25),
                                        below,
                                        65504,
                                        65519.99,
                                        65520,
                                        -65520};
    const QString path = dir_.filePath("edges.txt");
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Text));
        for (double v : values)
            file.write(QByteArray::number(v, 'g', 17) + '\n');
    }
    MainWindow window;
    RangeView* range = window.trainingPage()->rangeView();
    QVERIFY(range->setInputFile(path).isEmpty());
    QVERIFY(range->setFormats("fp16").isEmpty());
    window.showPage(MainWindow::Page::Training);
    window.show();
    QVERIFY(waitFor(range));
    QVERIFY2(range->errorText().isEmpty(), qPrintable(range->errorText()));
    const RangeFit& fit = *fitOf(range->result(), "fp16")->fit;
    QCOMPARE(fit.count(RangeZone::Zero), std::size_t(1));
    QCOMPARE(fit.count(RangeZone::Flushed), std::size_t(1));   // 2^−25
    QCOMPARE(fit.count(RangeZone::Subnormal), std::size_t(3)); // above 2^−25, 2^−24, below
    QCOMPARE(fit.count(RangeZone::Normal), std::size_t(3));    // the tie up, 65504, 65519.99
    QCOMPARE(fit.count(RangeZone::Overflow), std::size_t(2));  // ±65520
    // Halving every value (2^−1) moves 65520 into the normals and 2^−24 onto the flush tie.
    QVERIFY(range->setScaleExponent(-1).isEmpty());
    QVERIFY(waitFor(range));
    const RangeFit& half = *fitOf(range->result(), "fp16")->fit;
    QCOMPARE(half.count(RangeZone::Overflow), std::size_t(0));
    QCOMPARE(half.count(RangeZone::Flushed), std::size_t(3)); // 2^−26, just above it, 2^−25
}

void TestTrainingPage::sliderShiftsTheHistogramAndRefits() {
    MainWindow window;
    RangeView* range = window.trainingPage()->rangeView();
    QVERIFY(range->setDistribution("normal:0:1e-5", 50000).isEmpty());
    QVERIFY(range->setFormats("fp16,bf16").isEmpty());
    window.showPage(MainWindow::Page::Training);
    window.show();
    QVERIFY(waitFor(range));
    QCPBars* bars = histogramBars(range->plot());
    QVERIFY(bars);
    const double firstKey = bars->data()->at(0)->key;
    const double flushedAt0 = fitOf(range->result(), "fp16")->fit->fraction(RangeZone::Flushed);
    QVERIFY(flushedAt0 > 0);
    // Moving the slider moves the bars at once, by k binades, before the fit is back.
    range->slider()->setValue(10);
    bars = histogramBars(range->plot());
    QVERIFY(bars);
    QCOMPARE(bars->data()->at(0)->key, firstKey + 10);
    QVERIFY(waitFor(range));
    QCOMPARE(range->result().scaleExponent, std::int64_t(10));
    const double flushedAt10 = fitOf(range->result(), "fp16")->fit->fraction(RangeZone::Flushed);
    QVERIFY2(flushedAt10 < flushedAt0,
             qPrintable(QString("%1 then %2").arg(flushedAt0).arg(flushedAt10)));
    QCOMPARE(range->table()->item(0, 0)->text(), QString("fp16"));
}

void TestTrainingPage::bf16NeedsNoLossScaling() {
    MainWindow window;
    RangeView* range = window.trainingPage()->rangeView();
    QVERIFY(range->setDistribution("lognormal:-12:2", 1'000'000).isEmpty());
    QVERIFY(range->setFormats("fp16,bf16").isEmpty());
    window.showPage(MainWindow::Page::Training);
    window.show();
    QVERIFY(waitFor(range));
    QCOMPARE(range->scaleExponent(), 0);
    const RangeFormatFit* fp16 = fitOf(range->result(), "fp16");
    const RangeFormatFit* bf16 = fitOf(range->result(), "bf16");
    QVERIFY(fp16 && fp16->fit && bf16 && bf16->fit);
    QVERIFY(fp16->fit->count(RangeZone::Flushed) > 0);
    QCOMPARE(bf16->fit->count(RangeZone::Flushed), std::size_t(0));
    QCOMPARE(bf16->fit->count(RangeZone::Subnormal), std::size_t(0));
    QCOMPARE(bf16->fit->count(RangeZone::Overflow), std::size_t(0));
    // FP16 by the boundaries above agrees.
    QCOMPARE(fp16->fit->count(RangeZone::Flushed),
             fp16Zones(range->result().input->view, 0).flushed);
}

void TestTrainingPage::millionValuesKeepTheWindowResponsive() {
    MainWindow window;
    RangeView* range = window.trainingPage()->rangeView();
    QVERIFY(range->setDistribution("normal:0:1e-4", 1'000'000, 3).isEmpty());
    QVERIFY(range->setFormats("fp16,bf16,fp8_e5m2").isEmpty());
    // A timer on the GUI thread: if the work ran there, its ticks would stop for the run.
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, longestGap = 0;
    int ticks = 0;
    QTimer ticker;
    ticker.setInterval(10);
    connect(&ticker, &QTimer::timeout, this, [&] {
        const qint64 now = clock.elapsed();
        longestGap = std::max(longestGap, now - last);
        last = now;
        ++ticks;
    });
    window.showPage(MainWindow::Page::Training);
    const qint64 started = clock.elapsed();
    window.show();
    last = clock.elapsed();
    ticker.start();
    QVERIFY(range->isBusy()); // the first showing started the run in the background
    // Dragging across nine positions while it runs: each request replaces the waiting one.
    for (int k = 1; k <= 9; ++k) {
        range->slider()->setValue(k);
        QCoreApplication::processEvents(); // the ticks and the runner's results come between
    }
    QVERIFY(waitFor(range));
    const qint64 ran = clock.elapsed() - started;
    ticker.stop();
    qInfo("the runs took %lld ms; the longest wait between ticks was %lld ms", ran, longestGap);
    // Work on the GUI thread would stall the ticks for a whole run.
    QVERIFY2(longestGap < std::max<qint64>(400, ran / 3),
             qPrintable(QString("the GUI thread stalled %1 ms of %2").arg(longestGap).arg(ran)));
    QVERIFY2(ticks >= int(ran / 100), qPrintable(QString("%1 ticks in %2 ms").arg(ticks).arg(ran)));
    QCOMPARE(range->result().scaleExponent, std::int64_t(9)); // the newest request won
    QCOMPARE(range->result().input->view.size(), std::size_t(1'000'000));
    QVERIFY(range->droppedRuns() > 0);
    QVERIFY(range->appliedRuns() < 10);
    // The shown fractions are those of 2^9, from the exact core's definition of FP16's zones.
    QCOMPARE(fitOf(range->result(), "fp16")->fit->count(RangeZone::Flushed),
             fp16Zones(range->result().input->view, 9).flushed);
}

void TestTrainingPage::lossScalerFollowsGradScaler() {
    MainWindow window;
    TrainingPage* training = window.trainingPage();
    LossScaleView* view = training->lossScaleView();
    // amax 1 at scale 2^16 in FP16: 65536 > 65504 overflows at once; the step is skipped and the
    // scale halves; from then on 2^15 is clean and grows after exactly 3 clean steps (interval 3).
    QVERIFY(view->setAmaxSeries("constant:1").isEmpty());
    view->setSteps(9);
    view->setGradients({}, 1);
    view->findChild<QSpinBox*>("lossScaleInterval")->setValue(3);
    training->showView(TrainingPage::View::LossScale);
    window.showPage(MainWindow::Page::Training);
    window.show();
    QVERIFY(waitFor(view));
    QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
    QVERIFY(view->result().run);
    const LossScaleRun& run = *view->result().run;
    // GradScaler by hand: skip at 0 (scale 2^16 → 2^15), clean 1, 2, 3 → 2^16 at 4, which
    // overflows again: skip, 2^15 at 5; clean 5, 6, 7 → 2^16 at 8.
    const std::vector<float> scales = {65536, 32768, 32768, 32768, 65536,
                                       32768, 32768, 32768, 65536};
    QCOMPARE(run.steps.size(), scales.size());
    for (std::size_t t = 0; t < scales.size(); ++t)
        QCOMPARE(run.steps[t].scale, scales[t]);
    QCOMPARE(run.skipped, (std::vector<std::size_t>{0, 4, 8}));
    QVERIFY(view->plot()->plottableCount() >= 3); // amax, scale, skipped marks
}

void TestTrainingPage::fp8RecipesRunSideBySide() {
    MainWindow window;
    TrainingPage* training = window.trainingPage();
    Fp8View* view = training->fp8View();
    QVERIFY(view->setRecipes("current,delayed:8:max").isEmpty());
    training->showView(TrainingPage::View::Fp8);
    window.showPage(MainWindow::Page::Training);
    window.show();
    QVERIFY(waitFor(view));
    QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
    const Fp8Result& result = view->result();
    QCOMPARE(result.runs.size(), std::size_t(2));
    const Fp8Request defaults;
    for (const Fp8ScalingRun& run : result.runs)
        QCOMPARE(run.steps.size(), defaults.steps);
    // Current scaling uses the tensor's own amax; the plot has a curve per recipe and panel.
    for (std::size_t t = 0; t < defaults.steps; ++t)
        QCOMPARE(result.runs[0].steps[t].amaxUsed, result.amax[t]);
    // The amax and scale panels in one plot, the fractions and SQNR in the other.
    QVERIFY(view->plot()->plottableCount() + view->lossesPlot()->plottableCount() >= 1 + 2 * 5);
}

void TestTrainingPage::masterWeightsAgainstExactArithmetic() {
    MainWindow window;
    TrainingPage* training = window.trainingPage();
    WeightsView* view = training->weightsView();
    // w = 1, lr = 1, g = 2^−12 ten times. BF16 next below 1 is 1 − 2^−8, so any update under
    // half that gap (2^−9) is lost: all ten are. FP32 holds 1 − k·2^−12 exactly: none lost.
    view->findChild<QLineEdit*>("weightsInitial")->setText("1");
    view->findChild<QLineEdit*>("weightsRate")->setText("1");
    view->findChild<QLineEdit*>("weightsGradients")->setText("2^-12");
    view->findChild<QSpinBox*>("weightsSteps")->setValue(10);
    QVERIFY(view->setVariants("bf16,fp32,bf16+fp32").isEmpty());
    training->showView(TrainingPage::View::MasterWeights);
    window.showPage(MainWindow::Page::Training);
    window.show();
    QVERIFY(waitFor(view));
    QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
    const SgdResult& result = view->result();
    QCOMPARE(result.runs.size(), std::size_t(3));
    const ExactValue exact = ExactValue::integer(1) - ExactValue::integer(10).timesPowerOfTwo(-12);
    QCOMPARE(result.runs[0].lostUpdates, std::size_t(10));
    QVERIFY(result.runs[0].finalWeight == ExactValue::integer(1));
    QVERIFY(result.runs[0].finalExact == exact);
    QCOMPARE(result.runs[1].lostUpdates, std::size_t(0));
    QVERIFY(result.runs[1].finalWeight == exact);
    QVERIFY(result.runs[1].error.isZero());
    // The master copy keeps the updates; the BF16 working copy is its rounding.
    QCOMPARE(result.runs[2].lostUpdates, std::size_t(0));
    QCOMPARE(view->table()->rowCount(), 3);
    QCOMPARE(view->table()->item(0, 2)->text(), QLocale().toString(10));
}

// w = 1, g = 1, lr = 2^-9 + 2^-40 (a double), BF16. Exact: 1 − 2^-9 − 2^-40 lies below the
// midpoint of BF16's gap under 1 and rounds down, and so on every step: 100 steps end at
// 0.609375 with none lost. FP32 arithmetic first rounds lr to 2^-9, and 1 − 2^-9 is a tie
// back to the even 1: all 100 are lost; PyTorch's CPU kernel does the same; so does the
// formula written in the field. The view shows each rule's formula for BF16.
void TestTrainingPage::masterWeightsUpdateRule() {
    MainWindow window;
    TrainingPage* training = window.trainingPage();
    WeightsView* view = training->weightsView();
    view->findChild<QLineEdit*>("weightsInitial")->setText("1");
    view->findChild<QLineEdit*>("weightsRate")->setText("2^-9+2^-40");
    view->findChild<QLineEdit*>("weightsGradients")->setText("1");
    view->findChild<QSpinBox*>("weightsSteps")->setValue(100);
    QVERIFY(view->setVariants("bf16").isEmpty());
    auto* combo = view->findChild<QComboBox*>("weightsRule");
    auto* formula = view->findChild<QLineEdit*>("weightsFormula");
    auto* shown = view->findChild<QLabel*>("weightsRuleShown");
    QVERIFY(combo && formula && shown);
    QCOMPARE(combo->currentText(), QString("exact"));
    QCOMPARE(formula->text(), QString("F(w - lr*g)"));
    training->showView(TrainingPage::View::MasterWeights);
    window.showPage(MainWindow::Page::Training);
    window.show();
    QVERIFY(waitFor(view));
    QCOMPARE(view->result().runs.at(0).lostUpdates, std::size_t(0));
    QVERIFY(view->result().runs.at(0).finalWeight == ExactValue::integer(39).timesPowerOfTwo(-6));
    QVERIFY2(shown->text().contains("bf16(w - lr*g)"), qPrintable(shown->text()));

    struct Case {
        QString rule;
        QString formula; // what the field shows
        QString shown;   // what the label shows for BF16
    };
    const Case cases[] = {
        {"fp32-opmath", "F(fp32(w + fp32(-lr)*g))", "bf16(fp32(w + fp32(-lr)*g))"},
        {"pytorch-cpu", "bf16: F(fp32(w + F(fp32(-lr))*g))", "bf16(fp32(w + bf16(fp32(-lr))*g))"},
        {"pytorch2-cpu", "bf16, fp16: F(fp32(w + F(fp32(-lr))*g))",
         "bf16(fp32(w + bf16(fp32(-lr))*g))"},
        {"bf16(fp32(w + bf16(-lr)*g))", "bf16(fp32(w + bf16(-lr)*g))",
         "bf16(fp32(w + bf16(-lr)*g))"},
    };
    for (const Case& c : cases) {
        QVERIFY(view->setUpdateRule(c.rule).isEmpty());
        QVERIFY2(formula->text().startsWith(c.formula), qPrintable(formula->text()));
        QCOMPARE(view->updateRuleText(), c.rule);
        view->run();
        QVERIFY(waitFor(view));
        QVERIFY2(view->errorText().isEmpty(), qPrintable(view->errorText()));
        QCOMPARE(view->result().runs.at(0).lostUpdates, std::size_t(100));
        QVERIFY(view->result().runs.at(0).finalWeight == ExactValue::integer(1));
        QVERIFY2(shown->text().contains(c.shown.toHtmlEscaped()), qPrintable(shown->text()));
    }
    QCOMPARE(combo->currentText(), combo->itemText(combo->count() - 1)); // the custom entry

    // Writing in the field makes the rule that formula.
    QVERIFY(view->setUpdateRule("exact").isEmpty());
    QCOMPARE(combo->currentText(), QString("exact"));
    formula->selectAll();
    QTest::keyClicks(formula, "F(w - lr*g + 0)");
    QCOMPARE(combo->currentIndex(), combo->count() - 1);
    QCOMPARE(view->updateRuleText(), QString("F(w - lr*g + 0)"));
    // Choosing a built-in again shows its formula, and the custom one comes back after.
    combo->setCurrentIndex(1);
    QCOMPARE(view->updateRuleText(), QString("pytorch-cpu"));
    combo->setCurrentIndex(combo->count() - 1);
    QCOMPARE(formula->text(), QString("F(w - lr*g + 0)"));

    // A formula that does not read: the column, in the view's error line.
    QVERIFY(view->setUpdateRule("F(w +* g)").contains("column 6"));
    view->run();
    QVERIFY(waitFor(view));
    QVERIFY2(view->errorText().contains("column 6"), qPrintable(view->errorText()));
    // A rule without a formula for the format.
    QVERIFY(view->setUpdateRule("pytorch-cpu").isEmpty());
    QVERIFY(view->setVariants("fp8_e4m3").isEmpty());
    view->run();
    QVERIFY(waitFor(view));
    QVERIFY2(view->errorText().contains("not fp8_e4m3"), qPrintable(view->errorText()));

    // The page option, as the command line and lessons set it.
    TrainingPageState state;
    state.update = "fp32-opmath";
    training->showView(TrainingPage::View::Range);
    QVERIFY(training->apply(state).isEmpty());
    QCOMPARE(training->currentView(), TrainingPage::View::MasterWeights);
    QVERIFY(training->state().update == QString("fp32-opmath"));
}

void TestTrainingPage::pageAgreesWithTheCommandLine() {
    // The same settings on the page and in fpx fp8-scaling / fpx loss-scale give the same
    // exact scales step by step: one simulation, two front ends.
    MainWindow window;
    TrainingPage* training = window.trainingPage();
    Fp8View* fp8 = training->fp8View();
    QVERIFY(fp8->setRecipes("current,delayed:4:max").isEmpty());
    fp8->findChild<QSpinBox*>("fp8Steps")->setValue(12);
    fp8->findChild<QLineEdit*>("fp8Drift")->setText("geometric:1:50,spike-at:6:30");
    training->showView(TrainingPage::View::Fp8);
    window.showPage(MainWindow::Page::Training);
    window.show();
    QVERIFY(waitFor(fp8));
    QVERIFY2(fp8->errorText().isEmpty(), qPrintable(fp8->errorText()));
    const fpx::test::CliRun run =
        fpx::test::runFpx({"fp8-scaling", "--steps", "12", "--dist", "normal:0:1", "--count",
                           "4096", "--drift", "geometric:1:50,spike-at:6:30", "--recipe",
                           "current,delayed:4:max", "--seed", "1", "--json"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonArray results = fpx::test::json(run)["results"].toArray();
    QCOMPARE(results.size(), 2);
    for (int r = 0; r < 2; ++r) {
        const QJsonArray steps = results[r].toObject()["steps"].toArray();
        const Fp8ScalingRun& page = fp8->result().runs[std::size_t(r)];
        QCOMPARE(std::size_t(steps.size()), page.steps.size());
        for (int t = 0; t < steps.size(); ++t)
            QCOMPARE(steps[t].toObject()["scale"].toString(),
                     QString::fromStdString(
                         toDecimal(exactFromDouble(page.steps[std::size_t(t)].scale)).text));
    }

    LossScaleView* loss = training->lossScaleView();
    QVERIFY(loss->setAmaxSeries("geometric:1:1e-3,spikes:0.05:1e3").isEmpty());
    loss->setSteps(300);
    loss->setGradients({}, 1);
    loss->findChild<QSpinBox*>("lossScaleInterval")->setValue(20);
    training->showView(TrainingPage::View::LossScale);
    QVERIFY(waitFor(loss));
    QVERIFY2(loss->errorText().isEmpty(), qPrintable(loss->errorText()));
    const fpx::test::CliRun scaler = fpx::test::runFpx(
        {"loss-scale", "--steps", "300", "--amax", "geometric:1:1e-3,spikes:0.05:1e3", "--interval",
         "20", "--seed", "1", "--json"});
    QVERIFY2(scaler.exitCode == 0, scaler.err.constData());
    const QJsonArray scales = fpx::test::json(scaler)["scales"].toArray();
    QCOMPARE(std::size_t(scales.size()), loss->result().run->steps.size());
    for (int t = 0; t < scales.size(); ++t)
        QCOMPARE(
            scales[t].toString(),
            QString::fromStdString(
                toDecimal(exactFromDouble(loss->result().run->steps[std::size_t(t)].scale)).text));
    QVERIFY(!loss->result().run->skipped.empty()); // the spikes made it back off
}

void TestTrainingPage::everyViewExports() {
    MainWindow window;
    TrainingPage* training = window.trainingPage();
    QVERIFY(training->rangeView()->setDistribution("normal:0:1e-4", 4000).isEmpty());
    window.showPage(MainWindow::Page::Training);
    window.show();
    const struct {
        TrainingPage::View view;
        QString name;
        QString csvHeader;
    } views[] = {{TrainingPage::View::Range, "range", "format,scale_log2,zero,flushed"},
                 {TrainingPage::View::LossScale, "loss", "step,amax,scale,overflow,skipped"},
                 {TrainingPage::View::Fp8, "fp8", "recipe,step,amax,amax_used,scale"},
                 {TrainingPage::View::MasterWeights, "weights", "variant,final,exact"}};
    for (const auto& v : views) {
        training->showView(v.view);
        QVERIFY(training->waitUntilIdle(std::chrono::milliseconds(240000)));
        QVERIFY2(training->errorText().isEmpty(), qPrintable(training->errorText()));
        for (const QString& suffix : QStringList{"png", "pdf", "svg", "csv"}) {
            const QString path = dir_.filePath(v.name + "." + suffix);
            QString error;
            bool written = false;
            switch (v.view) {
            case TrainingPage::View::Range:
                written = training->rangeView()->exportTo(path, &error);
                break;
            case TrainingPage::View::LossScale:
                written = training->lossScaleView()->exportTo(path, &error);
                break;
            case TrainingPage::View::Fp8:
                written = training->fp8View()->exportTo(path, &error);
                break;
            case TrainingPage::View::MasterWeights:
                written = training->weightsView()->exportTo(path, &error);
                break;
            case TrainingPage::View::Pipeline:
                QFAIL("the pipeline view is a table of stages: it has no plot to export");
            }
            QVERIFY2(written, qPrintable(path + ": " + error));
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray bytes = file.readAll();
            QVERIFY2(bytes.size() > 100, qPrintable(path));
            if (suffix == "csv") {
                QVERIFY2(bytes.startsWith(v.csvHeader.toUtf8()), bytes.left(80).constData());
                QVERIFY(bytes.count('\n') > 3);
            }
            if (suffix == "png")
                QVERIFY(!QImage(path).isNull());
        }
    }
}

void TestTrainingPage::badInputShowsAnError() {
    MainWindow window;
    TrainingPage* training = window.trainingPage();
    QVERIFY(!training->rangeView()->setDistribution("normal:0", 100).isEmpty());
    window.showPage(MainWindow::Page::Training);
    window.show();
    QVERIFY(waitFor(training->rangeView()));
    QVERIFY(training->rangeView()->errorText().contains("normal"));
    training->rangeView()->setInputFile(dir_.filePath("missing.npy"));
    training->rangeView()->run();
    QVERIFY(waitFor(training->rangeView()));
    QVERIFY2(training->rangeView()->errorText().contains("missing.npy"),
             qPrintable(training->rangeView()->errorText()));
    LossScaleView* loss = training->lossScaleView();
    QVERIFY(!loss->setAmaxSeries("geometric:1:x").isEmpty());
    training->showView(TrainingPage::View::LossScale);
    QVERIFY(waitFor(loss));
    QVERIFY(!loss->errorText().isEmpty());
    QVERIFY(!loss->result().run);
}

void TestTrainingPage::screenshotFlag() {
    const QString out = dir_.filePath("training.png");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(FPX_EXPLORER_PATH),
                  {"--page", "training", "--training-view", "range", "--dist", "normal:0:1e-4",
                   "--count", "20000", "--formats", "fp16,bf16", "--loss-scale", "2^8",
                   "--screenshot", out, "--size", "1200x800", "--no-settings"});
    QVERIFY(process.waitForFinished(240000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QCOMPARE(QImage(out).size(), QSize(1200, 800));
    // A tensor file that is not there: the view shows it, and the command says so and fails.
    QProcess missing;
    missing.setProcessEnvironment(env);
    missing.start(QStringLiteral(FPX_EXPLORER_PATH),
                  {"--page", "training", "--input", dir_.filePath("nothing.npy"), "--screenshot",
                   dir_.filePath("missing.png")});
    QVERIFY(missing.waitForFinished(120000));
    QCOMPARE(missing.exitCode(), 1);
    QVERIFY(QString::fromUtf8(missing.readAllStandardError()).contains("nothing.npy"));
    for (const QStringList& bad : {QStringList{"--page", "training", "--training-view", "nope"},
                                   QStringList{"--page", "training", "--loss-scale", "3"},
                                   QStringList{"--page", "training", "--formats", "fp17"},
                                   QStringList{"--page", "training", "--update", "F(w+*g)"}}) {
        QProcess refused;
        refused.setProcessEnvironment(env);
        refused.start(QStringLiteral(FPX_EXPLORER_PATH),
                      bad + QStringList{"--screenshot", dir_.filePath("bad.png")});
        QVERIFY(refused.waitForFinished(120000));
        QCOMPARE(refused.exitCode(), 2);
        QVERIFY(QString::fromUtf8(refused.readAllStandardError()).contains(bad[2]));
    }
}

QTEST_MAIN(TestTrainingPage)
#include "tst_training_page.moc"
