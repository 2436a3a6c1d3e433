// SPDX-License-Identifier: GPL-3.0-or-later
// AMD's matrix cores and Blackwell's block-scaled instructions (docs/behaviour.md,
// "Machines"), against references written here independently of the code under test: the
// published model (MMA-Sim's) again in doubles with the CPU's own FP32 conversion, FP32
// arithmetic on this CPU for the CDNA1/2 trees, and crafted inputs whose results are worked
// out by hand.
#include "fpx/machines/machine_dot.h"
#include "fpx/machines/machine_element.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/quantization/block_format.h"

#include "machine_test_support.h"
#include "test_support.h"

#include <QTest>

#include <cfenv>
#include <cmath>
#include <optional>
#include <random>

using namespace fpx;

namespace {

ExactValue v(const char* text) {
    return test::exactValue(text);
}

FormatSpec format(const char* id) {
    return test::lookUp(id);
}

MachineModel machine(const char* name) {
    return test::machineNamed(name);
}

QString text(const ExactValue& x) {
    return test::valueText(x);
}

std::vector<ExactValue> exactValues(const std::vector<double>& values) {
    std::vector<ExactValue> made;
    for (const double x : values)
        made.push_back(exactFromDouble(x));
    return made;
}

// MMA-Sim's CDNA3 instruction in doubles: the products (exact in double for 8- and 16-bit
// operands) fused at F = 24 below their largest exponent, cut toward zero; fp8 in two stages
// (even and odd indices, each sum floored 24 bits below the larger exponent); the sum floored
// 31 bits and c 24 bits below E = max(sum's exponent, c's); c dropped in fp8 when below
// E − 25; the result the CPU's conversion of the double sum to float (nearest even). Every
// quantity stays under 53 significant bits, so the doubles are exact.
double referenceCdna3(const std::vector<double>& a, const std::vector<double>& b, int minExponent,
                      double c, bool twoStage) {
    auto exponentOf = [](double x, int minimum) { return std::max(std::ilogb(x), minimum); };
    auto at = [](double x, int q, double (*f)(double)) {
        return std::ldexp(f(std::ldexp(x, -q)), q);
    };
    struct Partial {
        double sum = 0;
        std::optional<int> exponent;
    };
    auto fuse = [&](std::size_t first, std::size_t stride) {
        Partial p;
        for (std::size_t i = first; i < a.size(); i += stride)
            if (a[i] != 0 && b[i] != 0) {
                const int e = exponentOf(a[i], minExponent) + exponentOf(b[i], minExponent);
                p.exponent = std::max(p.exponent.value_or(e), e);
            }
        for (std::size_t i = first; i < a.size(); i += stride)
            if (p.exponent)
                p.sum += at(a[i] * b[i], *p.exponent - 24, std::trunc);
        return p;
    };
    Partial s;
    if (twoStage) {
        const Partial even = fuse(0, 2), odd = fuse(1, 2);
        if (even.exponent || odd.exponent) {
            s.exponent = std::max(even.exponent.value_or(-1000), odd.exponent.value_or(-1000));
            s.sum = at(even.sum, *s.exponent - 24, std::floor) +
                    at(odd.sum, *s.exponent - 24, std::floor);
        }
    } else {
        s = fuse(0, 1);
    }
    std::optional<int> e = s.exponent;
    if (c != 0)
        e = std::max(e.value_or(-1000), exponentOf(c, -126));
    if (!e)
        return c + s.sum;
    double kept = c == 0 ? 0 : at(c, *e - 24, std::floor);
    if (twoStage && c != 0 && exponentOf(c, -126) < *e - 25)
        kept = 0;
    return double(float(at(s.sum, *e - 31, std::floor) + kept));
}

// CDNA1/2 on this CPU: FP32 products, a pairwise tree of FP32 additions, the group added to c;
// with `flush` every operand, product and sum below its format's smallest normal is a zero.
float referencePairwise(const std::vector<double>& a, const std::vector<double>& b, int minExponent,
                        float c, bool flush) {
    auto flushed = [&](double x, int minimum) {
        return flush && x != 0 && std::fabs(x) < std::ldexp(1.0, minimum) ? std::copysign(0.0, x)
                                                                          : x;
    };
    std::vector<float> p;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const float x = float(flushed(a[i], minExponent)), y = float(flushed(b[i], minExponent));
        p.push_back(float(flushed(x * y, -126)));
    }
    auto tree = [&](auto&& self, std::size_t begin, std::size_t end) -> float {
        if (end - begin == 1)
            return p[begin];
        const std::size_t half = begin + (end - begin) / 2;
        return float(flushed(self(self, begin, half) + self(self, half, end), -126));
    };
    const float group = tree(tree, 0, p.size());
    const float start = float(flushed(c, -126)) + 0.0f;
    return float(flushed(start + group, -126));
}

