// SPDX-License-Identifier: GPL-3.0-or-later
// The quantization report's figures (error_sums.h): the fast measurement on one and two threads
// against measureQuantizationExactly (every value dequantized by the exact core, one element at
// a time), bit for bit, on every scaled quantizer and several casts, on FP32 and FP64 tensors
// with NaN, ±∞, zeros, ragged blocks and every binade; the vectorised dequantization against
// QuantizedTensor::dequantized; and the sums against an independent long-double computation,
// so that the fixed order itself is shown to be accurate. ctest runs it once per instruction
// set (FPX_MAX_ISA), so each copy of the loops is checked.
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/quantization_pass.h"
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

std::vector<double> draw(const std::string& kind, std::size_t n, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal(0, 1);
    std::uniform_real_distribution<double> uniform(-1, 1);
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        double x = normal(random);
        if (kind == "outliers")
            x *= random() % 50 == 0 ? 1000 : 1;
        else if (kind == "sparse")
            x = random() % 4 == 0 ? x : 0.0;
        else if (kind == "wide") // every binade of FP32, subnormals included
            x = std::ldexp(1 + uniform(random), static_cast<int>(random() % 270) - 150) *
                (random() % 2 ? 1 : -1);
        else if (kind == "nonfinite") // NaN and ±∞ here and there
            x = random() % 97 == 0   ? std::numeric_limits<double>::quiet_NaN()
                : random() % 89 == 0 ? std::numeric_limits<double>::infinity() * x
                                     : x;
        else if (kind == "huge")
            x *= 1e37;
        v[i] = x;
    }
    return v;
}

std::vector<float> toFloats(const std::vector<double>& v) {
    return std::vector<float>(v.begin(), v.end());
}

bool sameBits(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) ||
           (std::isnan(a) && std::isnan(b));
}

// Every figure of two reports equal, bit for bit; the first difference is named.
bool sameReport(const QuantizationReport& a, const QuantizationReport& b, QString& why) {
    const auto differs = [&](const char* field, double x, double y) {
        why = QString("%1: %2 against %3").arg(field).arg(x, 0, 'g', 17).arg(y, 0, 'g', 17);
        return false;
    };
    if (!sameBits(a.sqnrDb, b.sqnrDb))
        return differs("sqnr_db", a.sqnrDb, b.sqnrDb);
    if (!sameBits(a.mse, b.mse))
        return differs("mse", a.mse, b.mse);
    if (!sameBits(a.rmse, b.rmse))
        return differs("rmse", a.rmse, b.rmse);
    if (!sameBits(a.maxAbsError, b.maxAbsError))
        return differs("max |error|", a.maxAbsError, b.maxAbsError);
    if (a.maxErrorIndex != b.maxErrorIndex)
        return differs("max error index", double(a.maxErrorIndex), double(b.maxErrorIndex));
    if (a.nonFiniteOutputs != b.nonFiniteOutputs)
        return differs("non-finite outputs", double(a.nonFiniteOutputs),
                       double(b.nonFiniteOutputs));
    if (a.clipped != b.clipped || a.flushed != b.flushed || a.nanInputs != b.nanInputs ||
        a.infInputs != b.infInputs || a.bytes != b.bytes || a.blockSize != b.blockSize)
        return differs("counts", 0, 1);
    return true;
}

// Fast on 1 and 2 threads, the exact reference, and the dequantized values, all agree.
bool measuredAlike(const BlockFormat& format, const TensorView& input, QString& why) {
    std::string error;
    const std::optional<QuantizedTensor> q = quantizeTensor(format, input, error);
    const QString what =
        QString::fromStdString(format.id + " block " + blockLayoutId(format.blocks) + ": ");
    if (!q) {
        why = what + QString::fromStdString(error);
        return false;
    }
    const QuantizationReport reference = measureQuantizationExactly(input, *q);
    for (const int threads : {1, 2}) {
        if (!sameReport(measureQuantization(input, *q, threads), reference, why)) {
            why = what + QString("%1 thread(s): ").arg(threads) + why;
            return false;
        }
    }
    const std::vector<double> values = dequantizeAll(*q);
    for (std::size_t i = 0; i < q->elementCount; ++i)
        if (!sameBits(values[i], q->dequantized(i))) {
            why = what + QString("dequantized element %1: %2 against %3")
                             .arg(i)
                             .arg(values[i], 0, 'g', 17)
                             .arg(q->dequantized(i), 0, 'g', 17);
            return false;
        }
    return true;
}

