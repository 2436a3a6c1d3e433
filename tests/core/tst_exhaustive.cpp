// SPDX-License-Identifier: GPL-3.0-or-later
//
// Exhaustive check (ctest -L exhaustive): every one of the 2^32 fp32 bit patterns converted
//   - to fp16 by fpx and by F16C (VCVTPS2PH) in all four IEEE rounding modes, and
//   - to bf16 by fpx and by AVX512-BF16 (VCVTNEPS2BF16, round to nearest even) wherever the
//     instruction is exact by its own definition: it flushes subnormal inputs to zero
//     (docs/behaviour.md, "Known hardware deviations"; tst_crosscheck documents it), so those
//     inputs are left out.
// Codes are compared bit for bit, NaNs by class only (fpx emits its canonical quiet NaN, the
// hardware keeps the payload).
//
// fpx's exact path does big-integer arithmetic for every conversion, so 2^32 of them take
// hours: the input space is cut into 65536 blocks of 65536 patterns that worker threads (one per
// core) take in turn, with progress printed every half minute. Environment:
//   FPX_EXHAUSTIVE_SLICE=k/n   check only the k-th of n equal slices (k = 0 … n−1), to
//                              spread the work over several machines or runs
//   FPX_EXHAUSTIVE_THREADS=t   worker threads (default: all cores)

#include "fpx/exact/code.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/kernels/cpu_has.h"

#include "test_support.h"

#include <QtTest>

#include <immintrin.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using fpx::Code;
using fpx::RoundingMode;

constexpr std::uint64_t kBlockSize = 1u << 16;
constexpr std::uint64_t kBlocks = (std::uint64_t(1) << 32) / kBlockSize;

fpx::FormatSpec formatSpec(const char* id) {
    return fpx::test::lookUp(QString::fromUtf8(id));
}

QString hex(Code code, const fpx::FormatSpec& spec) {
    return fpx::test::hex(spec, code);
}

const RoundingMode kModes[] = {RoundingMode::NearestEven, RoundingMode::TowardZero,
                               RoundingMode::TowardPositive, RoundingMode::TowardNegative};

// The F16C immediate for each of kModes; MXCSR is not consulted.
template <int Rounding>
__attribute__((target("f16c"))) void hwF16c(const std::uint32_t* in, std::uint16_t* out,
                                            std::size_t count) {
    for (std::size_t i = 0; i + 4 <= count; i += 4) {
        const __m128 x =
            _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out + i),
                         _mm_cvtps_ph(x, Rounding | _MM_FROUND_NO_EXC));
    }
}

void hwF16c(std::size_t mode, const std::uint32_t* in, std::uint16_t* out, std::size_t count) {
    switch (mode) {
    case 0:
        return hwF16c<_MM_FROUND_TO_NEAREST_INT>(in, out, count);
    case 1:
        return hwF16c<_MM_FROUND_TO_ZERO>(in, out, count);
    case 2:
        return hwF16c<_MM_FROUND_TO_POS_INF>(in, out, count);
    default:
        return hwF16c<_MM_FROUND_TO_NEG_INF>(in, out, count);
    }
}

__attribute__((target("avx512f,avx512bf16"))) void hwBf16(const std::uint32_t* in,
                                                          std::uint16_t* out, std::size_t count) {
    for (std::size_t i = 0; i + 16 <= count; i += 16) {
        const __m256bh h = _mm512_cvtneps_pbh(_mm512_castsi512_ps(_mm512_loadu_si512(in + i)));
        std::memcpy(out + i, &h, sizeof h);
    }
}

bool haveF16c() {
    return fpx::kernels::cpuHasF16c();
}

bool haveAvx512Bf16() {
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
}

// Which blocks this run checks: FPX_EXHAUSTIVE_SLICE=k/n, or all of them.
struct BlockRange {
    std::uint64_t first = 0;
    std::uint64_t end = kBlocks;
};

