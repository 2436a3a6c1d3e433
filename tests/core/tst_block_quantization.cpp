// SPDX-License-Identifier: GPL-3.0-or-later
// Block formats (MX, NVFP4, NF4, nf4_dq, absmax integers, direct casts) against a reference
// written here from the rules of docs/behaviour.md, "Block formats and quantization":
//   - every element code chosen by brute force over the element format's codes (the nearest
//     value by exact distance, ties to the even code, a virtual level one step past the
//     largest value deciding saturation),
//   - FP32 and E4M3 scales chosen the same way among neighbouring candidates,
//   - MX exponents from frexp, the NF4 levels from the decimals of docs/behaviour.md,
//     "Format facts".
// Random blocks and crafted ones (all-zero, one huge element, NaN/Inf, amax a power of two,
// ties, subnormal and clamped E8M0 scales), bits per element and the worked check of the issue.
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/quantization/block_format.h"
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/block_size_sweep.h"

#include "test_support.h"

#include <QTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace fpx;
using namespace fpx::test;

namespace {

ExactValue exact(double x) {
    if (std::isnan(x))
        return ExactValue::nan();
    if (std::isinf(x))
        return ExactValue::infinity(x < 0);
    if (x == 0)
        return ExactValue::zero(std::signbit(x));
    int e = 0;
    const double m = std::frexp(std::fabs(x), &e);
    return ExactValue::dyadic(x < 0, BigInt(static_cast<std::int64_t>(std::ldexp(m, 53))), e - 53);
}

// A double near v (within a few ulps): only used to find candidates, never as the answer.
double approximate(const ExactValue& v) {
    if (v.isZero())
        return 0;
    const long double n = v.numerator().convert_to<long double>();
    const long double d = v.denominator().convert_to<long double>();
    const double r = static_cast<double>(std::ldexp(n / d, static_cast<int>(v.exponent2())));
    return v.isNegative() ? -r : r;
}

// The nearest of the candidates to q by exact distance; ties to the even one.
struct Candidate {
    ExactValue value;
    std::int64_t tag = 0; // code or level
    bool even = true;
    bool beyond = false; // the virtual level past the largest value: saturation
};
const Candidate& nearest(const std::vector<Candidate>& candidates, const ExactValue& q) {
    const Candidate* best = nullptr;
    ExactValue bestDistance;
    for (const Candidate& c : candidates) {
        const ExactValue d = (q - c.value).abs();
        const int cmp = best ? compare(d, bestDistance) : -1;
        if (cmp < 0 || (cmp == 0 && c.even && !best->even)) {
            best = &c;
            bestDistance = d;
        }
    }
    return *best;
}

// FP32 nearest to a finite q ≥ 0 (ties to even), among the floats around an approximation.
float nearestFloat(const ExactValue& q) {
    if (q.isZero())
        return 0;
    const float guess = static_cast<float>(approximate(q));
    std::vector<Candidate> candidates;
    float f = guess;
    for (int i = 0; i < 3; ++i)
        f = std::nextafter(f, 0.0f);
    for (int i = 0; i < 7; ++i, f = std::nextafter(f, std::numeric_limits<float>::infinity())) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &f, 4);
        candidates.push_back({exact(f), bits, (bits & 1) == 0, false});
    }
    const std::uint32_t bits = static_cast<std::uint32_t>(nearest(candidates, q).tag);
    float out = 0;
    std::memcpy(&out, &bits, 4);
    return out;
}

float fp32Scale(const ExactValue& q) {
    const float f = nearestFloat(q);
    return f == 0 && !q.isZero() ? std::numeric_limits<float>::denorm_min() : f;
}

// Nearest integer to q, ties to even.
BigInt nearestInteger(const ExactValue& q) {
    const auto base = static_cast<std::int64_t>(std::floor(approximate(q)));
    std::vector<Candidate> candidates;
    for (std::int64_t k = base - 2; k <= base + 2; ++k)
        candidates.push_back({ExactValue::integer(k), k, k % 2 == 0, false});
    return nearest(candidates, q).tag;
}

std::uint32_t bitsOf(float f) {
    std::uint32_t b = 0;
    std::memcpy(&b, &f, 4);
    return b;
}

// How an element format is searched: binary floats and signed integers by magnitude (sign
// applied afterwards), NF4 over its 16 signed levels.
struct ElementModel {
    enum class Kind { Float, Integer, Nf4 } kind = Kind::Float;
    std::vector<Candidate> magnitudes; // Float, Integer: non-negative values plus the virtual
    std::vector<Candidate> levels;     // Nf4
    Code signBit = 0;
    int bits = 0;
    std::int64_t qmax = 0;
    ExactValue unit = ExactValue::integer(1); // Integer: the value of level 1
    ExactValue max;
    std::vector<double> codeValues; // every code's value
};

ElementModel floatModel(const char* id) {
    const FormatSpec spec = lookUp(id);
    ElementModel m;
    m.bits = spec.totalBits();
    m.signBit = Code(1) << (m.bits - 1);
    for (Code c = 0; c < m.signBit; ++c) {
        const DecodedCode d = decodeCode(spec, c);
        if (!d.value.isFinite())
            continue;
        m.magnitudes.push_back({d.value, std::int64_t(c), (c & 1) == 0, false});
        if (compare(d.value, m.max) > 0)
            m.max = d.value;
    }
    // One step past the largest value (its last significand bit flips): what it rounds to
    // when the exponent is unbounded decides saturation.
    const std::int64_t ulpExponent = m.max.floorLog2() - spec.fractionBits;
    std::int64_t maxCode = 0;
    for (const Candidate& c : m.magnitudes)
        if (c.value == m.max)
            maxCode = c.tag;
    m.magnitudes.push_back(
        {m.max + ExactValue::dyadic(false, 1, ulpExponent), maxCode, (maxCode & 1) != 0, true});
    for (Code c = 0; c < (Code(1) << m.bits); ++c) {
        const ExactValue v = decodeCode(spec, c).value;
        m.codeValues.push_back(v.isNaN()        ? std::numeric_limits<double>::quiet_NaN()
                               : v.isInfinity() ? (v.isNegative() ? -INFINITY : INFINITY)
                               : v.isZero()     ? (v.isNegative() ? -0.0 : 0.0)
                                                : approximate(v));
    }
    return m;
}

