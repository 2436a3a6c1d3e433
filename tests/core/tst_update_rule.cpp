// SPDX-License-Identifier: GPL-3.0-or-later
// Formulas with explicit roundings (expression.h, parseExplicitExpression) and SGD update rules
// (update_rule.h; docs/behaviour.md, "Update rules").
//
// The references are independent of the core: PyTorch's CPU arithmetic is written here in
// plain C++ floats, BF16 and FP16 round-to-nearest-even written by hand on a float's bits and
// by scaling, the FP32 fused multiply-add is std::fmaf; hand-worked values are worked from the
// formats' ULPs. `exact` is held to the simulation's own definition written out step by step.
#include "fpx/exact/conversion.h"
#include "fpx/exact/expression.h"
#include "fpx/training/sgd_simulation.h"
#include "fpx/training/update_rule.h"

#include "test_support.h"

#include <QTest>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

using namespace fpx;
using namespace fpx::test;

namespace {

// BF16 round-to-nearest-even of a float, on its bits: add 0x7fff plus the kept part's lowest
// bit, then drop the low 16 bits (a carry into the exponent is the next binade, or ∞).
float bf16(float f) {
    if (std::isnan(f))
        return f;
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    bits += 0x7fffu + ((bits >> 16) & 1u);
    bits &= 0xffff0000u;
    float out;
    std::memcpy(&out, &bits, sizeof out);
    return out;
}

// FP16 round-to-nearest-even of a float: the quantum is 2^(e−10) for a leading bit 2^e (never
// below 2^−24, the subnormals' quantum); |f| / quantum is exact in a double and nearbyint
// rounds it to even in the default mode; 2^16 and beyond is ∞.
float fp16(float f) {
    if (!std::isfinite(f) || f == 0)
        return f;
    const double a = std::fabs(static_cast<double>(f));
    int e = 0;
    std::frexp(a, &e); // a = m · 2^e, m in [0.5, 1): the leading bit is 2^(e−1)
    const int lead = std::max(e - 1, -14);
    const double quantum = std::ldexp(1.0, lead - 10);
    const double v = std::nearbyint(a / quantum) * quantum;
    const double rounded = v >= 65536.0 ? INFINITY : v;
    return static_cast<float>(std::copysign(rounded, static_cast<double>(f)));
}

ExactValue exactOf(float f) {
    return exactFromDouble(static_cast<double>(f));
}

ExpressionParse parseRule(const char* text) {
    return parseExplicitExpression(text, updateRuleSyntax());
}

UpdateRule rule(const char* text) {
    UpdateRuleParse parsed = parseUpdateRule(text);
    if (!parsed)
        qFatal("rule %s: %s", text, parsed.error.message.c_str());
    return *parsed.rule;
}

// A run of SGD with every step kept, the weight starting at w0 (a value of the format).
SgdRun run(const std::vector<float>& gradients, float w0, double lr, const FormatSpec& format,
           const std::optional<UpdateRule>& update) {
    SgdOptions o;
    o.initialWeight = exactOf(w0);
    o.learningRate = exactFromDouble(lr);
    o.trajectoryPoints = gradients.size() + 1;
    o.update = update;
    std::vector<ExactValue> g;
    for (float x : gradients)
        g.push_back(exactOf(x));
    return simulateSgd(g, format, std::nullopt, o);
}

ExplicitEvaluation evaluateText(const char* text, RoundingMode mode = RoundingMode::NearestEven) {
    ExpressionParse parsed = parseExplicitExpression(text);
    if (!parsed)
        qFatal("%s: %s", text, parsed.error.message.c_str());
    ExplicitOptions options;
    options.rounding.mode = mode;
    return evaluateExplicitly(*parsed.expression, {}, options);
}

} // namespace

class TestUpdateRule : public QObject {
    Q_OBJECT

