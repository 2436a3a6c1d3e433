// SPDX-License-Identifier: GPL-3.0-or-later
// Every one of the 2^32 FP32 bit patterns through the FP32 kernel and the exact core, for the
// formats the kernel serves most (label `exhaustive`: ./build.sh exhaustive). About an hour
// per format on two cores; FPX_EXHAUSTIVE_THREADS overrides the thread count.
#include "fpx/exact/conversion.h"
#include "fpx/kernels/fp32_kernel.h"

#include "test_support.h"

#include <QTest>

#include <atomic>
#include <thread>

using namespace fpx;

class TestFp32KernelExhaustive : public QObject {
    Q_OBJECT

  private slots:
    void everyPattern_data();
    void everyPattern();
};

void TestFp32KernelExhaustive::everyPattern_data() {
    QTest::addColumn<QString>("id");
    for (const char* id : {"fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp4_e2m1"})
        QTest::newRow(id) << id;
}

void TestFp32KernelExhaustive::everyPattern() {
    QFETCH(QString, id);
    const FormatSpec target = test::lookUp(id);
    const FormatSpec fp32 = test::lookUp("fp32");
    const auto kernel = Fp32Kernel::create(target, {});
    QVERIFY(kernel);
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    if (const QByteArray env = qgetenv("FPX_EXHAUSTIVE_THREADS"); !env.isEmpty())
        threads = std::max(1, env.toInt());
    constexpr std::uint64_t kBlock = 1 << 16;
    std::atomic<std::uint64_t> nextBlock{0};
    std::atomic<std::uint64_t> mismatches{0};
    std::atomic<std::uint64_t> firstMismatch{~std::uint64_t{0}};
    auto work = [&] {
        std::vector<std::uint32_t> in(kBlock);
        std::vector<Code> out(kBlock);
        for (;;) {
            const std::uint64_t block = nextBlock.fetch_add(1);
            if (block >= (std::uint64_t{1} << 32) / kBlock)
                return;
            for (std::uint64_t i = 0; i < kBlock; ++i)
                in[i] = static_cast<std::uint32_t>(block * kBlock + i);
            kernel->convert(in.data(), out.data(), kBlock);
            for (std::uint64_t i = 0; i < kBlock; ++i) {
                if (out[i] != roundToFormat(decodeCode(fp32, in[i]).value, target).code) {
                    if (mismatches.fetch_add(1) == 0)
                        firstMismatch = in[i];
                }
            }
            if (block % 4096 == 0)
                qInfo("%s: block %llu of 65536", qPrintable(id),
                      static_cast<unsigned long long>(block));
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back(work);
    for (std::thread& t : pool)
        t.join();
    QVERIFY2(mismatches == 0, qPrintable(QString("%1 mismatches, the first at fp32 0x%2")
                                             .arg(mismatches.load())
                                             .arg(firstMismatch.load(), 8, 16, QChar('0'))));
}

QTEST_APPLESS_MAIN(TestFp32KernelExhaustive)
#include "tst_fp32kernel_exhaustive.moc"
