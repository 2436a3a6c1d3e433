// SPDX-License-Identifier: GPL-3.0-or-later
// One gradient through one mixed-precision step (mixed_precision_step.h).
//
// Expectations come from two places outside the code under test: the presets' codes and
// values worked out by a separate rounding in Python's Fraction arithmetic (round to nearest
// even at p bits with FP16's and FP32's exponent ranges, written for this test), typed here;
// and, for many gradients and power-of-two scales, the compiler's _Float16 and float casts
// (libgcc's soft-fp for double → _Float16), where S·g is exact in double and g16/S in float.
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/training/mixed_precision_step.h"

#include "test_support.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>

using namespace fpx;
using namespace fpx::test;

namespace {

#ifdef __FLT16_MANT_DIG__
__extension__ typedef _Float16 Float16;
#endif

MixedPrecisionStep runPreset(const char* id) {
    const MixedPrecisionPreset* preset = findMixedPrecisionPreset(id);
    if (!preset)
        qFatal("no preset %s", id);
    return runMixedPrecisionStep(preset->inputs);
}

QString codeOf(const MixedPrecisionStep& step, PipelineStage stage) {
    const MixedPrecisionStage& s = step.at(stage);
    return hex(s.format, s.rounded.code);
}

StageOutcome outcomeOf(const MixedPrecisionStep& step, PipelineStage stage) {
    return step.at(stage).outcome;
}

} // namespace

class TestMixedPrecisionStep : public QObject {
    Q_OBJECT

  private slots:
    void stagesInOrder() {
        const MixedPrecisionStep step = runPreset("survives");
        QCOMPARE(int(step.stages.size()), kPipelineStageCount);
        for (int i = 0; i < kPipelineStageCount; ++i)
            QCOMPARE(int(step.stages[std::size_t(i)].stage), i);
        QCOMPARE(QString::fromStdString(step.at(PipelineStage::ScaledGradient).format.id), "fp16");
        QCOMPARE(QString::fromStdString(step.at(PipelineStage::Unscaled).format.id), "fp32");
        QCOMPARE(recipeStep(PipelineStage::LossScale), 4);
        QCOMPARE(recipeStep(PipelineStage::Check), 0);
    }

    // g = 1e-8, S = 2^16, w = 0.01, lr = 0.1. Python: w32 = 5368709/2^29 (0x3c23d70a), its FP16
    // copy 1311/2^17 (0x211f); S·g rounds to 687/2^20 (0x115e), a normal FP16 number; unscaled
    // 687/2^36 (0x322bc000); the master moves down one ulp to 10737417/2^30 (0x3c23d709); the
    // FP16 copy stays 0x211f.
    void survives() {
        const MixedPrecisionStep step = runPreset("survives");
        QCOMPARE(codeOf(step, PipelineStage::MasterWeight), QString("0x3c23d70a"));
        QCOMPARE(codeOf(step, PipelineStage::HalfWeight), QString("0x211f"));
        QCOMPARE(codeOf(step, PipelineStage::LossScale), QString("0x47800000"));
        QCOMPARE(codeOf(step, PipelineStage::ScaledGradient), QString("0x115e"));
        QCOMPARE(step.at(PipelineStage::ScaledGradient).value, exactValue("687/2^20"));
        QCOMPARE(outcomeOf(step, PipelineStage::ScaledGradient), StageOutcome::Rounded);
        QCOMPARE(codeOf(step, PipelineStage::Unscaled), QString("0x322bc000"));
        QCOMPARE(step.at(PipelineStage::Unscaled).value, exactValue("687/2^36"));
        // A power-of-two S unscales exactly.
        QCOMPARE(outcomeOf(step, PipelineStage::Unscaled), StageOutcome::Exact);
        QVERIFY(!step.skipped);
        QCOMPARE(outcomeOf(step, PipelineStage::Check), StageOutcome::Passed);
        QCOMPARE(step.nextScale, exactValue("65536"));
        QCOMPARE(outcomeOf(step, PipelineStage::Processed), StageOutcome::Exact);
        QCOMPARE(codeOf(step, PipelineStage::MasterUpdate), QString("0x3c23d709"));
        QCOMPARE(step.at(PipelineStage::MasterUpdate).value, exactValue("10737417/2^30"));
        QCOMPARE(outcomeOf(step, PipelineStage::MasterUpdate), StageOutcome::UpdateKept);
        QCOMPARE(codeOf(step, PipelineStage::NextHalfCopy), QString("0x211f"));
        QCOMPARE(outcomeOf(step, PipelineStage::NextHalfCopy), StageOutcome::CopyUnchanged);
        // The exact value before each rounding is the product of the stages before it.
        QCOMPARE(step.at(PipelineStage::ScaledGradient).exact, exactValue("65536*1e-8"));
        QCOMPARE(step.at(PipelineStage::MasterUpdate).exact,
                 exactValue("5368709/2^29 - 0.1*687/2^36"));
    }

