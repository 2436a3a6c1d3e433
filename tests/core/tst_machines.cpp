// SPDX-License-Identifier: GPL-3.0-or-later
// Matrix-engine models against the published facts, on inputs crafted so that each fact shows
// (the values below are worked out by hand from the model's definition, not by the code under
// test): a product that vanishes at F = 13 but survives at F = 25, truncation of a negative
// term (and AMD's rounding down), the alignment of a subnormal operand at its format's minimum
// exponent, the e8m13 output, chaining, and promotion restoring what a long chain loses.
#include "fpx/machines/machine_dot.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"

#include "machine_test_support.h"
#include "test_support.h"

#include <QTest>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
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

} // namespace

class TestMachines : public QObject {
    Q_OBJECT

  private slots:
    void smallProductVanishesAtThirteenBits();
    void negativeTermsAreTruncatedTowardZero();
    void roundingDownCutsFurther();
    void subnormalOperandAlignsAtTheMinimumExponent();
    void e8m13OutputTruncates();
    void fp16OutputRoundsToNearestEven();
    void specialValuesFollowIeee();
    void chainedInstructionsLoseSmallProducts();
    void promotionRestoresTheSmallProducts();
    void catalogueAndGenericModel();
    void randomInstructionsAgainstHardwareRounding_data();
    void randomInstructionsAgainstHardwareRounding();
    void randomChainsAgainstTheModelInDoubles_data();
    void randomChainsAgainstTheModelInDoubles();
};

void TestMachines::smallProductVanishesAtThirteenBits() {
    // c = 1 and one product 2^-10 · 2^-10 = 2^-20 (fp8_e5m2 operands). The largest exponent is
    // c's, 0: at F = 13 the product lies below 2^-13 and is cut away; at F = 25 it is kept.
    const FormatSpec e5m2 = format("fp8_e5m2");
    const std::vector<ExactValue> a{v("2^-10")}, b{v("2^-10")};
    MachineDotOptions options;
    options.c = v("1");
    const MachineDotResult hopper = machineDot(machine("nvidia-hopper"), e5m2, a, b, options);
    QCOMPARE(text(hopper.value), text(v("1")));
    const MachineDotResult blackwell = machineDot(machine("nvidia-blackwell"), e5m2, a, b, options);
    QCOMPARE(text(blackwell.value), text(v("1 + 2^-20")));
}

void TestMachines::negativeTermsAreTruncatedTowardZero() {
    // c = 1, product −(1.25·2^-12)·2^-13 = −(2^-25 + 2^-27) (fp16 operands), F = 24: the
    // quantum is 2^-24 and the product truncates toward zero to −0, so the result is 1, where
    // one correctly rounded FP32 operation gives 1 − 2^-24.
    const FormatSpec fp16 = format("fp16");
    const std::vector<ExactValue> a{v("-1.25*2^-12")}, b{v("2^-13")};
    MachineDotOptions options;
    options.c = v("1");
    const MachineDotResult r = machineDot(machine("nvidia-ampere"), fp16, a, b, options);
    QCOMPARE(text(r.value), text(v("1")));
    const MachineDotResult exactlyRounded = machineDot(machine("fused:60"), fp16, a, b, options);
    QCOMPARE(text(exactlyRounded.value), text(v("1 - 2^-24"))); // F = 60 keeps it, RZ output
}

void TestMachines::roundingDownCutsFurther() {
    // The same terms cut toward −∞ (AMD CDNA3's groups): −(2^-25 + 2^-27) becomes −2^-24.
    const FormatSpec fp16 = format("fp16");
    const std::vector<ExactValue> a{v("-1.25*2^-12")}, b{v("2^-13")};
    FusedStepModel model{24, TermCut::TowardNegative, FusedOutput::Fp32NearestEven};
    const FusedStep step = fusedDotAdd(a, b, fp16, v("1"), model);
    QCOMPARE(step.alignment, std::int64_t(0));
    QCOMPARE(text(step.terms[1].kept), text(v("-2^-24")));
    QVERIFY(step.terms[1].cut);
    QCOMPARE(text(step.output), text(v("1 - 2^-24")));
}