BlockRange blockRange() {
    BlockRange range;
    const QByteArray slice = qgetenv("FPX_EXHAUSTIVE_SLICE");
    if (slice.isEmpty())
        return range;
    const QList<QByteArray> parts = slice.split('/');
    bool okK = false;
    bool okN = false;
    const std::uint64_t k = parts.size() == 2 ? parts[0].toULongLong(&okK) : 0;
    const std::uint64_t n = parts.size() == 2 ? parts[1].toULongLong(&okN) : 0;
    if (!okK || !okN || n == 0 || k >= n || n > kBlocks)
        qFatal("FPX_EXHAUSTIVE_SLICE must be k/n with 0 <= k < n <= %llu",
               static_cast<unsigned long long>(kBlocks));
    range.first = kBlocks * k / n;
    range.end = kBlocks * (k + 1) / n;
    return range;
}

unsigned threadCount() {
    bool ok = false;
    const int requested = qEnvironmentVariableIntValue("FPX_EXHAUSTIVE_THREADS", &ok);
    if (ok && requested > 0)
        return static_cast<unsigned>(requested);
    return std::max(1u, std::thread::hardware_concurrency());
}

// Shared state of one exhaustive run: the next block to take, counts, the first mismatches.
class Run {
  public:
    Run(BlockRange range, bool checkFp16, bool checkBf16)
        : range_(range), checkFp16_(checkFp16), checkBf16_(checkBf16), next_(range.first) {}

    void work() {
        const fpx::FormatSpec fp32 = formatSpec("fp32");
        const fpx::FormatSpec fp16 = formatSpec("fp16");
        const fpx::FormatSpec bf16 = formatSpec("bf16");
        fpx::RoundingOptions options;
        options.overflow = fpx::OverflowPolicy::Ieee;

        std::vector<std::uint32_t> inputs(kBlockSize);
        std::vector<std::uint16_t> f16[std::size(kModes)];
        for (auto& v : f16)
            v.resize(kBlockSize);
        std::vector<std::uint16_t> b16(kBlockSize);

        for (;;) {
            const std::uint64_t block = next_.fetch_add(1);
            if (block >= range_.end)
                break;
            for (std::uint64_t i = 0; i < kBlockSize; ++i)
                inputs[i] = static_cast<std::uint32_t>(block * kBlockSize + i);
            if (checkFp16_)
                for (std::size_t m = 0; m < std::size(kModes); ++m)
                    hwF16c(m, inputs.data(), f16[m].data(), kBlockSize);
            if (checkBf16_)
                hwBf16(inputs.data(), b16.data(), kBlockSize);

            std::uint64_t fp16Bad = 0;
            std::uint64_t bf16Bad = 0;
            std::uint64_t bf16Compared = 0;
            for (std::uint64_t i = 0; i < kBlockSize; ++i) {
                const std::uint32_t bits = inputs[i];
                const fpx::DecodedCode decoded = fpx::decodeCode(fp32, bits);
                const bool inputIsNaN = decoded.valueClass == fpx::ValueClass::NaN;
                if (checkFp16_) {
                    for (std::size_t m = 0; m < std::size(kModes); ++m) {
                        options.mode = kModes[m];
                        const Code code = fpx::roundToFormat(decoded.value, fp16, options).code;
                        const Code reference = f16[m][i];
                        if (code == reference)
                            continue;
                        if (inputIsNaN && isNaN(fp16, code) && isNaN(fp16, reference))
                            continue;
                        ++fp16Bad;
                        report(QStringLiteral("fp32 %1 -> fp16 %2: fpx %3, F16C %4")
                                   .arg(hex(bits, fp32),
                                        QString::fromLatin1(fpx::roundingModeId(kModes[m])),
                                        hex(code, fp16), hex(reference, fp16)));
                    }
                }
                if (checkBf16_ && decoded.valueClass != fpx::ValueClass::Subnormal) {
                    options.mode = RoundingMode::NearestEven;
                    const Code code = fpx::roundToFormat(decoded.value, bf16, options).code;
                    // A normal fp32 never rounds to a subnormal bf16 (same exponent range), so
                    // the instruction's output flush cannot apply here.
                    ++bf16Compared;
                    const Code reference = b16[i];
                    if (code != reference &&
                        !(inputIsNaN && isNaN(bf16, code) && isNaN(bf16, reference))) {
                        ++bf16Bad;
                        report(QStringLiteral("fp32 %1 -> bf16 rne: fpx %2, AVX512-BF16 %3")
                                   .arg(hex(bits, fp32), hex(code, bf16), hex(reference, bf16)));
                    }
                }
            }
            fp16Mismatches_ += fp16Bad;
            bf16Mismatches_ += bf16Bad;
            bf16Compared_ += bf16Compared;
            ++blocksDone_;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                progress_.notify_all();
            }
        }
    }

    // Waits for the workers, printing progress every `interval`.
    void printProgressUntilDone(std::chrono::seconds interval) {
        const auto start = std::chrono::steady_clock::now();
        const std::uint64_t total = range_.end - range_.first;
        std::unique_lock<std::mutex> lock(mutex_);
        while (blocksDone_.load() < total) {
            progress_.wait_for(lock, interval, [&] { return blocksDone_.load() >= total; });
            const std::uint64_t done = blocksDone_.load();
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const double eta = done == 0 ? 0.0 : elapsed * double(total - done) / double(done);
            qInfo("%llu / %llu blocks (%.2f %%), %.0f s elapsed, about %.0f s left, "
                  "mismatches: fp16 %llu, bf16 %llu",
                  static_cast<unsigned long long>(done), static_cast<unsigned long long>(total),
                  100.0 * double(done) / double(total), elapsed, eta,
                  static_cast<unsigned long long>(fp16Mismatches_.load()),
                  static_cast<unsigned long long>(bf16Mismatches_.load()));
        }
    }

    std::uint64_t fp16Mismatches() const { return fp16Mismatches_.load(); }
    std::uint64_t bf16Mismatches() const { return bf16Mismatches_.load(); }
    std::uint64_t bf16Compared() const { return bf16Compared_.load(); }

  private:
    static bool isNaN(const fpx::FormatSpec& spec, Code code) {
        return fpx::decodeCode(spec, code).valueClass == fpx::ValueClass::NaN;
    }

    // The first few mismatches in full; the counts tell the rest.
    void report(const QString& what) {
        std::lock_guard<std::mutex> lock(reportMutex_);
        if (reported_ < 50)
            qWarning().noquote() << what;
        ++reported_;
    }

    const BlockRange range_;
    const bool checkFp16_;
    const bool checkBf16_;
    std::atomic<std::uint64_t> next_;
    std::atomic<std::uint64_t> blocksDone_{0};
    std::atomic<std::uint64_t> fp16Mismatches_{0};
    std::atomic<std::uint64_t> bf16Mismatches_{0};
    std::atomic<std::uint64_t> bf16Compared_{0};
    std::mutex mutex_;
    std::condition_variable progress_;
    std::mutex reportMutex_;
    std::uint64_t reported_ = 0;
};

} // namespace