    // S = 1: 1e-8 is below 2^-25, half of FP16's smallest subnormal: flushed, nothing updates.
    void flushed() {
        const MixedPrecisionStep step = runPreset("flushed");
        QCOMPARE(codeOf(step, PipelineStage::LossScale), QString("0x3f800000"));
        QCOMPARE(codeOf(step, PipelineStage::ScaledGradient), QString("0x0000"));
        QCOMPARE(outcomeOf(step, PipelineStage::ScaledGradient), StageOutcome::Flushed);
        QVERIFY(step.at(PipelineStage::ScaledGradient).rounded.flags.underflow);
        QCOMPARE(codeOf(step, PipelineStage::Unscaled), QString("0x00000000"));
        QVERIFY(!step.skipped);
        QCOMPARE(outcomeOf(step, PipelineStage::MasterUpdate), StageOutcome::NoUpdate);
        QCOMPARE(codeOf(step, PipelineStage::MasterUpdate), QString("0x3c23d70a"));
        QCOMPARE(outcomeOf(step, PipelineStage::NextHalfCopy), StageOutcome::NoUpdate);
    }

    // 4 × 2^16 = 262144 > 65520: ∞ in FP16, ∞ after unscaling, the step is skipped and S halved;
    // the weights stay.
    void overflowSkips() {
        const MixedPrecisionStep step = runPreset("overflow");
        QCOMPARE(codeOf(step, PipelineStage::ScaledGradient), QString("0x7c00"));
        QCOMPARE(outcomeOf(step, PipelineStage::ScaledGradient), StageOutcome::Overflow);
        QVERIFY(step.at(PipelineStage::Unscaled).value.isInfinity());
        QCOMPARE(outcomeOf(step, PipelineStage::Unscaled), StageOutcome::NotFinite);
        QVERIFY(step.skipped);
        QCOMPARE(outcomeOf(step, PipelineStage::Check), StageOutcome::Skipped);
        QCOMPARE(step.nextScale, exactValue("32768"));
        QCOMPARE(codeOf(step, PipelineStage::Check), QString("0x47000000"));
        for (PipelineStage s :
             {PipelineStage::Processed, PipelineStage::MasterUpdate, PipelineStage::NextHalfCopy})
            QCOMPARE(outcomeOf(step, s), StageOutcome::Skipped);
        QCOMPARE(codeOf(step, PipelineStage::MasterUpdate), QString("0x3c23d70a"));
        QCOMPARE(codeOf(step, PipelineStage::NextHalfCopy), QString("0x211f"));
    }