ElementModel integerModel(int bits, const ExactValue& unit) {
    ElementModel m;
    m.kind = ElementModel::Kind::Integer;
    m.bits = bits;
    m.qmax = (std::int64_t(1) << (bits - 1)) - 1;
    m.unit = unit;
    for (std::int64_t k = 0; k <= m.qmax + 1; ++k)
        m.magnitudes.push_back({ExactValue::integer(k) * unit, k, k % 2 == 0, k == m.qmax + 1});
    m.max = ExactValue::integer(m.qmax) * unit;
    for (std::int64_t c = 0; c < (std::int64_t(1) << bits); ++c) {
        const std::int64_t level =
            c >= (std::int64_t(1) << (bits - 1)) ? c - (std::int64_t(1) << bits) : c;
        m.codeValues.push_back(approximate(ExactValue::integer(level) * unit));
    }
    return m;
}

ElementModel nf4Model() {
    ElementModel m;
    m.kind = ElementModel::Kind::Nf4;
    m.bits = 4;
    for (int c = 0; c < 16; ++c) {
        const double level = double(std::strtof(kNf4Decimals[c], nullptr));
        m.levels.push_back({exact(level), c, c % 2 == 0, false});
        m.codeValues.push_back(level);
    }
    m.max = ExactValue::integer(1);
    return m;
}

struct Element {
    Code code = 0;
    bool clipped = false;
};

Element referenceElement(const ElementModel& m, const ExactValue& q) {
    if (m.kind == ElementModel::Kind::Nf4) {
        const Candidate& c = nearest(m.levels, q);
        return {Code(c.tag), compare(q.abs(), m.max) > 0};
    }
    const Candidate& c = nearest(m.magnitudes, q.abs());
    if (m.kind == ElementModel::Kind::Integer) {
        const std::int64_t level = c.beyond ? m.qmax : c.tag;
        const std::int64_t signedLevel = q.isNegative() ? -level : level;
        const Code mask = (Code(1) << m.bits) - 1;
        return {Code(signedLevel) & mask, c.beyond};
    }
    const Code magnitude = Code(c.tag);
    return {q.isNegative() ? (magnitude | m.signBit) : magnitude, c.beyond};
}

// What the reference expects of a whole tensor.
struct Expected {
    std::vector<Code> codes;
    std::vector<std::uint32_t> scaleCodes;
    std::vector<double> values;
    std::optional<float> tensorScale;
    std::vector<float> groupScales;
    std::size_t clipped = 0, flushed = 0;
};

double amaxOf(const std::vector<double>& x, std::size_t begin, std::size_t end, bool& nonFinite) {
    double amax = 0;
    nonFinite = false;
    for (std::size_t i = begin; i < end; ++i) {
        if (!std::isfinite(x[i]))
            nonFinite = true;
        else
            amax = std::max(amax, std::fabs(x[i]));
    }
    return amax;
}

void quantizeBlock(const ElementModel& m, const std::vector<double>& x, std::size_t begin,
                   std::size_t end, const ExactValue& scale, double scaleValue, Expected& e) {
    for (std::size_t i = begin; i < end; ++i) {
        const Element el = referenceElement(m, exact(x[i]) / scale);
        e.codes[i] = el.code;
        e.values[i] = m.codeValues[el.code] * scaleValue;
        e.clipped += el.clipped;
        e.flushed += x[i] != 0 && m.codeValues[el.code] == 0;
    }
}

void zeroBlock(const ElementModel& m, const std::vector<double>& x, std::size_t begin,
               std::size_t end, Code zero, double value, bool countFlushed, Expected& e) {
    for (std::size_t i = begin; i < end; ++i) {
        e.codes[i] = zero;
        e.values[i] = m.codeValues[zero] * value;
        e.flushed += countFlushed && x[i] != 0;
    }
}

enum class Rule { Floor, Ceil, Even };

// emax and top precision typed from the OCP MX spec's tables.
Expected referenceMx(const ElementModel& m, int emax, int topBits, Rule rule,
                     const std::vector<double>& x, std::size_t block) {
    Expected e;
    e.codes.resize(x.size());
    e.values.resize(x.size());
    for (std::size_t begin = 0; begin < x.size(); begin += block) {
        const std::size_t end = std::min(x.size(), begin + block);
        bool nonFinite = false;
        const double amax = amaxOf(x, begin, end, nonFinite);
        if (nonFinite) {
            e.scaleCodes.push_back(0xff);
            zeroBlock(m, x, begin, end, 0, NAN, false, e);
            continue;
        }
        std::int64_t exponent = -127;
        if (amax != 0) {
            int k = 0;
            const double frac = std::frexp(amax, &k); // amax = frac · 2^k, frac in [0.5, 1)
            const std::int64_t floorLog2 = k - 1;
            if (rule == Rule::Floor) {
                exponent = floorLog2 - emax;
            } else if (rule == Rule::Even) {
                const double rounded = std::nearbyint(std::ldexp(frac, topBits));
                exponent = floorLog2 + (rounded == std::ldexp(1.0, topBits) ? 1 : 0) - emax;
            } else {
                exponent = floorLog2 - emax - 2;
                while (compare(exact(amax), m.max * ExactValue::dyadic(false, 1, exponent)) > 0)
                    ++exponent;
            }
            exponent = std::clamp<std::int64_t>(exponent, -127, 127);
        }
        e.scaleCodes.push_back(static_cast<std::uint32_t>(exponent + 127));
        quantizeBlock(m, x, begin, end, ExactValue::dyadic(false, 1, exponent),
                      std::ldexp(1.0, static_cast<int>(exponent)), e);
    }
    return e;
}

