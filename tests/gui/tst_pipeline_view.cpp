// SPDX-License-Identifier: GPL-3.0-or-later
// The Training page's pipeline view with real widgets, offscreen: one gradient through one
// mixed-precision step, driven as a lecturer drives it (the stories, typing S, the ÷2 and ×2
// buttons, a refused field), the page's options and state, and the fit of the bit cells at
// 1024 pixels wide at 100 % and 150 %. The codes expected are FP16's and FP32's worked out
// by hand and by a separate rounding in Python's Fraction arithmetic (see
// tst_mixed_precision_step.cpp): 1e-8 × 2^16 is 687/2^20 (0x115e), 4 × 2^16 overflows to ∞
// (0x7c00), 1e-8 × 1 flushes to 0.
#include "pages/training/pipeline_view.h"
#include "pages/training/pipeline_view_bits.h"
#include "pages/training/training_page.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>

using namespace fpx;
using namespace fpx::gui;

namespace {

QString hexOf(const PipelineViewBits* bits) {
    return QString::fromStdString(codeToHex(bits->code(), bits->spec().totalBits()));
}

} // namespace

class TestPipelineView : public QObject {
    Q_OBJECT

    TrainingPage* page_ = nullptr;

    PipelineView* view() const { return page_->pipelineView(); }
    template <typename W> W* child(const QString& name) const {
        W* widget = view()->findChild<W*>(name);
        if (!widget)
            qFatal("no widget %s", qPrintable(name));
        return widget;
    }
    QString bits(const char* stage) const {
        return hexOf(child<PipelineViewBits>(QStringLiteral("pipelineBits_") + stage));
    }
    QString note(const char* stage) const {
        return child<QLabel>(QStringLiteral("pipelineNote_") + stage)->text();
    }
    QString value(const char* stage) const {
        return child<QLabel>(QStringLiteral("pipelineValue_") + stage)->text();
    }
    // Types into a field as a user does: select all, type.
    void type(const char* field, const QString& text) {
        auto* edit = child<QLineEdit>(field);
        edit->setFocus();
        edit->selectAll();
        QTest::keyClicks(edit, text);
    }
    void choosePreset(const QString& id) {
        auto* combo = child<QComboBox>("pipelinePreset");
        const int index = combo->findData(id);
        QVERIFY(index >= 0);
        combo->setCurrentIndex(index);
        emit combo->activated(index);
    }

  private slots:
    void init() {
        page_ = new TrainingPage;
        page_->resize(1004, 640);
        page_->showView(TrainingPage::View::Pipeline);
        page_->show();
        QVERIFY(QTest::qWaitForWindowExposed(page_));
    }
    void cleanup() {
        delete page_;
        page_ = nullptr;
    }

    // The first story: 1e-8 × 2^16 survives the FP16 backward pass as 687/2^20, is 687/2^36
    // after unscaling, and moves the FP32 master one ulp while the FP16 copy stays.
    void opensOnTheFirstStory() {
        QCOMPARE(view()->presetId(), QString("survives"));
        QCOMPARE(bits("master-weight"), QString("0x3c23d70a"));
        QCOMPARE(bits("half-weight"), QString("0x211f"));
        QCOMPARE(bits("loss-scale"), QString("0x47800000"));
        QCOMPARE(bits("scaled-gradient"), QString("0x115e"));
        QCOMPARE(value("scaled-gradient"), QString("≈0.000655174255"));
        QCOMPARE(bits("unscaled"), QString("0x322bc000"));
        // Far from 1 the value says its exponent.
        QCOMPARE(value("unscaled"), QString("≈9.99716576e-9"));
        QCOMPARE(bits("master-update"), QString("0x3c23d709"));
        QCOMPARE(bits("next-half-copy"), QString("0x211f"));
        QVERIFY(note("next-half-copy").contains("kept by the master only"));
        QVERIFY(view()->summaryText().contains("Step taken"));
        // The exact value is a hover away.
        QVERIFY(child<QLabel>("pipelineValue_scaled-gradient")
                    ->toolTip()
                    .contains("0.00065517425537109375"));
        QVERIFY(child<QLabel>("pipelineValue_scaled-gradient")->toolTip().contains("0.00065536"));
    }

    // Typing a larger S overflows the backward pass: ∞, the check skips, S halves.
    void aLargerScaleSkipsTheStep() {
        type("pipelineScale", "2^43");
        QCOMPARE(bits("scaled-gradient"), QString("0x7c00"));
        QCOMPARE(value("scaled-gradient"), QString("∞"));
        QVERIFY(note("scaled-gradient").contains("overflow"));
        QVERIFY(note("check").contains("skipped"));
        QCOMPARE(bits("check"), QString("0x54800000")); // 2^42 in FP32
        QVERIFY(note("master-update").contains("skipped"));
        QCOMPARE(bits("master-update"), QString("0x3c23d70a")); // the master stays
        QVERIFY(view()->summaryText().contains("Step skipped"));
        QVERIFY(view()->step()->skipped);
        QCOMPARE(view()->presetId(), QString()); // the user's values
        // S = 1 flushes the gradient instead.
        type("pipelineScale", "1");
        QCOMPARE(bits("scaled-gradient"), QString("0x0000"));
        QVERIFY(note("scaled-gradient").contains("flushed to 0"));
        QVERIFY(!view()->step()->skipped);
        QVERIFY(note("master-update").contains("no update"));
        QCOMPARE(view()->presetId(), QString("flushed"));
    }

