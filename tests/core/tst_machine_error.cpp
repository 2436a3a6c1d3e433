// SPDX-License-Identifier: GPL-3.0-or-later
// Error statistics of a matrix engine (docs/behaviour.md, "Machines"): the figures of a crafted
// product worked out by hand, the growth of Hopper's FP8 error with K and promotion bounding
// it, and results that do not depend on the threads.
#include "fpx/machines/machine_error.h"

#include "fpx/exact/format_catalogue.h"

#include "machine_test_support.h"
#include "test_support.h"

#include <QTest>

#include <cmath>
#include <optional>

using namespace fpx;

namespace {

MachineModel machine(const char* name) {
    return test::machineNamed(name);
}

ExactValue power(int e) {
    return ExactValue::dyadic(false, 1, e);
}

// One row against two columns, 32 elements (one FP8 instruction on Hopper): the row is
// 1, 2^−9, …, 2^−9 (2^−9 is E4M3's smallest subnormal); the first column the same, so its
// products past the first are 2^−18, and the second column 1, 0, …, 0.
GemmOperands crafted() {
    GemmOperands operands;
    operands.m = 1;
    operands.n = 2;
    operands.k = 32;
    std::vector<ExactValue> small(32, power(-9));
    small[0] = power(0);
    std::vector<ExactValue> unit(32, ExactValue());
    unit[0] = power(0);
    operands.rows = {small};
    operands.columns = {small, unit};
    return operands;
}

} // namespace

class TestMachineError : public QObject {
    Q_OBJECT

  private slots:
    void craftedProductByHand();
    void hopperFp8ErrorGrowsWithKAndPromotionBoundsIt();
    void resultsDoNotDependOnThreads();
    void refusesAKLongerThanTheOperands();
};

void TestMachineError::craftedProductByHand() {
    const FormatSpec e4m3 = test::lookUp("fp8_e4m3");
    // Hopper: the products 2^−18 align at 2^(−6−6) (subnormal operands at E4M3's minimum
    // exponent) but the window ends at 2^(0−13): all 31 vanish, the result is 1 against an exact
    // 1 + 31·2^−18, which is 31·2^−18 / (1 + 31·2^−18) off and far more than FP32's ulp 2^−23.
    const double lost = 31 * std::ldexp(1.0, -18);
    const double relative = lost / (1 + lost);
    const MachineErrorPoint hopper =
        measureMachineError(machine("nvidia-hopper"), e4m3, crafted(), 32, 0);
    QCOMPARE(hopper.results, std::size_t(2));
    QCOMPARE(hopper.compared, std::size_t(2));
    QCOMPARE(hopper.offByUlp, std::size_t(1));
    QCOMPARE(hopper.nonFinite, std::size_t(0));
    QCOMPARE(hopper.maxRelativeError, relative);
    QCOMPARE(hopper.meanRelativeError, relative / 2);
    // Blackwell keeps 25 fraction bits: every 2^−18 survives and FP32 holds the sum.
    const MachineErrorPoint blackwell =
        measureMachineError(machine("nvidia-blackwell"), e4m3, crafted(), 32, 0);
    QCOMPARE(blackwell.offByUlp, std::size_t(0));
    QCOMPARE(blackwell.maxRelativeError, 0.0);
    // The first element alone is exact on both.
    QCOMPARE(measureMachineError(machine("nvidia-hopper"), e4m3, crafted(), 1, 0).maxRelativeError,
             0.0);
}

void TestMachineError::hopperFp8ErrorGrowsWithKAndPromotionBoundsIt() {
    const FormatSpec e4m3 = test::lookUp("fp8_e4m3");
    const MachineModel hopper = machine("nvidia-hopper");
    std::string error;
    const std::optional<ValueDistribution> normal = parseValueDistribution("normal:0:1", error);
    QVERIFY(normal);
    const GemmOperands operands =
        drawGemmOperands(*hopper.instructionFor("fp8_e4m3"), e4m3, *normal, 4, 4, 4096, 7);
    const MachineErrorPoint short32 = measureMachineError(hopper, e4m3, operands, 32, 0);
    const MachineErrorPoint long4096 = measureMachineError(hopper, e4m3, operands, 4096, 0);
    const MachineErrorPoint promoted = measureMachineError(hopper, e4m3, operands, 4096, 128);
    QCOMPARE(long4096.compared, std::size_t(16));
    QVERIFY2(long4096.meanRelativeError > 4 * short32.meanRelativeError,
             qPrintable(QString("K=32 %1, K=4096 %2")
                            .arg(short32.meanRelativeError)
                            .arg(long4096.meanRelativeError)));
    QVERIFY2(promoted.meanRelativeError < long4096.meanRelativeError / 4,
             qPrintable(QString("promoted %1, not %2")
                            .arg(promoted.meanRelativeError)
                            .arg(long4096.meanRelativeError)));
    // An e8m13 accumulator run over 4096 products is off in FP32's last bit nearly always.
    QVERIFY(long4096.offByUlp >= 12);
}

void TestMachineError::resultsDoNotDependOnThreads() {
    const FormatSpec bf16 = test::lookUp("bf16");
    const MachineModel ampere = machine("nvidia-ampere");
    std::string error;
    const std::optional<ValueDistribution> spread = parseValueDistribution("lognormal:0:3", error);
    QVERIFY(spread);
    const GemmOperands operands =
        drawGemmOperands(*ampere.instructionFor("bf16"), bf16, *spread, 5, 3, 256, 11);
    const MachineErrorPoint one = measureMachineError(ampere, bf16, operands, 256, 0, 1);
    const MachineErrorPoint three = measureMachineError(ampere, bf16, operands, 256, 0, 3);
    QCOMPARE(three.maxRelativeError, one.maxRelativeError);
    QCOMPARE(three.meanRelativeError, one.meanRelativeError);
    QCOMPARE(three.offByUlp, one.offByUlp);
}

void TestMachineError::refusesAKLongerThanTheOperands() {
    const FormatSpec e4m3 = test::lookUp("fp8_e4m3");
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             measureMachineError(machine("nvidia-hopper"), e4m3, crafted(), 64, 0));
}

QTEST_APPLESS_MAIN(TestMachineError)
#include "tst_machine_error.moc"
