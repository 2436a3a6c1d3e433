// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The ways accumulate() carries out one rounded addition in an accumulator format: by the
// exact core, or in a wider hardware type rounded back with WideRounder (docs/proofs.md,
// "Sums in a hardware type"). Each is a small value type with the same members, so the
// summation methods are written once as templates over them; the tests hold every one to the
// exact core.

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/wide_rounding.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

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

// Every sum s + t of an accumulator and an element format of at most 8 bits each, looked up
// (docs/proofs.md, "Sums in a hardware type"). A sequential sum then keeps the
// accumulator's code in a general-purpose register, and one term is one load from the table
// row of that term: the dependency chain of the sum is a load, whatever binade the sum is in,
// where the biased sum has to leave its loop at every power of two the sum crosses.
//
// Each entry is WideArithmetic<float>::add of the two values: the proved float path, or the
// exact core where it refuses (zeros, subnormal results, overflow, ±∞, NaN). So the table is
// the format's addition, the overflow policy and the signs of zero included, and the tests
// compare every entry with applyOperation.
//
// A term arrives as the float holding its value and is turned into its code by a second
// table, indexed by the top bits of the float. An element value with m fraction bits is a
// float whose significand has at most m bits after the point (a subnormal of the element
// format, k · 2^(emin − m) with k < 2^m, is a normal float with fewer), so the low 23 − m
// fraction bits are zero and the top 9 + m bits tell the values apart:
//
//      float:  [s] [eeeeeeee] [ f1 … fm | 0 … 0 ]     index = bits >> (23 − m)
//                                        23 − m bits, must be zero
//
// A float whose low bits are not zero, or whose index no element value has, is not a term of
// the element format (a NaN with another payload, say): termCode refuses it, and the caller
// adds it by the float path.
class AdditionTable {
  public:
    static constexpr std::uint16_t kNoCode = 0xffff;

    // The table for a float-path accumulator `arithmetic` of format `accumulator`, or nullopt
    // when either format is wider than 8 bits or a sum has no code.
    static std::optional<AdditionTable> make(const FormatSpec& element,
                                             const FormatSpec& accumulator,
                                             WideArithmetic<float> arithmetic) {
        if (element.totalBits() > 8 || accumulator.totalBits() > 8 ||
            element.kind != FormatKind::BinaryFloat || accumulator.kind != FormatKind::BinaryFloat)
            return std::nullopt;
        AdditionTable table;
        std::vector<float> termValues;
        if (!fillCodes(element, table.termShift_, table.termCodes_, &termValues) ||
            !fillCodes(accumulator, table.sumShift_, table.sumCodes_, &table.sumValues_))
            return std::nullopt;
        table.sumIsNaN_.resize(table.sumValues_.size());
        for (std::size_t c = 0; c < table.sumValues_.size(); ++c) {
            table.sumIsNaN_[c] = std::isnan(table.sumValues_[c]);
            if (table.sumIsNaN_[c] && table.nanCode_ == kNoCode)
                table.nanCode_ = static_cast<std::uint16_t>(c);
        }
        table.termIsFiniteNonZero_.resize(termValues.size());
        table.sums_.assign(termValues.size() * kRow, 0);
        for (std::size_t t = 0; t < termValues.size(); ++t) {
            table.termIsFiniteNonZero_[t] = std::isfinite(termValues[t]) && termValues[t] != 0;
            for (std::size_t s = 0; s < table.sumValues_.size(); ++s) {
                const std::uint16_t code =
                    table.sumCode(arithmetic.add(table.sumValues_[s], termValues[t]));
                if (code == kNoCode)
                    return std::nullopt;
                table.sums_[t * kRow + s] = static_cast<std::uint8_t>(code);
            }
        }
        return table;
    }

    // The element code of a term, or kNoCode when the float is not a value of the element
    // format (see above).
    std::uint16_t termCode(float t) const {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &t, sizeof bits);
        if ((bits & ((std::uint32_t(1) << termShift_) - 1)) != 0)
            return kNoCode;
        return termCodes_[bits >> termShift_];
    }
    // The row of term code t: row[s] is the accumulator code of s + t.
    const std::uint8_t* row(std::uint16_t t) const { return sums_.data() + std::size_t(t) * kRow; }
    // The accumulator code of a value of the accumulator format (NaN: a NaN code), or kNoCode.
    std::uint16_t sumCode(float v) const {
        if (std::isnan(v))
            return nanCode_;
        const auto bits = std::bit_cast<std::uint32_t>(v);
        if ((bits & ((std::uint32_t(1) << sumShift_) - 1)) != 0)
            return kNoCode;
        return sumCodes_[bits >> sumShift_];
    }
    float sumValue(std::uint16_t s) const { return sumValues_[s]; }
    bool sumIsNaN(std::uint16_t s) const { return sumIsNaN_[s] != 0; }
    bool termIsFiniteNonZero(std::uint16_t t) const { return termIsFiniteNonZero_[t] != 0; }

  private:
    static constexpr std::size_t kRow = 256; // a row per term code, an entry per sum code

    // codes[bits >> shift] = the code of each value of `spec` as a float; values[code] = it.
    // False when a value is not a float or two values share an index.
    static bool fillCodes(const FormatSpec& spec, int& shift, std::vector<std::uint16_t>& codes,
                          std::vector<float>* values) {
        if (!valuesFitFloat(spec) || spec.fractionBits > 7)
            return false;
        shift = 23 - spec.fractionBits;
        codes.assign(std::size_t(1) << (32 - shift), kNoCode);
        values->clear();
        for (Code c = 0; c <= spec.codeMask(); ++c) {
            const ExactValue v = decodeCode(spec, c).value;
            const float f = static_cast<float>(doubleFromExact(v));
            values->push_back(f);
            if (v.isNaN())
                continue; // found by sumCode's isnan; as a term, by its own float below
            const auto bits = std::bit_cast<std::uint32_t>(f);
            if ((bits & ((std::uint32_t(1) << shift) - 1)) != 0 || codes[bits >> shift] != kNoCode)
                return false;
            codes[bits >> shift] = static_cast<std::uint16_t>(c);
        }
        // A NaN term arrives as the quiet NaN the terms are stored with (makeTerms), either sign.
        for (Code c = 0; c <= spec.codeMask(); ++c)
            if (decodeCode(spec, c).value.isNaN())
                for (const float nan : {std::numeric_limits<float>::quiet_NaN(),
                                        -std::numeric_limits<float>::quiet_NaN()}) {
                    const auto bits = std::bit_cast<std::uint32_t>(nan);
                    if ((bits & ((std::uint32_t(1) << shift) - 1)) == 0 &&
                        codes[bits >> shift] == kNoCode)
                        codes[bits >> shift] = static_cast<std::uint16_t>(c);
                }
        return true;
    }

    int termShift_ = 0;
    int sumShift_ = 0;
    std::vector<std::uint16_t> termCodes_;
    std::vector<std::uint16_t> sumCodes_;
    std::vector<float> sumValues_;
    std::vector<std::uint8_t> sumIsNaN_;
    std::vector<std::uint8_t> termIsFiniteNonZero_;
    std::uint16_t nanCode_ = kNoCode;
    std::vector<std::uint8_t> sums_;
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