void TestMachines::subnormalOperandAlignsAtTheMinimumExponent() {
    // fp8_e4m3's minimum exponent is −6. A subnormal 2^-9 counts at −6, so 2^-9 · 2^3 aligns at
    // −3 although its value, 2^-6, lies in binade −6. With c = 0 and F = 2 the quantum is
    // 2^-5: the product 2^-6 is cut away entirely, where aligned at its own binade it would
    // have been kept.
    const FormatSpec e4m3 = format("fp8_e4m3");
    const std::vector<ExactValue> a{v("2^-9")}, b{v("8")};
    const FusedStep step = fusedDotAdd(a, b, e4m3, ExactValue(), {2});
    QCOMPARE(step.alignment, std::int64_t(-3));
    QCOMPARE(text(step.output), text(v("0")));
    const std::vector<ExactValue> normal{v("2^-6")}, one{v("1")};
    const FusedStep aligned = fusedDotAdd(normal, one, e4m3, ExactValue(), {2});
    QCOMPARE(aligned.alignment, std::int64_t(-6));
    QCOMPARE(text(aligned.output), text(v("2^-6")));
}

void TestMachines::e8m13OutputTruncates() {
    // Hopper FP8: c = 1.5 and products 0.25 + 0.25 + 2^-13 (fp8_e4m3 operands). Every term is
    // a multiple of 2^-13 (E = 0, F = 13), so the sum is exactly 2 + 2^-13; the e8m13 output
    // keeps 13 fraction bits at exponent 1 (a quantum of 2^-12) and truncates it to 2.
    const FormatSpec e4m3 = format("fp8_e4m3");
    const std::vector<ExactValue> a{v("0.5"), v("0.5"), v("2^-7")},
        b{v("0.5"), v("0.5"), v("2^-6")};
    const FusedStep step =
        fusedDotAdd(a, b, e4m3, v("1.5"), {13, TermCut::TowardZero, FusedOutput::E8M13TowardZero});
    QCOMPARE(text(step.sum), text(v("2 + 2^-13")));
    QCOMPARE(text(step.output), text(v("2")));
    // The same sum into FP32 keeps it.
    const FusedStep fp32 = fusedDotAdd(a, b, e4m3, v("1.5"), {13});
    QCOMPARE(text(fp32.output), text(v("2 + 2^-13")));
}

void TestMachines::fp16OutputRoundsToNearestEven() {
    // 1 + 3·2^-12 in FP16 (10 fraction bits): between 1 + 2^-10 and 1 + 2^-9, nearer the first
    // (3·2^-12 − 2^-10 = 2^-12 against 2^-9 − 3·2^-12 = 2^-12: a tie) and even: 1 + 2^-10.
    const FormatSpec fp16 = format("fp16");
    const std::vector<ExactValue> a{v("3*2^-12")}, b{v("1")};
    const FusedStep step =
        fusedDotAdd(a, b, fp16, v("1"), {24, TermCut::TowardZero, FusedOutput::Fp16NearestEven});
    QCOMPARE(text(step.output), text(v("1 + 2^-10")));
}

void TestMachines::specialValuesFollowIeee() {
    const FormatSpec fp16 = format("fp16");
    const std::vector<ExactValue> inf{ExactValue::infinity(false)}, zero{ExactValue()};
    QVERIFY(fusedDotAdd(inf, zero, fp16, v("1"), {24}).output.isNaN()); // ∞ · 0
    const FusedStep plus = fusedDotAdd(inf, std::vector{v("1")}, fp16, v("1"), {24});
    QVERIFY(plus.output.isInfinity() && !plus.output.isNegative());
    const FusedStep both =
        fusedDotAdd(inf, std::vector{v("1")}, fp16, ExactValue::infinity(true), {24});
    QVERIFY(both.output.isNaN()); // ∞ − ∞
    // Only zeros: −0 when every term is −0.
    const std::vector<ExactValue> minusZero{ExactValue::zero(true)}, one{v("1")};
    const FusedStep negative = fusedDotAdd(minusZero, one, fp16, ExactValue::zero(true), {24});
    QVERIFY(negative.output.isZero() && negative.output.isNegative());
    const FusedStep positive = fusedDotAdd(minusZero, one, fp16, ExactValue(), {24});
    QVERIFY(positive.output.isZero() && !positive.output.isNegative());
}