std::vector<BlockFormat> formatsWithBlock(const std::string& block) {
    std::vector<BlockFormat> formats;
    for (const char* id : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4",
                           "mxint8", "nvfp4", "nf4", "nf4_dq", "int8", "int4"})
        formats.push_back(blockFormat(id, block));
    return formats;
}

} // namespace

class TestQuantizationStatistics : public QObject {
    Q_OBJECT

  private slots:
    void fastMatchesExact_data();
    void fastMatchesExact();
    void castsMatchExact();
    void doubleTensors();
    void firstLargestError();
    void sumsAreAccurate();
    void passMatchesReference();
    void passKeepsCodes();
    void passCancels();
};

void TestQuantizationStatistics::fastMatchesExact_data() {
    QTest::addColumn<QString>("distribution");
    for (const char* kind : {"outliers", "wide", "nonfinite", "huge"})
        QTest::newRow(kind) << kind;
}

// Pieces of whole blocks for block sizes that divide 4096 and that do not, larger than a
// piece, a row layout and one block for the tensor; more than one chunk, a ragged end.
void TestQuantizationStatistics::fastMatchesExact() {
    QFETCH(QString, distribution);
    const std::size_t n = 16 * 4096 + 3001;
    const std::vector<float> values = toFloats(draw(distribution.toStdString(), n, 11));
    int checked = 0;
    for (const char* block : {"", "3", "100", "5000", "row", "tensor"})
        for (const BlockFormat& format : formatsWithBlock(block)) {
            QString why;
            const std::vector<std::size_t> shape{n / 7, 7};
            std::vector<float> rows(values.begin(), values.begin() + shape[0] * shape[1]);
            QVERIFY2(measuredAlike(format, fpx::test::view(rows, shape), why), qPrintable(why));
            ++checked;
        }
    qInfo("%d quantizers measured alike", checked);
}

void TestQuantizationStatistics::castsMatchExact() {
    const std::vector<float> values = toFloats(draw("nonfinite", 70001, 12));
    const std::vector<float> wide = toFloats(draw("wide", 70001, 13));
    for (const char* id : {"fp8_e4m3", "fp8_e5m2", "fp6_e2m3", "fp4_e2m1", "bf16", "fp16", "fp32"})
        for (const auto* tensor : {&values, &wide}) {
            QString why;
            QVERIFY2(measuredAlike(blockFormat(id), fpx::test::view(*tensor), why),
                     qPrintable(why));
        }
}

// FP64 tensors go through the exact core and are measured with their terms scaled by a power
// of two: near the double max, their squares would overflow otherwise.
void TestQuantizationStatistics::doubleTensors() {
    for (const double scale : {1.0, 1e300, 1e-300}) {
        std::vector<double> values = draw("nonfinite", 5000, 14);
        for (double& v : values)
            v *= scale;
        TensorView input;
        input.name = "doubles";
        input.shape = {values.size()};
        input.doubles = values;
        for (const char* id : {"mxfp8_e4m3", "int8", "bf16", "fp64"}) {
            QString why;
            QVERIFY2(measuredAlike(blockFormat(id), input, why), qPrintable(why));
        }
        std::string error;
        const auto q = quantizeTensor(blockFormat("bf16"), input, error);
        QVERIFY(q);
        const QuantizationReport r = measureQuantization(input, *q);
        // Near the double max the MSE itself overflows; the SQNR, a ratio, does not.
        QVERIFY2(std::isfinite(r.sqnrDb) && (scale > 1 || std::isfinite(r.mse)),
                 qPrintable(QString("scale %1: sqnr %2").arg(scale).arg(r.sqnrDb)));
    }
}