// Blackwell's block-scaled instruction in doubles (MMA-Sim's model): terms aligned by their
// exponents (each product's with its scales', or each run's scales' alone), truncated F bits
// below the largest, added, truncated into FP32 by the CPU's own conversion.
double referenceBlockScaled(const std::vector<double>& a, const std::vector<double>& b,
                            const std::vector<double>& sa, const std::vector<double>& sb,
                            int elementMin, int scaleMin, double c, int fractionBits,
                            int subBlock) {
    auto exponentOf = [](double x, int minimum) { return std::max(std::ilogb(x), minimum); };
    std::vector<std::pair<double, std::optional<int>>> terms;
    terms.push_back({c, c != 0 ? std::optional(exponentOf(c, -126)) : std::nullopt});
    if (subBlock == 0) {
        for (std::size_t i = 0; i < a.size(); ++i) {
            const double p = a[i] * b[i] * sa[i] * sb[i];
            terms.push_back({p, p != 0 ? std::optional(exponentOf(a[i], elementMin) +
                                                       exponentOf(b[i], elementMin) +
                                                       exponentOf(sa[i], scaleMin) +
                                                       exponentOf(sb[i], scaleMin))
                                       : std::nullopt});
        }
    } else {
        for (std::size_t begin = 0; begin < a.size(); begin += std::size_t(subBlock)) {
            double sum = 0;
            for (std::size_t i = begin; i < std::min(a.size(), begin + subBlock); ++i)
                sum += a[i] * b[i];
            const bool aligns = sa[begin] != 0 && sb[begin] != 0;
            terms.push_back({sum * sa[begin] * sb[begin],
                             aligns ? std::optional(exponentOf(sa[begin], scaleMin) +
                                                    exponentOf(sb[begin], scaleMin))
                                    : std::nullopt});
        }
    }
    std::optional<int> largest;
    for (const auto& [value, exponent] : terms)
        if (exponent)
            largest = std::max(largest.value_or(*exponent), *exponent);
    if (!largest)
        return c;
    const int q = *largest - fractionBits;
    double sum = 0;
    for (const auto& [value, exponent] : terms)
        sum += std::ldexp(std::trunc(std::ldexp(value, -q)), q);
    const int previous = std::fegetround();
    std::fesetround(FE_TOWARDZERO);
    volatile double wide = sum;
    volatile float narrow = static_cast<float>(wide);
    std::fesetround(previous);
    return narrow;
}

std::vector<double> doublesOf(const std::vector<ExactValue>& values) {
    std::vector<double> made;
    for (const ExactValue& x : values)
        made.push_back(doubleFromExact(x));
    return made;
}

} // namespace

class TestMachineInstructions : public QObject {
    Q_OBJECT

  private slots:
    void cdna3RoundsTheSumDown();
    void cdna3Fp8AddsTwoStages();
    void cdna3Fp8DropsAFarAccumulator();
    void cdna3AgainstTheModelInDoubles_data();
    void cdna3AgainstTheModelInDoubles();
    void cdna2FlushesSubnormals();
    void pairwiseAgainstThisCpu_data();
    void pairwiseAgainstThisCpu();
    void blockScaledProductsAlignByTheirScales();
    void blockScaledRunsAlignByTheirScalesAlone();
    void blockScaledOperandsFromTheQuantizer();
    void nvfp4TensorScalesInTheEpilogue();
    void randomChainsAgainstTheModels_data();
    void randomChainsAgainstTheModels();
};