void TestMachines::chainedInstructionsLoseSmallProducts() {
    // Hopper FP8, K = 256: a_0·b_0 = 16·16 = 2^8, then 255 products 2^-3 · 2^-3 = 2^-6.
    // Every instruction after the first aligns at 8 (the accumulator's exponent), so its
    // quantum is 2^-5 and every 2^-6 vanishes: the result stays 256, 8 instructions chained.
    const FormatSpec e4m3 = format("fp8_e4m3");
    std::vector<ExactValue> a(256, v("2^-3")), b(256, v("2^-3"));
    a[0] = v("16");
    b[0] = v("16");
    const MachineDotResult r = machineDot(machine("nvidia-hopper"), e4m3, a, b);
    QCOMPARE(r.steps, std::size_t(8));
    QCOMPARE(text(r.value), text(v("256")));
    QCOMPARE(r.format->id, std::string("e8m13"));
    // Blackwell keeps 25 bits: 256 + 255·2^-6 exactly.
    QCOMPARE(text(machineDot(machine("nvidia-blackwell"), e4m3, a, b).value),
             text(v("256 + 255*2^-6")));
}

void TestMachines::promotionRestoresTheSmallProducts() {
    // The same K = 256 promoted every 128 (DeepSeek-V3's four wgmma): the first block still
    // gives 256, but the second restarts at 0, where its 128 products 2^-6 align at −6 and add
    // up exactly to 2; the FP32 total is 258 (the exact value is 256 + 255·2^-6).
    const FormatSpec e4m3 = format("fp8_e4m3");
    std::vector<ExactValue> a(256, v("2^-3")), b(256, v("2^-3"));
    a[0] = v("16");
    b[0] = v("16");
    MachineDotOptions options;
    options.promoteEvery = 128;
    const MachineDotResult r = machineDot(machine("nvidia-hopper"), e4m3, a, b, options);
    QCOMPARE(text(r.value), text(v("258")));
    QCOMPARE(r.promotions, std::size_t(2));
    QCOMPARE(r.format->id, std::string("fp32"));
    options.promoteEvery = 100; // not a multiple of 32 products
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             machineDot(machine("nvidia-hopper"), e4m3, a, b, options));
}

void TestMachines::catalogueAndGenericModel() {
    for (const char* name : {"nvidia-volta", "nvidia-turing", "nvidia-ampere", "nvidia-ada",
                             "nvidia-hopper", "nvidia-blackwell"}) {
        const MachineModel m = machine(name);
        QVERIFY2(!m.source.empty() && !m.description.empty(), name);
        QVERIFY2(m.instructionFor("fp16"), name);
    }
    QCOMPARE(machine("nvidia-hopper").instructionFor("fp8_e4m3")->products, 32);
    QCOMPARE(machine("nvidia-hopper").instructionFor("fp8_e4m3")->model.fractionBits, 13);
    QCOMPARE(machine("nvidia-ampere").instructionFor("bf16")->products, 8);
    // TF32 operands are truncated from FP32: 1 + 3·2^-12 becomes 1, not 1 + 2^-10.
    const MachineInstruction& tf32 = *machine("nvidia-hopper").instructionFor("tf32");
    QVERIFY(tf32.truncatesFp32Operands);
    QCOMPARE(text(machineOperand(tf32, format("tf32"), v("1 + 3*2^-12"))), text(v("1")));
    QCOMPARE(text(machineOperand(tf32, format("tf32"), v("-1 - 3*2^-12"))), text(v("-1")));
    const MachineInstruction& half = *machine("nvidia-hopper").instructionFor("fp16");
    QVERIFY(!half.truncatesFp32Operands);
    QVERIFY(!machine("nvidia-volta").instructionFor("bf16"));
    const MachineModel generic = machine("fused:13:32");
    QCOMPARE(generic.instructionFor("int8")->products, 32);
    QCOMPARE(generic.instructionFor("fp16")->model.fractionBits, 13);
    std::string error;
    for (const char* bad : {"fused:", "fused:0", "fused:13:0", "fused:x", "fused:1:2:3",
                            "fused:201", "nvidia-pascal"}) {
        error.clear();
        QVERIFY2(!findMachine(bad, error), bad);
        QVERIFY2(!error.empty(), bad);
    }
    QVERIFY(error.find("nvidia-hopper") != std::string::npos); // the names are listed
}