Expected referenceNvfp4(const std::vector<double>& x, std::size_t block) {
    static const ElementModel e2m1 = floatModel("fp4_e2m1");
    static const ElementModel e4m3 = floatModel("fp8_e4m3");
    Expected e;
    e.codes.resize(x.size());
    e.values.resize(x.size());
    bool anyNonFinite = false;
    const double tensorAmax = amaxOf(x, 0, x.size(), anyNonFinite);
    const float st =
        tensorAmax == 0 ? 1.0f : fp32Scale(exact(tensorAmax) / ExactValue::integer(448 * 6));
    e.tensorScale = st;
    for (std::size_t begin = 0; begin < x.size(); begin += block) {
        const std::size_t end = std::min(x.size(), begin + block);
        bool nonFinite = false;
        const double amax = amaxOf(x, begin, end, nonFinite);
        if (nonFinite) {
            e.scaleCodes.push_back(0x7f);
            zeroBlock(e2m1, x, begin, end, 0, NAN, false, e);
            continue;
        }
        const ExactValue q = exact(amax) / (ExactValue::integer(6) * exact(st));
        const Element sb = referenceElement(e4m3, q);
        e.scaleCodes.push_back(static_cast<std::uint32_t>(sb.code));
        const double sbValue = e4m3.codeValues[sb.code];
        if (sbValue == 0) {
            zeroBlock(e2m1, x, begin, end, 0, 0, true, e);
            continue;
        }
        quantizeBlock(e2m1, x, begin, end, exact(sbValue) * exact(st), sbValue * double(st), e);
    }
    return e;
}

Expected referenceNf4(const std::vector<double>& x, std::size_t block, bool doubleQuantized) {
    static const ElementModel nf4 = nf4Model();
    Expected e;
    e.codes.resize(x.size());
    e.values.resize(x.size());
    std::vector<std::optional<float>> absmaxes;
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    for (std::size_t begin = 0; begin < x.size(); begin += block) {
        const std::size_t end = std::min(x.size(), begin + block);
        ranges.emplace_back(begin, end);
        bool nonFinite = false;
        const double amax = amaxOf(x, begin, end, nonFinite);
        if (nonFinite) {
            absmaxes.push_back(std::nullopt);
            e.scaleCodes.push_back(0x7fc00000);
            zeroBlock(nf4, x, begin, end, 7, NAN, false, e);
            continue;
        }
        const float a = amax == 0 ? 0.0f : fp32Scale(exact(amax));
        absmaxes.push_back(a);
        e.scaleCodes.push_back(bitsOf(a));
        if (a == 0)
            zeroBlock(nf4, x, begin, end, 7, 0, true, e);
        else
            quantizeBlock(nf4, x, begin, end, exact(a), double(a), e);
    }
    if (!doubleQuantized)
        return e;
    ExactValue sum;
    std::size_t finite = 0;
    for (const auto& a : absmaxes)
        if (a) {
            sum = sum + exact(*a);
            ++finite;
        }
    const float offset = finite ? fp32Scale(sum / ExactValue::integer(BigInt(finite))) : 0.0f;
    e.tensorScale = offset;
    for (std::size_t first = 0; first < absmaxes.size(); first += 256) {
        const std::size_t last = std::min(absmaxes.size(), first + 256);
        ExactValue spread;
        for (std::size_t j = first; j < last; ++j)
            if (absmaxes[j] && compare((exact(*absmaxes[j]) - exact(offset)).abs(), spread) > 0)
                spread = (exact(*absmaxes[j]) - exact(offset)).abs();
        const float g = spread.isZero() ? 1.0f : fp32Scale(spread / ExactValue::integer(127));
        e.groupScales.push_back(g);
        for (std::size_t j = first; j < last; ++j) {
            if (!absmaxes[j]) {
                e.scaleCodes[j] = 0x80;
                continue;
            }
            BigInt k = nearestInteger((exact(*absmaxes[j]) - exact(offset)) / exact(g));
            k = k > 127 ? BigInt(127) : k < -127 ? BigInt(-127) : k;
            e.scaleCodes[j] =
                static_cast<std::uint32_t>((k.convert_to<std::int64_t>() + 256) % 256);
            // Dequantized with FP32(k · g + offset).
            const ExactValue dq = ExactValue::integer(k) * exact(g) + exact(offset);
            const double absmax =
                dq.isNegative() ? -double(nearestFloat(dq.abs())) : double(nearestFloat(dq));
            for (std::size_t i = ranges[j].first; i < ranges[j].second; ++i)
                e.values[i] = nf4.codeValues[e.codes[i]] * absmax;
        }
    }
    return e;
}

Expected referenceInt(int bits, const std::vector<double>& x, std::size_t block) {
    const ElementModel m = integerModel(bits, ExactValue::integer(1));
    Expected e;
    e.codes.resize(x.size());
    e.values.resize(x.size());
    for (std::size_t begin = 0; begin < x.size(); begin += block) {
        const std::size_t end = std::min(x.size(), begin + block);
        bool nonFinite = false;
        const double amax = amaxOf(x, begin, end, nonFinite);
        if (nonFinite) {
            e.scaleCodes.push_back(0x7fc00000);
            zeroBlock(m, x, begin, end, 0, NAN, false, e);
            continue;
        }
        const float s = amax == 0 ? 1.0f : fp32Scale(exact(amax) / ExactValue::integer(m.qmax));
        e.scaleCodes.push_back(bitsOf(s));
        quantizeBlock(m, x, begin, end, exact(s), double(s), e);
    }
    return e;
}