// Equal largest errors in different lanes and chunks: the first index is reported, whatever
// the lane order and the threads.
void TestQuantizationStatistics::firstLargestError() {
    std::vector<float> values(3 * 16 * 4096, 1.0f);
    for (const std::size_t at : {std::size_t(70000), std::size_t(13), std::size_t(5)})
        values[at] = 1.5f; // int8 per tensor at scale 1: each rounds to 2, an error of 1/2
    values[0] = 127;       // the amax: the scale is 127 / 127
    std::string error;
    const auto q = quantizeTensor(blockFormat("int8"), fpx::test::view(values), error);
    QVERIFY(q);
    for (const int threads : {1, 2}) {
        const QuantizationReport r = measureQuantization(fpx::test::view(values), *q, threads);
        QCOMPARE(r.maxAbsError, 0.5);
        QCOMPARE(r.maxErrorIndex, std::size_t(5));
    }
}

// The fixed order's sums within a few units in the last place of a long-double computation
// of the same sums (compensated, independent of error_sums.h), on a tensor of 2^20 elements.
void TestQuantizationStatistics::sumsAreAccurate() {
    const std::vector<float> values = toFloats(draw("outliers", std::size_t(1) << 20, 15));
    std::string error;
    const auto q = quantizeTensor(blockFormat("mxfp4"), fpx::test::view(values), error);
    QVERIFY(q);
    const QuantizationReport r = measureQuantization(fpx::test::view(values), *q);
    long double signal = 0, noise = 0, cs = 0, cn = 0;
    const auto add = [](long double& sum, long double& carry, long double term) {
        const long double y = term - carry;
        const long double t = sum + y;
        carry = (t - sum) - y;
        sum = t;
    };
    for (std::size_t i = 0; i < values.size(); ++i) {
        const long double x = values[i];
        const long double e = x - static_cast<long double>(q->dequantized(i));
        add(signal, cs, x * x);
        add(noise, cn, e * e);
    }
    const double sqnr = static_cast<double>(10 * std::log10(signal / noise));
    const double mse = static_cast<double>(noise / values.size());
    QVERIFY2(std::fabs(r.sqnrDb - sqnr) < 1e-9,
             qPrintable(QString("%1 against %2").arg(r.sqnrDb, 0, 'g', 17).arg(sqnr, 0, 'g', 17)));
    QVERIFY(std::fabs(r.mse - mse) <= 1e-12 * mse);
    QCOMPARE(QString::number(r.sqnrDb, 'f', 4), QString::number(sqnr, 'f', 4));
}

namespace {

// Tensors of every kind the pass meets: FP32 of several sizes and shapes (one below a piece,
// ragged chunks, NaN and ±∞ here and there, all zeros), an FP64 tensor and an empty one.
struct PassFixture {
    std::vector<std::vector<float>> floats;
    std::vector<double> doubles;
    std::vector<TensorView> views;

    PassFixture() {
        floats.push_back(toFloats(draw("outliers", 3 * 16 * 4096 + 1001, 21)));
        floats.push_back(toFloats(draw("nonfinite", 70003, 22)));
        floats.push_back(toFloats(draw("wide", 777, 23)));
        floats.push_back(std::vector<float>(4096, 0.0f));
        floats.push_back({});
        doubles = draw("normal", 5000, 24);
        const std::vector<std::vector<std::size_t>> shapes{
            {(3 * 16 * 4096 + 1001) / 7, 7}, {70003}, {777}, {64, 64}, {0}};
        for (std::size_t t = 0; t < floats.size(); ++t) {
            TensorView v;
            v.name = "t" + std::to_string(t);
            v.shape = shapes[t];
            v.floats = floats[t];
            if (t == 0)
                v.floats = v.floats.first(shapes[0][0] * 7);
            views.push_back(v);
        }
        TensorView d;
        d.name = "doubles";
        d.shape = {doubles.size()};
        d.doubles = doubles;
        views.push_back(d);
    }
};

std::vector<BlockFormat> passFormats() {
    std::vector<BlockFormat> formats;
    for (const char* id : {"mxfp4", "mxfp8_e4m3", "mxint8", "nvfp4", "nf4", "nf4_dq", "int8",
                           "int4", "fp8_e4m3", "bf16", "fp16"})
        formats.push_back(blockFormat(id));
    formats.push_back(blockFormat("int4", "64"));
    formats.push_back(blockFormat("mxfp6_e2m3", "row"));
    formats.push_back(blockFormat("nf4", "100"));
    return formats;
}

} // namespace