void TestMachineInstructions::cdna3RoundsTheSumDown() {
    // c = 1 + 2^-23; products −2^-24 and 2^-40, fused exactly (F = 24 below 2^-24). Their sum
    // −2^-24 + 2^-40 is floored at 2^(0−31) to −2^-24, so the result is 1 + 2^-24, a tie that
    // goes to the even 1. The exact 1 + 2^-24 + 2^-40 rounds to 1 + 2^-23.
    const FormatSpec bf16 = format("bf16");
    const std::vector<ExactValue> a{v("-2^-12"), v("2^-20")}, b{v("2^-12"), v("2^-20")};
    MachineDotOptions options;
    options.c = v("1 + 2^-23");
    const MachineDotResult r = machineDot(machine("amd-cdna3"), bf16, a, b, options);
    QCOMPARE(text(r.value), text(v("1")));
    QCOMPARE(r.format->id, std::string("fp32"));
    QCOMPARE(text(roundedInto(v("1 + 2^-23 - 2^-24 + 2^-40"), fp32Spec())), text(v("1 + 2^-23")));
}

void TestMachineInstructions::cdna3Fp8AddsTwoStages() {
    // e5m2fnuz: 1·1 at index 0 (even), 2^-13·(−2^-13) = −2^-26 at index 1 (odd). The odd half
    // is fused alone and kept whole, then floored 24 bits below 2^0: −2^-24. The result is
    // 1 − 2^-24, which FP32 holds; the exact 1 − 2^-26 rounds to 1.
    const FormatSpec e5m2 = format("fp8_e5m2fnuz");
    const std::vector<ExactValue> a{v("1"), v("2^-13")}, b{v("1"), v("-2^-13")};
    QCOMPARE(text(machineDot(machine("amd-cdna3"), e5m2, a, b).value), text(v("1 - 2^-24")));
}

void TestMachineInstructions::cdna3Fp8DropsAFarAccumulator() {
    // Products 1 and −1 set E = 0; c = 2^-30 is below E − 25 and is dropped: 0, not 2^-30.
    const FormatSpec e4m3 = format("fp8_e4m3fnuz");
    const std::vector<ExactValue> a{v("1"), v("-1")}, b{v("1"), v("1")};
    MachineDotOptions options;
    options.c = v("2^-30");
    QVERIFY(machineDot(machine("amd-cdna3"), e4m3, a, b, options).value.isZero());
    // fp16 has no such rule: c is floored at 2^-24 below E = 0, where 2^-30 is 0 as well,
    // but a c of 2^-20 survives there.
    options.c = v("2^-20");
    QCOMPARE(text(machineDot(machine("amd-cdna3"), format("fp16"), a, b, options).value),
             text(v("2^-20")));
}

void TestMachineInstructions::cdna3AgainstTheModelInDoubles_data() {
    QTest::addColumn<QString>("element");
    QTest::newRow("fp16") << "fp16";
    QTest::newRow("bf16") << "bf16";
    QTest::newRow("fp8_e4m3fnuz") << "fp8_e4m3fnuz";
    QTest::newRow("fp8_e5m2fnuz") << "fp8_e5m2fnuz";
}

void TestMachineInstructions::cdna3AgainstTheModelInDoubles() {
    QFETCH(QString, element);
    const FormatSpec spec = format(element.toLatin1().constData());
    const MachineModel cdna3 = machine("amd-cdna3");
    const MachineInstruction& instruction = *cdna3.instructionFor(spec.id);
    // bf16's full range would overflow FP32 and leave the doubles' exact range; its values
    // within 2^±40 keep every product and sum exact in the reference.
    const std::vector<double> drawn = test::finiteDoubles(spec, 40);
    std::mt19937_64 random(7);
    auto draw = [&] { return drawn[random() % drawn.size()]; };
    for (int trial = 0; trial < 3000; ++trial) {
        std::vector<double> a(instruction.products), b(instruction.products);
        for (std::size_t i = 0; i < a.size(); ++i) {
            a[i] = draw();
            b[i] = draw();
        }
        const double c = trial % 4 == 0 ? 0.0 : double(float(draw() * draw() * 3.1));
        const double expected = referenceCdna3(a, b, spec.minExponent(), c, instruction.twoStage);
        MachineDotOptions options;
        options.c = exactFromDouble(c);
        const double got =
            doubleFromExact(machineDot(cdna3, spec, exactValues(a), exactValues(b), options).value);
        if (got != expected)
            QFAIL(qPrintable(QString("trial %1: model %2, reference %3")
                                 .arg(trial)
                                 .arg(got, 0, 'g', 17)
                                 .arg(expected, 0, 'g', 17)));
    }
}

