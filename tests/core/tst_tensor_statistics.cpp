// SPDX-License-Identifier: GPL-3.0-or-later
// The statistics of `fpx inspect` (tensorStatistics, tensorFileStatistics) against a plain
// reference: one element at a time, the counts and extremes compared exactly, the mean and the
// standard deviation against their exact values (sums kept exactly, in a superaccumulator or
// as exact rationals) within the bound of docs/behaviour.md, "Tensor files". The figures must
// be the same bits on any number of threads and under every instruction set's loops, and a
// file's tensors, read piece by piece from the mapping (F16, BF16, FP8 widened, Fortran order
// reordered, unaligned data), the same bits as the loaded tensors.
#include "tensor_statistics.h"

#include "fpx/data/tensor_file.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/superaccumulator.h"

#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>

using namespace fpx;
using fpx::tensor_file::StatisticsLoops;

namespace {

constexpr double kU = 0x1p-53; // the unit roundoff of double
constexpr std::size_t kPiece = 4096;
constexpr std::size_t kChunk = 16 * kPiece;

// The copies of the loops this CPU runs.
std::vector<const StatisticsLoops*> runnableLoops() {
    std::vector<const StatisticsLoops*> loops{&tensor_file::baselineStatisticsLoops()};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (tensor_file::avx2StatisticsLoops() && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma"))
        loops.push_back(tensor_file::avx2StatisticsLoops());
    if (tensor_file::avx512StatisticsLoops() && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq"))
        loops.push_back(tensor_file::avx512StatisticsLoops());
#endif
    return loops;
}

bool sameBits(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

bool identical(const TensorStatistics& a, const TensorStatistics& b) {
    return a.elements == b.elements && sameBits(a.min, b.min) && sameBits(a.max, b.max) &&
           sameBits(a.absmax, b.absmax) && sameBits(a.mean, b.mean) && sameBits(a.std, b.std) &&
           a.zeros == b.zeros && a.nans == b.nans && a.infs == b.infs;
}

QString describe(const TensorStatistics& s) {
    return QString("n %1 min %2 max %3 absmax %4 mean %5 std %6 zeros %7 nans %8 infs %9")
        .arg(s.elements)
        .arg(s.min, 0, 'g', 17)
        .arg(s.max, 0, 'g', 17)
        .arg(s.absmax, 0, 'g', 17)
        .arg(s.mean, 0, 'g', 17)
        .arg(s.std, 0, 'g', 17)
        .arg(s.zeros)
        .arg(s.nans)
        .arg(s.infs);
}

// The figures worked one element at a time: counts and extremes as they are (−0 below +0), Σx
// and Σx² exact, so that the mean Σx / n and the variance (Σx² − (Σx)²/n) / n are exact.
struct Reference {
    std::size_t elements = 0, finite = 0, zeros = 0, nans = 0, infs = 0;
    double min = 0, max = 0, absmax = 0;
    ExactValue mean, variance;
    double meanAbs = 0; // Σ|x| / n, for the bound
};

template <typename T> Reference reference(const std::vector<T>& values) {
    Reference r;
    r.elements = values.size();
    Superaccumulator sum;
    Superaccumulator squares; // FP32: each x² is exact as a double
    ExactValue exactSquares;  // FP64: x² exactly
    long double absSum = 0;
    for (const T value : values) {
        const double x = value;
        if (std::isnan(x)) {
            ++r.nans;
            continue;
        }
        if (std::isinf(x)) {
            ++r.infs;
            continue;
        }
        if (x == 0)
            ++r.zeros;
        if (r.finite == 0) {
            r.min = r.max = x;
        } else {
            if (x < r.min || (x == r.min && std::signbit(x)))
                r.min = x;
            if (x > r.max || (x == r.max && !std::signbit(x)))
                r.max = x;
        }
        ++r.finite;
        sum.add(x);
        absSum += std::fabs(static_cast<long double>(x));
        if constexpr (std::is_same_v<T, float>) {
            squares.add(x * x);
        } else {
            const ExactValue e = exactFromDouble(x);
            exactSquares = exactSquares + e * e;
        }
    }
    if (r.finite == 0)
        return r;
    r.absmax = std::max(std::fabs(r.min), std::fabs(r.max));
    const ExactValue n = exactFromDouble(static_cast<double>(r.finite));
    const ExactValue s = sum.value();
    const ExactValue q = std::is_same_v<T, float> ? squares.value() : exactSquares;
    r.mean = s / n;
    r.variance = (q - s * s / n) / n;
    r.meanAbs = static_cast<double>(absSum / static_cast<long double>(r.finite));
    return r;
}

// The bound of docs/behaviour.md, "Tensor files", for n elements: p values per lane, L levels
// of meeting pieces and chunks.
struct Bound {
    double lane = 0, levels = 0;
    explicit Bound(std::size_t n) {
        lane = std::ceil(static_cast<double>(std::min(n, kPiece)) / 8);
        const double pieces = std::ceil(static_cast<double>(std::min(n, kChunk)) / kPiece);
        const double chunks = std::ceil(static_cast<double>(n) / kChunk);
        levels = std::ceil(std::log2(std::max(pieces, 1.0))) +
                 std::ceil(std::log2(std::max(chunks, 1.0)));
    }
    // |mean − μ| ≤ 2u|μ| + h·m·u²·mean|x|, h = p + 3 + L, m = p + 6 + 2L.
    double mean(double mu, double meanAbs) const {
        const double h = lane + 3 + levels, m = lane + 6 + 2 * levels;
        return 2.0000001 * kU * std::fabs(mu) + 1.0001 * h * m * kU * kU * meanAbs;
    }
    // Relative error of the standard deviation: (p + 8L + 8)·u/2 + u.
    double stdRelative() const { return (lane + 8 * levels + 8) * kU / 2 + kU; }
};

template <typename T> TensorView viewOf(const std::vector<T>& values) {
    TensorView view;
    if constexpr (std::is_same_v<T, float>)
        view.floats = values;
    else
        view.doubles = values;
    return view;
}

// Every way of computing the statistics of `values` gives the same bits, and those agree with
// the reference within the bound. `lost` allows for FP64 values scaled below the subnormals.
template <typename T> void checkAgainstReference(const std::vector<T>& values, double lost = 0) {
    const TensorView view = viewOf(values);
    const TensorStatistics s = tensorStatistics(view);
    for (unsigned threads : {1u, 2u, 3u})
        for (const StatisticsLoops* loops : runnableLoops()) {
            const TensorStatistics t =
                tensor_file::tensorStatisticsWith({view}, threads, *loops).front();
            QVERIFY2(identical(s, t), qPrintable(QString("%1 threads, %2 loops:\n  %3\n  %4")
                                                     .arg(threads)
                                                     .arg(loops->isaName)
                                                     .arg(describe(s), describe(t))));
        }
    const Reference r = reference(values);
    QCOMPARE(s.elements, r.elements);
    QCOMPARE(s.zeros, r.zeros);
    QCOMPARE(s.nans, r.nans);
    QCOMPARE(s.infs, r.infs);
    QVERIFY2(sameBits(s.min, r.min), qPrintable(describe(s)));
    QVERIFY2(sameBits(s.max, r.max), qPrintable(describe(s)));
    QVERIFY2(sameBits(s.absmax, r.absmax), qPrintable(describe(s)));
    if (r.finite == 0) {
        QCOMPARE(s.mean, 0.0);
        QCOMPARE(s.std, 0.0);
        return;
    }
    const Bound bound(values.size());
    const double mu = nearestDouble(r.mean);
    const ExactValue meanError = (exactFromDouble(s.mean) - r.mean).abs();
    const double meanLimit = bound.mean(mu, r.meanAbs) + lost;
    QVERIFY2(compare(meanError, exactFromDouble(meanLimit)) <= 0,
             qPrintable(QString("mean %1, exact %2, error %3 > %4")
                            .arg(s.mean, 0, 'g', 17)
                            .arg(mu, 0, 'g', 17)
                            .arg(nearestDouble(meanError), 0, 'g', 3)
                            .arg(meanLimit, 0, 'g', 3)));
    // std against the square root of the exact variance, scaled by an even power of two so that
    // neither overflows nor underflows (rounded to double: a relative u more, allowed).
    double sigma = 0;
    if (!r.variance.isZero()) {
        const std::int64_t half = r.variance.floorLog2() / 2;
        sigma = std::ldexp(std::sqrt(nearestDouble(r.variance.timesPowerOfTwo(-2 * half))),
                           static_cast<int>(half));
    }
    const double stdLimit = (bound.stdRelative() + kU) * sigma + lost;
    QVERIFY2(std::fabs(s.std - sigma) <= stdLimit,
             qPrintable(QString("std %1, exact %2, error %3 > %4")
                            .arg(s.std, 0, 'g', 17)
                            .arg(sigma, 0, 'g', 17)
                            .arg(std::fabs(s.std - sigma), 0, 'g', 3)
                            .arg(stdLimit, 0, 'g', 3)));
}

std::vector<float> normalFloats(std::size_t n, double mean, double sigma, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<double> normal(mean, sigma);
    std::vector<float> values(n);
    for (float& v : values)
        v = static_cast<float>(normal(random));
    return values;
}

// A little-endian file of `bytes`.
void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <typename T> std::vector<std::uint8_t> bytesOf(const std::vector<T>& values) {
    std::vector<std::uint8_t> bytes(values.size() * sizeof(T));
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// A version 1.0 .npy file of raw little-endian data.
std::string npy(const std::string& descr, const std::vector<std::size_t>& shape,
                const std::vector<std::uint8_t>& data, bool fortran) {
    std::string shapeText = "(";
    for (std::size_t d : shape)
        shapeText += std::to_string(d) + ", ";
    shapeText += ")";
    std::string dict = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shapeText + ", }";
    dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
    dict += '\n';
    std::string out = "\x93NUMPY\x01";
    out += '\0';
    out += char(dict.size() & 0xff);
    out += char(dict.size() >> 8);
    return out + dict + std::string(data.begin(), data.end());
}

// Every tensor of the file: tensorFileStatistics on 1 and 2 threads and through every copy of
// the loops (each widens F16, BF16 and FP8 its own way), the same bits as tensorStatistics of
// the loaded tensor (which load() widens and reorders whole).
void checkFileAgainstLoaded(const std::string& path) {
    TensorFileOpen opened = TensorFile::open(path);
    QVERIFY2(opened.file, opened.error.c_str());
    std::string error;
    const auto all = tensorFileStatistics(*opened.file, error);
    QVERIFY2(all, error.c_str());
    QCOMPARE(all->size(), opened.file->tensors().size());
    for (std::size_t k = 0; k < all->size(); ++k) {
        const TensorInfo& info = opened.file->tensors()[k];
        QCOMPARE((*all)[k].has_value(), info.loadable);
        if (!info.loadable)
            continue;
        const auto loaded = opened.file->load(info.name, error);
        QVERIFY2(loaded, error.c_str());
        const TensorStatistics expected = tensorStatistics(loaded->view, 1);
        QVERIFY2(identical(*(*all)[k], expected),
                 qPrintable(QString::fromStdString(info.name) + ":\n  " + describe(*(*all)[k]) +
                            "\n  " + describe(expected)));
    }
    for (unsigned threads : {1u, 2u})
        for (const StatisticsLoops* loops : runnableLoops()) {
            const auto other =
                tensor_file::tensorFileStatisticsWith(*opened.file, error, threads, *loops);
            QVERIFY2(other, error.c_str());
            for (std::size_t k = 0; k < all->size(); ++k)
                if ((*all)[k])
                    QVERIFY2(
                        identical(*(*other)[k], *(*all)[k]),
                        qPrintable(QString("%1, %2 threads, %3 loops")
                                       .arg(QString::fromStdString(opened.file->tensors()[k].name))
                                       .arg(threads)
                                       .arg(loops->isaName)));
        }
}

} // namespace

class TestTensorStatistics : public QObject {
    Q_OBJECT
  private slots:
    void floatsAgainstReference_data();
    void floatsAgainstReference();
    void doublesAgainstReference_data();
    void doublesAgainstReference();
    void emptyAndNonFinite();
    void oneValueThroughout();
    void widenedCodes();
    void narrowDtypesFromFiles();
    void fortranOrder();
    void manySmallTensors();
};

void TestTensorStatistics::floatsAgainstReference_data() {
    QTest::addColumn<std::vector<float>>("values");
    QTest::newRow("normal, 16 chunks and a ragged piece") << normalFloats(1000003, 0, 0.02, 1);
    // A mean far from zero against the spread (the deviations must not lose it).
    QTest::newRow("1e4 + normal(0, 1)") << normalFloats(300001, 1e4, 1, 2);
    // A mean near zero from large values of both signs (the sum must be compensated).
    QTest::newRow("±1e30 cancelling") << [] {
        std::vector<float> v = normalFloats(200003, 0, 1, 3);
        for (std::size_t i = 0; i + 1 < v.size(); i += 4) {
            v[i] = 1e30f;
            v[i + 1] = -1e30f;
        }
        return v;
    }();
    QTest::newRow("NaN, ±∞ and ±0 sprinkled") << [] {
        std::vector<float> v = normalFloats(200003, 0.5, 3, 4);
        std::mt19937_64 random(5);
        for (float& x : v) {
            const auto pick = random() % 100;
            x = pick == 0   ? std::numeric_limits<float>::quiet_NaN()
                : pick == 1 ? std::numeric_limits<float>::infinity()
                : pick == 2 ? -std::numeric_limits<float>::infinity()
                : pick == 3 ? 0.0f
                : pick == 4 ? -0.0f
                            : x;
        }
        return v;
    }();
    // Every bit pattern: all binades, subnormals, NaN payloads, ±∞.
    QTest::newRow("random bits") << [] {
        std::mt19937 random(6);
        std::vector<float> v(150001);
        for (float& x : v)
            x = std::bit_cast<float>(static_cast<std::uint32_t>(random()));
        return v;
    }();
    for (std::size_t n : {1u, 2u, 7u, 8u, 9u, 15u, 16u, 17u, 33u, 4095u, 4096u, 4097u, 65535u,
                          65536u, 65537u, 131073u})
        QTest::newRow(qPrintable(QString("%1 normal values").arg(n)))
            << normalFloats(n, 0.25, 1, 100 + n);
    QTest::newRow("only −0 and +0") << std::vector<float>{-0.0f, 0.0f, -0.0f};
    QTest::newRow("−0 among negatives is not the min")
        << std::vector<float>{-0.0f, -1.0f, 2.0f, 0.0f};
}

void TestTensorStatistics::floatsAgainstReference() {
    QFETCH(std::vector<float>, values);
    checkAgainstReference(values);
}

void TestTensorStatistics::doublesAgainstReference_data() {
    QTest::addColumn<std::vector<double>>("values");
    QTest::addColumn<double>("lost");
    std::mt19937_64 random(7);
    std::normal_distribution<double> normal;
    std::vector<double> offset(100003);
    for (double& x : offset)
        x = 1e12 + normal(random);
    QTest::newRow("1e12 + normal(0, 1)") << offset << 0.0;
    // Exponents across the whole range: each piece scaled by its own binade, the parts below
    // 2^(scale − 1074) lost, at most n of them.
    std::vector<double> wide(20011);
    for (double& x : wide) {
        const int e = static_cast<int>(random() % 2097) - 1074;
        x = std::ldexp(1 + static_cast<double>(random() >> 12) * 0x1p-52, e) *
            (random() % 2 ? -1 : 1);
        if (!std::isfinite(x))
            x = 1.5;
    }
    QTest::newRow("every binade") << wide << static_cast<double>(wide.size()) * 0x1p-50;
    const double kMax = std::numeric_limits<double>::max();
    QTest::newRow("near the top") << std::vector<double>{kMax, -kMax, kMax, 1e308, -1e300, kMax / 3}
                                  << 0.0;
    std::vector<double> withSpecials(70001);
    for (double& x : withSpecials) {
        const auto pick = random() % 50;
        x = pick == 0   ? std::numeric_limits<double>::quiet_NaN()
            : pick == 1 ? -std::numeric_limits<double>::infinity()
                        : normal(random) * 1e-200;
    }
    QTest::newRow("tiny values with NaN and −∞") << withSpecials << 0.0;
}

void TestTensorStatistics::doublesAgainstReference() {
    QFETCH(std::vector<double>, values);
    QFETCH(double, lost);
    checkAgainstReference(values, lost);
}

void TestTensorStatistics::emptyAndNonFinite() {
    checkAgainstReference(std::vector<float>{});
    checkAgainstReference(std::vector<double>{});
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> none(70000, nan);
    none[5] = inf;
    none[69999] = -inf;
    checkAgainstReference(none);
    const TensorStatistics s = tensorStatistics(viewOf(none));
    QCOMPARE(s.nans, std::size_t(69998));
    QCOMPARE(s.infs, std::size_t(2));
    QCOMPARE(s.absmax, 0.0);
    // One finite value among NaNs, in the last piece of a later chunk.
    none[68000] = -2.5f;
    checkAgainstReference(none);
    const TensorStatistics one = tensorStatistics(viewOf(none));
    QCOMPARE(one.mean, -2.5);
    QCOMPARE(one.std, 0.0);
    QCOMPARE(one.min, -2.5);
}

// Every finite value the same: the mean is that value and the spread 0, exactly, however the
// sum rounds.
void TestTensorStatistics::oneValueThroughout() {
    for (float v : {0.1f, -3e38f, 1e-45f}) {
        std::vector<float> values(100003, v);
        values[17] = std::numeric_limits<float>::quiet_NaN();
        const TensorStatistics s = tensorStatistics(viewOf(values));
        QCOMPARE(s.mean, double(v));
        QCOMPARE(s.std, 0.0);
        checkAgainstReference(values);
    }
}

// Every copy of the loops widens every F16, BF16 and FP8 code to the value widenToFloat gives
// (checked against the codes' fields in tst_tensor_files), a NaN to a NaN of the same sign.
void TestTensorStatistics::widenedCodes() {
    using tensor_file::ElementType;
    for (const auto& [type, codes] :
         std::vector<std::pair<ElementType, std::size_t>>{{ElementType::F16, 65536},
                                                          {ElementType::BF16, 65536},
                                                          {ElementType::E4M3, 256},
                                                          {ElementType::E5M2, 256}}) {
        const std::size_t width = tensor_file::elementBytes(type);
        std::vector<std::uint8_t> bytes(codes * width + 1); // from an odd address
        for (std::size_t c = 0; c < codes; ++c)
            std::memcpy(bytes.data() + 1 + c * width, &c, width);
        std::vector<float> expected(codes), widened(codes);
        tensor_file::widenToFloat(type, bytes.data() + 1, codes, expected.data());
        for (const StatisticsLoops* loops : runnableLoops()) {
            loops->widen(type, bytes.data() + 1, codes, widened.data());
            for (std::size_t c = 0; c < codes; ++c) {
                const float a = widened[c], b = expected[c];
                const bool same =
                    std::isnan(b)
                        ? std::isnan(a) && std::signbit(a) == std::signbit(b)
                        : std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
                QVERIFY2(
                    same,
                    qPrintable(QString("%1 code %2: %3 from %4, %5 expected")
                                   .arg(QString::fromLatin1(tensor_file::formatIdOf(type).data()))
                                   .arg(c, 0, 16)
                                   .arg(a)
                                   .arg(loops->isaName)
                                   .arg(b)));
            }
        }
    }
}

// F16, BF16, E4M3, E5M2, F64 and unaligned F32 tensors in one .safetensors file, read piece by
// piece: the same bits as the whole tensors widened by load(), and right against the reference.
void TestTensorStatistics::narrowDtypesFromFiles() {
    QTemporaryDir dir;
    std::mt19937_64 random(8);
    std::vector<OutputTensor> tensors;
    // One byte first, so that every tensor after it starts at an odd offset.
    tensors.push_back({"u8", "U8", {1}, {7}});
    for (const auto& [dtype, bytes] : std::vector<std::pair<std::string, std::size_t>>{
             {"F16", 2}, {"BF16", 2}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F64", 8}, {"F32", 4}}) {
        const std::size_t n = 70007; // 7 × 10001: two chunks, the second ragged
        std::vector<std::uint8_t> data(n * bytes);
        for (auto& b : data)
            b = static_cast<std::uint8_t>(random());
        if (dtype == "F64") // every value finite, from normal doubles
            for (std::size_t i = 0; i < n; ++i) {
                const double x = std::ldexp(static_cast<double>(random() >> 11), -60);
                std::memcpy(data.data() + 8 * i, &x, 8);
            }
        tensors.push_back({dtype, dtype, {7, n / 7}, data});
    }
    tensors.push_back({"empty", "F16", {0, 3}, {}});
    const std::string path = dir.filePath("m.safetensors").toStdString();
    std::string error;
    QVERIFY2(writeSafetensors(path, tensors, {}, error), error.c_str());
    checkFileAgainstLoaded(path);
    // And the widened values against the reference.
    TensorFileOpen opened = TensorFile::open(path);
    QVERIFY2(opened.file, opened.error.c_str());
    const auto statistics = tensorFileStatistics(*opened.file, error);
    QVERIFY2(statistics, error.c_str());
    QVERIFY(!(*statistics)[0]); // U8: not loadable
    for (const char* name : {"F16", "BF16", "F8_E4M3", "F8_E5M2", "F32"}) {
        const auto loaded = opened.file->load(name, error);
        QVERIFY2(loaded, error.c_str());
        checkAgainstReference(
            std::vector<float>(loaded->view.floats.begin(), loaded->view.floats.end()));
    }
}

// Fortran-order .npy arrays of every dtype, read from the file in C order piece by piece: the
// same bits as the array load() reorders whole.
void TestTensorStatistics::fortranOrder() {
    QTemporaryDir dir;
    std::mt19937_64 random(9);
    for (const auto& [descr, width] :
         std::vector<std::pair<std::string, std::size_t>>{{"<f2", 2}, {"<f4", 4}, {"<f8", 8}}) {
        for (const std::vector<std::size_t>& shape :
             {std::vector<std::size_t>{37, 1031, 3}, {70001, 1}, {3, 5}}) {
            std::size_t n = 1;
            for (std::size_t d : shape)
                n *= d;
            std::vector<std::uint8_t> data;
            if (width == 8) {
                std::vector<double> v(n);
                for (double& x : v)
                    x = std::ldexp(static_cast<double>(random() >> 11), -50) - 4000;
                data = bytesOf(v);
            } else if (width == 4) {
                std::normal_distribution<float> normal(1, 2);
                std::vector<float> v(n);
                for (float& x : v)
                    x = normal(random);
                data = bytesOf(v);
            } else {
                data.resize(2 * n);
                for (auto& b : data)
                    b = static_cast<std::uint8_t>(random());
            }
            const std::string path = dir.filePath("f.npy").toStdString();
            writeFile(path, npy(descr, shape, data, true));
            checkFileAgainstLoaded(path);
        }
    }
}

// Thousands of small tensors beside one large one: each right, and the file done in about the
// time of its elements (the small tensors' pieces are shared among the threads, not waited for
// one by one).
void TestTensorStatistics::manySmallTensors() {
    QTemporaryDir dir;
    std::mt19937_64 random(10);
    std::normal_distribution<float> normal;
    std::vector<OutputTensor> tensors;
    for (int k = 0; k < 5000; ++k) {
        std::vector<float> v(1 + random() % 200);
        for (float& x : v)
            x = normal(random);
        tensors.push_back({"t" + std::to_string(k), "F32", {v.size()}, bytesOf(v)});
    }
    tensors.push_back({"big", "F32", {300000}, bytesOf(normalFloats(300000, 0, 1, 11))});
    const std::string path = dir.filePath("many.safetensors").toStdString();
    std::string error;
    QVERIFY2(writeSafetensors(path, tensors, {}, error), error.c_str());
    checkFileAgainstLoaded(path);
    TensorFileOpen opened = TensorFile::open(path);
    QVERIFY2(opened.file, opened.error.c_str());
    const auto start = std::chrono::steady_clock::now();
    const auto statistics = tensorFileStatistics(*opened.file, error);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QVERIFY2(statistics, error.c_str());
    qInfo("5001 tensors, 0.8 M elements: %.3f s", seconds);
    QVERIFY2(seconds < 2, qPrintable(QString::number(seconds)));
}

QTEST_APPLESS_MAIN(TestTensorStatistics)
#include "tst_tensor_statistics.moc"
