// SPDX-License-Identifier: GPL-3.0-or-later
// The fast block quantizers (tensor_quantizer.h) against the exact core's quantizeExactly, bit
// for bit: every code, every scale, the tensor and group scales and the counts, on random
// tensors (several distributions and scales, ragged last blocks, every block size class, one
// and two threads) and on crafted blocks (zeros, one huge element, NaN and ±∞, amax a power
// of two, ties, FP32 subnormals, scales at E8M0's limits, NVFP4 with a tiny amax, subnormal
// scales that clip). ctest runs it once per instruction set (FPX_MAX_ISA), so each loop set
// is checked.
#include "fpx/exact/conversion.h"
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/tensor_quantizer.h"
#include "tensor_fixture.h"

#include "test_support.h"

#include <QTest>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

using namespace fpx;

namespace {

BlockFormat blockFormat(const std::string& id, const std::string& block = "",
                        const std::string& rule = "") {
    QuantizerOptions options;
    std::string error;
    if (!block.empty())
        options.blocks = parseBlockLayout(block, error);
    if (!rule.empty())
        options.scaleRule = parseScaleRule(rule);
    const std::optional<BlockFormat> format = findBlockFormat(id, options, error);
    if (!format)
        qFatal("%s: %s", id.c_str(), error.c_str());
    return *format;
}

using fpx::test::view;

QString describe(const BlockFormat& f, int threads) {
    return QString("%1 block %2 rule %3, %4 thread(s)")
        .arg(QString::fromStdString(f.id), QString::fromStdString(blockLayoutId(f.blocks)),
             QString::fromStdString(std::string(scaleRuleId(f.scaleRule))))
        .arg(threads);
}

// Every field of the fast answer equals the exact core's; the first difference is named.
bool sameAsExact(const BlockFormat& format, const TensorView& input, int threads,
                 const std::optional<QuantizedTensor>& exact, QString& why) {
    std::string error;
    QuantizeRun run;
    run.threads = threads;
    const std::optional<QuantizedTensor> fast = quantizeTensor(format, input, error, run);
    const QString what = describe(format, threads);
    if (!fast || !exact) {
        why = what + ": no result: " + QString::fromStdString(error);
        return false;
    }
    if (fast->blockSize != exact->blockSize || fast->elementCount != exact->elementCount ||
        fast->shape != exact->shape) {
        why = what + QString(": block size %1 vs %2").arg(fast->blockSize).arg(exact->blockSize);
        return false;
    }
    for (std::size_t i = 0; i < exact->elementCount; ++i)
        if (fast->code(i) != exact->code(i)) {
            why = what + QString(": element %1 (%2 = %3): code %4, exact core %5")
                             .arg(i)
                             .arg(double(input.floats[i]), 0, 'g', 9)
                             .arg(std::bit_cast<std::uint32_t>(input.floats[i]), 8, 16, QChar('0'))
                             .arg(static_cast<qulonglong>(fast->code(i)), 0, 16)
                             .arg(static_cast<qulonglong>(exact->code(i)), 0, 16);
            return false;
        }
    if (fast->scaleCodes != exact->scaleCodes) {
        for (std::size_t b = 0; b < exact->scaleCodes.size(); ++b)
            if (b >= fast->scaleCodes.size() || fast->scaleCodes[b] != exact->scaleCodes[b]) {
                why = what + QString(": scale of block %1: %2, exact core %3")
                                 .arg(b)
                                 .arg(b < fast->scaleCodes.size() ? fast->scaleCodes[b] : 0u, 0, 16)
                                 .arg(exact->scaleCodes[b], 0, 16);
                return false;
            }
        why = what + ": scale count differs";
        return false;
    }
    const auto bits = [](const std::optional<float>& s) {
        return s ? std::optional<std::uint32_t>(std::bit_cast<std::uint32_t>(*s)) : std::nullopt;
    };
    if (bits(fast->tensorScale) != bits(exact->tensorScale) ||
        fast->groupScales.size() != exact->groupScales.size()) {
        why = what + ": tensor scale differs";
        return false;
    }
    for (std::size_t g = 0; g < exact->groupScales.size(); ++g)
        if (std::bit_cast<std::uint32_t>(fast->groupScales[g]) !=
            std::bit_cast<std::uint32_t>(exact->groupScales[g])) {
            why = what + QString(": group scale %1 differs").arg(g);
            return false;
        }
    if (fast->clipped != exact->clipped || fast->flushed != exact->flushed ||
        fast->nanInputs != exact->nanInputs || fast->infInputs != exact->infInputs) {
        why = what + QString(": counts clipped %1/%2 flushed %3/%4 nan %5/%6 inf %7/%8")
                         .arg(fast->clipped)
                         .arg(exact->clipped)
                         .arg(fast->flushed)
                         .arg(exact->flushed)
                         .arg(fast->nanInputs)
                         .arg(exact->nanInputs)
                         .arg(fast->infInputs)
                         .arg(exact->infInputs);
        return false;
    }
    return true;
}

bool checkBoth(const BlockFormat& format, const TensorView& input, QString& why) {
    std::string error;
    const std::optional<QuantizedTensor> exact = quantizeExactly(format, input, error);
    return sameAsExact(format, input, 1, exact, why) && sameAsExact(format, input, 2, exact, why);
}

// The scaled quantizers the fast paths cover, with the MX ones under every scale rule.
std::vector<BlockFormat> formatsWithBlock(const std::string& block) {
    std::vector<BlockFormat> formats;
    for (const char* id :
         {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"})
        for (const char* rule : {"floor", "ceil", "even"})
            formats.push_back(blockFormat(id, block, rule));
    for (const char* id : {"nvfp4", "nf4", "nf4_dq", "int8", "int4", "int2"})
        formats.push_back(blockFormat(id, block));
    return formats;
}

// FP32 values: each double draw rounded once to FP32.
std::vector<float> draw(const std::string& kind, double scale, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal(0, 1);
    std::uniform_real_distribution<double> uniform(-1, 1);
    std::exponential_distribution<double> exponential(1);
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        double x = 0;
        if (kind == "normal")
            x = normal(random);
        else if (kind == "uniform")
            x = uniform(random);
        else if (kind == "laplace")
            x = exponential(random) * (random() % 2 ? 1 : -1);
        else if (kind == "outliers")
            x = normal(random) * (random() % 50 == 0 ? 1000 : 1);
        else if (kind == "integers") // small integers: many exact ties and powers of two
            x = static_cast<double>(static_cast<int>(random() % 33) - 16);
        else if (kind == "sparse")
            x = random() % 4 == 0 ? normal(random) : 0.0;
        else if (kind == "wide") // every binade of FP32, subnormals included
            x = std::ldexp(1 + uniform(random), static_cast<int>(random() % 270) - 150) *
                (random() % 2 ? 1 : -1);
        v[i] = static_cast<float>(x * scale);
    }
    return v;
}

} // namespace

class TestTensorQuantizer : public QObject {
    Q_OBJECT

