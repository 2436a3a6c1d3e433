// SPDX-License-Identifier: GPL-3.0-or-later
// quantizeTensor's paths for direct casts and for tensors holding NaN or ±∞, against the exact
// core's quantizeExactly bit for bit (every code, scale, tensor and group scale and count), on
// one and two threads: every direct cast on random FP32 tensors and on values crafted from the
// format itself (the overflow tie max + ulp/2 and its FP32 neighbours, half the smallest
// subnormal, FP32 subnormals, ±0, NaN of both signs, ±∞); every scaled quantizer on tensors
// with NaN and ±∞ in some blocks (the first, the ragged last, several in a row, all of them).
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_limits.h"
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

BlockFormat blockFormat(const std::string& id, const std::string& block = "") {
    QuantizerOptions options;
    std::string error;
    if (!block.empty())
        options.blocks = parseBlockLayout(block, error);
    const std::optional<BlockFormat> format = findBlockFormat(id, options, error);
    if (!format)
        qFatal("%s: %s", id.c_str(), error.c_str());
    return *format;
}

using fpx::test::view;

std::optional<std::uint32_t> bitsOf(const std::optional<float>& s) {
    return s ? std::optional<std::uint32_t>(std::bit_cast<std::uint32_t>(*s)) : std::nullopt;
}

// Every field of quantizeTensor's answer on `threads` threads equals the exact core's.
bool sameAsExact(const BlockFormat& format, const TensorView& input, int threads,
                 const QuantizedTensor& exact, QString& why) {
    std::string error;
    QuantizeRun run;
    run.threads = threads;
    const std::optional<QuantizedTensor> fast = quantizeTensor(format, input, error, run);
    const QString what = QString("%1 block %2, %3 thread(s)")
                             .arg(QString::fromStdString(format.id),
                                  QString::fromStdString(blockLayoutId(format.blocks)))
                             .arg(threads);
    if (!fast) {
        why = what + ": no result: " + QString::fromStdString(error);
        return false;
    }
    if (fast->blockSize != exact.blockSize || fast->elementCount != exact.elementCount ||
        fast->shape != exact.shape || fast->codes.size() != exact.codes.size()) {
        why = what + ": sizes differ";
        return false;
    }
    for (std::size_t i = 0; i < exact.elementCount; ++i)
        if (fast->code(i) != exact.code(i)) {
            why = what + QString(": element %1 (bits %2): code %3, exact core %4")
                             .arg(i)
                             .arg(std::bit_cast<std::uint32_t>(input.floats[i]), 8, 16, QChar('0'))
                             .arg(static_cast<qulonglong>(fast->code(i)), 0, 16)
                             .arg(static_cast<qulonglong>(exact.code(i)), 0, 16);
            return false;
        }
    if (fast->scaleCodes != exact.scaleCodes) {
        why = what + ": scale codes differ";
        return false;
    }
    if (bitsOf(fast->tensorScale) != bitsOf(exact.tensorScale) ||
        fast->groupScales.size() != exact.groupScales.size()) {
        why = what + ": tensor scale differs";
        return false;
    }
    for (std::size_t g = 0; g < exact.groupScales.size(); ++g)
        if (bitsOf(fast->groupScales[g]) != bitsOf(exact.groupScales[g])) {
            why = what + QString(": group scale %1 differs").arg(g);
            return false;
        }
    if (fast->clipped != exact.clipped || fast->flushed != exact.flushed ||
        fast->nanInputs != exact.nanInputs || fast->infInputs != exact.infInputs) {
        why = what + QString(": counts clipped %1/%2 flushed %3/%4 nan %5/%6 inf %7/%8")
                         .arg(fast->clipped)
                         .arg(exact.clipped)
                         .arg(fast->flushed)
                         .arg(exact.flushed)
                         .arg(fast->nanInputs)
                         .arg(exact.nanInputs)
                         .arg(fast->infInputs)
                         .arg(exact.infInputs);
        return false;
    }
    return true;
}

// Checks both thread counts; returns the exact core's answer (for further checks).
std::optional<QuantizedTensor> checkBoth(const BlockFormat& format, const TensorView& input,
                                         QString& why) {
    std::string error;
    std::optional<QuantizedTensor> exact = quantizeExactly(format, input, error);
    if (!exact) {
        why = QString::fromStdString(format.id + ": the exact core failed: " + error);
        return std::nullopt;
    }
    if (!sameAsExact(format, input, 1, *exact, why) || !sameAsExact(format, input, 2, *exact, why))
        return std::nullopt;
    return exact;
}