class TestExhaustive : public QObject {
    Q_OBJECT

  private slots:
    void allFloat32Patterns();
};

void TestExhaustive::allFloat32Patterns() {
    const bool checkFp16 = haveF16c();
    const bool checkBf16 = haveAvx512Bf16();
    if (!checkFp16 && !checkBf16)
        QSKIP("this CPU has neither F16C nor AVX512-BF16: nothing to check against");
    if (!checkFp16)
        qInfo("no F16C on this CPU: fp32 -> fp16 is not checked");
    if (!checkBf16)
        qInfo("no AVX512-BF16 on this CPU: fp32 -> bf16 is not checked");
    // The hardware must see subnormals as they are (no FTZ/DAZ); VCVTPS2PH honours DAZ.
    QCOMPARE(_mm_getcsr() & 0x8040u, 0u);

    const BlockRange range = blockRange();
    const unsigned threads = threadCount();
    qInfo("checking fp32 patterns 0x%08llx .. 0x%08llx with %u threads",
          static_cast<unsigned long long>(range.first * kBlockSize),
          static_cast<unsigned long long>(range.end * kBlockSize - 1), threads);

    // One pass decodes each fp32 pattern once and checks both targets with it.
    Run run(range, checkFp16, checkBf16);
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
        workers.emplace_back([&run] { run.work(); });
    run.printProgressUntilDone(std::chrono::seconds(30));
    for (std::thread& w : workers)
        w.join();

    QCOMPARE(run.fp16Mismatches(), std::uint64_t(0));
    QCOMPARE(run.bf16Mismatches(), std::uint64_t(0));
    if (checkBf16)
        QVERIFY(run.bf16Compared() > 0);
}

QTEST_APPLESS_MAIN(TestExhaustive)
#include "tst_exhaustive.moc"