  private slots:
    void randomTensors_data();
    void randomTensors();
    void rowsAndTensors();
    void craftedBlocks_data();
    void craftedBlocks();
    void ties();
    void thresholdSearch();
    void int4Estimates();
    void nvfp4Scales();
    void nvfp4Estimates();
    void clipCounts();
    void nf4DoubleQuantization();
    void pathsAndFallbacks();
    void passesAndBareTraffic();
    void progressAndCancel();
};

void TestTensorQuantizer::randomTensors_data() {
    QTest::addColumn<QString>("distribution");
    QTest::addColumn<double>("scale");
    QTest::newRow("normal") << "normal" << 1.0;
    QTest::newRow("normal tiny") << "normal" << 1e-38;
    QTest::newRow("normal huge") << "normal" << 1e36;
    QTest::newRow("uniform") << "uniform" << 3.0;
    QTest::newRow("laplace") << "laplace" << 0.02;
    QTest::newRow("outliers") << "outliers" << 1.0;
    QTest::newRow("integers") << "integers" << 1.0;
    QTest::newRow("sparse") << "sparse" << 1.0;
    QTest::newRow("wide") << "wide" << 1.0;
}

// Every block size class: 1, a few, not a power of two, the defaults, larger than a chunk's
// share, and a ragged last block each time (the counts are not multiples of the blocks).
void TestTensorQuantizer::randomTensors() {
    QFETCH(QString, distribution);
    QFETCH(double, scale);
    const std::size_t n = 3001;
    const std::vector<float> values = draw(distribution.toStdString(), scale, n,
                                           std::hash<std::string>{}(distribution.toStdString()) +
                                               static_cast<std::uint64_t>(std::log2(scale) + 200));
    int checked = 0;
    for (const char* block : {"1", "3", "16", "32", "64", "100", "128", "1000"}) {
        for (const BlockFormat& format : formatsWithBlock(block)) {
            QString why;
            QVERIFY2(checkBoth(format, view(values), why), qPrintable(why));
            ++checked;
        }
    }
    qInfo("%d quantizers agree with the exact core", checked);
}

void TestTensorQuantizer::rowsAndTensors() {
    const std::vector<float> values = draw("laplace", 1.0, 37 * 45, 7);
    for (const char* block : {"row", "tensor"})
        for (const char* id : {"int8", "int4", "mxfp4", "nf4", "nvfp4"}) {
            QString why;
            QVERIFY2(checkBoth(blockFormat(id, block), view(values, {37, 45}), why),
                     qPrintable(why));
        }
    // A large tensor split into many chunks on both threads: per-tensor scale, two passes.
    const std::vector<float> large = draw("normal", 1.0, (std::size_t{1} << 18) + 5, 8);
    for (const char* id : {"int8", "nvfp4", "mxfp8_e4m3"}) {
        QString why;
        QVERIFY2(checkBoth(blockFormat(id), view(large), why), qPrintable(why));
    }
}

void TestTensorQuantizer::craftedBlocks_data() {
    QTest::addColumn<QVector<float>>("values");
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float maxFloat = std::numeric_limits<float>::max();
    const float tiny = std::numeric_limits<float>::denorm_min();
    QVector<float> zeros(64, 0.0f);
    zeros[5] = -0.0f;
    QTest::newRow("zeros") << zeros;
    QVector<float> huge(64, 1.0f);
    huge[17] = 3e38f;
    for (int i = 0; i < 64; i += 3)
        huge[i] = -0.001f * static_cast<float>(i);
    QTest::newRow("one huge element") << huge;
    QVector<float> special(64, 0.5f);
    special[3] = nan;
    special[40] = -inf;
    QTest::newRow("nan and inf") << special;
    QVector<float> onlyInf(64, 2.0f);
    onlyInf[63] = inf;
    QTest::newRow("inf") << onlyInf;
    QVector<float> power(64);
    for (int i = 0; i < 64; ++i)
        power[i] = (i % 2 ? -1.0f : 1.0f) * std::ldexp(1.0f, -(i % 20));
    QTest::newRow("amax a power of two") << power;
    QVector<float> subnormal(64);
    for (int i = 0; i < 64; ++i)
        subnormal[i] =
            std::bit_cast<float>(static_cast<std::uint32_t>(i * 1237 + 1)) * (i % 3 ? 1.0f : -1.0f);
    QTest::newRow("subnormal inputs") << subnormal;
    QVector<float> smallest(64, tiny);
    smallest[1] = -tiny;
    smallest[2] = 0;
    QTest::newRow("smallest subnormals") << smallest;
    QVector<float> top(64);
    for (int i = 0; i < 64; ++i)
        top[i] = maxFloat / static_cast<float>(1 + i % 7) * (i % 2 ? -1.0f : 1.0f);
    QTest::newRow("near the FP32 max") << top;
    QVector<float> nearTwo(64);
    for (int i = 0; i < 64; ++i) // amax just below a power of two: the even rule carries
        nearTwo[i] = std::nextafter(std::ldexp(1.0f, 3 - i % 5), 0.0f) * (i % 2 ? -1.0f : 1.0f);
    QTest::newRow("amax just below a power of two") << nearTwo;
    QVector<float> mixed(64);
    for (int i = 0; i < 64; ++i) // blocks of 16 whose amax differ by 2^40: flushes
        mixed[i] = std::ldexp(1.5f, (i / 16) * 40 - 60) * (i % 2 ? 1.0f : -0.37f);
    QTest::newRow("blocks 2^40 apart") << mixed;
}

void TestTensorQuantizer::craftedBlocks() {
    QFETCH(QVector<float>, values);
    const std::vector<float> v(values.begin(), values.end());
    for (const char* block : {"16", "32", "64", "7"})
        for (const BlockFormat& format : formatsWithBlock(block)) {
            QString why;
            QVERIFY2(checkBoth(format, view(v), why), qPrintable(why));
        }
    for (const char* id : {"int8", "int4", "nvfp4"}) {
        QString why;
        QVERIFY2(checkBoth(blockFormat(id, "tensor"), view(v), why), qPrintable(why));
    }
}

// Values exactly on the midpoints between element values (after scaling), and their FP32
// neighbours, for every format: one element fixes the scale (element max · 2^k for MX,
// qmax · 2^k for the integers, a power of two for NF4), the others are the element format's
// midpoints times the scale, where those are FP32 numbers.
void TestTensorQuantizer::ties() {
    for (const BlockFormat& format : formatsWithBlock("32")) {
        std::vector<double> levels; // the element values, ascending
        const FormatSpec& e = format.element;
        for (Code c = 0; c < (Code(1) << e.totalBits()); ++c) {
            const DecodedCode d = decodeCode(e, c);
            if (d.value.isNaN() || d.value.isInfinity())
                continue;
            const Conversion asDouble = roundToFormat(d.value, fpx::test::lookUp("fp64"));
            levels.push_back(std::bit_cast<double>(static_cast<std::uint64_t>(asDouble.code)));
        }
        std::sort(levels.begin(), levels.end());
        levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
        std::vector<double> midpoints;
        for (std::size_t i = 0; i + 1 < levels.size(); ++i)
            midpoints.push_back((levels[i] + levels[i + 1]) / 2);
        for (int k : {-130, -20, 0, 5, 100}) {
            std::vector<float> v;
            for (std::size_t start = 0; start < midpoints.size(); start += 31) {
                const double top = levels.back();
                v.push_back(static_cast<float>(std::ldexp(top, k)));
                for (std::size_t i = start; i < std::min(midpoints.size(), start + 31); ++i) {
                    const float m = static_cast<float>(std::ldexp(midpoints[i], k));
                    const float pick[3] = {m, std::nextafter(m, 0.0f),
                                           std::nextafter(m, 2 * m + 1)};
                    v.push_back(pick[(i + static_cast<std::size_t>(k + 200)) % 3]);
                }
                while (v.size() % 32 != 0)
                    v.push_back(
                        static_cast<float>(std::ldexp(midpoints[v.size() % midpoints.size()], k)));
            }
            QString why;
            QVERIFY2(checkBoth(format, view(v), why), qPrintable(why));
        }
    }
}

// The threshold quantizers (INT4, NF4, NVFP4) in blocks of 128, where the AVX-512 loops
// search 16 elements at once: every midpoint between element values times the scale, exactly
// and one FP32 ulp either side, with scales from FP32's subnormals to large ones; between
// them an all-zero block (signed zeros) and one whose absmax is a subnormal.
void TestTensorQuantizer::thresholdSearch() {
    for (const char* id : {"int4", "nf4", "nvfp4", "int8"}) {
        const BlockFormat format = blockFormat(id, "128");
        std::vector<double> levels;
        const FormatSpec& e = format.element;
        for (Code c = 0; c < (Code(1) << e.totalBits()); ++c) {
            const DecodedCode d = decodeCode(e, c);
            if (d.value.isNaN() || d.value.isInfinity())
                continue;
            const Conversion asDouble = roundToFormat(d.value, fpx::test::lookUp("fp64"));
            levels.push_back(std::bit_cast<double>(static_cast<std::uint64_t>(asDouble.code)));
        }
        std::sort(levels.begin(), levels.end());
        levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
        const double top = levels.back(); // 7, 127, 1 and 6: the largest magnitude produced
        std::vector<float> v;
        for (int k : {-145, -140, -133, -127, -126, -20, -1, 0, 7, 60}) {
            std::vector<float> block{static_cast<float>(std::ldexp(top, k))};
            for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
                const float m = static_cast<float>(std::ldexp((levels[i] + levels[i + 1]) / 2, k));
                for (float x : {m, std::nextafter(m, -INFINITY), std::nextafter(m, INFINITY)})
                    if (std::abs(x) <= std::ldexp(top, k))
                        block.push_back(x);
            }
            block.resize(((block.size() + 127) / 128) * 128,
                         static_cast<float>(std::ldexp(top, k)));
            v.insert(v.end(), block.begin(), block.end());
            for (int i = 0; i < 128; ++i) // an all-zero block
                v.push_back(i % 3 == 0 ? -0.0f : 0.0f);
        }
        for (int i = 0; i < 128; ++i) // absmax a subnormal
            v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(1 + i * 37)) *
                        (i % 2 ? -1.0f : 1.0f));
        QString why;
        QVERIFY2(checkBoth(format, view(v), why), qPrintable(why));
        if (std::string(id) != "nf4")
            QVERIFY2(checkBoth(blockFormat(id, "tensor"), view(v), why), qPrintable(why));
    }
}