double asDouble(const ExactValue& v) {
    const Conversion c = roundToFormat(v, fpx::test::lookUp("fp64"));
    return std::bit_cast<double>(static_cast<std::uint64_t>(c.code));
}

// FP32 x and its two FP32 neighbours (where finite).
void withNeighbours(std::vector<float>& v, double x) {
    const float f = static_cast<float>(x);
    if (!std::isfinite(f))
        return;
    v.push_back(f);
    v.push_back(std::nextafter(f, 0.0f));
    v.push_back(std::nextafter(f, std::numeric_limits<float>::infinity()));
}

// Values crafted from the format: the overflow tie max + ulp/2, half the smallest subnormal
// (the tie to zero), the largest and smallest values, each with its FP32 neighbours and both
// signs; FP32 subnormals and extremes; ±0; NaN of both signs; ±∞.
std::vector<float> craftedFor(const FormatSpec& spec) {
    const FormatLimits limits = deriveLimits(spec);
    const double max = asDouble(limits.max);
    const double minPositive = asDouble(limits.minPositive);
    const double topUlp =
        std::ldexp(1.0, static_cast<int>(limits.max.floorLog2()) - spec.fractionBits);
    std::vector<float> v;
    for (double x : {max, max + topUlp / 2, max + topUlp, max - topUlp / 2, minPositive,
                     minPositive / 2, minPositive * 1.5, minPositive / 4, 1.0, 1.0 + topUlp / max})
        withNeighbours(v, x);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    for (float x : {0.0f, std::numeric_limits<float>::denorm_min(),
                    std::bit_cast<float>(0x00012345u), std::numeric_limits<float>::min(),
                    std::numeric_limits<float>::max(), nan, inf, 3e38f, 1e-40f})
        v.push_back(x);
    v.push_back(std::bit_cast<float>(0x7fc01234u)); // a NaN with a payload
    const std::size_t positive = v.size();
    for (std::size_t i = 0; i < positive; ++i)
        v.push_back(-v[i]);
    return v;
}

std::vector<float> randomValues(std::size_t n, double scale, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal(0, 1);
    std::uniform_real_distribution<double> uniform(-1, 1);
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double x =
            i % 3 == 0 ? std::ldexp(1 + uniform(random), static_cast<int>(random() % 280) - 150)
                       : normal(random) * scale;
        v[i] = static_cast<float>(i % 2 ? -x : x);
    }
    return v;
}

// The direct casts of the catalogue's binary float formats.
const char* const kCasts[] = {"fp8_e4m3", "fp8_e5m2", "fp8_e3m4", "fp8_e4m3fnuz",   "fp8_e5m2fnuz",
                              "fp6_e2m3", "fp6_e3m2", "fp4_e2m1", "bf16",           "fp16",
                              "tf32",     "fp32",     "fp64",     "fp8_e4m3b11fnuz"};

// The casts that must have a fast path for FP32 input on every CPU (BulkEncoder covers the
// narrow ones; FP32 and FP64 hold every FP32 value).
const char* const kFastCasts[] = {"fp8_e4m3", "fp8_e5m2", "fp6_e2m3", "fp6_e3m2", "fp4_e2m1",
                                  "bf16",     "fp16",     "tf32",     "fp32",     "fp64"};

} // namespace

class TestQuantizerPaths : public QObject {
    Q_OBJECT

  private slots:
    void directCasts_data();
    void directCasts();
    void castPaths();
    void nonFiniteBlocks_data();
    void nonFiniteBlocks();
    void nonFinitePaths();
};

void TestQuantizerPaths::directCasts_data() {
    QTest::addColumn<QString>("id");
    for (const char* id : kCasts)
        QTest::newRow(id) << QString(id);
}

