// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/conversion.h"

#include "fpx/exact/float_geometry.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/increment_decision.h"
#include "fpx/exact/posit.h"
#include "fpx/exact/stochastic_decision.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <stdexcept>

namespace fpx {

namespace {

constexpr std::int64_t kStochasticGuardBits = 70;

// A stand-in for |x| so small that |x| / 2^q < 2^−kStochasticGuardBits: every mode decides
// the same way for it as for the true value (nearest: below half; stochastic with 64
// random bits: up only when all of them are zero; with N ≤ 32 of them: never).
Truncation tinyTruncation() {
    Truncation t;
    t.kept = 0;
    t.remainder = 1;
    t.divisor = BigInt(1) << kStochasticGuardBits;
    return t;
}

bool isOdd(const BigInt& x) {
    return boost::multiprecision::bit_test(x, 0);
}

// Whether the kept code is odd, for ties to even and round to odd. With fraction bits its last
// bit is the significand's. Without (precision 1) every significand is the digit 1: P3109 reads
// the code's own last bit, the exponent field's (`biased`, that of the binade kept), zero being
// even; elsewhere "even" is meaningless and OCP, PyTorch and ml_dtypes round E8M0's ties up,
// as if the kept value were odd.
bool keptIsOdd(const Truncation& t, const FormatSpec& spec, std::int64_t biased) {
    if (spec.fractionBits > 0)
        return isOdd(t.kept);
    if (spec.evenCodeTies)
        return t.kept != 0 && (biased & 1) != 0;
    return true;
}

// ---------------------------------------------------------------------------------------
// Binary floats
// ---------------------------------------------------------------------------------------

// Result of a finite value too large for the format, by mode and policy (docs/behaviour.md,
// "Conversion rules"):
//   saturate            → ±max
//   ieee, nearest/sr    → ±∞ (NaN where there is no ∞; ±max where there is neither)
//   ieee, toward zero   → ±max   (also round-to-odd, which truncates)
//   ieee, rup / rdn     → ∞ on the side the mode rounds to, max on the other
//   satpropagate        → ±max
//   satnone             → ±∞ where the format has it, else ±max; ±max on the side a directed
//                         mode rounds toward zero, and for round to odd into an unsigned format
//                         (P3109 4.7.5, whose rules these are)
Conversion overflowResult(const FloatGeometry& g, bool negative, const RoundingOptions& options) {
    ConversionFlags flags;
    flags.overflow = true;
    flags.inexact = true;
    if (options.overflow == OverflowPolicy::SatNone) {
        const RoundingMode m = options.mode;
        const bool towardZero = m == RoundingMode::TowardZero ||
                                (m == RoundingMode::TowardNegative && !negative) ||
                                (m == RoundingMode::TowardPositive && negative) ||
                                (m == RoundingMode::ToOdd && !g.spec.isSigned);
        if (g.spec.hasInfinity() && !towardZero)
            return Conversion{g.infinityCode(negative), flags};
        return Conversion{g.signedMaxCode(negative), flags};
    }
    bool toInfinity = true;
    if (options.overflow == OverflowPolicy::Saturate ||
        options.overflow == OverflowPolicy::SatPropagate) {
        toInfinity = false;
    } else {
        switch (options.mode) {
        case RoundingMode::TowardZero:
        case RoundingMode::ToOdd:
            toInfinity = false;
            break;
        case RoundingMode::TowardPositive:
            toInfinity = !negative;
            break;
        case RoundingMode::TowardNegative:
            toInfinity = negative;
            break;
        default:
            break;
        }
    }
    if (!toInfinity)
        return Conversion{g.signedMaxCode(negative), flags};
    return Conversion{g.infinityOrNaNOrMax(negative), flags};
}

Conversion roundFloat(const ExactValue& x, const FloatGeometry& g, const RoundingOptions& options);

// A negative value into an unsigned format. IEEE-style policies have no rule for it: NaN, or the
// lowest value when saturating (or where there is no NaN). P3109 rounds first and saturates
// after: what rounds to zero is zero; what does not lies below the lowest value, 0, and gives 0
// under SatPropagate and under SatNone in the modes that round toward zero, NaN otherwise.
Conversion negativeIntoUnsigned(const ExactValue& x, const FloatGeometry& g,
                                const RoundingOptions& options) {
    const FormatSpec& spec = g.spec;
    ConversionFlags flags;
    flags.invalid = true;
    switch (options.overflow) {
    case OverflowPolicy::Ieee:
        return Conversion{spec.hasNaN() ? g.nanCode(false) : g.lowestCode, flags};
    case OverflowPolicy::Saturate:
        return Conversion{g.lowestCode, flags};
    case OverflowPolicy::SatPropagate:
    case OverflowPolicy::SatNone:
        break;
    }
    // −∞ needs no rounding: NaN under SatNone, whatever the mode; the lowest value, 0, under
    // SatPropagate.
    const bool toNaN = options.overflow == OverflowPolicy::SatNone && spec.hasNaN();
    if (x.isInfinity())
        return Conversion{toNaN ? g.nanCode(false) : g.lowestCode, flags};
    // The magnitude rounded as the negative value would be: toward −∞ is away from zero.
    RoundingOptions magnitude = options;
    magnitude.overflow = OverflowPolicy::Ieee;
    if (options.mode == RoundingMode::TowardNegative)
        magnitude.mode = RoundingMode::TowardPositive;
    else if (options.mode == RoundingMode::TowardPositive)
        magnitude.mode = RoundingMode::TowardZero;
    const Conversion rounded = roundFloat(x.abs(), g, magnitude);
    if (rounded.code == g.zeroCode(false))
        return rounded;
    const bool towardZero =
        options.mode == RoundingMode::TowardZero || options.mode == RoundingMode::TowardPositive;
    return Conversion{toNaN && !towardZero ? g.nanCode(false) : g.lowestCode, flags};
}

Conversion roundFloat(const ExactValue& x, const FloatGeometry& g, const RoundingOptions& options) {
    const FormatSpec& spec = g.spec;
    const bool negative = x.isNegative();

    if (x.isNaN()) {
        if (spec.hasNaN())
            return Conversion{g.nanCode(negative), {}};
        // No NaN (OCP FP6/FP4): implementation-defined. Like ml_dtypes, the code 1…0 that
        // would be −0 stands in for +NaN (and +0 for −NaN).
        ConversionFlags flags;
        flags.invalid = true;
        return Conversion{negative ? Code(0) : spec.signBit(), flags};
    }

    // Unsigned formats (E8M0) hold no negative value: −x is NaN, or the lowest value when
    // saturating. −0 is just zero.
    if (!spec.isSigned && negative && !x.isZero())
        return negativeIntoUnsigned(x, g, options);

    if (x.isInfinity()) {
        if (options.overflow == OverflowPolicy::SatPropagate ||
            options.overflow == OverflowPolicy::SatNone) {
            // P3109: ∞ stays where the format has it, else the extreme finite value (−∞ into
            // an unsigned format is negativeIntoUnsigned's).
            if (spec.hasInfinity())
                return Conversion{g.infinityCode(negative), {}};
            ConversionFlags flags;
            flags.overflow = true;
            return Conversion{g.signedMaxCode(negative), flags};
        }
        if (spec.hasInfinity() && options.overflow == OverflowPolicy::Ieee)
            return Conversion{g.infinityCode(negative), {}};
        ConversionFlags flags;
        flags.overflow = true;
        if (options.overflow == OverflowPolicy::Saturate || !spec.hasNaN())
            return Conversion{g.signedMaxCode(negative), flags};
        return Conversion{g.nanCode(negative), flags};
    }

    if (x.isZero()) {
        if (!spec.hasZero()) {
            // E8M0 has no zero: NaN (as ml_dtypes), or its smallest value when saturating.
            ConversionFlags flags;
            flags.invalid = true;
            if (options.overflow == OverflowPolicy::Saturate ||
                options.overflow == OverflowPolicy::SatPropagate)
                return Conversion{g.lowestCode, flags};
            return Conversion{g.nanCode(false), flags};
        }
        return Conversion{g.zeroCode(negative), {}};
    }

    const ExactValue magnitude = x.abs();
    const std::int64_t log2 = magnitude.floorLog2();
    if (log2 > g.maxExponent + 1) // |x| ≥ 2^(emax+2) > max: overflows in every mode
        return overflowResult(g, negative, options);

    // Step 1: the exponent of the last kept bit. Below the normal range the quantum stays at
    // that of the subnormals (gradual underflow):
    //
    //    normal     1.fffffff × 2^e        quantum 2^(e − F)
    //    subnormal  0.000ffff × 2^emin     quantum 2^(emin − F)
    const std::int64_t binade = std::max<std::int64_t>(log2, g.minExponent);
    const std::int64_t quantum = binade - spec.fractionBits;

    // Step 2: split |x| / 2^quantum into kept bits and the discarded fraction.
    const Truncation t =
        (log2 < quantum - kStochasticGuardBits) ? tinyTruncation() : truncateAt(magnitude, quantum);

    // Step 3: round. An increment may carry into the next binade:
    //    1.1111111 + 0.0000001 = 10.0000000  → significand 1.0000000, exponent + 1
    BigInt significand = t.kept;
    if (incrementsKept(t, negative, options, keptIsOdd(t, spec, binade + spec.bias)))
        significand += 1;
    std::int64_t exponent = binade;
    if (significand == g.carrySignificand) {
        significand >>= 1;
        exponent += 1;
    }

    ConversionFlags flags;
    flags.inexact = t.inexact();

    // Step 4: overflow is decided after rounding, with an unbounded exponent.
    if (exponent > g.maxExponent ||
        (exponent == g.maxExponent && significand > BigInt(g.maxSignificand)))
        return overflowResult(g, negative, options);

    // Underflow: tiny after rounding (as if the exponent range were unbounded) and inexact.
    if (flags.inexact && log2 < g.minExponent) {
        bool tiny = true;
        if (log2 == g.minExponent - 1) {
            // Only a value just below 2^emin can round up to it at full precision.
            const Truncation full = truncateAt(magnitude, log2 - spec.fractionBits);
            BigInt rounded = full.kept;
            if (incrementsKept(full, negative, options,
                               keptIsOdd(full, spec, g.minExponent - 1 + spec.bias)))
                rounded += 1;
            tiny = rounded != g.carrySignificand;
        }
        flags.underflow = tiny;
    }

    if (significand == 0) {
        if (!spec.hasZero()) { // E8M0: nothing below 2^−127; keep the smallest value
            flags.underflow = true;
            return Conversion{g.lowestCode, flags};
        }
        return Conversion{g.zeroCode(negative), flags};
    }

    // Step 5: encode. Normal: biased exponent and the fraction without its hidden bit;
    // subnormal: exponent field 0 and the significand as is.
    Code fields = 0;
    const Code sig = static_cast<Code>(significand);
    if (!spec.exponentZeroIsSubnormal || sig >= g.hiddenBit) {
        const Code biased = static_cast<Code>(exponent + spec.bias);
        const Code stored = spec.explicitIntegerBit ? sig : (sig - g.hiddenBit);
        fields = (biased << spec.storedSignificandBits()) | stored;
    } else {
        fields = sig; // fp80: the explicit integer bit is 0 here, as it must be
    }
    return Conversion{(negative ? spec.signBit() : Code(0)) | fields, flags};
}

// ---------------------------------------------------------------------------------------
// Integers: x → clamp(round(x / scale)), two's complement (or unsigned) code.
// ---------------------------------------------------------------------------------------

Conversion roundInteger(const ExactValue& x, const FormatSpec& spec,
                        const RoundingOptions& options) {
    const int bits = spec.integerBits;
    const BigInt qmax = spec.isSigned ? (BigInt(1) << (bits - 1)) - 1 : (BigInt(1) << bits) - 1;
    const BigInt qmin = spec.isSigned ? -(BigInt(1) << (bits - 1)) : BigInt(0);
    auto encode = [&](const BigInt& level) {
        const BigInt wrapped = level < 0 ? (BigInt(1) << bits) + level : level;
        return static_cast<Code>(wrapped);
    };

    ConversionFlags flags;
    if (x.isNaN()) {
        flags.invalid = true;
        return Conversion{0, flags};
    }
    if (x.isInfinity()) {
        flags.overflow = true;
        return Conversion{encode(x.isNegative() ? qmin : qmax), flags};
    }
    if (x.isZero())
        return Conversion{0, flags};

    const ExactValue q = x / spec.scale;
    const bool negative = q.isNegative();
    BigInt level;
    if (q.floorLog2() > bits + 1) {
        level =
            negative ? BigInt(qmin - 1) : BigInt(qmax + 1); // certainly out of range: clamp below
        flags.inexact = true;
    } else {
        const Truncation t = truncateAt(q.abs(), 0);
        flags.inexact = t.inexact();
        level = t.kept;
        if (incrementsKept(t, negative, options, isOdd(t.kept)))
            level += 1;
        if (negative)
            level = -level;
    }
    if (level > qmax || level < qmin) {
        flags.overflow = true;
        flags.inexact = true;
        level = level > qmax ? qmax : qmin;
    }
    if (level == 0 && flags.inexact)
        flags.underflow = true;
    return Conversion{encode(level), flags};
}

// ---------------------------------------------------------------------------------------
// Lookup tables (NF4): x / absmax → the neighbouring table entry chosen by the mode.
// ---------------------------------------------------------------------------------------

Conversion roundLookup(const ExactValue& x, const FormatSpec& spec,
                       const RoundingOptions& options) {
    // The table's entries are distinct but need not be in order. Rather than sorting them on
    // every call, the neighbours of q (largest entry ≤ q, smallest entry > q) are found by
    // bisection where the entries ascend with the code (NF4's do: a check of adjacent entries,
    // cheaper than comparisons with q, which is rarely a short dyadic number), and by one scan
    // otherwise. Past the table's ends, the smallest or largest entry is the neighbour found.
    const std::size_t size = spec.table.size();
    const auto smallestEntry = [&]() -> std::size_t {
        std::size_t smallest = 0;
        for (std::size_t i = 1; i < size; ++i)
            if (compare(spec.table[i], spec.table[smallest]) < 0)
                smallest = i;
        return smallest;
    };
    auto zeroCode = [&]() -> Code {
        for (std::size_t i = 0; i < size; ++i)
            if (spec.table[i].isZero())
                return i;
        return smallestEntry();
    };

    ConversionFlags flags;
    if (x.isNaN()) {
        flags.invalid = true;
        return Conversion{zeroCode(), flags};
    }
    if (x.isZero())
        return Conversion{zeroCode(), flags};
    const ExactValue q = x.isInfinity() ? x : x / spec.scale;

    // Largest entry ≤ q and smallest entry > q (size when there is none).
    std::size_t belowCode = size, aboveCode = size;
    bool ascending = true;
    for (std::size_t i = 1; i < size && ascending; ++i)
        ascending = compare(spec.table[i - 1], spec.table[i]) < 0;
    if (ascending) {
        std::size_t first = 0, count = size; // the first entry above q lies in [first, first+count]
        while (count > 0) {
            const std::size_t half = count / 2;
            if (compare(spec.table[first + half], q) > 0) {
                count = half;
            } else {
                first += half + 1;
                count -= half + 1;
            }
        }
        aboveCode = first;
        belowCode = first == 0 ? size : first - 1;
    } else {
        for (std::size_t i = 0; i < size; ++i) {
            if (compare(spec.table[i], q) > 0) {
                if (aboveCode == size || compare(spec.table[i], spec.table[aboveCode]) < 0)
                    aboveCode = i;
            } else if (belowCode == size || compare(spec.table[i], spec.table[belowCode]) > 0) {
                belowCode = i;
            }
        }
    }
    if (belowCode == size || aboveCode == size) {
        // Below the smallest entry (every entry lies above q) or at or beyond the largest.
        const std::size_t edge = belowCode == size ? aboveCode : belowCode;
        if (compare(spec.table[edge], q) != 0) {
            flags.overflow = true;
            flags.inexact = !q.isInfinity(); // ±∞ → ±max is a clamp, as for integers
        }
        return Conversion{edge, flags};
    }
    const std::size_t lo = belowCode;
    const std::size_t hi = aboveCode;
    if (compare(spec.table[lo], q) == 0)
        return Conversion{lo, flags};

    flags.inexact = true;
    const ExactValue below = q - spec.table[lo];
    const ExactValue above = spec.table[hi] - q;
    const bool loIsCloserToZero = compare(spec.table[lo].abs(), spec.table[hi].abs()) < 0;
    bool pickHigh = false;
    switch (options.mode) {
    case RoundingMode::NearestEven:
    case RoundingMode::NearestAway: {
        const int c = compare(below, above);
        if (c != 0)
            pickHigh = c > 0;
        else if (options.mode == RoundingMode::NearestEven)
            pickHigh = (lo % 2) != 0;
        else
            pickHigh = loIsCloserToZero;
        break;
    }
    case RoundingMode::TowardZero:
        pickHigh = !loIsCloserToZero;
        break;
    case RoundingMode::TowardPositive:
        pickHigh = true;
        break;
    case RoundingMode::TowardNegative:
        pickHigh = false;
        break;
    case RoundingMode::ToOdd:
        pickHigh = (lo % 2) == 0;
        break;
    case RoundingMode::Stochastic: {
        // Away from zero with probability (distance to the nearer-to-zero level) / gap, as
        // in the float and integer paths, so the same random bits move ±x alike.
        const ExactValue gap = spec.table[hi] - spec.table[lo];
        const ExactValue fromNear = loIsCloserToZero ? below : above;
        const bool away =
            stochasticRoundsAway(fromNear / gap, options.randomBits, options.stochastic);
        pickHigh = loIsCloserToZero ? away : !away;
        break;
    }
    }
    const std::size_t chosen = pickHigh ? hi : lo;
    if (spec.table[chosen].isZero())
        flags.underflow = true;
    return Conversion{chosen, flags};
}

} // namespace

bool acceptsStandInInput(const FormatSpec& spec, const ExactValue& standIn) {
    // A posit's rounding boundaries are short dyadic numbers too (posit.h).
    if (spec.kind == FormatKind::BinaryFloat || spec.kind == FormatKind::Posit ||
        !standIn.isFinite() || standIn.isZero())
        return true;
    const std::int64_t log2 = (standIn / spec.scale).floorLog2();
    // Levels lie within 2^bits (integers) or 2 (NF4's table); anything 4× beyond clamps, and
    // anything below 2^−80 of a level rounds like every other tiny value.
    const std::int64_t top = spec.kind == FormatKind::Integer ? spec.integerBits + 1 : 2;
    return log2 > top || log2 < -80;
}

Conversion roundToFormat(const ExactValue& input, const FormatSpec& spec,
                         const RoundingOptions& options) {
    switch (spec.kind) {
    case FormatKind::BinaryFloat:
        return roundFloat(input, FloatGeometry(spec), options);
    case FormatKind::Integer:
        return roundInteger(input, spec, options);
    case FormatKind::Lookup:
        return roundLookup(input, spec, options);
    case FormatKind::Posit:
        return roundPosit(input, spec, options);
    }
    return {};
}

double nearestDouble(const ExactValue& input, const RoundingOptions& options) {
    return std::bit_cast<double>(
        static_cast<std::uint64_t>(roundToFormat(input, fp64Spec(), options).code));
}

std::string_view valueClassName(ValueClass c) {
    switch (c) {
    case ValueClass::Zero:
        return "zero";
    case ValueClass::Subnormal:
        return "subnormal";
    case ValueClass::Normal:
        return "normal";
    case ValueClass::Infinity:
        return "inf";
    case ValueClass::NaN:
        return "nan";
    }
    return "?";
}

namespace {

DecodedCode decodeFloat(const FormatSpec& spec, Code code) {
    const FloatGeometry g(spec);
    DecodedCode d;
    d.code = code;
    const int stored = spec.storedSignificandBits();
    d.sign = spec.isSigned && (code & spec.signBit()) != 0;
    d.exponentField = (code >> stored) & spec.exponentFieldMax();
    d.significandField = code & lowBitsMask(stored);
    const Code fraction = code & spec.fractionMask();
    const bool integerBit =
        spec.explicitIntegerBit && ((d.significandField >> spec.fractionBits) & 1);
    const bool allOnesExponent = d.exponentField == spec.exponentFieldMax();

    auto setNaN = [&](bool canonical) {
        d.valueClass = ValueClass::NaN;
        d.value = ExactValue::nan(d.sign);
        d.canonical = canonical;
        return d;
    };

    switch (spec.specials) {
    case SpecialEncoding::Ieee:
        if (allOnesExponent) {
            if (spec.explicitIntegerBit && !integerBit)
                return setNaN(false); // x87 pseudo-infinity / pseudo-NaN: invalid operands
            if (fraction == 0) {
                d.valueClass = ValueClass::Infinity;
                d.value = ExactValue::infinity(d.sign);
                return d;
            }
            return setNaN(true);
        }
        break;
    case SpecialEncoding::NanAtAllOnes:
        if (allOnesExponent && fraction == spec.fractionMask())
            return setNaN(true);
        break;
    case SpecialEncoding::NanAtNegativeZero:
        if (code == spec.signBit())
            return setNaN(true);
        break;
    case SpecialEncoding::None:
        break;
    }
    if (spec.infinityAtTop && (code & ~spec.signBit()) == g.maxCode + 1) {
        d.valueClass = ValueClass::Infinity;
        d.value = ExactValue::infinity(d.sign);
        return d;
    }

    if (spec.exponentZeroIsSubnormal && d.exponentField == 0) {
        d.unbiasedExponent = g.minExponent;
        if (d.significandField == 0) {
            d.valueClass = ValueClass::Zero;
            d.value = ExactValue::zero(d.sign);
            return d;
        }
        // 0.fff × 2^emin (an x87 pseudo-denormal has its integer bit set: same formula).
        d.valueClass = integerBit ? ValueClass::Normal : ValueClass::Subnormal;
        d.canonical = !integerBit;
        d.value = ExactValue::dyadic(d.sign, BigInt(d.significandField),
                                     g.minExponent - spec.fractionBits);
        return d;
    }
    if (spec.explicitIntegerBit && !integerBit)
        return setNaN(false); // x87 unnormal: an invalid operand
    d.unbiasedExponent = static_cast<int>(static_cast<std::int64_t>(d.exponentField) - spec.bias);
    const Code significand =
        spec.explicitIntegerBit ? d.significandField : (g.hiddenBit | fraction);
    d.valueClass = ValueClass::Normal;
    d.value = ExactValue::dyadic(d.sign, BigInt(significand),
                                 static_cast<std::int64_t>(d.unbiasedExponent) - spec.fractionBits);
    return d;
}

} // namespace

DecodedCode decodeCode(const FormatSpec& spec, Code code) {
    code &= spec.codeMask();
    switch (spec.kind) {
    case FormatKind::BinaryFloat:
        return decodeFloat(spec, code);
    case FormatKind::Posit:
        return decodePosit(spec, code);
    case FormatKind::Integer: {
        DecodedCode d;
        d.code = code;
        const int bits = spec.integerBits;
        std::int64_t level = static_cast<std::int64_t>(code);
        // Two's complement of `bits` bits: code − 2^bits, worked out in unsigned arithmetic,
        // which wraps; as a signed subtraction int63's negative codes would overflow
        // (2^63 − 1 − (−2^63)).
        if (spec.isSigned && bits < 64 && (code >> (bits - 1)) & 1)
            level = static_cast<std::int64_t>(static_cast<std::uint64_t>(code) -
                                              (std::uint64_t{1} << bits));
        else if (spec.isSigned && bits == 64)
            level = static_cast<std::int64_t>(static_cast<std::uint64_t>(code));
        d.level = level;
        d.sign = level < 0;
        d.value = ExactValue::integer(BigInt(level)) * spec.scale;
        d.valueClass = level == 0 ? ValueClass::Zero : ValueClass::Normal;
        return d;
    }
    case FormatKind::Lookup: {
        DecodedCode d;
        d.code = code;
        d.level = static_cast<std::int64_t>(code);
        if (code >= spec.table.size())
            throw std::out_of_range("decodeCode: code outside the lookup table");
        d.value = spec.table[static_cast<std::size_t>(code)] * spec.scale;
        d.sign = d.value.isNegative();
        d.valueClass = d.value.isZero() ? ValueClass::Zero : ValueClass::Normal;
        return d;
    }
    }
    return {};
}

ExactValue roundedInto(const ExactValue& input, const FormatSpec& spec,
                       const RoundingOptions& options) {
    return decodeCode(spec, roundToFormat(input, spec, options).code).value;
}

} // namespace fpx