// INT4 in blocks of 128 (where the AVX-512 loop estimates each integer from |x| times the
// reciprocal of the scale and corrects it by one compare): scales of full significands, so that
// the reciprocal and the product round, from FP32's smallest normal scale (and just below it,
// where the search takes over) to the largest; each block holds, at both signs, (j + f) · s for
// j = 0 … 7 and f in {0, 1/4, 1/2, 3/4} (the midpoints, and where the estimate may land on
// either side of an integer) with their FP32 neighbours two ulps either side, then random
// values below amax.
void TestTensorQuantizer::int4Estimates() {
    std::mt19937_64 random(20);
    std::uniform_real_distribution<double> unit(1, 2);
    std::vector<float> v;
    for (int e : {-124, -123, -121, -60, -1, 0, 1, 3, 17, 90, 124, 125}) {
        for (int repeat = 0; repeat < 3; ++repeat) {
            const float amax = static_cast<float>(std::ldexp(unit(random), e));
            const float s = amax / 7.0f; // the kernel's scale
            std::vector<float> block{amax};
            for (int j = 0; j <= 7; ++j)
                for (double f : {0.0, 0.25, 0.5, 0.75}) {
                    float x = static_cast<float>((j + f) * double(s));
                    for (int step = 0; step < 2; ++step)
                        x = std::nextafter(x, 0.0f);
                    for (int step = 0; step < 5; ++step, x = std::nextafter(x, INFINITY))
                        if (x <= amax)
                            block.push_back(block.size() % 2 ? -x : x);
                }
            std::uniform_real_distribution<float> below(-amax, amax);
            while (block.size() % 128 != 0)
                block.push_back(below(random));
            v.insert(v.end(), block.begin(), block.end());
        }
    }
    // The largest finite amax, and a scale just below FP32's smallest normal.
    for (float amax : {std::numeric_limits<float>::max(), 0x1.8p-124f}) {
        const float s = amax / 7.0f;
        std::vector<float> block{amax};
        for (int i = 1; i < 128; ++i)
            block.push_back(static_cast<float>((i % 32) / 4.0 * double(s)) * (i % 2 ? -1 : 1));
        v.insert(v.end(), block.begin(), block.end());
    }
    QString why;
    QVERIFY2(checkBoth(blockFormat("int4", "128"), view(v), why), qPrintable(why));
    QVERIFY2(checkBoth(blockFormat("int4", "16"), view(v), why), qPrintable(why));
}