    // g = 0.1, S = 2^16: S·g = 6553.6 rounds to 6552 (0x6e66); unscaled 819/8192; lr = 1e-3:
    // the master 1 − 0.001·819/8192 rounds to 16775539/2^24 (0x3f7ff973); FP16 stays 1 (0x3c00).
    void masterKeepsWhatFp16Loses() {
        const MixedPrecisionStep step = runPreset("master-keeps");
        QCOMPARE(codeOf(step, PipelineStage::ScaledGradient), QString("0x6e66"));
        QCOMPARE(codeOf(step, PipelineStage::Unscaled), QString("0x3dccc000"));
        QCOMPARE(step.at(PipelineStage::Unscaled).value, exactValue("819/8192"));
        QCOMPARE(codeOf(step, PipelineStage::MasterUpdate), QString("0x3f7ff973"));
        QCOMPARE(step.at(PipelineStage::MasterUpdate).value, exactValue("16775539/2^24"));
        QCOMPARE(outcomeOf(step, PipelineStage::MasterUpdate), StageOutcome::UpdateKept);
        QCOMPARE(codeOf(step, PipelineStage::NextHalfCopy), QString("0x3c00"));
        QCOMPARE(outcomeOf(step, PipelineStage::NextHalfCopy), StageOutcome::CopyUnchanged);
        QVERIFY(step.at(PipelineStage::NextHalfCopy)
                    .note.find("lost if the weight were held in "
                               "FP16 alone") != std::string::npos);
    }

    // g = 4, S = 2^10, clip 1, λ = 0.01, w = 1, lr = 0.1: the unscaled 4 is clipped to 1 and
    // 1 + 0.01 rounds to 4236247/2^22 (0x3f8147ae); the master 1 − 0.1·that rounds to
    // 15082717/2^24 (0x3f6624dd), its FP16 copy 1841/2^11 (0x3b31).
    void clipAndDecay() {
        const MixedPrecisionStep step = runPreset("clip-decay");
        QCOMPARE(codeOf(step, PipelineStage::ScaledGradient), QString("0x6c00"));
        QCOMPARE(codeOf(step, PipelineStage::Unscaled), QString("0x40800000"));
        QCOMPARE(step.at(PipelineStage::Processed).exact, exactValue("1.01"));
        QCOMPARE(codeOf(step, PipelineStage::Processed), QString("0x3f8147ae"));
        QCOMPARE(outcomeOf(step, PipelineStage::Processed), StageOutcome::Rounded);
        QCOMPARE(codeOf(step, PipelineStage::MasterUpdate), QString("0x3f6624dd"));
        QCOMPARE(codeOf(step, PipelineStage::NextHalfCopy), QString("0x3b31"));
        QCOMPARE(outcomeOf(step, PipelineStage::NextHalfCopy), StageOutcome::CopyMoved);
        // A negative gradient is clipped to −c.
        MixedPrecisionInputs in = step.inputs;
        in.gradient = exactValue("-4");
        in.weightDecay = ExactValue();
        QCOMPARE(runMixedPrecisionStep(in).at(PipelineStage::Processed).value, exactValue("-1"));
    }

    // A gradient in FP16's subnormals keeps fewer bits: 2^-20 + 2^-24 at S = 1 is exact
    // (17 × 2^-24), 3e-7 rounds into the subnormals.
    void subnormalGradient() {
        MixedPrecisionInputs in = defaultMixedPrecisionInputs();
        in.lossScale = exactValue("1");
        in.gradient = exactValue("2^-20+2^-24");
        MixedPrecisionStep step = runMixedPrecisionStep(in);
        QCOMPARE(outcomeOf(step, PipelineStage::ScaledGradient), StageOutcome::Exact);
        QCOMPARE(codeOf(step, PipelineStage::ScaledGradient), QString("0x0011"));
        in.gradient = exactValue("3e-7");
        step = runMixedPrecisionStep(in);
        QCOMPARE(outcomeOf(step, PipelineStage::ScaledGradient), StageOutcome::Subnormal);
        // 3e-7 / 2^-24 = 5.03…: code 5.
        QCOMPARE(codeOf(step, PipelineStage::ScaledGradient), QString("0x0005"));
    }

    // A master that cannot hold the update loses it: w = 1, lr·g = 2^-26 is below half of
    // FP32's gap below 1 (2^-25).
    void updateLostInMaster() {
        MixedPrecisionInputs in = defaultMixedPrecisionInputs();
        in.weight = exactValue("1");
        in.gradient = exactValue("2^-10");
        in.learningRate = exactValue("2^-16");
        const MixedPrecisionStep step = runMixedPrecisionStep(in);
        QCOMPARE(outcomeOf(step, PipelineStage::MasterUpdate), StageOutcome::UpdateLost);
        QCOMPARE(codeOf(step, PipelineStage::MasterUpdate), QString("0x3f800000"));
    }

