// SPDX-License-Identifier: GPL-3.0-or-later
// Arithmetic in a format (arithmetic.h, expression.h) against references that share no code
// with it:
//   - FP32 and FP64: + − × ÷ √ fma against the CPU (float, double, std::sqrt, std::fma) in four
//     rounding modes set with fesetround, bits and the five IEEE flags (fetestexcept), on random
//     bit patterns, specials and crafted operands (ties, overflow, subnormal results, exact
//     cancellation, signed zeros).
//   - FP16: the same operations through F16C. An FP16 operation computed in float and converted
//     once is correctly rounded: for + − × ÷ √ the double-rounding theorem (Figueroa) holds since
//     float's 24 bits are ≥ 2·11 + 2; in the directed modes any nested rounding is exact anyway.
//     fma goes through round-to-odd (double, then float, both truncated with the last bit set
//     when inexact), which any later rounding to ≤ p' − 2 bits undoes exactly (Boldo and
//     Melquiond).
//   - Every format of at most 8 bits: every operation for ALL operand pairs (fma: all triples of
//     the 4-bit formats, random ones of the others) against a brute-force model written here:
//     exact rationals in 128-bit integers and the nearest of all the format's enumerated values
//     found by comparison, with IEEE's rules for specials, signed zeros and flags written out
//     from docs/behaviour.md, "Conversion rules".
//   - Known results of expressions (0.1 + 0.2, fma, sqrt(2), 1/0, ∞ − ∞, NF4) and the parser.
#include "fpx/exact/arithmetic.h"
#include "fpx/exact/code.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/expression.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/operation_steps.h"
#include "fpx/exact/rounding.h"
#include "fpx/kernels/cpu_has.h"

#include "test_support.h"

#include <QTest>
#include <QThread>

#include <immintrin.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

using namespace fpx;
using namespace fpx::test;