// NVFP4: s_t a power of two (amax = 2688 · 2^j) makes the block scales and the element
// thresholds FP32 numbers, so ties happen; a tiny amax rounds s_t to 0 (the smallest FP32
// stands in); a block far below the largest gets a zero scale.
void TestTensorQuantizer::nvfp4Scales() {
    const BlockFormat nvfp4 = blockFormat("nvfp4");
    const double thresholds[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, 6, 7, 8};
    for (int j : {-140, -10, 0, 20, 110}) {
        std::vector<float> v;
        v.push_back(static_cast<float>(std::ldexp(2688.0, j)));
        for (double sb : {448.0, 1.0, 0.015625, 3.25, 0.001953125, 240.0})
            for (std::size_t i = 0; i < 15; ++i) {
                const double t = thresholds[i % 10] * sb;
                v.push_back(static_cast<float>(std::ldexp(t, j) * (i % 2 ? -1 : 1)));
                if (v.size() % 16 == 1)
                    v.back() = static_cast<float>(std::ldexp(6 * sb, j));
            }
        QString why;
        QVERIFY2(checkBoth(nvfp4, view(v), why), qPrintable(why));
    }
    std::vector<float> tiny(48, std::numeric_limits<float>::denorm_min());
    tiny[7] = std::bit_cast<float>(0x00000400u);
    QString why;
    QVERIFY2(checkBoth(nvfp4, view(tiny), why), qPrintable(why));
    std::vector<float> farBelow(64, 1e-30f);
    farBelow[0] = 1e30f;
    QVERIFY2(checkBoth(nvfp4, view(farBelow), why), qPrintable(why));
}