  private slots:
    void independentRoundings();
    void parsesNestedRoundings();
    void parseErrorsNameTheColumn_data();
    void parseErrorsNameTheColumn();
    void plainExpressionsHaveNoRoundings();
    void boundsTheWork();
    void evaluatesHandWorkedCases();
    void roundingModesAndStochasticDraws();
    void builtinRules();
    void exactRuleIsTheDefaultSimulation();
    void pytorchCpuBf16MatchesFloatReference();
    void pytorchCpuFp16MatchesFloatReference();
    void scalarTailFormulaMatchesThreeRoundings();
    void fp32OpmathMatchesFloatReference();
    void customRuleResultIsRoundedIntoTheFormat();
    void ruleRefusedForFormatsItDoesNotCover();
};

// The hand-written roundings agree with the compiler's own conversions where it has them.
void TestUpdateRule::independentRoundings() {
    QCOMPARE(bf16(1.0f + 0x1p-8f), 1.0f);                  // a tie: to even
    QCOMPARE(bf16(1.0f + 0x1p-8f + 0x1p-20f), 1.0078125f); // above the tie
    QCOMPARE(bf16(1.0078125f + 0x1p-8f), 1.015625f);       // a tie: to even (up)
    QCOMPARE(fp16(1.0f + 0x1p-11f), 1.0f);
    QCOMPARE(fp16(65519.0f), 65504.0f);
    QVERIFY(std::isinf(fp16(65520.0f)));
    QCOMPARE(fp16(0x1p-25f), 0.0f);       // half the smallest subnormal: a tie to 0
    QCOMPARE(fp16(0x1.8p-25f), 0x1p-24f); // above it
#ifdef __FLT16_MANT_DIG__
    std::mt19937 random(5);
    std::uniform_real_distribution<float> magnitude(-30.0f, 17.0f);
    for (int i = 0; i < 100000; ++i) {
        const float f = std::ldexp(1.0f + std::generate_canonical<float, 24>(random),
                                   static_cast<int>(magnitude(random)));
        QCOMPARE(fp16(f), static_cast<float>(static_cast<_Float16>(f)));
    }
#endif
}

void TestUpdateRule::parsesNestedRoundings() {
    const ExpressionParse parsed = parseRule("bf16(fp32(w + bf16(-lr)*g))");
    QVERIFY2(parsed, parsed.error.message.c_str());
    const Expression& root = *parsed.expression;
    QCOMPARE(root.kind, Expression::Kind::Rounding);
    QCOMPARE(root.format->id, std::string("bf16"));
    const Expression& inner = root.operands.at(0);
    QCOMPARE(inner.kind, Expression::Kind::Rounding);
    QCOMPARE(inner.format->id, std::string("fp32"));
    QCOMPARE(inner.operands.at(0).op, Operation::Add);
    QCOMPARE(inner.operands.at(0).operands.at(0).kind, Expression::Kind::Variable);
    QCOMPARE(inner.operands.at(0).operands.at(0).slot, std::size_t(0)); // w
    // The bound format F, aliases, custom specs and a written mode.
    const ExpressionParse bound = parseRule("F(bfloat16(w) + e5m2(g, rtz) - fp8_e4m3(lr))");
    QVERIFY2(bound, bound.error.message.c_str());
    QVERIFY(!bound.expression->format);
    QCOMPARE(bound.expression->name, std::string("F"));
    const Expression& sum = bound.expression->operands.at(0).operands.at(0);
    QCOMPARE(sum.operands.at(1).format->id, std::string("fp8_e5m2"));
    QCOMPARE(*sum.operands.at(1).mode, RoundingMode::TowardZero);
    QVERIFY(isExplicit(*bound.expression));
    QCOMPARE(withFormatsBound(*bound.expression, "F(bfloat16(w) + e5m2(g, rtz) - fp8_e4m3(lr))",
                              ExplicitBindings{{}, {lookUp("fp16")}}),
             std::string("fp16(bfloat16(w) + e5m2(g, rtz) - fp8_e4m3(lr))"));
    // 64 levels are allowed, 65 are not.
    std::string deep = "w";
    for (int i = 0; i < 64; ++i)
        deep = "fp32(" + deep + ")";
    QVERIFY(parseRule(deep.c_str()));
    deep = "fp32(" + deep + ")";
    const ExpressionParse tooDeep = parseRule(deep.c_str());
    QVERIFY(!tooDeep);
    QVERIFY(QString::fromStdString(tooDeep.error.message).contains("nested too deeply"));
}