bool sameDouble(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

QuantizedTensor quantize(const BlockFormat& format, const std::vector<double>& x,
                         std::vector<std::size_t> shape = {}) {
    TensorView view;
    view.name = "test";
    view.shape = shape.empty() ? std::vector<std::size_t>{x.size()} : shape;
    view.doubles = x;
    std::string error;
    std::optional<QuantizedTensor> q = quantizeExactly(format, view, error);
    if (!q)
        qFatal("quantizeExactly(%s): %s", format.id.c_str(), error.c_str());
    return *q;
}

BlockFormat blockFormat(const char* id, const QuantizerOptions& options = {}) {
    std::string error;
    std::optional<BlockFormat> f = findBlockFormat(id, options, error);
    if (!f)
        qFatal("findBlockFormat(%s): %s", id, error.c_str());
    return *f;
}

// Compares everything the quantizer stored and reports against the reference.
void check(const QuantizedTensor& q, const Expected& e, const QString& what) {
    QCOMPARE(q.scaleCodes.size(), e.scaleCodes.size());
    for (std::size_t b = 0; b < e.scaleCodes.size(); ++b)
        if (q.scaleCodes[b] != e.scaleCodes[b])
            QFAIL(qPrintable(QString("%1: block %2 scale 0x%3, expected 0x%4")
                                 .arg(what)
                                 .arg(b)
                                 .arg(q.scaleCodes[b], 0, 16)
                                 .arg(e.scaleCodes[b], 0, 16)));
    const std::vector<double> values = dequantizeAll(q);
    for (std::size_t i = 0; i < e.codes.size(); ++i) {
        if (q.code(i) != e.codes[i])
            QFAIL(qPrintable(QString("%1: element %2 code %3, expected %4")
                                 .arg(what)
                                 .arg(i)
                                 .arg(std::uint64_t(q.code(i)))
                                 .arg(std::uint64_t(e.codes[i]))));
        if (!sameDouble(values[i], e.values[i]) || !sameDouble(q.dequantized(i), e.values[i]))
            QFAIL(qPrintable(QString("%1: element %2 dequantized %3, expected %4")
                                 .arg(what)
                                 .arg(i)
                                 .arg(values[i], 0, 'g', 17)
                                 .arg(e.values[i], 0, 'g', 17)));
    }
    QCOMPARE(q.clipped, e.clipped);
    QCOMPARE(q.flushed, e.flushed);
    QCOMPARE(q.tensorScale.has_value(), e.tensorScale.has_value());
    if (e.tensorScale)
        QCOMPARE(bitsOf(*q.tensorScale), bitsOf(*e.tensorScale));
    QCOMPARE(q.groupScales.size(), e.groupScales.size());
    for (std::size_t g = 0; g < e.groupScales.size(); ++g)
        QCOMPARE(bitsOf(q.groupScales[g]), bitsOf(e.groupScales[g]));
}

struct MxCase {
    const char* id;
    const char* element; // nullptr: MXINT8
    int emax;
    int topBits;
};
constexpr MxCase kMx[] = {
    {"mxfp8_e4m3", "fp8_e4m3", 8, 4}, {"mxfp8_e5m2", "fp8_e5m2", 15, 3},
    {"mxfp6_e3m2", "fp6_e3m2", 4, 3}, {"mxfp6_e2m3", "fp6_e2m3", 2, 4},
    {"mxfp4", "fp4_e2m1", 2, 2},      {"mxint8", nullptr, 0, 7},
    {"mxfp4_e1m2", "fp4_e1m2", 0, 3},
};

ElementModel mxModel(const MxCase& c) {
    return c.element ? floatModel(c.element) : integerModel(8, ExactValue::dyadic(false, 1, -6));
}

// Random FP32 values of mixed magnitudes, with zeros, ties and exact powers of two mixed in.
std::vector<double> randomValues(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal(0, 1);
    std::uniform_int_distribution<int> kind(0, 9);
    std::uniform_int_distribution<int> exponent(-20, 20);
    std::vector<double> x(n);
    for (double& v : x) {
        switch (kind(rng)) {
        case 0:
            v = 0;
            break;
        case 1: // a short dyadic: lands on element values and midpoints
            v = std::ldexp(double(int(rng() % 64) - 32), exponent(rng) / 4);
            break;
        case 2:
            v = std::ldexp(normal(rng), exponent(rng));
            break;
        default:
            v = normal(rng);
        }
        v = double(float(v));
    }
    return x;
}

// Crafted blocks of 32: all zero, one huge element, ties, amax a power of two, tiny values
// (subnormal and clamped E8M0 scales), negative zero.
std::vector<double> craftedValues() {
    std::vector<double> x;
    auto block = [&](std::vector<double> b) {
        b.resize(32, 0.0);
        x.insert(x.end(), b.begin(), b.end());
    };
    block({});
    block({1e30, 1, -1, 0.5, 1e-10});
    block({6, 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, -0.75, -5, -2.5});
    block({4, 3, -2, 1, 0.5, 0.25, -4});
    block({448, 464, 465, 480, -240, 0.001953125});
    block({std::ldexp(1.0, -130), std::ldexp(1.5, -140), std::ldexp(1.0, -149), -0.0});
    block({std::ldexp(1.0, -126), std::ldexp(1.0, -135), std::ldexp(3.0, -140)});
    block({127.5, -127.5, 126.5, 1.0, -0.5, 0.5});
    block({-0.0, -1e-30, 7.0, 7.5, -7.5});
    return x;
}

} // namespace

class TstBlockQuantization : public QObject {
    Q_OBJECT

  private slots:
    void catalogue();
    void bitsPerElement_data();
    void bitsPerElement();
    void options();
    void mxAgainstReference_data();
    void mxAgainstReference();
    void nvfp4AgainstReference();
    void nf4AgainstReference();
    void intAgainstReference();
    void directCast();
    void workedCheck();
    void nonFiniteInputs();
    void scaleRulesByHand();
    void e8m0Clamping();
    void nvfp4Edges();
    void errorsAndCancel();
    void report();
    void sweep();
};

void TstBlockQuantization::catalogue() {
    const std::vector<std::string> ids = scaledQuantizerIds();
    for (const char* id : {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4",
                           "mxint8", "nvfp4", "nf4", "nf4_dq", "int8", "int4"})
        QVERIFY2(std::find(ids.begin(), ids.end(), id) != ids.end(), id);
    for (const std::string& id : ids) {
        const BlockFormat f = blockFormat(id.c_str());
        QCOMPARE(f.id, id);
        QVERIFY(!f.displayName.empty());
        QVERIFY(f.scheme != BlockScheme::Direct);
    }
    // The MX element emax of the issue, derived from the element formats.
    for (const MxCase& c : kMx)
        QCOMPARE(blockFormat(c.id).elementEmax, c.emax);
    QCOMPARE(blockFormat("mxfp4").blocks.size, std::size_t(32));
    QCOMPARE(blockFormat("nvfp4").blocks.size, std::size_t(16));
    QCOMPARE(blockFormat("nf4").blocks.size, std::size_t(64));
    QVERIFY(blockFormat("int8").blocks.kind == BlockLayout::Kind::Tensor);
    QVERIFY(blockFormat("fp8_e4m3").scheme == BlockScheme::Direct);
    QVERIFY(blockFormat("bf16").scheme == BlockScheme::Direct);
    QVERIFY(blockFormat("NF4").scheme == BlockScheme::Nf4);
}