// NVFP4 where the AVX-512 loop estimates each code from |x| times the reciprocal of
// S = s_b · s_t and corrects it by one compare: tensor scales s_t of full significands (not
// powers of two: S's reciprocal and the products round) from tiny (where 1/S overflows FP32
// and the search takes over) to large, and for each every positive E4M3 block scale s_b,
// subnormal ones included. A block's amax is 6 · s_b · s_t, so that its scale is s_b; its
// elements are, at both signs, t · S for every E2M1 midpoint t (where ties fall) and grid
// value g (where the estimate changes) with their FP32 neighbours two ulps either side, cut
// into blocks of each size after the amax. Between them: blocks whose scale q falls between
// subnormal E4M3 values (rounded down far enough, elements clip), all-zero blocks, blocks
// whose scale rounds to 0, and one block holding a NaN and one ±∞.
void TestTensorQuantizer::nvfp4Estimates() {
    const double points[] = {0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 5, 6};
    std::mt19937_64 random(4);
    std::vector<float> crafted;
    const auto addBlocks = [&](float amax, const std::vector<float>& values, std::size_t size) {
        for (std::size_t first = 0; first < values.size(); first += size - 1) {
            std::vector<float> block{amax};
            for (std::size_t i = first; i < values.size() && block.size() < size; ++i)
                block.push_back(values[i]);
            std::uniform_real_distribution<float> below(-amax, amax);
            while (block.size() < size)
                block.push_back(below(random));
            crafted.insert(crafted.end(), block.begin(), block.end());
        }
    };
    for (const std::size_t size : {std::size_t{128}, std::size_t{16}, std::size_t{48}}) {
        for (const double significand : {1.2345678, 1.9999999}) {
            for (const int k : {-120, -100, -20, 0, 30, 110}) {
                const float tensorAmax = static_cast<float>(std::ldexp(2688 * significand, k));
                // The tensor's amax in a block of its own, so that every crafted block below
                // starts on a block boundary.
                crafted.assign(size, 0.0f);
                crafted.front() = tensorAmax;
                const double st = tensorAmax / 2688.0f; // the FP32 division the reference does
                for (int code = 1; code < 127; code += size == 128 ? 1 : 5) {
                    const double sb =
                        code < 8 ? std::ldexp(code, -9) : std::ldexp(8 + code % 8, code / 8 - 10);
                    const double s = sb * st;
                    // 6 · 448 · s_t may round above the tensor's amax, which would move s_t.
                    const float amax = std::min(static_cast<float>(6 * s), tensorAmax);
                    std::vector<float> values;
                    for (const double t : points) {
                        float x = static_cast<float>(t * s);
                        for (int step = 0; step < 2; ++step)
                            x = std::nextafter(x, 0.0f);
                        for (int step = 0; step < 5; ++step, x = std::nextafter(x, INFINITY))
                            if (x <= amax)
                                values.push_back(values.size() % 2 ? -x : x);
                    }
                    addBlocks(amax, values, size);
                }
                // Subnormal block scales rounded down (q = (j + 0.45) · 2^−9: elements clip),
                // an all-zero block, a scale that rounds to 0, a NaN and an ±∞ block.
                for (int j = 1; j < 8; ++j) {
                    const float amax = static_cast<float>(6 * st * std::ldexp(j + 0.45, -9));
                    addBlocks(amax, {amax * 0.99f, -amax * 0.9f, amax * 0.75f}, size);
                }
                addBlocks(0.0f, std::vector<float>(size - 1, -0.0f), size);
                addBlocks(static_cast<float>(st * 1e-4), {static_cast<float>(-st * 1e-5)}, size);
                QString why;
                const BlockFormat format = blockFormat("nvfp4", std::to_string(size));
                QVERIFY2(checkBoth(format, view(crafted), why), qPrintable(why));
                if (k == 0) {
                    addBlocks(1.0f, {std::numeric_limits<float>::quiet_NaN()}, size);
                    addBlocks(1.0f, {-std::numeric_limits<float>::infinity()}, size);
                    addBlocks(static_cast<float>(3 * st), {static_cast<float>(st)}, size);
                    QVERIFY2(checkBoth(format, view(crafted), why), qPrintable(why));
                }
            }
        }
    }
}