void TestUpdateRule::parseErrorsNameTheColumn_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown format") << "bf17(w)" << 1 << "unknown format 'bf17'";
    QTest::newRow("bad custom format") << "w + e20m3(g)" << 5 << "exponent bits";
    QTest::newRow("unknown variable")
        << "F(w - x*g)" << 7 << "unknown variable 'x': use w, lr or g";
    QTest::newRow("variable as a function") << "F(w(1))" << 4 << "'w' is a variable";
    QTest::newRow("two operators") << "bf16(w +* g)" << 9 << "expected a number";
    QTest::newRow("unclosed") << "F(w - lr*g" << 11 << "expected ')' to close the '(' at column 2";
    QTest::newRow("unknown mode") << "bf16(w, xyz)" << 9 << "unknown rounding mode 'xyz'";
    QTest::newRow("no mode") << "bf16(w, )" << 9 << "expected a rounding mode";
    QTest::newRow("no argument") << "fp32()" << 6 << "rounds one argument";
    QTest::newRow("format without (") << "w + fp32" << 5 << "unknown variable 'fp32'";
    QTest::newRow("F without (") << "F + w" << 3 << "expected '(' after the format 'F'";
    QTest::newRow("case of F") << "f(w)" << 1 << "unknown format 'f'";
    QTest::newRow("empty") << "" << 1 << "empty expression";
}

void TestUpdateRule::parseErrorsNameTheColumn() {
    QFETCH(QString, text);
    QFETCH(int, column);
    QFETCH(QString, message);
    const std::string utf8 = text.toStdString();
    const ExpressionParse parsed = parseRule(utf8.c_str());
    QVERIFY(!parsed);
    QCOMPARE(int(parsed.error.position) + 1, column);
    QVERIFY2(QString::fromStdString(parsed.error.message).contains(message),
             parsed.error.message.c_str());
    // The update rule reader reports the same.
    const UpdateRuleParse asRule = parseUpdateRule(utf8);
    QVERIFY(!asRule);
    QCOMPARE(int(asRule.error.position) + 1, column);
}

void TestUpdateRule::plainExpressionsHaveNoRoundings() {
    // fpx calc without --explicit and the expression lab keep their language.
    const ExpressionParse plain = parseExpression("bf16(0.1)");
    QVERIFY(!plain);
    QCOMPARE(plain.error.position, std::size_t(0));
    // Without variables, a name that is not a format is refused as such.
    const ExpressionParse noVariables = parseExplicitExpression("x + 1");
    QVERIFY(!noVariables);
    QVERIFY(QString::fromStdString(noVariables.error.message).contains("no variables"));
    // An explicit expression is not computed "in a format".
    const ExpressionParse parsed = parseExplicitExpression("bf16(0.1)+bf16(0.2)");
    QVERIFY(parsed);
    const FormatEvaluation inFormat = evaluateInFormat(*parsed.expression, lookUp("fp32"), {}, 0);
    QVERIFY(inFormat.unsupported);
}