    // The overflow story, then ÷2 three times: 4 × 8192 = 32768 passes.
    void halvingTheScaleLetsItPass() {
        choosePreset("overflow");
        QVERIFY(view()->step()->skipped);
        auto* down = child<QToolButton>("pipelineScaleDown");
        QTest::mouseClick(down, Qt::LeftButton);
        QTest::mouseClick(down, Qt::LeftButton);
        QCOMPARE(child<QLineEdit>("pipelineScale")->text(), QString("16384"));
        QVERIFY(view()->step()->skipped); // 65536 is still above 65504
        QTest::mouseClick(down, Qt::LeftButton);
        QVERIFY(!view()->step()->skipped);
        QCOMPARE(bits("scaled-gradient"), QString("0x7800")); // 32768
        QTest::mouseClick(child<QToolButton>("pipelineScaleUp"), Qt::LeftButton);
        QCOMPARE(child<QLineEdit>("pipelineScale")->text(), QString("16384"));
    }

    // An update FP16 loses and the FP32 master keeps.
    void masterKeepsWhatFp16Loses() {
        choosePreset("master-keeps");
        QCOMPARE(bits("master-update"), QString("0x3f7ff973"));
        QCOMPARE(bits("next-half-copy"), QString("0x3c00"));
        QVERIFY(note("master-update").contains("update kept"));
        QVERIFY(note("next-half-copy").contains("lost if the weight were held in FP16 alone"));
    }

    // A field that does not read greys the last result and names the problem; fixing it
    // brings the stages back.
    void aRefusedFieldKeepsTheLastResult() {
        // Pasted whole: typed key by key, "1" would read first and be the result kept.
        child<QLineEdit>("pipelineGradient")->setText("1e-");
        QVERIFY(!view()->errorText().isEmpty());
        QVERIFY(child<QLabel>("pipelineError")->isVisible());
        QVERIFY(!child<QWidget>("pipelineBits_scaled-gradient")->isEnabled());
        QVERIFY(view()->errorField() == PipelineView::Field::Gradient);
        QCOMPARE(bits("scaled-gradient"), QString("0x115e"));
        type("pipelineGradient", "1e-8");
        QVERIFY(view()->errorText().isEmpty());
        QVERIFY(child<QWidget>("pipelineBits_scaled-gradient")->isEnabled());
        type("pipelineScale", "0");
        QVERIFY(view()->errorField() == PipelineView::Field::Scale);
    }

    // The page's options: a story, then fields over it; the state reads back what shows.
    void optionsAndState() {
        page_->showView(TrainingPage::View::Range);
        TrainingPageState state;
        state.pipelinePreset = "flushed";
        state.pipelineScale = "65536";
        QCOMPARE(page_->apply(state), QString());
        QCOMPARE(page_->currentView(), TrainingPage::View::Pipeline);
        QCOMPARE(bits("scaled-gradient"), QString("0x115e"));
        QCOMPARE(view()->presetId(), QString("survives"));
        const TrainingPageState shown = page_->state();
        QVERIFY(shown.view == TrainingPage::View::Pipeline);
        QCOMPARE(*shown.pipelineScale, QString("65536"));
        QCOMPARE(*shown.pipelineGradient, QString("1e-8"));
        QCOMPARE(*shown.pipelineClip, QString("none"));
        QCOMPARE(*shown.pipelineHalf, QString("fp16"));
        // BF16 passes hold 1e-8 without a scale.
        TrainingPageState bf16;
        bf16.pipelineHalf = "bf16";
        bf16.pipelineScale = "1";
        QCOMPARE(page_->apply(bf16), QString());
        QVERIFY(!view()->step()->at(PipelineStage::ScaledGradient).value.isZero());
        TrainingPageState bad;
        bad.pipelineDecay = "-1";
        QCOMPARE(page_->apply(bad),
                 QString("--pipeline-decay: the weight decay must be zero or positive"));
        // The state read back restores the view.
        QCOMPARE(page_->apply(shown), QString());
        QCOMPARE(bits("scaled-gradient"), QString("0x115e"));
        QCOMPARE(view()->presetId(), QString("survives"));
        QVERIFY(TrainingPage::parseView("pipeline") == TrainingPage::View::Pipeline);
    }

    // At 1024 pixels wide the pipeline fits without a horizontal scroll bar, at 100 % and at
    // 150 %; the cells grow with the font.
    void fitsAndGrowsWithTheZoom() {
        auto* scroll = child<QScrollArea>("pipelineStages");
        auto* cells = child<PipelineViewBits>("pipelineBits_unscaled");
        QApplication::processEvents();
        QVERIFY(!scroll->horizontalScrollBar()->isVisible());
        const int normal = cells->cellLayout().cellWidth;
        QFont font = page_->font();
        font.setPointSizeF(font.pointSizeF() * 1.5);
        page_->setFont(font);
        QApplication::processEvents();
        QVERIFY2(cells->cellLayout().cellWidth > normal,
                 qPrintable(QString("%1 -> %2").arg(normal).arg(cells->cellLayout().cellWidth)));
        QVERIFY(!scroll->horizontalScrollBar()->isVisible());
        // Every stage's cells share one layout.
        QCOMPARE(child<PipelineViewBits>("pipelineBits_scaled-gradient")->cellLayout().cellWidth,
                 cells->cellLayout().cellWidth);
    }
};

QTEST_MAIN(TestPipelineView)
#include "tst_pipeline_view.moc"