// The loops count clipped elements only in blocks whose amax reaches the clip threshold;
// blocks of 128 (the AVX-512 loops) and of 16 where scales are subnormal and round far enough
// down that elements clip, between blocks that cannot clip. The exact core must find clipped
// elements here, or the test proves nothing.
void TestTensorQuantizer::clipCounts() {
    const float unit = std::numeric_limits<float>::denorm_min(); // 2^−149
    // NVFP4, s_t = 1 (amax 2688): q = amax_b / 6 = f · 2^−9, E4M3's smallest subnormal; f
    // = 1.4 rounds down to 1 (|x| / S up to 8.4: clipped), 0.6 up to 1, 0.4 down to 0.
    for (const char* block : {"128", "16"}) {
        const std::size_t size = std::stoul(block);
        std::vector<float> v{2688.0f};
        v.resize(size, 1.0f);
        for (double f : {1.4, 0.6, 1.4, 0.4, 1.2, 100.0, 1.49}) {
            const double amax = 6 * f * std::ldexp(1.0, -9);
            for (std::size_t i = 0; i < size; ++i)
                v.push_back(static_cast<float>(amax * (size - i) / size * (i % 2 ? -1 : 1)));
        }
        std::string error;
        const BlockFormat nvfp4 = blockFormat("nvfp4", block);
        const std::optional<QuantizedTensor> exact = quantizeExactly(nvfp4, view(v), error);
        QVERIFY(exact && exact->clipped > 0);
        QString why;
        QVERIFY2(checkBoth(nvfp4, view(v), why), qPrintable(why));
    }
    // INT4: amax = k · 2^−149 gives s = max(1, RN(k / 7)) · 2^−149; k = 10 makes s = 2^−149
    // and 8, 9, 10 · 2^−149 clip (past 7.5 · s); large k cannot clip.
    std::vector<float> v;
    for (int k : {10, 3, 11, 17, 200, 10, 1 << 20, 24}) {
        for (int i = 0; i < 128; ++i)
            v.push_back(static_cast<float>(k - i % (k + 1)) * unit * (i % 3 ? 1.0f : -1.0f));
    }
    for (const char* block : {"128", "16", "tensor"}) {
        const BlockFormat int4 = blockFormat("int4", block);
        std::string error;
        std::vector<float> w = v;
        if (std::string(block) == "tensor")
            w.resize(256); // amax 10 · 2^−149: one subnormal scale for all
        const std::optional<QuantizedTensor> exact = quantizeExactly(int4, view(w), error);
        QVERIFY(exact && exact->clipped > 0);
        QString why;
        QVERIFY2(checkBoth(int4, view(w), why), qPrintable(why));
    }
}