void TestUpdateRule::boundsTheWork() {
    const std::string longText(kMaxExpressionLength + 1, '1');
    QVERIFY(!parseExplicitExpression(longText));
    // Without variables the parse evaluates once under the budget, roundings included.
    const ExpressionParse costly = parseExplicitExpression("fp32(3^66500/7^37545 * 3^66500/7^37545 "
                                                           "* 3^66500/7^37545 * 3^66500/7^37545)");
    QVERIFY(!costly);
    QVERIFY(QString::fromStdString(costly.error.message).contains("too costly"));
    // With variables, each evaluation is charged against its budget.
    const ExpressionParse rule = parseRule("F(w * w * w * w)");
    QVERIFY(rule);
    ExplicitOptions options;
    options.workBudget = 1e3;
    const ExplicitEvaluation refused = evaluateExplicitly(
        *rule.expression,
        ExplicitBindings{{exactValue("1/3"), exactValue("0"), exactValue("0")}, {lookUp("fp32")}},
        options);
    QVERIFY(refused.error);
    // An unbound variable is a caller's mistake.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             evaluateExplicitly(*rule.expression, {}, ExplicitOptions{}));
}

void TestUpdateRule::evaluatesHandWorkedCases() {
    // bf16(0.1) = 0x3dcd = 0.10009765625 and bf16(0.2) = 0x3e4d = 0.2001953125; their sum is
    // exact, not rounded again.
    const ExplicitEvaluation sum = evaluateText("bf16(0.1)+bf16(0.2)");
    QVERIFY(!sum.error);
    QCOMPARE(valueText(sum.value), valueText(exactValue("0.30029296875")));
    QCOMPARE(sum.roundings.size(), std::size_t(2));
    QCOMPARE(sum.roundings[0].text, std::string("bf16(0.1)"));
    QCOMPARE(sum.roundings[0].rounded.code, Code(0x3dcd));
    QCOMPARE(valueText(sum.roundings[1].argument), valueText(exactValue("0.2")));
    QCOMPARE(sum.roundings[1].rounded.code, Code(0x3e4d));
    QVERIFY(sum.flags.inexact);
    // 2^-30 is far below half an ULP of 1 in FP32 (2^-24).
    const ExplicitEvaluation one = evaluateText("fp32(1 + 2^-30)");
    QCOMPARE(valueText(one.value), valueText(exactValue("1")));
    QVERIFY(one.roundings.at(0).rounded.flags.inexact);
    // 1 + 2^-24 is a tie between 1 and 1 + 2^-23: to even, 1; a hair above goes up.
    QCOMPARE(valueText(evaluateText("fp32(1 + 2^-24)").value), valueText(exactValue("1")));
    QCOMPARE(valueText(evaluateText("fp32(1 + 2^-24 + 2^-60)").value),
             valueText(exactValue("1 + 2^-23")));
    // Exact between the roundings: 3 × fp32(1/3) = 3 × 11184811 × 2^-25 is not rounded again.
    QCOMPARE(valueText(evaluateText("fp32(1/3)*3").value), valueText(exactValue("33554433*2^-25")));
    // A square root is rounded as the root itself: FP32's √2 is 0x3fb504f3.
    const ExplicitEvaluation root = evaluateText("fp32(sqrt(2))");
    QCOMPARE(root.roundings.at(0).rounded.code, Code(0x3fb504f3));
    QVERIFY(root.roundings.at(0).argumentApproximate);
    QVERIFY(!root.approximate);
    QVERIFY(evaluateText("sqrt(2)").approximate);
    // Nested roundings round in turn: fp16(bf16(x)) rounds bf16's value.
    const ExplicitEvaluation twice = evaluateText("fp16(bf16(1 + 2^-8 + 2^-12))");
    QCOMPARE(valueText(twice.roundings.at(0).value), valueText(exactValue("1 + 2^-7")));
    QCOMPARE(valueText(twice.value), valueText(exactValue("1 + 2^-7")));
    // Invalid operations raise their flags.
    QVERIFY(evaluateText("fp32(inf - inf)").flags.invalid);
    QVERIFY(evaluateText("fp32(1/0)").flags.divideByZero);
    // Rounding into an integer format: level × scale, int8's scale 1/127.
    QCOMPARE(valueText(evaluateText("int8(0.5)").value), valueText(exactValue("64/127")));
    // The value without roundings.
    const ExpressionParse parsed = parseExplicitExpression("bf16(0.1)+bf16(0.2)");
    QCOMPARE(valueText(evaluateExactly(*parsed.expression).value), valueText(exactValue("0.3")));
}