void TstBlockQuantization::bitsPerElement_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<double>("bits");
    const double n = 1 << 16;
    QTest::newRow("mxfp8_e4m3") << "mxfp8_e4m3" << 8.25;
    QTest::newRow("mxfp8_e5m2") << "mxfp8_e5m2" << 8.25;
    QTest::newRow("mxfp6_e3m2") << "mxfp6_e3m2" << 6.25;
    QTest::newRow("mxfp4") << "mxfp4" << 4.25;
    QTest::newRow("mxfp4_e1m2") << "mxfp4_e1m2" << 4.25;
    QTest::newRow("mxint8") << "mxint8" << 8.25;
    QTest::newRow("nvfp4") << "nvfp4" << 4.5 + 32 / n;
    QTest::newRow("nf4") << "nf4" << 4.5;
    // 4 + 8/64 + 32/(64·256) + 32/n (the FP32 offset)
    QTest::newRow("nf4_dq") << "nf4_dq" << 4 + 0.125 + 32.0 / (64 * 256) + 32 / n;
    QTest::newRow("int8") << "int8" << 8 + 32 / n;
    QTest::newRow("fp8_e4m3") << "fp8_e4m3" << 8.0;
}

void TstBlockQuantization::bitsPerElement() {
    QFETCH(QString, id);
    QFETCH(double, bits);
    const std::size_t n = 1 << 16;
    const BlockFormat f = blockFormat(id.toStdString().c_str());
    QCOMPARE(fpx::bitsPerElement(f, n, 256), bits);
    QCOMPARE(storageBytes(f, n, 256), static_cast<std::size_t>(std::ceil(bits * n / 8)));
    QVERIFY(std::fabs(fpx::bitsPerElement(blockFormat("nf4_dq"), n, 256) - 4.127) < 0.001);
}

void TstBlockQuantization::options() {
    std::string error;
    QuantizerOptions rule;
    rule.scaleRule = ScaleRule::Ceil;
    QVERIFY(!findBlockFormat("nf4", rule, error));
    QVERIFY(error.find("scale-rule") != std::string::npos);
    QCOMPARE(blockFormat("mxfp4", rule).scaleRule, ScaleRule::Ceil);
    QuantizerOptions block;
    block.blocks = BlockLayout{BlockLayout::Kind::Elements, 128};
    QCOMPARE(blockFormat("int4", block).blocks.size, std::size_t(128));
    QCOMPARE(blockFormat("nvfp4", block).blocks.size, std::size_t(128));
    QVERIFY(blockFormat("fp8_e4m3", block).blocks.kind == BlockLayout::Kind::Tensor);
    QVERIFY(!findBlockFormat("nosuch", {}, error));
    QVERIFY(!findBlockFormat("fp128", {}, error)); // values beyond a double
    QVERIFY(!findBlockFormat("e8m0", {}, error));
    QVERIFY(!findBlockFormats("mxfp4,,nf4", {}, error));
    QCOMPARE(findBlockFormats("mxfp4, nf4 ,int8", {}, error)->size(), std::size_t(3));

    QVERIFY(parseBlockLayout("row", error)->kind == BlockLayout::Kind::Row);
    QVERIFY(parseBlockLayout("tensor", error)->kind == BlockLayout::Kind::Tensor);
    QCOMPARE(parseBlockLayout("64", error)->size, std::size_t(64));
    for (const char* bad : {"0", "-3", "12x", "", "1e3"})
        QVERIFY2(!parseBlockLayout(bad, error), bad);
    QCOMPARE(blockLayoutId(*parseBlockLayout("row", error)), std::string("row"));
    QCOMPARE(blockLayoutId(BlockLayout{BlockLayout::Kind::Elements, 17}), std::string("17"));
    QCOMPARE(*parseScaleRule("EVEN"), ScaleRule::Even);
    QVERIFY(!parseScaleRule("round"));
    QCOMPARE(scaleRuleId(ScaleRule::Floor), std::string_view("floor"));
}

void TstBlockQuantization::mxAgainstReference_data() {
    QTest::addColumn<int>("index");
    QTest::addColumn<int>("rule");
    for (int i = 0; i < int(std::size(kMx)); ++i)
        for (int r = 0; r < 3; ++r)
            QTest::newRow(qPrintable(QString("%1/%2").arg(kMx[i].id).arg(r))) << i << r;
}

void TstBlockQuantization::mxAgainstReference() {
    QFETCH(int, index);
    QFETCH(int, rule);
    const MxCase& c = kMx[index];
    const ElementModel model = mxModel(c);
    QuantizerOptions options;
    options.scaleRule = std::array{ScaleRule::Floor, ScaleRule::Ceil, ScaleRule::Even}[rule];
    std::vector<double> x = craftedValues();
    const std::vector<double> random = randomValues(32 * 24 + 7, 1000 + index);
    x.insert(x.end(), random.begin(), random.end()); // a short last block
    const BlockFormat f = blockFormat(c.id, options);
    check(quantize(f, x), referenceMx(model, c.emax, c.topBits, Rule(rule), x, 32), c.id);
    // Other block sizes.
    options.blocks = BlockLayout{BlockLayout::Kind::Elements, 7};
    check(quantize(blockFormat(c.id, options), random),
          referenceMx(model, c.emax, c.topBits, Rule(rule), random, 7), c.id);
}

void TstBlockQuantization::nvfp4AgainstReference() {
    std::vector<double> x = craftedValues();
    const std::vector<double> random = randomValues(16 * 40 + 5, 7);
    x.insert(x.end(), random.begin(), random.end());
    check(quantize(blockFormat("nvfp4"), x), referenceNvfp4(x, 16), "nvfp4 crafted");
    check(quantize(blockFormat("nvfp4"), random), referenceNvfp4(random, 16), "nvfp4");
    QuantizerOptions options;
    options.blocks = BlockLayout{BlockLayout::Kind::Row, 0};
    check(quantize(blockFormat("nvfp4", options), random, {5, 129}), referenceNvfp4(random, 129),
          "nvfp4 rows");
}

