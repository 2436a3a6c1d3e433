// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The ways accumulate() carries out one rounded addition in an accumulator format: by the
// exact core, or in a wider hardware type rounded back with WideRounder (docs/design.md,
// "Accumulation and dot products"). Each is a small value type with the same members, so the
// summation methods are written once as templates over them; the tests hold every one to the
// exact core.

#include "fpx/arithmetic.h"
#include "fpx/format_limits.h"
#include "fpx/wide_rounding.h"

#include <array>
#include <cmath>
#include <optional>
#include <type_traits>

namespace fpx::accumulation_ops {

// Every operation through applyOperation. Operation j of a run draws stochasticBits(seed, j)
// for stochastic rounding.
struct ExactArithmetic {
    using Value = ExactValue;
    FormatSpec spec;
    RoundingOptions rounding;
    std::uint64_t seed = 0;
    std::uint64_t operations = 0;

    Value apply(Operation op, const Value& a, const Value& b) {
        RoundingOptions options = rounding;
        options.randomBits = stochasticBits(seed, operations++);
        const std::array<ExactValue, 2> operands{a, b};
        return applyOperation(op, operands, spec, options).value;
    }
    // The exact core has no shortcut: every addition goes through add().
    bool tryAdd(const Value&, const Value&, Value&) const { return false; }
    Value add(const Value& a, const Value& b) { return apply(Operation::Add, a, b); }
    Value sub(const Value& a, const Value& b) { return apply(Operation::Subtract, a, b); }
};

// Conversions between the value types, exact in every direction they are used: a value of the
// accumulator (or element) format fits the wide type the arithmetic was chosen for.
template <class To, class From> To convertValue(const From& v) {
    if constexpr (std::is_same_v<To, From>)
        return v;
    else if constexpr (std::is_same_v<To, ExactValue>)
        return exactFromDouble(static_cast<double>(v));
    else if constexpr (std::is_same_v<From, ExactValue>)
        return static_cast<To>(doubleFromExact(v));
    else
        return static_cast<To>(v);
}

// a ± b in Wide, rounded to the accumulator's precision with WideRounder; the exact core
// decides whenever the result is not a normal finite value of the accumulator.
template <class Wide> struct WideArithmetic {
    using Value = Wide;
    using Rounder = WideRounder<Wide>;
    WideRounder<Wide> rounder;
    ExactArithmetic fallback;

    static WideArithmetic make(const FormatSpec& spec, const RoundingOptions& rounding) {
        const FormatLimits limits = deriveLimits(spec);
        return WideArithmetic{
            WideRounder<Wide>(spec.precision(),
                              static_cast<Wide>(doubleFromExact(*limits.minNormal)),
                              static_cast<Wide>(doubleFromExact(limits.max))),
            ExactArithmetic{spec, rounding}};
    }

    // a + b without the exact core, or false when it must decide. No call inside, so a loop
    // of tryAdd keeps its running sum in a register.
    bool tryAdd(Value a, Value b, Value& r) const { return rounder.round(a + b, r); }
    // Sums inside one binade of the result (WideRounder::Binade).
    using Binade = typename WideRounder<Wide>::Binade;
    std::optional<Binade> binadeOf(Value s) const { return rounder.binadeOf(s); }
    // a + b by way of the biased sum, as addWhileFast does it; a must lie in `binade`.
    static bool tryAddInBinade(Value a, Value b, const Binade& binade, Value& r) {
        Value next;
        return WideRounder<Wide>::addBiased(a + binade.magic, a, b, binade, next, r);
    }
    Value add(Value a, Value b) {
        Wide r;
        if (rounder.round(a + b, r)) [[likely]]
            return r;
        return convertValue<Wide>(
            fallback.add(convertValue<ExactValue>(a), convertValue<ExactValue>(b)));
    }
    Value sub(Value a, Value b) {
        Wide r;
        if (rounder.round(a - b, r)) [[likely]]
            return r;
        return convertValue<Wide>(
            fallback.sub(convertValue<ExactValue>(a), convertValue<ExactValue>(b)));
    }
};

// IEEE binary64 itself: the hardware's double addition (round to nearest even, gradual
// underflow, no flush to zero) is the format's operation. Non-finite results go to the exact
// core so that the overflow policy and NaN rules are the core's.
struct NativeDoubleArithmetic {
    using Value = double;
    ExactArithmetic fallback;

    bool tryAdd(Value a, Value b, Value& r) const {
        r = a + b;
        return std::isfinite(r);
    }
    Value add(Value a, Value b) {
        const double s = a + b;
        if (std::isfinite(s)) [[likely]]
            return s;
        return doubleFromExact(fallback.add(exactFromDouble(a), exactFromDouble(b)));
    }
    Value sub(Value a, Value b) {
        const double s = a - b;
        if (std::isfinite(s)) [[likely]]
            return s;
        return doubleFromExact(fallback.sub(exactFromDouble(a), exactFromDouble(b)));
    }
};

inline bool sameValue(const ExactValue& a, const ExactValue& b) {
    return !a.isNaN() && !b.isNaN() && compare(a, b) == 0;
}
inline bool sameValue(double a, double b) {
    return a == b;
}
inline bool isFiniteNonZero(const ExactValue& v) {
    return v.isFinite() && !v.isZero();
}
inline bool isFiniteNonZero(double v) {
    return std::isfinite(v) && v != 0;
}

} // namespace fpx::accumulation_ops