void TestUpdateRule::roundingModesAndStochasticDraws() {
    // A written mode overrides the evaluation's; 1/3 in BF16 lies between 0x3eaa and 0x3eab.
    QCOMPARE(evaluateText("bf16(1/3, rtz)").roundings.at(0).rounded.code, Code(0x3eaa));
    QCOMPARE(evaluateText("bf16(1/3, rup)").roundings.at(0).rounded.code, Code(0x3eab));
    QCOMPARE(evaluateText("bf16(1/3)", RoundingMode::TowardPositive).roundings.at(0).rounded.code,
             Code(0x3eab));
    QCOMPARE(evaluateText("bf16(1/3)").roundings.at(0).mode, RoundingMode::NearestEven);
    // Stochastic rounding draws the k-th rounding's bits from the callback.
    const ExpressionParse parsed = parseExplicitExpression("bf16(1/3, sr) + bf16(1/3, sr)");
    ExplicitOptions low;
    low.randomBits = [](std::size_t) { return std::uint64_t(0); }; // always away from zero
    ExplicitOptions high;
    high.randomBits = [](std::size_t) { return ~std::uint64_t(0); }; // toward zero
    const ExplicitEvaluation up = evaluateExplicitly(*parsed.expression, {}, low);
    const ExplicitEvaluation down = evaluateExplicitly(*parsed.expression, {}, high);
    QCOMPARE(up.roundings.at(1).rounded.code, Code(0x3eab));
    QCOMPARE(down.roundings.at(1).rounded.code, Code(0x3eaa));
    std::vector<std::size_t> asked;
    ExplicitOptions recording;
    recording.randomBits = [&](std::size_t k) {
        asked.push_back(k);
        return std::uint64_t(0);
    };
    evaluateExplicitly(*parsed.expression, {}, recording);
    QCOMPARE(asked, (std::vector<std::size_t>{0, 1}));
}

void TestUpdateRule::builtinRules() {
    QCOMPARE(builtinUpdateRuleNames(),
             (std::vector<std::string>{"exact", "pytorch-cpu", "pytorch2-cpu", "fp32-opmath"}));
    const FormatSpec bf16Spec = lookUp("bf16");
    QCOMPARE(rule("exact").expandedFormula(bf16Spec), std::string("bf16(w - lr*g)"));
    QCOMPARE(rule("PyTorch-CPU").expandedFormula(bf16Spec),
             std::string("bf16(fp32(w + bf16(fp32(-lr))*g))"));
    QCOMPARE(rule("pytorch-cpu").expandedFormula(lookUp("fp16")),
             std::string("fp16(w + fp16(fp16(fp32(-lr))*g))"));
    QCOMPARE(rule("pytorch2-cpu").expandedFormula(lookUp("fp16")),
             std::string("fp16(fp32(w + fp16(fp32(-lr))*g))"));
    QCOMPARE(rule("pytorch-cpu").expandedFormula(lookUp("fp32")),
             std::string("fp32(w + fp32(-lr)*g)"));
    QCOMPARE(rule("pytorch-cpu").expandedFormula(lookUp("float64")), std::string("fp64(w - lr*g)"));
    QCOMPARE(rule("fp32-opmath").expandedFormula(lookUp("fp8_e4m3")),
             std::string("fp8_e4m3(fp32(w + fp32(-lr)*g))"));
    QCOMPARE(rule("  fp32-opmath ").name, std::string("fp32-opmath"));
    const UpdateRule custom = rule("bf16(fp32(w + bf16(-lr)*g))");
    QCOMPARE(custom.name, std::string("custom"));
    QVERIFY(!custom.builtin());
    QCOMPARE(custom.expandedFormula(lookUp("fp16")), std::string("bf16(fp32(w + bf16(-lr)*g))"));
    QVERIFY(rule("pytorch-cpu").formulaText().find("bf16: F(fp32(w + F(fp32(-lr))*g))") !=
            std::string::npos);
    QVERIFY(rule("pytorch2-cpu").formulaText().find("bf16, fp16: F(fp32(w + F(fp32(-lr))*g))") !=
            std::string::npos);
}