void TstBlockQuantization::nf4AgainstReference() {
    std::vector<double> x = craftedValues();
    // Ties between NF4 levels: absmax 1, elements exactly at the midpoints (FP32 levels, so
    // the midpoints are exact in a double).
    std::vector<double> ties{1.0};
    for (int c = 0; c + 1 < 16; ++c)
        ties.push_back((double(std::strtof(kNf4Decimals[c], nullptr)) +
                        double(std::strtof(kNf4Decimals[c + 1], nullptr))) /
                       2);
    ties.resize(64, 0.0);
    x.insert(x.end(), ties.begin(), ties.end());
    const std::vector<double> random = randomValues(64 * 30 + 3, 11);
    x.insert(x.end(), random.begin(), random.end());
    check(quantize(blockFormat("nf4"), x), referenceNf4(x, 64, false), "nf4");
    check(quantize(blockFormat("nf4_dq"), x), referenceNf4(x, 64, true), "nf4_dq");
    // More than one group of 256 absmaxes, with a NaN block in the second group.
    std::vector<double> many = randomValues(4 * 600 + 1, 12);
    many[4 * 300 + 1] = NAN;
    QuantizerOptions options;
    options.blocks = BlockLayout{BlockLayout::Kind::Elements, 4};
    const QuantizedTensor q = quantize(blockFormat("nf4_dq", options), many);
    check(q, referenceNf4(many, 4, true), "nf4_dq groups");
    QCOMPARE(q.groupScales.size(), std::size_t(3));
    QCOMPARE(q.scaleCodes[300], 0x80u);
    QCOMPARE(q.nanInputs, std::size_t(1));
}

void TstBlockQuantization::intAgainstReference() {
    std::vector<double> x = craftedValues();
    const std::vector<double> random = randomValues(1000, 21);
    x.insert(x.end(), random.begin(), random.end());
    check(quantize(blockFormat("int8"), x), referenceInt(8, x, x.size()), "int8 per tensor");
    QuantizerOptions options;
    options.blocks = BlockLayout{BlockLayout::Kind::Elements, 128};
    check(quantize(blockFormat("int4", options), x), referenceInt(4, x, 128), "int4 --block 128");
    options.blocks = BlockLayout{BlockLayout::Kind::Row, 0};
    check(quantize(blockFormat("int8", options), random, {10, 100}), referenceInt(8, random, 100),
          "int8 rows");
    // Hand-worked: absmax 127 gives scale 1 exactly; 63.5 → 64 and 62.5 → 62 (ties to even),
    // −127 → 0x81, −0.5 → 0. Absmax 2 gives FP32(2/127).
    const QuantizedTensor q = quantize(blockFormat("int8"), {127, 63.5, 62.5, -127, -0.5});
    QCOMPARE(q.scaleCodes[0], bitsOf(1.0f));
    QCOMPARE(std::uint64_t(q.code(1)), std::uint64_t(64));
    QCOMPARE(std::uint64_t(q.code(2)), std::uint64_t(62));
    QCOMPARE(std::uint64_t(q.code(3)), std::uint64_t(0x81));
    QCOMPARE(std::uint64_t(q.code(4)), std::uint64_t(0));
    QCOMPARE(quantize(blockFormat("int8"), {2, 1}).scaleCodes[0], bitsOf(2.0f / 127.0f));
}

void TstBlockQuantization::directCast() {
    const ElementModel e4m3 = floatModel("fp8_e4m3");
    std::vector<double> x = craftedValues();
    Expected e;
    for (double v : x) {
        const Element el = referenceElement(e4m3, exact(v));
        e.codes.push_back(el.code);
        e.values.push_back(e4m3.codeValues[el.code]);
        e.clipped += el.clipped;
        e.flushed += v != 0 && e4m3.codeValues[el.code] == 0;
    }
    check(quantize(blockFormat("fp8_e4m3"), x), e, "fp8_e4m3");
    // FP32 and FP64 casts of values they hold are the identity (their codes are reinterpreted
    // bits, not a table).
    const std::vector<double> floats = randomValues(300, 8);
    const QuantizedTensor f32 = quantize(blockFormat("fp32"), floats);
    const std::vector<double> f32Values = dequantizeAll(f32);
    const std::vector<double> doubles{0.1, -1e300, 5e-324, -0.0};
    const QuantizedTensor f64 = quantize(blockFormat("fp64"), doubles);
    for (std::size_t i = 0; i < floats.size(); ++i)
        QVERIFY(sameDouble(f32.dequantized(i), floats[i]) && sameDouble(f32Values[i], floats[i]));
    for (std::size_t i = 0; i < doubles.size(); ++i)
        QVERIFY(sameDouble(f64.dequantized(i), doubles[i]));
    // ±∞ and NaN: a plain cast (NaN in E4M3, ±∞ kept in E5M2).
    const QuantizedTensor q = quantize(blockFormat("fp8_e5m2"), {INFINITY, -INFINITY, NAN, 1e6});
    QCOMPARE(q.dequantized(0), INFINITY);
    QCOMPARE(q.dequantized(1), -INFINITY);
    QVERIFY(std::isnan(q.dequantized(2)));
    QCOMPARE(q.dequantized(3), 57344.0);
    QCOMPARE(q.infInputs, std::size_t(2));
    QCOMPARE(q.nanInputs, std::size_t(1));
    QCOMPARE(q.clipped, std::size_t(1));
}

// The worked check: 1, 2, …, 31, 127.9999 in mxfp8_e5m2.
void TstBlockQuantization::workedCheck() {
    std::vector<double> x;
    for (int i = 1; i <= 31; ++i)
        x.push_back(i);
    x.push_back(double(127.9999f));
    const QuantizedTensor q = quantize(blockFormat("mxfp8_e5m2"), x);
    QCOMPARE(q.scaleCodes.size(), std::size_t(1));
    QCOMPARE(q.scaleCodes[0], 0x76u);
    QCOMPARE(q.blockScale(0), std::ldexp(1.0, -9));
    QCOMPARE(std::uint64_t(q.code(31)), std::uint64_t(0x7b)); // 57344
    QCOMPARE(q.dequantized(31), 112.0);
    QCOMPARE(q.clipped, std::size_t(1));
    QCOMPARE(q.dequantized(0), 1.0);
}