namespace {

// The model again, in doubles, as an independent reference: the products of fp8 and fp16
// operands are exact in double, every cut term is a multiple of 2^(E−F) below 2^(E+2), and
// 33 of them with F ≤ 25 sum exactly in 53 bits; the FP32 output is the CPU's own conversion
// with the rounding mode set to toward-zero, and e8m13 clears the low 10 fraction bits of
// that float.
double referenceInstruction(const std::vector<double>& a, const std::vector<double>& b,
                            int elementMinExponent, double c, int fractionBits, bool e8m13) {
    auto exponentOf = [](double x, int minimum) { return std::max(std::ilogb(x), minimum); };
    std::optional<int> largest;
    if (c != 0)
        largest = exponentOf(c, -126);
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i] != 0 && b[i] != 0) {
            const int e =
                exponentOf(a[i], elementMinExponent) + exponentOf(b[i], elementMinExponent);
            largest = std::max(largest.value_or(e), e);
        }
    if (!largest)
        return c + 0.0;
    const int quantum = *largest - fractionBits;
    auto cut = [&](double x) { return std::ldexp(std::trunc(std::ldexp(x, -quantum)), quantum); };
    double sum = cut(c);
    for (std::size_t i = 0; i < a.size(); ++i)
        sum += cut(a[i] * b[i]);
    const int previous = std::fegetround();
    std::fesetround(FE_TOWARDZERO);
    volatile double wide = sum;
    volatile float narrow = static_cast<float>(wide);
    std::fesetround(previous);
    float result = narrow;
    if (e8m13) {
        std::uint32_t bits = std::bit_cast<std::uint32_t>(result);
        bits &= ~std::uint32_t{0x3FF};
        result = std::bit_cast<float>(bits);
    }
    return result;
}

} // namespace

void TestMachines::randomInstructionsAgainstHardwareRounding_data() {
    QTest::addColumn<QString>("machineName");
    QTest::addColumn<QString>("element");
    QTest::newRow("hopper fp8_e4m3") << "nvidia-hopper"
                                     << "fp8_e4m3";
    QTest::newRow("hopper fp8_e5m2") << "nvidia-hopper"
                                     << "fp8_e5m2";
    QTest::newRow("ada fp8_e4m3") << "nvidia-ada"
                                  << "fp8_e4m3";
    QTest::newRow("blackwell fp8_e4m3") << "nvidia-blackwell"
                                        << "fp8_e4m3";
    QTest::newRow("ampere fp16") << "nvidia-ampere"
                                 << "fp16";
    QTest::newRow("volta fp16") << "nvidia-volta"
                                << "fp16";
}

void TestMachines::randomInstructionsAgainstHardwareRounding() {
    QFETCH(QString, machineName);
    QFETCH(QString, element);
    const MachineModel m = machine(machineName.toLatin1().constData());
    const FormatSpec spec = format(element.toLatin1().constData());
    const MachineInstruction& instruction = *m.instructionFor(spec.id);
    const bool e8m13 = instruction.model.output == FusedOutput::E8M13TowardZero;
    const std::vector<double> values = test::finiteDoubles(spec); // to draw from
    std::mt19937_64 random(42);
    auto draw = [&] { return values[random() % values.size()]; };
    for (int trial = 0; trial < 3000; ++trial) {
        const std::size_t k = instruction.products;
        std::vector<double> a(k), b(k);
        std::vector<ExactValue> ea(k), eb(k);
        for (std::size_t i = 0; i < k; ++i) {
            a[i] = draw();
            b[i] = draw();
            ea[i] = exactFromDouble(a[i]);
            eb[i] = exactFromDouble(b[i]);
        }
        // c: zero, or a product-sized FP32 value (its own value rounded to FP32).
        const double c = trial % 4 == 0 ? 0.0 : double(float(draw() * draw() * 3.1));
        const double expected = referenceInstruction(a, b, spec.minExponent(), c,
                                                     instruction.model.fractionBits, e8m13);
        const FusedStep step = fusedDotAdd(ea, eb, spec, exactFromDouble(c), instruction.model);
        const double got = doubleFromExact(step.output);
        if (got != expected || std::signbit(got) != std::signbit(expected))
            QFAIL(qPrintable(QString("trial %1: model %2, reference %3")
                                 .arg(trial)
                                 .arg(got, 0, 'g', 17)
                                 .arg(expected, 0, 'g', 17)));
    }
}