// `exact` is the simulation's default, the definition written out: w ← round_F(w − lr·g)
// with the update's draw stochasticBits(streamSeed(seed, Update), t), the master's too.
void TestUpdateRule::exactRuleIsTheDefaultSimulation() {
    std::mt19937_64 random(11);
    std::normal_distribution<double> normal(0.3, 1.0);
    for (const RoundingMode mode :
         {RoundingMode::NearestEven, RoundingMode::Stochastic, RoundingMode::TowardZero}) {
        for (const char* master : {"", "fp32"}) {
            std::vector<ExactValue> gradients;
            for (int i = 0; i < 300; ++i)
                gradients.push_back(exactFromDouble(normal(random)));
            SgdOptions o;
            o.initialWeight = exactValue("0.7");
            o.learningRate = exactFromDouble(3e-3);
            o.rounding.mode = mode;
            o.seed = 42;
            o.trajectoryPoints = gradients.size() + 1;
            const FormatSpec format = lookUp("bf16");
            const std::optional<FormatSpec> m =
                *master ? std::optional(lookUp(master)) : std::nullopt;
            const SgdRun byDefault = simulateSgd(gradients, format, m, o);
            o.update = rule("exact");
            const SgdRun named = simulateSgd(gradients, format, m, o);
            o.update = rule("F(w - lr*g)");
            const SgdRun written = simulateSgd(gradients, format, m, o);
            // The definition, one step at a time.
            const FormatSpec& stepped = m ? *m : format;
            RoundingOptions r = o.rounding;
            const std::uint64_t updateSeed =
                streamSeed(o.seed, static_cast<std::uint64_t>(SgdStream::Update));
            const std::uint64_t castSeed =
                streamSeed(o.seed, static_cast<std::uint64_t>(SgdStream::Cast));
            const std::uint64_t initialSeed =
                streamSeed(o.seed, static_cast<std::uint64_t>(SgdStream::Initial));
            r.randomBits = stochasticBits(initialSeed, 0);
            ExactValue w = roundedInto(o.initialWeight, format, r);
            r.randomBits = stochasticBits(initialSeed, 1);
            ExactValue stepValue = m ? roundedInto(o.initialWeight, *m, r) : w;
            for (std::size_t t = 0; t < gradients.size(); ++t) {
                r.randomBits = stochasticBits(updateSeed, t);
                stepValue = roundedInto(stepValue - o.learningRate * gradients[t], stepped, r);
                r.randomBits = stochasticBits(castSeed, t);
                w = m ? roundedInto(stepValue, format, r) : stepValue;
                for (const SgdRun* run : {&byDefault, &named, &written})
                    QCOMPARE(run->trajectory.at(t + 1).weight, nearestDouble(w));
            }
            for (const SgdRun* run : {&byDefault, &named, &written}) {
                QCOMPARE(valueText(run->finalWeight), valueText(w));
                QCOMPARE(run->lostUpdates, byDefault.lostUpdates);
            }
            QCOMPARE(byDefault.updateRule, std::string("exact"));
            QCOMPARE(byDefault.updateFormula, stepped.id + "(w - lr*g)");
        }
    }
}