namespace {

// The default run keeps to about half a minute; tst_arithmetic_exhaustive (label exhaustive,
// the same source) sweeps every mode of every small format, all fma triples of the 6-bit ones
// and far more random operands.
#ifdef FPX_ARITHMETIC_EXHAUSTIVE
constexpr bool kExhaustive = true;
#else
constexpr bool kExhaustive = false;
#endif

// ---------------------------------------------------------------------------------------
// The CPU as reference
// ---------------------------------------------------------------------------------------

struct HardwareMode {
    RoundingMode mode;
    int fenv;
    const char* name;
};
const HardwareMode kHardwareModes[] = {
    {RoundingMode::NearestEven, FE_TONEAREST, "rne"},
    {RoundingMode::TowardZero, FE_TOWARDZERO, "rtz"},
    {RoundingMode::TowardPositive, FE_UPWARD, "rup"},
    {RoundingMode::TowardNegative, FE_DOWNWARD, "rdn"},
};

const Operation kHardwareOps[] = {Operation::Add,    Operation::Subtract, Operation::Multiply,
                                  Operation::Divide, Operation::Sqrt,     Operation::Fma};

// One operation of the CPU. The volatile operands and result pin it between fesetround and
// fetestexcept (the test is also built with -frounding-math): the compiler may neither fold
// it nor move it.
// glibc's fma: correctly rounded, honouring the rounding mode and raising the flags (it runs
// the FMA instruction where the CPU has one).
template <typename T> T hardwareFma(T a, T b, T c) {
    return std::fma(a, b, c);
}

template <typename T> [[gnu::noinline]] T hardwareOp(Operation op, T a, T b, T c) {
    volatile T x = a;
    volatile T y = b;
    volatile T z = c;
    volatile T r = 0;
    switch (op) {
    case Operation::Add:
        r = x + y;
        break;
    case Operation::Subtract:
        r = x - y;
        break;
    case Operation::Multiply:
        r = x * y;
        break;
    case Operation::Divide:
        r = x / y;
        break;
    case Operation::Sqrt:
        r = std::sqrt(static_cast<T>(x));
        break;
    case Operation::Fma:
        r = hardwareFma<T>(x, y, z);
        break;
    default:
        qFatal("no hardware operation");
    }
    return r;
}

ArithmeticFlags flagsFromFenv(int raised) {
    ArithmeticFlags f;
    f.inexact = (raised & FE_INEXACT) != 0;
    f.underflow = (raised & FE_UNDERFLOW) != 0;
    f.overflow = (raised & FE_OVERFLOW) != 0;
    f.divideByZero = (raised & FE_DIVBYZERO) != 0;
    f.invalid = (raised & FE_INVALID) != 0;
    return f;
}

struct HardwareResult {
    Code code = 0;
    ArithmeticFlags flags;
};

template <typename T> Code bitsOf(T x) {
    Code code = 0;
    std::memcpy(&code, &x, sizeof(T));
    return code;
}
template <typename T> T fromBits(Code code) {
    T x;
    std::memcpy(&x, &code, sizeof(T));
    return x;
}

template <typename T> HardwareResult onHardware(Operation op, const T* operands, int fenv) {
    std::fesetround(fenv);
    std::feclearexcept(FE_ALL_EXCEPT);
    const T r = hardwareOp<T>(op, operands[0], operands[1], operands[2]);
    const int raised = std::fetestexcept(FE_ALL_EXCEPT);
    std::fesetround(FE_TONEAREST);
    return HardwareResult{bitsOf(r), flagsFromFenv(raised)};
}

// F16C: FP16 ↔ float under the current MXCSR rounding mode.
__attribute__((target("f16c"))) float halfToFloat(std::uint16_t h) {
    return _cvtsh_ss(h);
}
__attribute__((target("f16c"))) std::uint16_t floatToHalf(float f) {
    // _cvtss_sh without the macro: clang's holds a C99 compound literal, which -Wpedantic rejects.
    return static_cast<std::uint16_t>(
        _mm_cvtsi128_si32(_mm_cvtps_ph(_mm_set_ss(f), _MM_FROUND_CUR_DIRECTION)));
}

// x rounded to odd at the precision of `To`: truncated, with the last bit set when anything
// was discarded. `raw` computes the truncated value under FE_TOWARDZERO.
template <typename T> T setStickyBit(T truncated, bool inexact) {
    if (!inexact)
        return truncated;
    return fromBits<T>(bitsOf(truncated) | 1);
}

// An FP16 operation in hardware: computed in float and rounded once to FP16 (+ − × ÷ √), or
// for fma rounded to odd in double and float first. Flags are those of the float operation and
// the conversion together (see the file comment); fma gives no flags.
HardwareResult fp16OnHardware(Operation op, const std::uint16_t* codes, int fenv) {
    const float a = halfToFloat(codes[0]);
    const float b = halfToFloat(codes[1]);
    const float c = halfToFloat(codes[2]);
    if (op == Operation::Fma) {
        const double da = a;
        const double db = b;
        const double dc = c;
        std::fesetround(FE_TOWARDZERO);
        std::feclearexcept(FE_ALL_EXCEPT);
        volatile double sum = hardwareFma<double>(da, db, dc);
        bool inexact = std::fetestexcept(FE_INEXACT) != 0;
        if (!inexact && sum == 0) {
            // An exact zero takes its sign from the mode (−0 only when rounding down).
            std::fesetround(fenv);
            sum = hardwareFma<double>(da, db, dc);
        }
        const double odd = setStickyBit<double>(sum, inexact);
        std::fesetround(FE_TOWARDZERO);
        std::feclearexcept(FE_ALL_EXCEPT);
        volatile float narrowed = static_cast<float>(odd);
        inexact = std::fetestexcept(FE_INEXACT) != 0;
        const float oddFloat = setStickyBit<float>(narrowed, inexact);
        std::fesetround(fenv);
        const std::uint16_t h = floatToHalf(oddFloat);
        std::fesetround(FE_TONEAREST);
        return HardwareResult{h, {}};
    }
    const float in[3] = {a, b, c};
    std::fesetround(fenv);
    std::feclearexcept(FE_ALL_EXCEPT);
    const float r = hardwareOp<float>(op, in[0], in[1], in[2]);
    const std::uint16_t h = floatToHalf(r);
    const int raised = std::fetestexcept(FE_ALL_EXCEPT);
    std::fesetround(FE_TONEAREST);
    return HardwareResult{h, flagsFromFenv(raised)};
}

// Operands worth trying in a binary float of `bits` bits: random patterns, specials, and pairs
// built to tie, overflow, cancel or land among the subnormals.
std::vector<Code> interestingCodes(const FormatSpec& spec) {
    const Code sign = spec.signBit();
    const Code expShift = Code(1) << spec.fractionBits;
    const Code infinity = spec.exponentFieldMax() * expShift;
    const Code maxFinite = infinity - 1;
    const Code one = Code(spec.bias) * expShift;
    const std::vector<Code> base = {0,
                                    1,
                                    2,
                                    3,
                                    expShift - 1,
                                    expShift,
                                    expShift + 1,
                                    maxFinite,
                                    maxFinite - 1,
                                    infinity,
                                    infinity + 1, // signalling NaN
                                    infinity | (expShift >> 1),
                                    one,
                                    one + 1,
                                    one - 1,
                                    one + expShift,
                                    (Code(spec.bias) + Code(spec.fractionBits) + 1) * expShift,
                                    (Code(spec.bias) - Code(spec.fractionBits) - 1) * expShift};
    std::vector<Code> codes;
    for (const Code c : base) {
        codes.push_back(c);
        codes.push_back(c | sign);
    }
    return codes;
}

// ---------------------------------------------------------------------------------------
// The brute-force model of a small format
// ---------------------------------------------------------------------------------------

__extension__ typedef __int128 Int; // GCC and Clang; ample for values of 8-bit formats

Int gcd(Int a, Int b) {
    if (a < 0)
        a = -a;
    if (b < 0)
        b = -b;
    while (b != 0) {
        const Int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

// A rational n / d, d > 0, reduced. Small formats keep every intermediate far below 2^127.
struct Q {
    Int n = 0;
    Int d = 1;
};
Q makeQ(Int n, Int d) {
    if (d < 0) {
        n = -n;
        d = -d;
    }
    const Int g = gcd(n, d);
    if (g > 1) {
        n /= g;
        d /= g;
    }
    return Q{n, d};
}
Q operator+(Q a, Q b) {
    return makeQ(a.n * b.d + b.n * a.d, a.d * b.d);
}
Q operator-(Q a) {
    return Q{-a.n, a.d};
}
Q operator*(Q a, Q b) {
    return makeQ(a.n * b.n, a.d * b.d);
}
Q operator/(Q a, Q b) {
    return makeQ(a.n * b.d, a.d * b.n);
}
int sign(Int x) {
    return x < 0 ? -1 : (x > 0 ? 1 : 0);
}
int compareQ(Q a, Q b) {
    return sign(a.n * b.d - b.n * a.d);
}

Q fromExact(const ExactValue& v) {
    // Values of formats of at most 8 bits: numerator and denominator tiny, |exponent2| < 40.
    Int n = static_cast<Int>(static_cast<long long>(v.numerator()));
    Int d = static_cast<Int>(static_cast<long long>(v.denominator()));
    const std::int64_t e = v.exponent2();
    if (e >= 0)
        n <<= e;
    else
        d <<= -e;
    return makeQ(v.isNegative() ? -n : n, d);
}

// A real number as the model holds it: ±∞, NaN, a signed rational (with the sign of a zero),
// or the square root of a non-negative rational.
struct Real {
    enum class Kind { Finite, Infinity, NaN, Root };
    Kind kind = Kind::Finite;
    bool negative = false; // ∞'s sign, and a zero's
    Q q;                   // Finite: the value; Root: the radicand
};
Real finite(Q q, bool negativeZero = false) {
    Real r;
    r.q = q;
    r.negative = q.n < 0 || (q.n == 0 && negativeZero);
    return r;
}
Real infinity(bool negative) {
    Real r;
    r.kind = Real::Kind::Infinity;
    r.negative = negative;
    return r;
}
Real notANumber() {
    Real r;
    r.kind = Real::Kind::NaN;
    return r;
}

// sign(x − v) for a finite or root x and a rational v.
int compareReal(const Real& x, Q v) {
    if (x.kind == Real::Kind::Finite)
        return compareQ(x.q, v);
    if (v.n < 0)
        return 1;
    if (v.n == 0)
        return x.q.n == 0 ? 0 : 1;
    return compareQ(x.q, v * v); // √r vs v ⇔ r vs v² for v > 0
}
bool realIsNegative(const Real& x) {
    return x.kind == Real::Kind::Root ? false : (x.q.n < 0 || x.negative);
}

struct Expected {
    Real exact;
    bool invalid = false;
    bool divideByZero = false;
};

// IEEE 754's exact operation on values of the format, written out.
Expected referenceOperation(Operation op, const std::vector<Real>& x, RoundingMode mode) {
    auto isNaN = [](const Real& r) { return r.kind == Real::Kind::NaN; };
    auto isInf = [](const Real& r) { return r.kind == Real::Kind::Infinity; };
    auto isZero = [](const Real& r) { return r.kind == Real::Kind::Finite && r.q.n == 0; };
    auto invalid = [] {
        Expected e{notANumber()};
        e.invalid = true;
        return e;
    };
    auto sum = [&](const Real& a, const Real& b) -> Expected {
        if (isNaN(a) || isNaN(b))
            return {notANumber()};
        if (isInf(a) && isInf(b))
            return a.negative == b.negative ? Expected{a} : invalid();
        if (isInf(a))
            return {a};
        if (isInf(b))
            return {b};
        const Q s = a.q + b.q;
        if (s.n != 0)
            return {finite(s)};
        // An exact zero: x + x keeps the sign of x (±0 + ±0 is ±0); any other exact zero is
        // +0, or −0 rounding down (IEEE 754 §6.3).
        if (isZero(a) && isZero(b) && a.negative == b.negative)
            return {finite(s, a.negative)};
        return {finite(s, mode == RoundingMode::TowardNegative)};
    };
    auto product = [&](const Real& a, const Real& b) -> Expected {
        if (isNaN(a) || isNaN(b))
            return {notANumber()};
        const bool negative = a.negative != b.negative;
        if ((isInf(a) && isZero(b)) || (isZero(a) && isInf(b)))
            return invalid();
        if (isInf(a) || isInf(b))
            return {infinity(negative)};
        return {finite(a.q * b.q, negative)};
    };
    auto negated = [](Real r) {
        r.negative = !r.negative;
        r.q = -r.q;
        return r;
    };
    switch (op) {
    case Operation::Add:
        return sum(x[0], x[1]);
    case Operation::Subtract:
        return sum(x[0], negated(x[1]));
    case Operation::Multiply:
        return product(x[0], x[1]);
    case Operation::Divide: {
        const Real& a = x[0];
        const Real& b = x[1];
        if (isNaN(a) || isNaN(b))
            return {notANumber()};
        const bool negative = a.negative != b.negative;
        if ((isZero(a) && isZero(b)) || (isInf(a) && isInf(b)))
            return invalid();
        if (isInf(a))
            return {infinity(negative)};
        if (isInf(b))
            return {finite(Q{}, negative)};
        if (isZero(b)) {
            Expected e{infinity(negative)};
            e.divideByZero = true;
            return e;
        }
        return {finite(a.q / b.q, negative)};
    }
    case Operation::Fma: {
        const Expected p = product(x[0], x[1]);
        if (p.invalid)
            return p;
        return sum(p.exact, x[2]);
    }
    case Operation::Sqrt: {
        const Real& a = x[0];
        if (isNaN(a) || isZero(a))
            return {a};
        if (a.negative)
            return invalid();
        if (isInf(a))
            return {a};
        Real r;
        r.kind = Real::Kind::Root;
        r.q = a.q;
        return {r};
    }
    case Operation::Negate:
        return {isNaN(x[0]) ? x[0] : negated(x[0])};
    case Operation::Abs: {
        Real r = x[0];
        if (r.negative)
            r = negated(r);
        return {r};
    }
    case Operation::Min:
    case Operation::Max: {
        // minimumNumber / maximumNumber: a NaN loses to a number; −0 < +0.
        const Real& a = x[0];
        const Real& b = x[1];
        if (isNaN(a))
            return {b};
        if (isNaN(b))
            return {a};
        auto rank = [&](const Real& r) -> std::pair<int, Q> {
            if (isInf(r))
                return {r.negative ? -2 : 2, Q{}};
            return {0, r.q};
        };
        const auto ra = rank(a);
        const auto rb = rank(b);
        int order = ra.first != rb.first ? (ra.first < rb.first ? -1 : 1)
                                         : (ra.first != 0 ? 0 : compareQ(ra.second, rb.second));
        if (order == 0 && isZero(a))
            order = (a.negative ? -1 : 0) + (b.negative ? 1 : 0);
        const bool takeA = op == Operation::Max ? order >= 0 : order <= 0;
        return {takeA ? a : b};
    }
    }
    return invalid();
}

// One format, enumerated: its finite values in ascending order with their codes, and what an
// unbounded exponent (or level range) would put just beyond each end.
struct SmallFormat {
    FormatSpec spec;
    bool isFloat = true;
    struct Entry {
        Q value;
        Code code = 0;
        bool beyond = false; // the value just past the largest (or lowest) one
        bool odd = false;    // the code's last bit: the tie-breaking parity
    };
    std::vector<Entry> ascending; // beyond-low, finite values (one zero), beyond-high
    std::vector<Code> codes;      // every code, the operands
    Code positiveZero = 0;
    Code negativeZero = 0;
    Code maxCode = 0;
    Code lowestCode = 0;
    Code infinityCode = 0;
    bool hasInfinity = false;
    bool hasNaN = false;
    Q minNormal;      // 2^emin (floats)
    Q halfQuantumLow; // 2^(emin − p): the unbounded grid just below 2^emin
};

SmallFormat enumerate(const FormatSpec& spec) {
    SmallFormat f;
    f.spec = spec;
    f.isFloat = spec.kind == FormatKind::BinaryFloat;
    std::vector<SmallFormat::Entry> values;
    bool haveZero = false;
    bool haveNegativeZero = false;
    for (Code code = 0; code < (Code(1) << spec.totalBits()); ++code) {
        f.codes.push_back(code);
        const ExactValue v = decodeCode(spec, code).value;
        if (v.isNaN()) {
            f.hasNaN = true;
            continue;
        }
        if (v.isInfinity()) {
            f.hasInfinity = true;
            if (!v.isNegative())
                f.infinityCode = code;
            continue;
        }
        if (v.isZero()) {
            if (v.isNegative()) {
                f.negativeZero = code;
                haveNegativeZero = true;
            } else {
                f.positiveZero = code;
            }
            if (haveZero)
                continue;
            haveZero = true;
        }
        values.push_back({fromExact(v), code, false, (code & 1) != 0});
    }
    if (!haveNegativeZero)
        f.negativeZero = f.positiveZero;
    std::sort(values.begin(), values.end(),
              [](const auto& a, const auto& b) { return compareQ(a.value, b.value) < 0; });
    // Zero entries carry +0's code; the sign is chosen when a result is zero.
    for (auto& e : values)
        if (e.value.n == 0)
            e.code = f.positiveZero, e.odd = false;
    const auto& lowest = values.front();
    const auto& secondLowest = values[1];
    const auto& highest = values.back();
    const auto& secondHighest = values[values.size() - 2];
    f.maxCode = highest.code;
    f.lowestCode = lowest.code;
    // Past the largest value lies the largest plus its spacing, with the other parity: 2^(emax+1)
    // after an all-ones significand, 480 after E4M3's 448, level qmax + 1 after qmax. Without
    // fraction bits the spacing at the largest value is the value itself (the next is twice it).
    const bool powersOfTwo = f.isFloat && spec.fractionBits == 0;
    const Q highGap = powersOfTwo ? highest.value : highest.value + -secondHighest.value;
    const Q lowGap = powersOfTwo ? -lowest.value : secondLowest.value + -lowest.value;
    SmallFormat::Entry high{highest.value + highGap, 0, true, !highest.odd};
    SmallFormat::Entry low{lowest.value + -lowGap, 0, true, !lowest.odd};
    f.ascending.push_back(low);
    f.ascending.insert(f.ascending.end(), values.begin(), values.end());
    f.ascending.push_back(high);
    if (f.isFloat) {
        const int emin = 1 - spec.bias;
        const int p = spec.fractionBits + 1;
        auto power = [](int k) { return k >= 0 ? Q{Int(1) << k, 1} : Q{1, Int(1) << -k}; };
        f.minNormal = power(emin);
        f.halfQuantumLow = power(emin - p);
    }
    return f;
}

Real realOf(const SmallFormat& f, Code code) {
    const ExactValue v = decodeCode(f.spec, code).value;
    if (v.isNaN())
        return notANumber();
    if (v.isInfinity())
        return infinity(v.isNegative());
    return finite(fromExact(v), v.isNegative());
}

struct ModelResult {
    Code code = 0;
    bool isNaN = false;
    bool nanCodeFree = false; // a NaN into a format without NaN: either zero code will do
    ArithmeticFlags flags;
};

// Does the mode move the magnitude up between two neighbours of a value of this sign (nearest
// modes answer by the distances)?
bool directedUp(RoundingMode mode, bool negative) {
    switch (mode) {
    case RoundingMode::TowardZero:
        return false;
    case RoundingMode::TowardPositive:
        return !negative;
    case RoundingMode::TowardNegative:
        return negative;
    default:
        return false;
    }
}
bool isNearest(RoundingMode mode) {
    return mode == RoundingMode::NearestEven || mode == RoundingMode::NearestAway;
}

// Tiny after rounding: |x| < 2^emin even once rounded to the format's precision with an
// unbounded exponent. Only x in (2^emin − 2^(emin−p), 2^emin) can round up to 2^emin.
bool tinyAfterRounding(const SmallFormat& f, const Real& x, RoundingMode mode) {
    const bool negative = realIsNegative(x);
    Real magnitude = x;
    if (magnitude.kind == Real::Kind::Finite && magnitude.q.n < 0)
        magnitude.q = -magnitude.q;
    if (compareReal(magnitude, f.minNormal) >= 0)
        return false;
    const Q below = f.minNormal + -f.halfQuantumLow;
    if (compareReal(magnitude, below) <= 0)
        return true;
    if (isNearest(mode)) {
        const Q middle = below + f.halfQuantumLow * Q{1, 2};
        return compareReal(magnitude, middle) < 0; // a tie goes up (2^emin is even)
    }
    return !directedUp(mode, negative);
}

// The overflow result of docs/behaviour.md, "Conversion rules".
Code overflowCode(const SmallFormat& f, bool negative, RoundingMode mode, OverflowPolicy policy) {
    const Code max = negative ? f.lowestCode : f.maxCode;
    if (!f.isFloat)
        return max; // integers clamp
    bool toInfinity = isNearest(mode);
    if (!isNearest(mode))
        toInfinity = directedUp(mode, negative);
    if (policy == OverflowPolicy::Saturate || !toInfinity)
        return max;
    if (f.hasInfinity)
        return f.infinityCode | (negative ? f.spec.signBit() : 0);
    return max; // replaced by NaN by the caller where the format has NaN
}

ModelResult modelRound(const SmallFormat& f, const Expected& e, RoundingMode mode,
                       OverflowPolicy policy) {
    ModelResult m;
    m.flags.invalid = e.invalid;
    m.flags.divideByZero = e.divideByZero;
    const Real& x = e.exact;
    if (x.kind == Real::Kind::NaN) {
        if (f.isFloat && f.hasNaN) {
            m.isNaN = true;
        } else {
            m.flags.invalid = true; // NaN into FP6/FP4 or an integer
            m.nanCodeFree = f.isFloat;
            m.code = f.positiveZero;
        }
        return m;
    }
    if (x.kind == Real::Kind::Infinity) {
        if (f.hasInfinity && policy == OverflowPolicy::Ieee) {
            m.code = f.infinityCode | (x.negative ? f.spec.signBit() : 0);
            return m;
        }
        m.flags.overflow = true;
        if (f.isFloat && f.hasNaN && policy == OverflowPolicy::Ieee)
            m.isNaN = true;
        else
            m.code = x.negative ? f.lowestCode : f.maxCode;
        return m;
    }
    // The first entry ≥ x, by brute comparison with every value.
    const auto& list = f.ascending;
    std::size_t i = 0;
    while (i < list.size() && compareReal(x, list[i].value) > 0)
        ++i;
    const SmallFormat::Entry* chosen = nullptr;
    bool beyondLow = false;
    bool beyondHigh = false;
    bool exact = false;
    if (i < list.size() && compareReal(x, list[i].value) == 0) {
        chosen = &list[i];
        exact = true;
    } else if (i == 0) {
        beyondLow = true;
    } else if (i == list.size()) {
        beyondHigh = true;
    } else {
        const auto& lo = list[i - 1];
        const auto& hi = list[i];
        const bool negative = realIsNegative(x);
        if (isNearest(mode)) {
            const int toMiddle = compareReal(x, (lo.value + hi.value) * Q{1, 2});
            if (toMiddle != 0)
                chosen = toMiddle < 0 ? &lo : &hi;
            else if (mode == RoundingMode::NearestAway || (f.isFloat && f.spec.fractionBits == 0))
                chosen = negative ? &lo : &hi; // one bit of precision has no even: ties away
            else
                chosen = lo.odd ? &hi : &lo;
        } else {
            const bool up = directedUp(mode, negative);
            chosen = (up != negative) ? &hi : &lo;
        }
    }
    const bool negative = realIsNegative(x);
    if (beyondLow || beyondHigh || chosen->beyond) {
        m.flags.overflow = true;
        m.flags.inexact = true;
        m.code = overflowCode(f, negative, mode, policy);
        const bool toInfinity =
            policy == OverflowPolicy::Ieee && (isNearest(mode) || directedUp(mode, negative));
        if (f.isFloat && toInfinity && !f.hasInfinity && f.hasNaN)
            m.isNaN = true;
        if (!f.isFloat && m.code == f.positiveZero)
            m.flags.underflow = true; // a clamp to level 0 (unsigned)
        return m;
    }
    m.flags.inexact = !exact;
    m.code = chosen->code;
    if (chosen->value.n == 0)
        m.code = negative ? f.negativeZero : f.positiveZero;
    if (m.flags.inexact)
        m.flags.underflow = f.isFloat ? tinyAfterRounding(f, x, mode) : chosen->value.n == 0;
    return m;
}

QString codeList(const FormatSpec& spec, const std::vector<Code>& codes) {
    QStringList parts;
    for (const Code c : codes)
        parts << hex(spec, c);
    return parts.join(", ");
}

QString flagText(const ArithmeticFlags& f) {
    return QString::fromStdString(arithmeticFlagsToString(f));
}

const RoundingMode kModelModes[] = {RoundingMode::NearestEven, RoundingMode::TowardZero,
                                    RoundingMode::TowardPositive, RoundingMode::TowardNegative,
                                    RoundingMode::NearestAway};

// Checks one operation of a small format against the model; false (with a message) on the
// first difference.
bool agreesWithModel(const SmallFormat& f, Operation op, const std::vector<Code>& codes,
                     RoundingMode mode, OverflowPolicy policy, QString& why) {
    std::vector<ExactValue> operands;
    std::vector<Real> reals;
    for (const Code c : codes) {
        operands.push_back(decodeCode(f.spec, c).value);
        reals.push_back(realOf(f, c));
    }
    RoundingOptions options;
    options.mode = mode;
    options.overflow = policy;
    const OperationResult got = applyOperation(op, operands, f.spec, options);
    const ModelResult want = modelRound(f, referenceOperation(op, reals, mode), mode, policy);
    const bool gotNaN = got.value.isNaN();
    bool same = gotNaN == want.isNaN && got.flags == want.flags;
    if (same && !want.isNaN)
        same = want.nanCodeFree
                   ? (got.rounded.code == f.positiveZero || got.rounded.code == f.spec.signBit())
                   : got.rounded.code == want.code;
    if (same)
        return true;
    why = QString("%1 %2(%3) in %4: got %5 [%6], model %7 [%8]")
              .arg(QString::fromStdString(f.spec.id),
                   QString::fromLatin1(operationSymbol(op).data(), operationSymbol(op).size()),
                   codeList(f.spec, codes), QString::fromLatin1(roundingModeId(mode).data()),
                   gotNaN ? "nan" : hex(f.spec, got.rounded.code), flagText(got.flags),
                   want.isNaN ? "nan" : hex(f.spec, want.code), flagText(want.flags));
    return false;
}

FormatSpec spec(const char* id) {
    return lookUp(QString::fromLatin1(id));
}

} // namespace

class TestArithmetic : public QObject {
    Q_OBJECT

  private slots:
    void hardwareFp32_data() { hardwareData(); }
    void hardwareFp32() { hardwareSweep<float>("fp32"); }
    void hardwareFp64_data() { hardwareData(); }
    void hardwareFp64() { hardwareSweep<double>("fp64"); }
    void signedZeros();
    void fp16AgainstF16c_data() { hardwareData(); }
    void fp16AgainstF16c();
    void smallFormatsAllPairs_data();
    void smallFormatsAllPairs();
    void knownResults();
    void stochasticDrawsInEvaluationOrder();
    void unsupportedFormats();
    void integerLevels();
    void parserAcceptsTheGrammar();
    void parserErrors_data();
    void parserErrors();
    void parserBoundsTheWork();
    void longChainsNeedLittleStack();
    void explanationsDeriveFromBits();
    void explanationsAgreeWithTheResult();

  private:
    void hardwareData() {
        QTest::addColumn<int>("modeIndex");
        for (int i = 0; i < 4; ++i)
            QTest::newRow(kHardwareModes[i].name) << i;
    }
    template <typename T> void hardwareSweep(const char* id);
};

// Random bit patterns (a third), the interesting codes, and operands near each other (the same
// exponent give or take one, for cancellation) for every operation, bits and flags.
template <typename T> void TestArithmetic::hardwareSweep(const char* id) {
    QFETCH(int, modeIndex);
    const HardwareMode& mode = kHardwareModes[modeIndex];
    const FormatSpec format = spec(id);
    const std::vector<Code> special = interestingCodes(format);
    std::mt19937_64 rng(0x5eed + modeIndex);
    const Code mask = format.codeMask();
    auto draw = [&](Code previous) -> Code {
        switch (rng() % 4) {
        case 0:
            return special[rng() % special.size()];
        case 1: // near the previous operand: cancellation, alignment by a bit or two
            return (previous ^ (rng() % 64)) + ((rng() % 3) << format.fractionBits) -
                   (Code(1) << format.fractionBits);
        default:
            return rng() & mask;
        }
    };
    const int rounds = kExhaustive ? 400000 : 6000;
    int compared = 0;
    for (int i = 0; i < rounds; ++i) {
        Code codes[3];
        codes[0] = rng() & mask;
        codes[1] = draw(codes[0]) & mask;
        codes[2] = draw(codes[1]) & mask;
        T values[3];
        std::vector<ExactValue> exact;
        bool anyNaN = false;
        for (int k = 0; k < 3; ++k) {
            values[k] = fromBits<T>(codes[k]);
            exact.push_back(decodeCode(format, codes[k]).value);
            anyNaN = anyNaN || std::isnan(values[k]);
        }
        for (const Operation op : kHardwareOps) {
            const int count = operandCount(op);
            const std::span<const ExactValue> in(exact.data(), static_cast<std::size_t>(count));
            RoundingOptions options;
            options.mode = mode.mode;
            const OperationResult got = applyOperation(op, in, format, options);
            const HardwareResult want = onHardware<T>(op, values, mode.fenv);
            const bool wantNaN = std::isnan(fromBits<T>(want.code));
            const bool ok = wantNaN ? got.value.isNaN() : got.rounded.code == want.code;
            bool operandNaN = false;
            for (int k = 0; k < count; ++k)
                operandNaN = operandNaN || std::isnan(values[k]);
            // Signalling NaN operands raise invalid on the CPU; fpx has no signalling NaNs.
            const bool flagsOk = operandNaN || got.flags == want.flags;
            if (!ok || !flagsOk)
                QFAIL(qPrintable(QString("%1 %2(%3): fpx %4 [%5], cpu %6 [%7]")
                                     .arg(id, QString::fromLatin1(operationSymbol(op).data()),
                                          codeList(format, {codes, codes + count}),
                                          hex(format, got.rounded.code), flagText(got.flags),
                                          hex(format, want.code), flagText(want.flags))));
            ++compared;
        }
        (void)anyNaN;
    }
    QVERIFY(compared == rounds * 6);
}

// x − x is +0, except −0 rounding down; (−0) + (−0) is −0; fma keeps the rules; √−0 is −0.
void TestArithmetic::signedZeros() {
    for (const char* id : {"fp32", "fp64"}) {
        const FormatSpec format = spec(id);
        for (const HardwareMode& mode : kHardwareModes) {
            RoundingOptions options;
            options.mode = mode.mode;
            const ExactValue x = exactValue("1.5");
            const ExactValue zero = ExactValue::zero(false);
            const ExactValue minusZero = ExactValue::zero(true);
            const auto difference =
                applyOperation(Operation::Subtract, std::vector{x, x}, format, options);
            QCOMPARE(difference.value.isNegative(), mode.mode == RoundingMode::TowardNegative);
            QVERIFY(difference.value.isZero());
            QVERIFY(!difference.flags.any());
            const auto zeros =
                applyOperation(Operation::Add, std::vector{minusZero, minusZero}, format, options);
            QVERIFY(zeros.value.isZero() && zeros.value.isNegative());
            const auto mixed =
                applyOperation(Operation::Add, std::vector{minusZero, zero}, format, options);
            QCOMPARE(mixed.value.isNegative(), mode.mode == RoundingMode::TowardNegative);
            const auto fused = applyOperation(Operation::Fma, std::vector{x, x, (x * x).negated()},
                                              format, options);
            QCOMPARE(fused.value.isNegative(), mode.mode == RoundingMode::TowardNegative);
            const auto root =
                applyOperation(Operation::Sqrt, std::vector{minusZero}, format, options);
            QVERIFY(root.value.isZero() && root.value.isNegative() && !root.flags.any());
            // And the CPU agrees on every one of them.
            if (std::string_view(id) == "fp64") {
                const double operands[3] = {1.5, 1.5, 0};
                const auto cpu = onHardware<double>(Operation::Subtract, operands, mode.fenv);
                QCOMPARE(cpu.code, difference.rounded.code);
            }
        }
    }
}

void TestArithmetic::fp16AgainstF16c() {
    if (!fpx::kernels::cpuHasF16c())
        QSKIP("this CPU has no F16C");
    QFETCH(int, modeIndex);
    const HardwareMode& mode = kHardwareModes[modeIndex];
    const FormatSpec format = spec("fp16");
    const std::vector<Code> special = interestingCodes(format);
    std::mt19937_64 rng(0xf16c + modeIndex);
    for (int i = 0; i < (kExhaustive ? 400000 : 6000); ++i) {
        std::uint16_t codes[3];
        for (std::uint16_t& c : codes)
            c = static_cast<std::uint16_t>(rng() % 3 == 0 ? special[rng() % special.size()]
                                                          : rng() & 0xffff);
        if (rng() % 4 == 0) // cancellation: a neighbour of the first operand, negated
            codes[1] = static_cast<std::uint16_t>((codes[0] ^ 0x8000) + (rng() % 5) - 2);
        std::vector<ExactValue> exact;
        bool anyNaN = false;
        for (const std::uint16_t c : codes) {
            exact.push_back(decodeCode(format, c).value);
            anyNaN = anyNaN || exact.back().isNaN();
        }
        for (const Operation op : kHardwareOps) {
            const auto count = static_cast<std::size_t>(operandCount(op));
            RoundingOptions options;
            options.mode = mode.mode;
            const OperationResult got =
                applyOperation(op, std::span(exact.data(), count), format, options);
            const HardwareResult want = fp16OnHardware(op, codes, mode.fenv);
            const bool wantNaN = decodeCode(format, want.code).value.isNaN();
            bool operandNaN = false;
            for (std::size_t k = 0; k < count; ++k)
                operandNaN = operandNaN || exact[k].isNaN();
            const bool ok = wantNaN ? got.value.isNaN() : got.rounded.code == want.code;
            const bool flagsOk = operandNaN || op == Operation::Fma || got.flags == want.flags;
            if (!ok || !flagsOk)
                QFAIL(qPrintable(QString("fp16 %1(%2): fpx %3 [%4], F16C %5 [%6]")
                                     .arg(QString::fromLatin1(operationSymbol(op).data()),
                                          codeList(format, std::vector<Code>(codes, codes + count)),
                                          hex(format, got.rounded.code), flagText(got.flags),
                                          hex(format, want.code), flagText(want.flags))));
        }
    }
}

void TestArithmetic::smallFormatsAllPairs_data() {
    QTest::addColumn<QString>("format");
    for (const char* id : {"fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz", "fp8_e5m2fnuz",
                           "fp8_e4m3b11fnuz", "fp8_e3m4", "fp6_e3m2", "fp6_e2m3", "fp4_e2m1",
                           "e3m3", "e3m0f", "e4m0fnuz", "int8", "uint8", "int4", "uint4", "int2"})
        QTest::newRow(id) << QString::fromLatin1(id);
}

// Every pair of codes through + − × ÷ min max, every code through √ neg abs, in rne, rtz, rup,
// rdn (and rna for formats under 8 bits, or all with kExhaustive), with the IEEE overflow policy
// and saturation; fma on all triples of the 4-bit formats (6-bit with kExhaustive) and random
// triples of the others.
void TestArithmetic::smallFormatsAllPairs() {
    QFETCH(QString, format);
    const SmallFormat f = enumerate(lookUp(format));
    const bool eightBits = f.spec.totalBits() == 8;
    const std::size_t modeCount = eightBits && !kExhaustive ? 4 : 5;
    QString why;
    std::mt19937_64 rng(qHash(format));
    std::size_t checked = 0;
    for (std::size_t m = 0; m < modeCount; ++m) {
        const RoundingMode mode = kModelModes[m];
        for (const OverflowPolicy policy : {OverflowPolicy::Ieee, OverflowPolicy::Saturate}) {
            // Saturation changes only overflowing results: rne pairs suffice for it.
            const bool allPairs = policy == OverflowPolicy::Ieee || m == 0;
            for (const Code a : f.codes) {
                for (const Operation op : {Operation::Sqrt, Operation::Negate, Operation::Abs}) {
                    if (!agreesWithModel(f, op, {a}, mode, policy, why))
                        QFAIL(qPrintable(why));
                    ++checked;
                }
                if (!allPairs)
                    continue;
                for (const Code b : f.codes)
                    for (const Operation op :
                         {Operation::Add, Operation::Subtract, Operation::Multiply,
                          Operation::Divide, Operation::Min, Operation::Max}) {
                        // min and max never round: one mode and policy say all.
                        if ((op == Operation::Min || op == Operation::Max) &&
                            (m != 0 || policy != OverflowPolicy::Ieee))
                            continue;
                        if (!agreesWithModel(f, op, {a, b}, mode, policy, why))
                            QFAIL(qPrintable(why));
                        ++checked;
                    }
            }
            if (policy != OverflowPolicy::Ieee)
                continue;
            const std::size_t n = f.codes.size();
            if (n <= (kExhaustive ? 64u : 16u)) {
                for (const Code a : f.codes)
                    for (const Code b : f.codes)
                        for (const Code c : f.codes) {
                            if (!agreesWithModel(f, Operation::Fma, {a, b, c}, mode, policy, why))
                                QFAIL(qPrintable(why));
                            ++checked;
                        }
            } else {
                for (int i = 0; i < (kExhaustive ? 400000 : 4000); ++i) {
                    const Code a = f.codes[rng() % n];
                    const Code b = f.codes[rng() % n];
                    // Half the time c cancels the product nearly: the interesting fma cases.
                    Code c = f.codes[rng() % n];
                    if (i % 2 == 0) {
                        const ExactValue product =
                            decodeCode(f.spec, a).value * decodeCode(f.spec, b).value;
                        RoundingOptions nearest;
                        c = roundToFormat(product.negated(), f.spec, nearest).code ^ (rng() % 4);
                    }
                    if (!agreesWithModel(f, Operation::Fma, {a, b, c}, mode, policy, why))
                        QFAIL(qPrintable(why));
                    ++checked;
                }
            }
        }
    }
    QVERIFY(checked > f.codes.size() * f.codes.size());
}

void TestArithmetic::knownResults() {
    auto evaluate = [](const char* text, const char* format,
                       RoundingMode mode = RoundingMode::NearestEven) {
        const ExpressionParse parsed = parseExpression(text);
        if (!parsed)
            qFatal("%s: %s", text, parsed.error.message.c_str());
        RoundingOptions options;
        options.mode = mode;
        return evaluateInFormat(*parsed.expression, spec(format), options, 0);
    };
    // 0.1 + 0.2: each literal rounded, then the sum rounded: not the double nearest 0.3.
    const FormatEvaluation sum = evaluate("0.1+0.2", "fp64");
    QCOMPARE(hex(sum.spec, sum.code), QString("0x3fd3333333333334"));
    QCOMPARE(sum.literals.size(), std::size_t(2));
    QCOMPARE(sum.steps.size(), std::size_t(1));
    QVERIFY(sum.flags.inexact);
    const ExactEvaluation exactSum = evaluateExactly(*parseExpression("0.1+0.2").expression);
    QCOMPARE(QString::fromStdString(toDecimal(exactSum.value).text), QString("0.3"));
    QVERIFY(!exactSum.approximate);
    QCOMPARE(QString::fromStdString(toDecimal(sum.error).text),
             QString::fromStdString(toDecimal(sum.value - exactValue("0.3")).text));
    const volatile double tenth = 0.1;
    const volatile double fifth = 0.2;
    QCOMPARE(sum.code, bitsOf<double>(tenth + fifth));
    // fma rounds once: 0.1 × 10 − 1 is 2^-54 fused, 0 in two steps.
    const FormatEvaluation fused = evaluate("fma(0.1, 10, -1)", "fp64");
    QCOMPARE(QString::fromStdString(toDecimal(fused.value).text),
             QString::fromStdString(toDecimal(exactValue("2^-54")).text));
    QCOMPARE(fused.code, bitsOf<double>(std::fma(tenth, 10.0, -1.0)));
    const FormatEvaluation separate = evaluate("0.1*10 - 1", "fp64");
    QVERIFY(separate.value.isZero());
    QCOMPARE(separate.steps.size(), std::size_t(2));
    // sqrt(2): correctly rounded; the exact reference is approximate and says so.
    const FormatEvaluation root = evaluate("sqrt(2)", "fp64");
    QCOMPARE(root.code, bitsOf<double>(std::sqrt(2.0)));
    QVERIFY(root.errorApproximate);
    QVERIFY(root.steps.front().result.exact.approximate);
    const FormatEvaluation rootFp32 = evaluate("sqrt(2)", "fp32");
    QCOMPARE(rootFp32.code, bitsOf<float>(std::sqrt(2.0f)));
    const FormatEvaluation square = evaluate("sqrt(2.25)", "fp16");
    QVERIFY(!square.errorApproximate);
    QVERIFY(square.error.isZero());
    // 1/0: ∞ and divide-by-zero, no overflow; ∞ − ∞: NaN and invalid.
    const FormatEvaluation quotient = evaluate("1/0", "fp32");
    QCOMPARE(hex(quotient.spec, quotient.code), QString("0x7f800000"));
    QVERIFY(quotient.flags.divideByZero && !quotient.flags.overflow && !quotient.flags.invalid);
    QVERIFY(quotient.error.isZero()); // the exact value is ∞ too
    const FormatEvaluation difference = evaluate("inf - inf", "fp16");
    QVERIFY(difference.value.isNaN() && difference.flags.invalid);
    QVERIFY(difference.error.isNaN());
    // −0.1 is one literal: rounded up it is −0.1 rounded toward +∞, not −(0.1 rounded up).
    const FormatEvaluation negativeLiteral = evaluate("-0.1", "fp16", RoundingMode::TowardPositive);
    QCOMPARE(hex(negativeLiteral.spec, negativeLiteral.code), QString("0xae66"));
    QVERIFY(negativeLiteral.steps.empty());
    const FormatEvaluation negated = evaluate("-(0.1)", "fp16", RoundingMode::TowardPositive);
    QCOMPARE(hex(negated.spec, negated.code), QString("0xae67"));
    // Overflow in FP16: 65504 + 16 ties to 65536 → ∞ with overflow and inexact.
    const FormatEvaluation over = evaluate("65504 + 16", "fp16");
    QCOMPARE(hex(over.spec, over.code), QString("0x7c00"));
    QVERIFY(over.flags.overflow && over.flags.inexact);
    QVERIFY(over.error.isInfinity());
    // Summing 2048 + 1 in FP16 stays at 2048: the step's ULP error is −½.
    const FormatEvaluation stagnation = evaluate("2048 + 1", "fp16");
    QCOMPARE(QString::fromStdString(toDecimal(stagnation.value).text), QString("2048"));
    QVERIFY(stagnation.steps.front().ulpError.has_value());
    QCOMPARE(QString::fromStdString(toDecimal(*stagnation.steps.front().ulpError).text),
             QString("-0.5"));
}

// Literal i and operation j take stochasticBits(seed, k), k counting roundings in evaluation
// order: the same expression evaluated by hand with those bits must agree.
void TestArithmetic::stochasticDrawsInEvaluationOrder() {
    const FormatSpec format = spec("fp16");
    const ExpressionParse parsed = parseExpression("(0.1 + 0.2) * 0.3");
    QVERIFY(parsed);
    RoundingOptions options;
    options.mode = RoundingMode::Stochastic;
    for (std::uint64_t seed = 0; seed < 64; ++seed) {
        const FormatEvaluation e = evaluateInFormat(*parsed.expression, format, options, seed);
        auto bits = [&](std::uint64_t k) {
            RoundingOptions o = options;
            o.randomBits = stochasticBits(seed, k);
            return o;
        };
        auto literal = [&](const char* text, std::uint64_t k) {
            return decodeCode(format, roundToFormat(exactValue(text), format, bits(k)).code).value;
        };
        const ExactValue a = literal("0.1", 0);
        const ExactValue b = literal("0.2", 1);
        const OperationResult sum =
            applyOperation(Operation::Add, std::vector{a, b}, format, bits(2));
        const ExactValue c = literal("0.3", 3);
        const OperationResult product =
            applyOperation(Operation::Multiply, std::vector{sum.value, c}, format, bits(4));
        QCOMPARE(e.code, product.rounded.code);
        QCOMPARE(e.steps.size(), std::size_t(2));
        QCOMPARE(e.steps[0].result.rounded.code, sum.rounded.code);
    }
}

void TestArithmetic::unsupportedFormats() {
    const ExpressionParse parsed = parseExpression("1+1");
    for (const char* id : {"nf4", "fp8_e8m0"}) {
        const FormatEvaluation e = evaluateInFormat(*parsed.expression, spec(id), {}, 0);
        QVERIFY(e.unsupported.has_value());
        QVERIFY2(QString::fromStdString(*e.unsupported).contains("no arithmetic"),
                 e.unsupported->c_str());
        QVERIFY(e.steps.empty() && e.literals.empty());
    }
    const FormatEvaluation nf4 = evaluateInFormat(*parsed.expression, spec("nf4"), {}, 0);
    QVERIFY(QString::fromStdString(*nf4.unsupported).startsWith("nf4"));
}

// Integer formats compute on levels times the scale: int8 (scale 1/127) adds levels, and a
// product of levels la·lb/127 rounds to a level.
void TestArithmetic::integerLevels() {
    const FormatSpec int8 = spec("int8");
    const ExpressionParse parsed = parseExpression("0.5 * 0.5");
    const FormatEvaluation e = evaluateInFormat(*parsed.expression, int8, {}, 0);
    // 0.5 → level 64 (63.5 ties to even); 64·64/127 = 32.25… → 32.
    QCOMPARE(e.literals[0].rounded.code, Code(64));
    QCOMPARE(e.code, Code(32));
    const FormatEvaluation over =
        evaluateInFormat(*parseExpression("1 + 1").expression, int8, {}, 0);
    QCOMPARE(e.spec.id, std::string("int8"));
    QCOMPARE(over.code, Code(127));
    QVERIFY(over.flags.overflow);
}

void TestArithmetic::parserAcceptsTheGrammar() {
    const ExpressionParse p = parseExpression(" fma(2^-24, -3, (1 + 0x1p-3)) * sqrt(4) ");
    QVERIFY2(p, p.error.message.c_str());
    const Expression& root = *p.expression;
    QCOMPARE(root.op, Operation::Multiply);
    QCOMPARE(root.text, std::string("fma(2^-24, -3, (1 + 0x1p-3)) * sqrt(4)"));
    QCOMPARE(root.begin, std::size_t(1));
    const Expression& fma = root.operands[0];
    QCOMPARE(fma.op, Operation::Fma);
    QCOMPARE(fma.operands.size(), std::size_t(3));
    QVERIFY(fma.operands[0].isLiteral());
    QCOMPARE(fma.operands[0].text, std::string("2^-24"));
    QCOMPARE(QString::fromStdString(toDecimal(fma.operands[0].value).text),
             QString("5.9604644775390625e-8"));
    QCOMPARE(fma.operands[1].text, std::string("-3"));
    QVERIFY(fma.operands[1].isLiteral() && fma.operands[1].value.isNegative());
    QCOMPARE(fma.operands[2].text, std::string("1 + 0x1p-3")); // the parentheses stay outside
    QCOMPARE(root.operands[1].op, Operation::Sqrt);
    // Precedence: 1 - 2 * 3 is 1 − (2 × 3); 8 / 2 / 2 is (8 / 2) / 2.
    QCOMPARE(toDecimal(evaluateExactly(*parseExpression("1 - 2 * 3").expression).value).text,
             std::string("-5"));
    QCOMPARE(toDecimal(evaluateExactly(*parseExpression("8 / 2 / 2").expression).value).text,
             std::string("2"));
    QCOMPARE(toDecimal(evaluateExactly(*parseExpression("-2^2").expression).value).text,
             std::string("-4"));
    QCOMPARE(
        toDecimal(evaluateExactly(*parseExpression("min(1, -inf) + max(nan, 2)").expression).value)
            .text,
        std::string("-inf"));
    QCOMPARE(
        toDecimal(evaluateExactly(*parseExpression("abs(-3) × 2 − 1 ÷ 4").expression).value).text,
        std::string("5.75"));
    // −(x) with parentheses is an operation; −x on a literal is part of it.
    QCOMPARE(parseExpression("-(1)").expression->op, Operation::Negate);
    QVERIFY(parseExpression("- 1").expression->isLiteral());
    QVERIFY(parseExpression("-inf").expression->isLiteral());
}

void TestArithmetic::parserErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("position");
    QTest::addColumn<QString>("messagePart");
    QTest::newRow("empty") << "" << 0 << "empty expression";
    QTest::newRow("unclosed") << "2*(1+2" << 6 << "expected ')' to close the '(' at column 3";
    QTest::newRow("wrong close") << "(1+2]" << 4 << "to close the '(' at column 1";
    QTest::newRow("unmatched") << "1+2)" << 3 << "unmatched ')'";
    QTest::newRow("dangling") << "1+" << 2 << "expected a number";
    QTest::newRow("operator") << "1 2" << 2 << "expected an operator";
    QTest::newRow("unknown name") << "1 + foo(2)" << 4 << "unknown name 'foo'";
    QTest::newRow("too many arguments") << "sqrt(1, 2)" << 8 << "sqrt takes 1 argument";
    QTest::newRow("too few arguments") << "fma(1, 2)" << 8 << "fma takes 3 arguments, found 2";
    QTest::newRow("no parenthesis") << "sqrt 2" << 5 << "expected '(' after 'sqrt'";
    QTest::newRow("power of a sum") << "(1+1)^2" << 5 << "'^' raises only a number";
    QTest::newRow("bad exponent") << "1e+" << 3 << "exponent";
    QTest::newRow("hex") << "0x" << 0 << "hex digits";
    QTest::newRow("byte") << "1 + \x01" << 4 << "found byte 0x01";
}

void TestArithmetic::parserErrors() {
    QFETCH(QString, text);
    QFETCH(int, position);
    QFETCH(QString, messagePart);
    const ExpressionParse p = parseExpression(text.toStdString());
    QVERIFY(!p);
    QVERIFY2(QString::fromStdString(p.error.message).contains(messagePart),
             p.error.message.c_str());
    QCOMPARE(static_cast<int>(p.error.position), position);
}

void TestArithmetic::parserBoundsTheWork() {
    const std::string deep = std::string(100, '(') + "1" + std::string(100, ')');
    const ExpressionParse nested = parseExpression(deep);
    QVERIFY(!nested);
    QVERIFY(QString::fromStdString(nested.error.message).contains("nested too deeply"));
    std::string longText = "1";
    while (longText.size() <= kMaxExpressionLength)
        longText += "+1";
    const ExpressionParse tooLong = parseExpression(longText);
    QVERIFY(!tooLong);
    QVERIFY(QString::fromStdString(tooLong.error.message).contains("longer than"));
    // Exact work: products of huge powers are refused before anything is computed.
    std::string costly = "10^60000";
    for (int i = 0; i < 60; ++i)
        costly += "*10^60000";
    const ExpressionParse refused = parseExpression(costly);
    QVERIFY(!refused);
    QVERIFY(QString::fromStdString(refused.error.message).contains("too costly"));
    // A long left-leaning sum is fine, and fast.
    std::string sum = "1";
    while (sum.size() + 2 <= kMaxExpressionLength)
        sum += "+1";
    const ExpressionParse many = parseExpression(sum);
    QVERIFY(many);
    const FormatEvaluation e = evaluateInFormat(*many.expression, spec("fp16"), {}, 0);
    QCOMPARE(e.steps.size(), (sum.size() - 1) / 2);
    QCOMPARE(QString::fromStdString(toDecimal(e.value).text), QString("2048"));
}

// 1+1+…+1 as long as the parser accepts is a tree as deep as it is long: parsing, evaluating
// (exactly and in a format) and destroying it must fit a thread with a small stack, as a GUI
// worker may have.
void TestArithmetic::longChainsNeedLittleStack() {
    std::string sum = "1";
    while (sum.size() + 2 <= kMaxExpressionLength)
        sum += "+1";
    std::size_t steps = 0;
    std::string exact;
    std::unique_ptr<QThread> thread(QThread::create([&] {
        const ExpressionParse parsed = parseExpression(sum);
        if (!parsed)
            return;
        exact = toDecimal(evaluateExactly(*parsed.expression).value).text;
        steps = evaluateInFormat(*parsed.expression, spec("fp128"), {}, 0).steps.size();
    }));
    thread->setStackSize(256 * 1024);
    thread->start();
    QVERIFY(thread->wait());
    QCOMPARE(steps, (sum.size() - 1) / 2);
    QCOMPARE(exact, std::to_string(steps + 1));
}

// The teaching text of one addition in FP16: 1 + 1.1b × 2^-11 = 1 + ¾ ulp, checked by hand.
void TestArithmetic::explanationsDeriveFromBits() {
    const FormatSpec fp16 = spec("fp16");
    const ExpressionParse p = parseExpression("1 + 0x1.8p-11");
    const FormatEvaluation e = evaluateInFormat(*p.expression, fp16, {}, 0);
    const std::vector<std::string> lines = explainOperation(fp16, e.steps.back(), {});
    QString text;
    for (const std::string& line : lines)
        text += QString::fromStdString(line) + '\n';
    QVERIFY2(!lines.empty(), "no explanation");
    QVERIFY2(text.contains("1.0000000000 × 2^0"), qPrintable(text));
    QVERIFY2(text.contains("1.1000000000 × 2^-11"), qPrintable(text));
    QVERIFY2(text.contains("round up"), qPrintable(text));
    const std::vector<std::string> nf4 = explainOperation(spec("nf4"), e.steps.back(), {});
    QCOMPARE(nf4.size(), std::size_t(1));
}

// For random operations in formats of at most 8 bits (whose exact results fit the 128-bit
// rationals) in four modes: the guard, round and sticky bits the text states are those
// computed here from the exact result, the decision says "round up" exactly when the result
// lies above the truncated value, and the result line names the result's code.
void TestArithmetic::explanationsAgreeWithTheResult() {
    std::mt19937_64 rng(0x7e11);
    int checkedBits = 0;
    for (const char* id : {"fp8_e4m3", "fp8_e5m2", "fp8_e3m4", "e3m3", "fp6_e2m3", "e3m0f"}) {
        const FormatSpec format = spec(id);
        const Code mask = format.codeMask();
        for (const HardwareMode& mode : kHardwareModes) {
            RoundingOptions options;
            options.mode = mode.mode;
            for (int i = 0; i < 300; ++i) {
                const Operation op = kHardwareOps[rng() % 6];
                ExpressionStep step;
                step.op = op;
                step.text = "x";
                for (int k = 0; k < operandCount(op); ++k) {
                    step.operandCodes.push_back(rng() & mask);
                    step.operands.push_back(decodeCode(format, step.operandCodes.back()).value);
                }
                step.result = applyOperation(op, step.operands, format, options);
                const std::vector<std::string> lines = explainOperation(format, step, options);
                QString text;
                for (const std::string& line : lines)
                    text += QString::fromStdString(line) + '\n';
                QVERIFY2(text.contains("(" + hex(format, step.result.rounded.code) + ")"),
                         qPrintable(text));
                const ExactValue& x = step.result.exact.value;
                if (!x.isFinite() || x.isZero() || op == Operation::Sqrt ||
                    step.result.exact.invalid)
                    continue;
                // t = |x| / 2^q at the result's quantum q, as a rational.
                const Q magnitude = fromExact(x.abs());
                int log2 = 0;
                auto power = [](int k) { return k >= 0 ? Q{Int(1) << k, 1} : Q{1, Int(1) << -k}; };
                while (compareQ(magnitude, power(log2)) < 0)
                    --log2;
                while (compareQ(magnitude, power(log2 + 1)) >= 0)
                    ++log2;
                const int binade = std::max(log2, format.minExponent());
                const Q t = magnitude / power(binade - format.fractionBits);
                const Int kept = t.n / t.d;
                const Int rest = t.n - kept * t.d;
                const int guard = 2 * rest >= t.d;
                const int round = ((4 * rest) / t.d) % 2;
                const int sticky = (4 * rest) % t.d != 0;
                const QString bits = QString("G=%1 R=%2 S=%3").arg(guard).arg(round).arg(sticky);
                QVERIFY2(text.contains(", then " + bits), qPrintable(bits + "\n" + text));
                ++checkedBits;
                if (step.result.flags.overflow)
                    continue;
                const Q truncated = Q{kept, 1} * power(binade - format.fractionBits);
                const bool wentUp = compareQ(fromExact(step.result.value.abs()), truncated) > 0;
                const bool saysUp = text.contains("round up") && !text.contains("→ truncate");
                QVERIFY2(wentUp == saysUp, qPrintable(text));
            }
        }
    }
    QVERIFY(checkedBits > 1000);
}

QTEST_APPLESS_MAIN(TestArithmetic)
#include "tst_arithmetic.moc"