void TestQuantizerPaths::directCasts() {
    QFETCH(QString, id);
    const BlockFormat format = blockFormat(id.toStdString());
    QCOMPARE(format.scheme, BlockScheme::Direct);
    QString why;
    const std::vector<float> crafted = craftedFor(format.element);
    const std::optional<QuantizedTensor> exact = checkBoth(format, view(crafted), why);
    QVERIFY2(exact, qPrintable(why));
    // The crafted values reach every count in formats narrower than FP32.
    std::size_t nans = 0, infinities = 0;
    for (float x : crafted) {
        nans += std::isnan(x) ? 1 : 0;
        infinities += std::isinf(x) ? 1 : 0;
    }
    QCOMPARE(exact->nanInputs, nans);
    QCOMPARE(exact->infInputs, infinities);
    QVERIFY(nans == 4 && infinities >= 2);
    if (format.element.totalBits() < 32) {
        QVERIFY(exact->clipped > 0);
        QVERIFY(exact->flushed > 0);
    }
    for (double scale : {1.0, 1e-3, 300.0, 1e30}) {
        const std::vector<float> values =
            randomValues(5003, scale, static_cast<std::uint64_t>(std::log2(scale) + 100));
        QVERIFY2(checkBoth(format, view(values), why), qPrintable(why));
    }
    // Several chunks on both threads, NaN and ±∞ among them, as a 2-d tensor.
    std::vector<float> large = randomValues((std::size_t{1} << 17) + 3 * 7, 2.0, 5);
    for (std::size_t i = 0; i < large.size(); i += 9973)
        large[i] = crafted[i % crafted.size()];
    QVERIFY2(checkBoth(format, view(large, {large.size() / 3, 3}), why), qPrintable(why));
}

void TestQuantizerPaths::castPaths() {
    const std::vector<float> values = craftedFor(fpx::test::lookUp("fp16"));
    for (const char* id : kFastCasts) {
        const QuantizerPath path = quantizerPath(blockFormat(id), view(values));
        QVERIFY2(path.fast, id);
        QVERIFY2(path.name.rfind("cast by ", 0) == 0, path.name.c_str());
    }
    for (const char* id : kCasts)
        qInfo("%s: %s", id, quantizerPath(blockFormat(id), view(values)).name.c_str());
    // FP64 tensors stay on the exact core.
    const std::vector<double> d(10, 1.0);
    TensorView doubles;
    doubles.shape = {10};
    doubles.doubles = d;
    QVERIFY(!quantizerPath(blockFormat("fp8_e4m3"), doubles).fast);
}

void TestQuantizerPaths::nonFiniteBlocks_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("block");
    for (const char* id : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4",
                           "mxint8", "nvfp4", "nf4", "nf4_dq", "int8", "int4"})
        for (const char* block : {"", "7", "32", "row", "tensor"})
            QTest::newRow((std::string(id) + " " + block).c_str()) << QString(id) << QString(block);
}

// NaN and ±∞ in the first block, in the ragged last block, in several blocks in a row and in
// lone blocks far apart (other chunks than the first); then a tensor of nothing but NaN.
void TestQuantizerPaths::nonFiniteBlocks() {
    QFETCH(QString, id);
    QFETCH(QString, block);
    const BlockFormat format = blockFormat(id.toStdString(), block.toStdString());
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const std::size_t rows = 331, columns = 411; // ragged against every block size above
    std::vector<float> values = randomValues(rows * columns, 1.0, 17);
    values[0] = nan;
    values[values.size() - 2] = -inf;
    for (std::size_t i = 500; i < 700; i += 37)
        values[i] = i % 2 ? inf : -nan;
    for (std::size_t i = 70001; i < values.size(); i += 40009)
        values[i] = nan;
    QString why;
    QVERIFY2(checkBoth(format, view(values, {rows, columns}), why), qPrintable(why));
    const std::vector<float> small = {1.0f, nan, 2.5f, -inf, 1e-30f, 448.0f, 3.0f, inf, -7.0f};
    QVERIFY2(checkBoth(format, view(small, {3, 3}), why), qPrintable(why));
    const std::vector<float> allNan(100, nan);
    QVERIFY2(checkBoth(format, view(allNan, {10, 10}), why), qPrintable(why));
}

// The fast path names itself for tensors holding NaN or ±∞ (it takes them: only their blocks
// go to the exact core).
void TestQuantizerPaths::nonFinitePaths() {
    std::vector<float> values(1000, 1.0f);
    values[3] = std::numeric_limits<float>::quiet_NaN();
    values[900] = -std::numeric_limits<float>::infinity();
    for (const char* id : {"mxfp8_e4m3", "mxfp4", "mxint8", "nvfp4", "nf4", "nf4_dq"})
        QVERIFY2(quantizerPath(blockFormat(id), view(values)).fast, id);
    QVERIFY(quantizerPath(blockFormat("int4", "128"), view(values)).fast);
    QVERIFY(quantizerPath(blockFormat("int8", "row"), view(values, {10, 100})).fast);
    QVERIFY(quantizerPath(blockFormat("fp8_e4m3"), view(values)).fast);
}

QTEST_APPLESS_MAIN(TestQuantizerPaths)
#include "tst_quantizer_paths.moc"