// PyTorch's vectorised CPU loop for BF16 parameters, in floats: alpha = bf16(float(−lr)), then
// one FP32 fused multiply-add g·alpha + w, rounded to BF16.
void TestUpdateRule::pytorchCpuBf16MatchesFloatReference() {
    std::mt19937_64 random(2024);
    std::uniform_real_distribution<double> rate(1e-4, 0.3);
    std::uniform_real_distribution<float> start(-2.0f, 2.0f);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const FormatSpec format = lookUp("bf16");
    const UpdateRule pytorch = rule("pytorch-cpu");
    int differFromExact = 0;
    int differFromThreeRoundings = 0;
    for (int runIndex = 0; runIndex < 6; ++runIndex) {
        const double lr = rate(random);
        const float w0 = bf16(start(random));
        std::vector<float> gradients;
        for (int t = 0; t < 400; ++t)
            gradients.push_back(bf16(normal(random) * (runIndex % 2 ? 0.01f : 1.0f)));
        const SgdRun simulated = run(gradients, w0, lr, format, pytorch);
        const SgdRun exact = run(gradients, w0, lr, format, std::nullopt);
        const float alpha = bf16(static_cast<float>(-lr));
        float w = w0;
        for (std::size_t t = 0; t < gradients.size(); ++t) {
            const float g = gradients[t];
            w = bf16(std::fmaf(g, alpha, w));
            QCOMPARE(simulated.trajectory.at(t + 1).weight, static_cast<double>(w));
            const float previous = static_cast<float>(simulated.trajectory.at(t).weight);
            differFromExact += exact.trajectory.at(t + 1).weight != static_cast<double>(w);
            differFromThreeRoundings += bf16(previous + bf16(alpha * g)) != w;
        }
        QCOMPARE(simulated.updateFormula, std::string("bf16(fp32(w + bf16(fp32(-lr))*g))"));
    }
    // The runs tell the rules apart: they are no test of the roundings otherwise.
    QVERIFY(differFromExact > 0);
    QVERIFY(differFromThreeRoundings > 0);
}

// The same loop for Half as PyTorch 2's sources read (pytorch2-cpu): fmadd through FP32,
// rounded to FP16; PyTorch 1.13's (pytorch-cpu) rounds alpha·g and the sum into FP16 each.
void TestUpdateRule::pytorchCpuFp16MatchesFloatReference() {
    std::mt19937_64 random(77);
    std::uniform_real_distribution<double> rate(1e-4, 0.3);
    std::uniform_real_distribution<float> start(-2.0f, 2.0f);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const FormatSpec format = lookUp("fp16");
    int differFromThreeRoundings = 0;
    for (int runIndex = 0; runIndex < 6; ++runIndex) {
        const double lr = rate(random);
        const float w0 = fp16(start(random));
        std::vector<float> gradients;
        for (int t = 0; t < 400; ++t)
            gradients.push_back(fp16(normal(random)));
        const SgdRun fused = run(gradients, w0, lr, format, rule("pytorch2-cpu"));
        const SgdRun halfOperators = run(gradients, w0, lr, format, rule("pytorch-cpu"));
        const float alpha = fp16(static_cast<float>(-lr));
        float w = w0, v = w0;
        for (std::size_t t = 0; t < gradients.size(); ++t) {
            w = fp16(std::fmaf(gradients[t], alpha, w));
            v = fp16(v + fp16(alpha * gradients[t]));
            QCOMPARE(fused.trajectory.at(t + 1).weight, static_cast<double>(w));
            QCOMPARE(halfOperators.trajectory.at(t + 1).weight, static_cast<double>(v));
            differFromThreeRoundings += v != w;
        }
    }
    QVERIFY(differFromThreeRoundings > 0);
}