void TestMachines::randomChainsAgainstTheModelInDoubles_data() {
    QTest::addColumn<QString>("machineName");
    QTest::addColumn<QString>("element");
    for (const MachineModel& m : builtInMachines())
        for (const MachineInstruction& instruction : m.instructions)
            for (const std::string& id : instruction.elements)
                if (instruction.algorithm == InstructionAlgorithm::Fused &&
                    !instruction.blockScaled &&
                    instruction.model.output != FusedOutput::Fp16NearestEven)
                    QTest::newRow((m.name + " " + id).c_str())
                        << QString::fromStdString(m.name) << QString::fromStdString(id);
}

void TestMachines::randomChainsAgainstTheModelInDoubles() {
    // Dot products of K up to 512 with and without c and promotion: the chain and the FP32
    // promotion written again here, around the independent instruction in doubles, on every
    // built-in NVIDIA instruction. bf16 and tf32 are drawn within 2^±30 so that the doubles
    // stay exact.
    QFETCH(QString, machineName);
    QFETCH(QString, element);
    const MachineModel m = machine(machineName.toLatin1().constData());
    const FormatSpec spec = format(element.toLatin1().constData());
    const MachineInstruction& instruction = *m.instructionFor(spec.id);
    const bool e8m13 = instruction.model.output == FusedOutput::E8M13TowardZero;
    const std::vector<double> values = test::finiteDoubles(spec, 30);
    std::mt19937_64 random(99);
    auto draw = [&] { return values[random() % values.size()]; };
    const std::size_t group = std::size_t(instruction.products);
    for (int trial = 0; trial < 60; ++trial) {
        const std::size_t k = std::size_t(1 + random() % 512);
        std::vector<double> a(k), b(k);
        for (std::size_t i = 0; i < k; ++i) {
            a[i] = draw();
            b[i] = draw();
        }
        const double c = trial % 3 == 0 ? 0.0 : double(float(draw() * draw()));
        const std::size_t promote = trial % 2 == 0 ? 0 : group * (1 + random() % 4);
        // The chain: each group through the instruction, its output the next one's c; promoted,
        // the accumulator restarts at 0 and an FP32 addition takes it into the total.
        double total = c, accumulator = promote > 0 ? 0.0 : c;
        const std::size_t steps = std::max<std::size_t>(1, (k + group - 1) / group);
        for (std::size_t s = 0; s < steps; ++s) {
            const std::size_t begin = s * group, end = std::min(k, begin + group);
            const std::vector<double> ga(a.begin() + begin, a.begin() + end);
            const std::vector<double> gb(b.begin() + begin, b.begin() + end);
            accumulator = referenceInstruction(ga, gb, spec.minExponent(), accumulator,
                                               instruction.model.fractionBits, e8m13);
            if (promote > 0 && ((s + 1) % (promote / group) == 0 || s + 1 == steps)) {
                total = double(float(total) + float(accumulator));
                accumulator = 0;
            }
        }
        const double expected = promote > 0 ? total : accumulator;
        std::vector<ExactValue> ea, eb;
        for (std::size_t i = 0; i < k; ++i) {
            ea.push_back(exactFromDouble(a[i]));
            eb.push_back(exactFromDouble(b[i]));
        }
        MachineDotOptions options;
        options.c = exactFromDouble(c);
        options.promoteEvery = promote;
        const double got = doubleFromExact(machineDot(m, spec, ea, eb, options).value);
        if (got != expected)
            QFAIL(qPrintable(QString("trial %1 (K %2, promote %3): model %4, reference %5")
                                 .arg(trial)
                                 .arg(k)
                                 .arg(promote)
                                 .arg(got, 0, 'g', 17)
                                 .arg(expected, 0, 'g', 17)));
    }
}

QTEST_APPLESS_MAIN(TestMachines)
#include "tst_machines.moc"