// nf4_dq: absmaxes 4 ± d around their mean 4, the largest |d| = 127 / 64, so the group scale
// is 2^−6 and codes k + 1/2 are ties (to even); absmaxes far apart (their difference with the
// offset is not a double), an all-zero tensor, and more than one group of 256.
void TestTensorQuantizer::nf4DoubleQuantization() {
    const BlockFormat dq = blockFormat("nf4_dq", "4");
    std::vector<float> v;
    const auto block = [&](double absmax) {
        v.push_back(static_cast<float>(absmax));
        v.push_back(static_cast<float>(-absmax / 3));
        v.push_back(0.0f);
        v.push_back(static_cast<float>(absmax / 7));
    };
    for (double d : {127.0, 2.5, 3.5, 0.5, 1.5, 126.5, 64.0, 0.0})
        for (double sign : {1.0, -1.0}) {
            block(4 + sign * d / 64);
        }
    QString why;
    QVERIFY2(checkBoth(dq, view(v), why), qPrintable(why));
    std::vector<float> apart = v;
    apart[0] = 3e30f; // the offset near 2^94, and a block whose absmax is near 2^-100
    apart[4] = 1e-30f;
    apart[5] = -1e-31f;
    apart[7] = 1e-32f;
    QVERIFY2(checkBoth(dq, view(apart), why), qPrintable(why));
    const std::vector<float> zeros(64, 0.0f);
    QVERIFY2(checkBoth(dq, view(zeros), why), qPrintable(why));
    const std::vector<float> many = draw("laplace", 1.0, 64 * 600 + 17, 12);
    QVERIFY2(checkBoth(blockFormat("nf4_dq"), view(many), why), qPrintable(why));
}