// The scalar tail of PyTorch's kernel (and a loop without vectors) computes in the dtype's own
// operators: alpha·g rounded to F, then w + that rounded to F, each through an FP32 operation
// whose result is exact or far from F's midpoints; written as a custom formula.
void TestUpdateRule::scalarTailFormulaMatchesThreeRoundings() {
    std::mt19937_64 random(9);
    std::uniform_real_distribution<double> rate(1e-4, 0.3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (const char* id : {"fp16", "bf16"}) {
        const bool half = std::string(id) == "fp16";
        auto round = [half](float f) { return half ? fp16(f) : bf16(f); };
        const FormatSpec format = lookUp(id);
        for (int runIndex = 0; runIndex < 4; ++runIndex) {
            const double lr = rate(random);
            const float w0 = round(1.0f + normal(random) * 0.1f);
            std::vector<float> gradients;
            for (int t = 0; t < 300; ++t)
                gradients.push_back(round(normal(random)));
            const SgdRun simulated =
                run(gradients, w0, lr, format, rule("F(w + F(F(fp32(-lr))*g))"));
            const float alpha = round(static_cast<float>(-lr));
            float w = w0;
            for (std::size_t t = 0; t < gradients.size(); ++t) {
                w = round(w + round(alpha * gradients[t]));
                QCOMPARE(simulated.trajectory.at(t + 1).weight, static_cast<double>(w));
            }
        }
    }
}

// FP32 arithmetic for any format: fp32(−lr) as a float, one fmaf, rounded into BF16.
void TestUpdateRule::fp32OpmathMatchesFloatReference() {
    std::mt19937_64 random(31);
    std::uniform_real_distribution<double> rate(1e-4, 0.3);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const FormatSpec format = lookUp("bf16");
    for (int runIndex = 0; runIndex < 4; ++runIndex) {
        const double lr = rate(random);
        const float w0 = bf16(normal(random));
        std::vector<float> gradients;
        for (int t = 0; t < 300; ++t)
            gradients.push_back(normal(random)); // FP32 gradients: the product is not exact
        const SgdRun simulated = run(gradients, w0, lr, format, rule("fp32-opmath"));
        const float alpha = static_cast<float>(-lr);
        float w = w0;
        for (std::size_t t = 0; t < gradients.size(); ++t) {
            w = bf16(std::fmaf(gradients[t], alpha, w));
            QCOMPARE(simulated.trajectory.at(t + 1).weight, static_cast<double>(w));
        }
    }
}

// A formula that does not end in F(…) is rounded into the stepped format all the same, so the
// weight stays a value of its format.
void TestUpdateRule::customRuleResultIsRoundedIntoTheFormat() {
    // FP32 arithmetic with no rounding into BF16 written: lr = 2^-10 and g = 0.1f make the
    // product exact in a float, so fp32(w - lr*g) is one float subtraction; each step still
    // lands in BF16.
    const std::vector<float> gradients(50, 0.1f);
    const SgdRun unrounded = run(gradients, 1.0f, 0x1p-10, lookUp("bf16"), rule("fp32(w - lr*g)"));
    float w = 1.0f;
    for (std::size_t t = 0; t < gradients.size(); ++t) {
        const float product = 0x1p-10f * gradients[t];
        w = bf16(w - product);
        QCOMPARE(unrounded.trajectory.at(t + 1).weight, static_cast<double>(w));
    }
    // No rounding at all: the exact rule.
    const SgdRun bare = run(gradients, 1.0f, 1e-3, lookUp("bf16"), rule("w - lr*g"));
    const SgdRun exact = run(gradients, 1.0f, 1e-3, lookUp("bf16"), std::nullopt);
    QCOMPARE(valueText(bare.finalWeight), valueText(exact.finalWeight));
    QCOMPARE(bare.lostUpdates, exact.lostUpdates);
}

void TestUpdateRule::ruleRefusedForFormatsItDoesNotCover() {
    const UpdateRule pytorch = rule("pytorch-cpu");
    QVERIFY(pytorch.unsupported(lookUp("fp8_e4m3")));
    QVERIFY(!pytorch.unsupported(lookUp("bf16")));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             run({1.0f}, 1.0f, 1e-3, lookUp("fp8_e4m3"), pytorch));
    // A rule too costly for the run is refused rather than run for hours.
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument,
        run(std::vector<float>(1000, 1.0f), 1.0f, 1e-3, lookUp("fp32"),
            rule("F(w + g*3^60000/7^30000*3^60000/7^30000*3^60000/7^30000/3^60000/3^60000)")));
}

QTEST_APPLESS_MAIN(TestUpdateRule)
#include "tst_update_rule.moc"