void TstBlockQuantization::nonFiniteInputs() {
    std::vector<double> x(64, 1.0);
    x[3] = NAN;
    x[40] = -INFINITY;
    for (const char* id : {"mxfp4", "mxfp8_e5m2", "nvfp4", "nf4", "int8"}) {
        QuantizerOptions options;
        options.blocks = BlockLayout{BlockLayout::Kind::Elements, 32};
        const QuantizedTensor q = quantize(blockFormat(id, options), x);
        QCOMPARE(q.nanInputs, std::size_t(1));
        QCOMPARE(q.infInputs, std::size_t(1));
        for (std::size_t i = 0; i < 64; ++i)
            QVERIFY2(std::isnan(q.dequantized(i)), id);
    }
    const QuantizedTensor mx = quantize(blockFormat("mxfp4"), x);
    QCOMPARE(mx.scaleCodes[0], 0xffu);
    // NVFP4: non-finite values stay out of the tensor amax, so other blocks keep their scale.
    std::vector<double> y(32, 1.0);
    y[0] = NAN;
    const QuantizedTensor nv = quantize(blockFormat("nvfp4"), y);
    QCOMPARE(nv.scaleCodes[0], 0x7fu);
    // s_t = FP32(1/2688) is inexact: the second block is 6 · 448 · s_t, not 1.
    QCOMPARE(nv.scaleCodes[1], 0x7eu);
    QCOMPARE(nv.dequantized(16), 6 * 448 * double(*nv.tensorScale));
}

// mxfp4 (E2M1, max 6 = 1.1b · 2^2) on a block whose amax is 7 = 1.11b · 2^2:
//   floor: 2^(2 − 2) = 1, and 7 saturates to 6 (clipped);
//   even:  7 rounded to 2 bits is 8, so 2^1; 7 / 2 = 3.5 ties to 4 (the even code): 8;
//   ceil:  7 / 6 needs 2^1 as well.
// amax 6.5 = 1.101b · 2^2 rounds to 6 at 2 bits: even keeps 2^0, and 6.5 rounds to 6 (below
// 7, the midpoint of 6 and the 8 an unbounded exponent would give: not clipped).
void TstBlockQuantization::scaleRulesByHand() {
    auto run = [](ScaleRule rule, double amax) {
        QuantizerOptions options;
        options.scaleRule = rule;
        return quantize(blockFormat("mxfp4", options), {amax, 1});
    };
    const QuantizedTensor floor = run(ScaleRule::Floor, 7);
    QCOMPARE(floor.scaleCodes[0], 127u);
    QCOMPARE(floor.dequantized(0), 6.0);
    QCOMPARE(floor.clipped, std::size_t(1));
    const QuantizedTensor even = run(ScaleRule::Even, 7);
    QCOMPARE(even.scaleCodes[0], 128u);
    QCOMPARE(even.dequantized(0), 8.0);
    QCOMPARE(even.clipped, std::size_t(0));
    QCOMPARE(run(ScaleRule::Ceil, 7).scaleCodes[0], 128u);
    QCOMPARE(run(ScaleRule::Ceil, 6).scaleCodes[0], 127u); // 6 fits 2^0 exactly
    const QuantizedTensor evenBelow = run(ScaleRule::Even, 6.5);
    QCOMPARE(evenBelow.scaleCodes[0], 127u);
    QCOMPARE(evenBelow.dequantized(0), 6.0);
    QCOMPARE(evenBelow.clipped, std::size_t(0));
}

void TstBlockQuantization::e8m0Clamping() {
    // Exponent below −127: the smallest scale; elements below its reach flush.
    const QuantizedTensor tiny =
        quantize(blockFormat("mxfp8_e4m3"), {std::ldexp(1.0, -130), std::ldexp(1.0, -140)});
    QCOMPARE(tiny.scaleCodes[0], 0u);
    QCOMPARE(tiny.dequantized(0), std::ldexp(1.0, -130));
    QCOMPARE(tiny.dequantized(1), 0.0);
    QCOMPARE(tiny.flushed, std::size_t(1));
    // Above 127 (FP64 inputs): the largest scale, elements saturate.
    const QuantizedTensor huge = quantize(blockFormat("mxfp4"), {std::ldexp(1.0, 200), 1.0});
    QCOMPARE(huge.scaleCodes[0], 254u);
    QCOMPARE(huge.dequantized(0), std::ldexp(6.0, 127));
    QCOMPARE(huge.clipped, std::size_t(1));
    // All-zero block: the smallest scale.
    const QuantizedTensor zeros = quantize(blockFormat("mxfp4"), std::vector<double>(32, 0.0));
    QCOMPARE(zeros.scaleCodes[0], 0u);
    QCOMPARE(zeros.dequantized(5), 0.0);
}

void TstBlockQuantization::nvfp4Edges() {
    // All zero: s_tensor = 1, block scales 0.
    const QuantizedTensor zeros = quantize(blockFormat("nvfp4"), std::vector<double>(16, 0.0));
    QCOMPARE(*zeros.tensorScale, 1.0f);
    QCOMPARE(zeros.scaleCodes[0], 0u);
    // amax / 2688 below FP32's reach: s_tensor = 2^−149, and the values survive
    // (2^−140 / (6 · 2^−149) = 85.3 → E4M3 88; 2^−140 / (88 · 2^−149) = 5.8 → 6).
    const std::vector<double> tiny{std::ldexp(1.0, -140), -std::ldexp(1.0, -141)};
    const QuantizedTensor small = quantize(blockFormat("nvfp4"), tiny);
    QCOMPARE(*small.tensorScale, std::numeric_limits<float>::denorm_min());
    QCOMPARE(small.flushed, std::size_t(0));
    QCOMPARE(small.dequantized(0), std::ldexp(6.0 * 88, -149));
    check(small, referenceNvfp4(tiny, 16), "nvfp4 tiny");
    // A block far below the tensor's amax: its E4M3 scale rounds to 0 and it flushes.
    std::vector<double> y(32, 1e-6);
    y[0] = 1e6;
    const QuantizedTensor q = quantize(blockFormat("nvfp4"), y);
    QCOMPARE(q.scaleCodes[1], 0u);
    QCOMPARE(q.dequantized(20), 0.0);
}