void TestMachineInstructions::cdna2FlushesSubnormals() {
    // 2^-24 is FP16's smallest subnormal: CDNA2 reads it as 0, CDNA1 multiplies it.
    const FormatSpec fp16 = format("fp16");
    const std::vector<ExactValue> a{v("2^-24")}, b{v("1")};
    QVERIFY(machineDot(machine("amd-cdna2"), fp16, a, b).value.isZero());
    QCOMPARE(text(machineDot(machine("amd-cdna1"), fp16, a, b).value), text(v("2^-24")));
    // bf16 2^-70 · 2^-70 = 2^-140, an FP32 subnormal: flushed on CDNA2, kept on CDNA1.
    const FormatSpec bf16 = format("bf16");
    const std::vector<ExactValue> x{v("2^-70")}, y{v("2^-70")};
    QVERIFY(machineDot(machine("amd-cdna2"), bf16, x, y).value.isZero());
    QCOMPARE(text(machineDot(machine("amd-cdna1"), bf16, x, y).value), text(v("2^-140")));
}

void TestMachineInstructions::pairwiseAgainstThisCpu_data() {
    QTest::addColumn<QString>("machineName");
    QTest::addColumn<QString>("element");
    QTest::newRow("cdna1 fp16") << "amd-cdna1"
                                << "fp16";
    QTest::newRow("cdna1 bf16") << "amd-cdna1"
                                << "bf16";
    QTest::newRow("cdna2 fp16") << "amd-cdna2"
                                << "fp16";
    QTest::newRow("cdna2 bf16") << "amd-cdna2"
                                << "bf16";
}

void TestMachineInstructions::pairwiseAgainstThisCpu() {
    QFETCH(QString, machineName);
    QFETCH(QString, element);
    const FormatSpec spec = format(element.toLatin1().constData());
    const MachineModel m = machine(machineName.toLatin1().constData());
    const MachineInstruction& instruction = *m.instructionFor(spec.id);
    const std::vector<double> values = test::finiteDoubles(spec);
    std::mt19937_64 random(11);
    auto draw = [&] { return values[random() % values.size()]; };
    for (int trial = 0; trial < 3000; ++trial) {
        std::vector<double> a(instruction.products), b(instruction.products);
        for (std::size_t i = 0; i < a.size(); ++i) {
            a[i] = draw();
            b[i] = draw();
        }
        const float c = trial % 4 == 0 ? 0.0f : float(draw() * draw() * 3.1);
        const float expected =
            referencePairwise(a, b, spec.minExponent(), c, instruction.flushesSubnormals);
        MachineDotOptions options;
        options.c = exactFromDouble(c);
        const ExactValue got = machineDot(m, spec, exactValues(a), exactValues(b), options).value;
        const bool same = std::isnan(expected)
                              ? got.isNaN()
                              : !got.isNaN() && doubleFromExact(got) == double(expected);
        if (!same)
            QFAIL(qPrintable(QString("trial %1: model %2, this CPU %3")
                                 .arg(trial)
                                 .arg(test::valueText(got))
                                 .arg(double(expected), 0, 'g', 17)));
    }
}

