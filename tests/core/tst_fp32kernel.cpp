// SPDX-License-Identifier: GPL-3.0-or-later
// The FP32 fast path against the exact core, bit for bit: random FP32 patterns, values spread
// over each target's range, and the FP32 neighbours of every target midpoint, in every mode
// the kernel takes and both overflow policies.
#include "fpx/exact/conversion.h"
#include "fpx/kernels/fp32_kernel.h"

#include "test_support.h"

#include <QTest>

#include <bit>
#include <cstring>
#include <random>

using namespace fpx;
using namespace fpx::test;

class TestFp32Kernel : public QObject {
    Q_OBJECT

  private slots:
    void matchesTheExactCore_data();
    void matchesTheExactCore();
    void refusesWhatItCannotDo();
};

void TestFp32Kernel::matchesTheExactCore_data() {
    QTest::addColumn<QString>("id");
    for (const char* id : {"fp16", "bf16", "tf32", "fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz",
                           "fp8_e5m2fnuz", "fp8_e4m3b11fnuz", "fp8_e3m4", "fp8_e8m0", "fp6_e3m2",
                           "fp6_e2m3", "fp4_e2m1", "e3m3", "e6m9b40", "e8m23", "e5m0fnu", "e10m20"})
        QTest::newRow(id) << id;
}

void TestFp32Kernel::matchesTheExactCore() {
    QFETCH(QString, id);
    const FormatSpec target = lookUp(id);
    const FormatSpec fp32 = lookUp("fp32");
    std::mt19937_64 random(std::hash<std::string>{}(id.toStdString()));

    // Inputs: random patterns, values spread over the target's binades, and the FP32
    // neighbours of target midpoints (where rounding decides).
    std::vector<std::uint32_t> inputs;
    for (int i = 0; i < 3000; ++i)
        inputs.push_back(static_cast<std::uint32_t>(random()));
    const int emin = target.minExponent() - target.fractionBits - 3;
    const int emax = std::min(127, emin + 200 + target.fractionBits);
    for (int i = 0; i < 6000; ++i) {
        const int e =
            emin +
            static_cast<int>(random() % static_cast<std::uint64_t>(std::max(
                                            1, std::min(emax, 127) - std::max(emin, -149) + 1))) +
            std::max(0, -149 - emin);
        const std::uint32_t biased = static_cast<std::uint32_t>(std::clamp(e + 127, 0, 254));
        inputs.push_back((static_cast<std::uint32_t>(random() & 1) << 31) | (biased << 23) |
                         static_cast<std::uint32_t>(random() & 0x7fffff));
    }
    const Code codes = target.totalBits() <= 16 ? (Code(1) << target.totalBits()) : 0;
    for (int i = 0; i < 3000 && codes != 0; ++i) {
        const Code code = static_cast<Code>(random() % static_cast<std::uint64_t>(codes));
        const DecodedCode d = decodeCode(target, code);
        if (!d.value.isFinite())
            continue;
        const ExactValue next =
            d.value +
            (d.value.isZero()
                 ? ExactValue::dyadic(false, 1, target.minExponent() - target.fractionBits)
                 : d.value.abs().timesPowerOfTwo(-target.fractionBits));
        const Code mid = roundToFormat(midpoint(d.value, next), fp32).code;
        for (std::int64_t delta : {-1, 0, 1})
            inputs.push_back(static_cast<std::uint32_t>(static_cast<std::int64_t>(mid) + delta));
    }

    int checked = 0;
    for (const ModeCase& mode : kModes) {
        if (mode.mode == RoundingMode::Stochastic)
            continue;
        for (OverflowPolicy policy : kPolicies) {
            RoundingOptions options;
            options.mode = mode.mode;
            options.overflow = policy;
            const auto kernel = Fp32Kernel::create(target, options);
            QVERIFY(kernel);
            for (std::uint32_t x : inputs) {
                const Code fast = kernel->convert(x);
                const Code exact = roundToFormat(decodeCode(fp32, x).value, target, options).code;
                if (fast != exact)
                    QFAIL(qPrintable(
                        QString("%1 %2 %3: fp32 0x%4 → kernel %5, exact core %6")
                            .arg(id, mode.name,
                                 QString::fromStdString(std::string(overflowPolicyId(policy))))
                            .arg(x, 8, 16, QChar('0'))
                            .arg(hex(target, fast), hex(target, exact))));
                ++checked;
            }
        }
    }
    qInfo("%s: %d conversions agree", qPrintable(id), checked);
}

void TestFp32Kernel::refusesWhatItCannotDo() {
    RoundingOptions stochastic;
    stochastic.mode = RoundingMode::Stochastic;
    QVERIFY(!Fp32Kernel::create(lookUp("fp16"), stochastic));
    QVERIFY(!Fp32Kernel::create(lookUp("fp64"), {}));
    QVERIFY(!Fp32Kernel::create(lookUp("int8"), {}));
    QVERIFY(!Fp32Kernel::create(lookUp("nf4"), {}));
}

QTEST_APPLESS_MAIN(TestFp32Kernel)
#include "tst_fp32kernel.moc"