void TstBlockQuantization::errorsAndCancel() {
    std::string error;
    TensorView empty;
    empty.name = "empty";
    QVERIFY(!quantizeExactly(blockFormat("mxfp4"), empty, error));
    QVERIFY(error.find("empty") != std::string::npos);
    const std::vector<double> one{1.0};
    TensorView scalar;
    scalar.doubles = one; // 0-d
    QuantizerOptions rows;
    rows.blocks = BlockLayout{BlockLayout::Kind::Row, 0};
    QVERIFY(!quantizeExactly(blockFormat("int8", rows), scalar, error));
    QVERIFY(error.find("row") != std::string::npos);

    const std::vector<double> many = randomValues(1 << 15, 3);
    TensorView view;
    view.shape = {many.size()};
    view.doubles = many;
    std::size_t calls = 0;
    const auto cancel = [&](std::size_t, std::size_t) { return ++calls < 2; };
    QVERIFY(!quantizeExactly(blockFormat("mxfp8_e4m3"), view, error, cancel));
    QVERIFY(error.find("cancelled") != std::string::npos);
    std::size_t lastDone = 0;
    const auto watch = [&](std::size_t done, std::size_t total) {
        lastDone = done;
        return total == many.size();
    };
    QVERIFY(quantizeExactly(blockFormat("mxfp8_e4m3"), view, error, watch));
    QCOMPARE(lastDone, many.size());
}

void TstBlockQuantization::report() {
    // x = q everywhere: +∞.
    const std::vector<double> exactValues{1, 2, -0.5, 0, 448};
    TensorView view;
    view.shape = {exactValues.size()};
    view.doubles = exactValues;
    QuantizationReport r =
        measureQuantization(view, quantize(blockFormat("mxfp8_e4m3"), exactValues));
    QCOMPARE(r.sqnrDb, std::numeric_limits<double>::infinity());
    QCOMPARE(r.mse, 0.0);
    QCOMPARE(r.maxAbsError, 0.0);

    // By hand: mxfp4 on {6, 1.25}: scale 1, 1.25 ties to 1 (the even code); error 0.25.
    // Σx² = 37.5625, Σe² = 0.0625: SQNR = 10·log10(601), mse = 0.03125.
    const std::vector<double> hand{6, 1.25};
    view.shape = {2};
    view.doubles = hand;
    r = measureQuantization(view, quantize(blockFormat("mxfp4"), hand));
    QCOMPARE(r.format, std::string("mxfp4"));
    QCOMPARE(r.elements, std::size_t(2));
    QCOMPARE(r.blockSize, std::size_t(2));
    QVERIFY(std::fabs(r.sqnrDb - 10 * std::log10(601.0)) < 1e-12);
    QCOMPARE(r.mse, 0.03125);
    QCOMPARE(r.rmse, std::sqrt(0.03125));
    QCOMPARE(r.maxAbsError, 0.25);
    QCOMPARE(r.maxErrorIndex, std::size_t(1));
    QCOMPARE(r.bitsPerElement, 4 + 8 / 2.0);

    // NaN inputs and the finite inputs of their block are left out and counted.
    std::vector<double> withNan(64, 1.0);
    withNan[0] = NAN;
    withNan[40] = 1.25;
    view.shape = {64};
    view.doubles = withNan;
    r = measureQuantization(view, quantize(blockFormat("mxfp4"), withNan));
    QCOMPARE(r.nanInputs, std::size_t(1));
    QCOMPARE(r.nonFiniteOutputs, std::size_t(31));
    QCOMPARE(r.maxAbsError, 0.25);
    // Σx² over the second block: 31 + 1.5625; Σe² = 0.0625.
    QVERIFY(std::fabs(r.sqnrDb - 10 * std::log10(32.5625 / 0.0625)) < 1e-12);

    // NVFP4 reports its tensor scale.
    view.shape = {2};
    view.doubles = hand;
    QCOMPARE(*measureQuantization(view, quantize(blockFormat("nvfp4"), hand)).tensorScale,
             double(fp32Scale(ExactValue::integer(6) / ExactValue::integer(2688))));
    // Squares of huge FP64 inputs and errors do not overflow the sums: fp32 saturates 1e300
    // to its max, so the noise is the signal (SQNR 0 dB), not ∞/∞.
    const std::vector<double> huge{1e300, 1};
    view.doubles = huge;
    r = measureQuantization(view, quantize(blockFormat("fp32"), huge));
    QVERIFY2(std::isfinite(r.sqnrDb) && std::fabs(r.sqnrDb) < 1e-9,
             qPrintable(QString::number(r.sqnrDb)));
}

void TstBlockQuantization::sweep() {
    const std::vector<double> x = randomValues(1000, 5);
    TensorView view;
    view.shape = {x.size()};
    view.doubles = x;
    std::string error;
    const std::vector<std::size_t> sizes{16, 32, 64, 128};
    std::size_t lastDone = 0, lastTotal = 0;
    QuantizeRun run;
    run.progress = [&](std::size_t done, std::size_t total) {
        lastDone = done;
        lastTotal = total;
        return true;
    };
    const std::vector<BlockSizePoint> points =
        sweepBlockSizes(blockFormat("mxfp4"), view, sizes, error, run);
    QCOMPARE(points.size(), sizes.size());
    QCOMPARE(lastTotal, 4 * x.size());
    QCOMPARE(lastDone, 4 * x.size());
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        QuantizerOptions options;
        options.blocks = BlockLayout{BlockLayout::Kind::Elements, sizes[s]};
        const QuantizationReport direct =
            measureQuantization(view, quantize(blockFormat("mxfp4", options), x));
        QCOMPARE(points[s].blockSize, sizes[s]);
        QCOMPARE(points[s].report.sqnrDb, direct.sqnrDb);
        QCOMPARE(points[s].report.bitsPerElement, direct.bitsPerElement);
    }
    QVERIFY(sweepBlockSizes(blockFormat("bf16"), view, sizes, error).empty());
    QVERIFY(sweepBlockSizes(blockFormat("nf4"), view, {32, 0}, error).empty());
}

QTEST_GUILESS_MAIN(TstBlockQuantization)
#include "tst_block_quantization.moc"