void TestMachineInstructions::blockScaledProductsAlignByTheirScales() {
    // MXF8F6F4 on Blackwell, F = 25: c = 1 and one product 1·1 whose scales are 2^-15 each:
    // it aligns at −30, below the window 2^(0−25), and vanishes; with scales 2^-10 each it is
    // 2^-20, inside the window, and FP32 holds 1 + 2^-20.
    const MachineModel blackwell = machine("nvidia-blackwell");
    const FormatSpec e4m3 = format("fp8_e4m3");
    const FormatSpec e8m0 = format("e8m0");
    const MachineInstruction& mx = *blackwell.instructionFor("mxfp8_e4m3");
    const std::vector<ExactValue> one{v("1")};
    const std::vector<ExactValue> far{v("2^-15")}, near{v("2^-10")};
    FusedStep step = blockScaledDotAdd(one, one, far, far, e4m3, e8m0, v("1"), mx.model, 0);
    QCOMPARE(text(step.output), text(v("1")));
    QVERIFY(step.terms.at(1).cut);
    step = blockScaledDotAdd(one, one, near, near, e4m3, e8m0, v("1"), mx.model, 0);
    QCOMPARE(text(step.output), text(v("1 + 2^-20")));
    // A NaN scale (E8M0's 0xFF) makes the result NaN.
    const std::vector<ExactValue> nan{ExactValue::nan()};
    QVERIFY(blockScaledDotAdd(one, one, nan, near, e4m3, e8m0, v("1"), mx.model, 0).output.isNaN());
}

void TestMachineInstructions::blockScaledRunsAlignByTheirScalesAlone() {
    // NVF4 on Blackwell, F = 35, runs of 16 with E4M3 scales. Run 2 holds 1·1 + 0.5·0.5 = 1.25
    // with scales 2^-9 each (E4M3's smallest subnormal: aligned at its minimum exponent −6,
    // the significand 2^-3 riding with the sum), a term 1.25·2^-18 aligned at −12. When run 1
    // is all zeros with scales 2^8 each, it still sets E = 16: the window ends at 2^-19 and
    // the term keeps only 2^-18. With run 1's scales 1, E = −12 and the term is kept whole.
    const MachineModel blackwell = machine("nvidia-blackwell");
    const MachineInstruction& nv = *blackwell.instructionFor("nvfp4");
    const FormatSpec e2m1 = format("fp4_e2m1");
    const FormatSpec e4m3 = format("fp8_e4m3");
    std::vector<ExactValue> a(32, ExactValue()), b(32, ExactValue());
    a[16] = v("1");
    b[16] = v("1");
    a[17] = v("0.5");
    b[17] = v("0.5");
    std::vector<ExactValue> scales(32, v("2^-9"));
    std::fill(scales.begin(), scales.begin() + 16, v("2^8"));
    FusedStep step =
        blockScaledDotAdd(a, b, scales, scales, e2m1, e4m3, ExactValue(), nv.model, nv.subBlock);
    QCOMPARE(step.alignment, std::int64_t(16));
    QCOMPARE(text(step.output), text(v("2^-18")));
    std::fill(scales.begin(), scales.begin() + 16, v("1"));
    step = blockScaledDotAdd(a, b, scales, scales, e2m1, e4m3, ExactValue(), nv.model, nv.subBlock);
    QCOMPARE(text(step.output), text(v("1.25*2^-18")));
}

void TestMachineInstructions::blockScaledOperandsFromTheQuantizer() {
    // Real vectors quantized to MXFP8 (E4M3 × E8M0 per 32) and MXFP4 run through Blackwell:
    // the result is within FP32's truncation of the exact dot product of the dequantized
    // values, as 25 and 35 fraction bits keep every term of a block of similar magnitudes.
    const MachineModel blackwell = machine("nvidia-blackwell");
    std::mt19937 random(3);
    std::normal_distribution<float> normal(0, 1);
    std::vector<float> x(256), y(256);
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = normal(random);
        y[i] = normal(random);
    }
    for (const char* id : {"mxfp8_e4m3", "mxfp4", "nvfp4"}) {
        std::string error;
        const std::optional<BlockFormat> format = findBlockFormat(id, {}, error);
        QVERIFY2(format, error.c_str());
        const std::optional<BlockScaledOperand> a = quantizeOperand(*format, x, error);
        const std::optional<BlockScaledOperand> b = quantizeOperand(*format, y, error);
        QVERIFY2(a && b, error.c_str());
        const MachineDotResult r = machineBlockDot(blackwell, *format, *a, *b);
        const ExactValue exact = blockScaledExact(*a, *b, ExactValue());
        const double relative = nearestDouble(((r.value - exact) / exact).abs());
        QVERIFY2(relative < std::ldexp(1.0, -18),
                 qPrintable(QString("%1: %2").arg(id).arg(relative)));
        QCOMPARE(r.steps, std::size_t(256 / blackwell.instructionFor(id)->products));
    }
    // The element ids name block formats: a plain format is refused for them, and a block
    // format for a machine without block-scaled instructions.
    std::string error;
    const std::optional<BlockFormat> mxfp4 = findBlockFormat("mxfp4", {}, error);
    const BlockScaledOperand none;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             machineBlockDot(machine("nvidia-hopper"), *mxfp4, none, none));
}