// Every report of the pass, on one and two threads, equals quantizeTensor's codes measured by
// the exact reference, bit for bit; an empty tensor has an error, not a report.
void TestQuantizationStatistics::passMatchesReference() {
    const PassFixture fixture;
    QuantizationPass pass{fixture.views, passFormats(), false};
    for (const int threads : {1, 2}) {
        std::string error;
        QuantizeRun run;
        run.threads = threads;
        const std::optional<QuantizationPassResult> result = runQuantizationPass(pass, error, run);
        QVERIFY2(result, error.c_str());
        for (std::size_t t = 0; t < pass.tensors.size(); ++t)
            for (std::size_t f = 0; f < pass.formats.size(); ++f) {
                const QString what = QString("%1 × %2, %3 thread(s): ")
                                         .arg(QString::fromStdString(pass.tensors[t].name),
                                              QString::fromStdString(pass.formats[f].id))
                                         .arg(threads);
                std::string why;
                const auto q = quantizeTensor(pass.formats[f], pass.tensors[t], why);
                if (!q) {
                    QVERIFY2(!result->errors[t][f].empty(), qPrintable(what + "no error"));
                    continue;
                }
                QVERIFY2(result->errors[t][f].empty(),
                         qPrintable(what + QString::fromStdString(result->errors[t][f])));
                QString differs;
                QVERIFY2(sameReport(result->reports[t][f],
                                    measureQuantizationExactly(pass.tensors[t], *q), differs),
                         qPrintable(what + differs));
            }
    }
}

// With the codes kept, each is quantizeTensor's, and so are the scales and the counts.
void TestQuantizationStatistics::passKeepsCodes() {
    const PassFixture fixture;
    QuantizationPass pass{fixture.views, passFormats(), true};
    std::string error;
    const std::optional<QuantizationPassResult> result = runQuantizationPass(pass, error);
    QVERIFY2(result, error.c_str());
    for (std::size_t t = 0; t < pass.tensors.size(); ++t)
        for (std::size_t f = 0; f < pass.formats.size(); ++f) {
            std::string why;
            const auto q = quantizeTensor(pass.formats[f], pass.tensors[t], why);
            if (!q)
                continue;
            const QuantizedTensor& kept = result->quantized[t][f];
            const QString what =
                QString::fromStdString(pass.tensors[t].name + " × " + pass.formats[f].id);
            QVERIFY2(kept.codes == q->codes, qPrintable(what + ": codes"));
            QVERIFY2(kept.scaleCodes == q->scaleCodes, qPrintable(what + ": scales"));
            QVERIFY2(kept.groupScales == q->groupScales, qPrintable(what + ": group scales"));
            QVERIFY2(kept.tensorScale == q->tensorScale, qPrintable(what + ": tensor scale"));
            QVERIFY2(kept.clipped == q->clipped && kept.flushed == q->flushed &&
                         kept.nanInputs == q->nanInputs && kept.infInputs == q->infInputs,
                     qPrintable(what + ": counts"));
            QCOMPARE(kept.blockSize, q->blockSize);
        }
}

void TestQuantizationStatistics::passCancels() {
    const PassFixture fixture;
    QuantizationPass pass{fixture.views, passFormats(), false};
    std::size_t calls = 0, last = 0, total = 0;
    QuantizeRun run;
    run.progress = [&](std::size_t done, std::size_t all) {
        ++calls;
        last = done;
        total = all;
        return calls < 3;
    };
    std::string error;
    QVERIFY(!runQuantizationPass(pass, error, run));
    QCOMPARE(QString::fromStdString(error), QString("cancelled"));
    QVERIFY(last < total);
    // Uncancelled, progress ends at its total.
    run.progress = [&](std::size_t done, std::size_t all) {
        last = done;
        total = all;
        return true;
    };
    QVERIFY(runQuantizationPass(pass, error, run));
    QCOMPARE(last, total);
}

QTEST_APPLESS_MAIN(TestQuantizationStatistics)
#include "tst_quantization_statistics.moc"