    // BF16 as the half format: 1e-8 needs no scaling there.
    void bf16Half() {
        MixedPrecisionInputs in = runPreset("flushed").inputs;
        in.half = lookUp("bf16");
        const MixedPrecisionStep step = runMixedPrecisionStep(in);
        QCOMPARE(outcomeOf(step, PipelineStage::ScaledGradient), StageOutcome::Rounded);
        QVERIFY(!step.at(PipelineStage::Unscaled).value.isZero());
    }

    // Against the compiler's casts: for power-of-two S, S·g is exact in double, so one
    // double → _Float16 cast is the backward pass's one rounding, and g16/S is exact in float.
    void againstHardwareCasts() {
#ifndef __FLT16_MANT_DIG__
        QSKIP("this compiler has no _Float16");
#else
        std::mt19937_64 random(38);
        std::uniform_real_distribution<double> mantissa(1.0, 2.0);
        std::uniform_int_distribution<int> exponent(-45, 20);
        std::uniform_int_distribution<int> scaleExponent(0, 24);
        MixedPrecisionInputs in = defaultMixedPrecisionInputs();
        int overflows = 0, flushes = 0, subnormals = 0;
        for (int i = 0; i < 4000; ++i) {
            const double g = std::ldexp(mantissa(random), exponent(random)) * (i % 3 ? 1 : -1);
            const int k = scaleExponent(random);
            in.gradient = exactFromDouble(g);
            in.lossScale = exactFromDouble(std::ldexp(1.0, k));
            const MixedPrecisionStep step = runMixedPrecisionStep(in);
            const Float16 g16 = Float16(std::ldexp(g, k));
            std::uint16_t h = 0;
            std::memcpy(&h, &g16, sizeof h);
            const MixedPrecisionStage& scaled = step.at(PipelineStage::ScaledGradient);
            QCOMPARE(std::uint16_t(scaled.rounded.code), h);
            const float u = float(g16) / std::ldexp(1.0f, k);
            QCOMPARE(std::uint32_t(step.at(PipelineStage::Unscaled).rounded.code),
                     std::bit_cast<std::uint32_t>(u));
            QCOMPARE(step.skipped, !std::isfinite(u));
            overflows += scaled.outcome == StageOutcome::Overflow;
            flushes += scaled.outcome == StageOutcome::Flushed;
            subnormals += scaled.outcome == StageOutcome::Subnormal;
        }
        // The draws reach every zone.
        QVERIFY(overflows > 100);
        QVERIFY(flushes > 100);
        QVERIFY(subnormals > 100);
#endif
    }

    void refusesBadInputs() {
        MixedPrecisionInputs in = defaultMixedPrecisionInputs();
        in.lossScale = exactValue("0");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runMixedPrecisionStep(in));
        in = defaultMixedPrecisionInputs();
        in.lossScale = exactValue("1e39"); // beyond FP32
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runMixedPrecisionStep(in));
        in = defaultMixedPrecisionInputs();
        in.gradient = ExactValue::infinity(false);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runMixedPrecisionStep(in));
        in = defaultMixedPrecisionInputs();
        in.clipNorm = exactValue("-1");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runMixedPrecisionStep(in));
        in = defaultMixedPrecisionInputs();
        in.weightDecay = exactValue("-0.1");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runMixedPrecisionStep(in));
        in = defaultMixedPrecisionInputs();
        in.half = lookUp("nf4");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, runMixedPrecisionStep(in));
    }

    void presetsAreFound() {
        QCOMPARE(int(mixedPrecisionPresets().size()), 5);
        QVERIFY(findMixedPrecisionPreset("overflow"));
        QVERIFY(!findMixedPrecisionPreset("nothing"));
        QCOMPARE(defaultMixedPrecisionInputs().gradient, exactValue("1e-8"));
    }
};

QTEST_GUILESS_MAIN(TestMixedPrecisionStep)
#include "tst_mixed_precision_step.moc"