void TestMachineInstructions::nvfp4TensorScalesInTheEpilogue() {
    // Tensor scales 3 and 5: the instructions' result 1 + 2^-23, times FP32(15), rounded once
    // into FP32: 15 + 15·2^-23 lies between 15 + 7·2^-20 and 15 + 8·2^-20 (spacing 2^-20 in
    // [8, 16)): 15·2^-23 = 1.875·2^-20, nearer 2·2^-20: 15 + 2^-19.
    const MachineModel blackwell = machine("nvidia-blackwell");
    std::string error;
    const std::optional<BlockFormat> nvfp4 = findBlockFormat("nvfp4", {}, error);
    // Element 0 in the first run of 16 with scales 1, element 16 in the second with 2^-10 and
    // 2^-11.
    BlockScaledOperand a, b;
    a.values.assign(17, ExactValue());
    b.values.assign(17, ExactValue());
    a.values[0] = b.values[0] = v("1");
    a.values[16] = b.values[16] = v("0.5");
    a.scales.assign(17, v("1"));
    b.scales.assign(17, v("1"));
    a.scales[16] = v("2^-10");
    b.scales[16] = v("2^-11");
    a.tensorScale = v("3");
    b.tensorScale = v("5");
    // 1 + 0.25·2^-21 = 1 + 2^-23 from the instruction (F = 35 keeps it).
    const MachineDotResult r = machineBlockDot(blackwell, *nvfp4, a, b);
    QCOMPARE(text(r.value), text(v("15 + 2^-19")));
    QCOMPARE(text(blockScaledExact(a, b, ExactValue())), text(v("15 + 15*2^-23")));
    // With c = 2^-20 the epilogue adds it to 15·(1 + 2^-23) = 15 + 1.875·2^-20 and rounds
    // once: 15 + 2.875·2^-20 lies between 15 + 2·2^-20 and 15 + 3·2^-20, nearer the second.
    // c is not scaled, as in the exact value; the chain runs from 0.
    MachineDotOptions options;
    options.c = v("2^-20");
    QCOMPARE(text(machineBlockDot(blackwell, *nvfp4, a, b, options).value),
             text(v("15 + 3*2^-20")));
    QCOMPARE(text(blockScaledExact(a, b, v("2^-20"))), text(v("15 + 15*2^-23 + 2^-20")));
}

void TestMachineInstructions::randomChainsAgainstTheModels_data() {
    QTest::addColumn<QString>("machineName");
    QTest::addColumn<QString>("element");
    for (const char* name : {"amd-cdna1", "amd-cdna2", "amd-cdna3", "nvidia-blackwell"})
        for (const MachineInstruction& instruction : machine(name).instructions)
            for (const std::string& id : instruction.elements)
                if (std::string(name) != "nvidia-blackwell" || instruction.blockScaled)
                    QTest::newRow((std::string(name) + " " + id).c_str())
                        << QString(name) << QString::fromStdString(id);
}