void TestTensorQuantizer::pathsAndFallbacks() {
    const std::vector<float> f(100, 1.0f);
    const std::vector<double> d(100, 1.0);
    TensorView doubles;
    doubles.shape = {100};
    doubles.doubles = d;
    QVERIFY(quantizerPath(blockFormat("mxfp4"), view(f)).fast);
    QVERIFY(quantizerPath(blockFormat("nvfp4"), view(f)).fast);
    QVERIFY(quantizerPath(blockFormat("nf4"), view(f)).fast);
    QVERIFY(quantizerPath(blockFormat("nf4_dq"), view(f)).fast);
    QVERIFY(quantizerPath(blockFormat("int4", "128"), view(f)).fast);
    QVERIFY(!quantizerPath(blockFormat("mxfp4"), doubles).fast);
    QCOMPARE(quantizerPath(blockFormat("mxfp4"), doubles).name, std::string("exact core"));
    // quantizeTensorInto reuses a result of another format and size: every field is replaced.
    const std::vector<float> large = draw("normal", 1.0, 5000, 11);
    QuantizedTensor reused;
    for (const char* id : {"nvfp4", "mxfp4", "nf4_dq", "int4", "nf4"}) {
        std::string reuseError;
        const std::vector<float>& values = id[1] == 'x' ? f : large;
        QVERIFY(quantizeTensorInto(blockFormat(id), view(values), reused, reuseError));
        const std::optional<QuantizedTensor> exact =
            quantizeExactly(blockFormat(id), view(values), reuseError);
        QVERIFY(exact);
        QCOMPARE(reused.codes, exact->codes);
        QCOMPARE(reused.scaleCodes, exact->scaleCodes);
        QCOMPARE(reused.groupScales.size(), exact->groupScales.size());
        QCOMPARE(reused.tensorScale.has_value(), exact->tensorScale.has_value());
        QCOMPARE(reused.elementCount, exact->elementCount);
    }
    // The exact core's errors come through unchanged.
    std::string error;
    const std::vector<float> none;
    QVERIFY(!quantizeTensor(blockFormat("mxfp4"), view(none, {0}), error));
    QVERIFY(!error.empty());
}

// The passes each quantizer makes over the tensor, and the bare loop fpx bench compares it with:
// every element's top byte, whatever the passes, threads and a ragged last chunk.
void TestTensorQuantizer::passesAndBareTraffic() {
    const std::vector<float> values = draw("normal", 1.0, 200003, 5);
    QCOMPARE(quantizerPasses(blockFormat("nvfp4"), view(values)), 2);
    QCOMPARE(quantizerPasses(blockFormat("int4"), view(values)), 2); // one scale per tensor
    QCOMPARE(quantizerPasses(blockFormat("int4", "128"), view(values)), 1);
    for (const char* id : {"mxfp8_e4m3", "mxfp4", "nf4", "nf4_dq", "fp8_e4m3"})
        QCOMPARE(quantizerPasses(blockFormat(id), view(values)), 1);
    for (int passes : {1, 2})
        for (int threads : {1, 2}) {
            QuantizeRun run;
            run.threads = threads;
            std::vector<std::uint8_t> codes(3, 0xab); // resized, every byte written
            bareQuantizerTraffic(view(values), passes, codes, run);
            QCOMPARE(codes.size(), values.size());
            for (std::size_t i = 0; i < values.size(); ++i)
                if (codes[i] != std::bit_cast<std::uint32_t>(values[i]) >> 24)
                    QFAIL(qPrintable(QString("element %1, %2 passes, %3 threads")
                                         .arg(i)
                                         .arg(passes)
                                         .arg(threads)));
        }
}

void TestTensorQuantizer::progressAndCancel() {
    const std::vector<float> values = draw("normal", 1.0, std::size_t{1} << 20, 3);
    std::string error;
    QuantizeRun run;
    run.threads = 1; // the calling thread reports: with one thread, after every chunk
    std::size_t last = 0, calls = 0;
    run.progress = [&](std::size_t done, std::size_t total) {
        if (done < last || done > total)
            qFatal("progress went backwards or past the end");
        last = done;
        ++calls;
        return true;
    };
    for (const char* id : {"mxfp4", "nvfp4", "int8"}) { // nvfp4, int8: two passes
        last = 0;
        calls = 0;
        QVERIFY(quantizeTensor(blockFormat(id), view(values), error, run));
        QVERIFY(calls > 1);
        QCOMPARE(last, values.size());
    }
    run.threads = 2;
    run.progress = [](std::size_t, std::size_t) { return false; };
    QVERIFY(!quantizeTensor(blockFormat("nvfp4"), view(values), error, run));
    QVERIFY(error.find("cancelled") != std::string::npos);
}

QTEST_APPLESS_MAIN(TestTensorQuantizer)
#include "tst_tensor_quantizer.moc"