void TestMachineInstructions::randomChainsAgainstTheModels() {
    // Dot products of K up to 512 with and without c and promotion, through the machine and
    // through the chain written again here around each instruction's reference (the model in
    // doubles, or this CPU's FP32 for CDNA1/2); block formats from the quantizer's codes and
    // scales.
    QFETCH(QString, machineName);
    QFETCH(QString, element);
    const MachineModel m = machine(machineName.toLatin1().constData());
    std::string error;
    const std::optional<MachineElement> e = findMachineElement(element.toStdString(), error);
    QVERIFY2(e, error.c_str());
    const MachineInstruction& instruction = *m.instructionFor(e->id);
    const std::size_t group = std::size_t(instruction.products);
    const FormatSpec& spec = e->format;
    const std::vector<double> values = test::finiteDoubles(spec, 30);
    std::mt19937_64 random(17);
    std::normal_distribution<float> normal(0, 1);
    for (int trial = 0; trial < 40; ++trial) {
        const std::size_t k = std::size_t(1 + random() % 512);
        const double c = trial % 3 == 0 ? 0.0 : double(float(normal(random) * 4));
        const std::size_t promote = trial % 2 == 0 ? 0 : group * (1 + random() % 4);
        std::vector<double> a(k), b(k), sa(k, 1.0), sb(k, 1.0);
        std::optional<BlockScaledOperand> qa, qb;
        if (e->block) {
            std::vector<float> x(k), y(k);
            for (std::size_t i = 0; i < k; ++i) {
                x[i] = normal(random) * float(std::ldexp(1.0, int(random() % 9) - 4));
                y[i] = normal(random);
            }
            qa = quantizeOperand(*e->block, x, error);
            qb = quantizeOperand(*e->block, y, error);
            QVERIFY2(qa && qb, error.c_str());
            a = doublesOf(qa->values);
            b = doublesOf(qb->values);
            sa = doublesOf(qa->scales);
            sb = doublesOf(qb->scales);
        } else {
            for (std::size_t i = 0; i < k; ++i) {
                a[i] = values[random() % values.size()];
                b[i] = values[random() % values.size()];
            }
        }
        auto slice = [](const std::vector<double>& v, std::size_t begin, std::size_t end) {
            return std::vector<double>(v.begin() + std::ptrdiff_t(begin),
                                       v.begin() + std::ptrdiff_t(end));
        };
        // NVFP4's tensor scales: the chain runs from 0 and the epilogue computes alpha·acc + c
        // with one rounding (fmaf).
        const float alpha = e->block ? float(doubleFromExact(qa->tensorScale)) *
                                           float(doubleFromExact(qb->tensorScale))
                                     : 1.0f;
        const double start = alpha != 1.0f ? 0.0 : c;
        double total = start, accumulator = promote > 0 ? 0.0 : start;
        const std::size_t steps = std::max<std::size_t>(1, (k + group - 1) / group);
        for (std::size_t s = 0; s < steps; ++s) {
            const std::size_t begin = s * group, end = std::min(k, begin + group);
            const auto ga = slice(a, begin, end), gb = slice(b, begin, end);
            switch (instruction.algorithm) {
            case InstructionAlgorithm::FusedThenAccumulator:
                accumulator =
                    referenceCdna3(ga, gb, spec.minExponent(), accumulator, instruction.twoStage);
                break;
            case InstructionAlgorithm::PairwiseFp32:
                accumulator = referencePairwise(ga, gb, spec.minExponent(), float(accumulator),
                                                instruction.flushesSubnormals);
                break;
            case InstructionAlgorithm::Fused:
                accumulator = referenceBlockScaled(
                    ga, gb, slice(sa, begin, end), slice(sb, begin, end), spec.minExponent(),
                    e->block->scale->minExponent(), accumulator, instruction.model.fractionBits,
                    instruction.subBlock);
                break;
            }
            if (promote > 0 && ((s + 1) % (promote / group) == 0 || s + 1 == steps)) {
                total = double(float(total) + float(accumulator));
                accumulator = 0;
            }
        }
        double expected = promote > 0 ? total : accumulator;
        MachineDotOptions options;
        options.c = exactFromDouble(c);
        options.promoteEvery = promote;
        double got;
        if (e->block) {
            if (alpha != 1.0f)
                expected = double(std::fmaf(alpha, float(expected), float(c)));
            got = doubleFromExact(machineBlockDot(m, *e->block, *qa, *qb, options).value);
        } else {
            got =
                doubleFromExact(machineDot(m, spec, exactValues(a), exactValues(b), options).value);
        }
        if (got != expected)
            QFAIL(qPrintable(QString("trial %1 (K %2, promote %3): model %4, reference %5")
                                 .arg(trial)
                                 .arg(k)
                                 .arg(promote)
                                 .arg(got, 0, 'g', 17)
                                 .arg(expected, 0, 'g', 17)));
    }
}

QTEST_APPLESS_MAIN(TestMachineInstructions)
#include "tst_machine_instructions.moc"
