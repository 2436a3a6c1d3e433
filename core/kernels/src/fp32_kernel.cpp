// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/kernels/fp32_kernel.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/float_geometry.h"
#include "fpx/exact/format_catalogue.h"

#include <bit>
#include <type_traits>

namespace fpx {

std::optional<Fp32Kernel> Fp32Kernel::create(const FormatSpec& target,
                                             const RoundingOptions& options) {
    if (target.kind != FormatKind::BinaryFloat || target.fractionBits > 32 ||
        options.mode == RoundingMode::Stochastic)
        return std::nullopt;
    return Fp32Kernel(target, options);
}

Fp32Kernel::Fp32Kernel(const FormatSpec& target, const RoundingOptions& options)
    : target_(&target), options_(options) {
    const FloatGeometry g(target);
    fractionBits_ = target.fractionBits;
    minExponent_ = g.minExponent;
    maxExponent_ = g.maxExponent;
    maxSignificand_ = static_cast<std::uint64_t>(g.maxSignificand);
    bias_ = target.bias;
    storedBits_ = target.storedSignificandBits();
    explicitIntegerBit_ = target.explicitIntegerBit;
    exponentZeroIsSubnormal_ = target.exponentZeroIsSubnormal;
    signBit_ = target.signBit();
}

Code Fp32Kernel::exact(std::uint32_t fp32Bits) const {
    const FormatSpec& fp32 = fp32Spec();
    return roundToFormat(decodeCode(fp32, fp32Bits).value, *target_, options_).code;
}

namespace {

// The kernel's numbers, copied out of the object so the hot loop keeps them in registers.
struct KernelParams {
    int fractionBits;
    std::int64_t minExponent;
    std::int64_t maxExponent;
    std::uint64_t maxSignificand;
    std::int64_t bias;
    int storedBits;
    bool explicitIntegerBit;
    bool exponentZeroIsSubnormal;
    std::uint64_t signBit;
    bool hasZero;
    std::uint64_t negativeZero; // the code a negative underflow gives: −0, or +0 (fnuz)
};

// One element; `fallback` is set for the rare cases the exact core decides. The mode is a
// template parameter so that each bulk loop has no per-element switch.
template <RoundingMode Mode>
inline std::uint64_t roundFast(std::uint32_t x, const KernelParams& p, bool& fallback) {
    const bool negative = (x >> 31) != 0;
    const std::uint32_t magnitude = x & 0x7fffffffu;
    // NaN, ±∞, ±0 and negative values into unsigned formats: the exact core decides.
    if (magnitude >= 0x7f800000u || magnitude == 0 || (negative && p.signBit == 0)) {
        fallback = true;
        return 0;
    }
    // Step 1: the input as significand × 2^exponent.
    //   fp32  [s][eeeeeeee][mmmmmmmmmmmmmmmmmmmmmmm]
    //   normal: (2^23 + m) × 2^(e − 150)   subnormal: m × 2^(1 − 150)
    const std::uint32_t biased = magnitude >> 23;
    const std::uint64_t significand =
        biased != 0 ? ((magnitude & 0x7fffffu) | 0x800000u) : (magnitude & 0x7fffffu);
    const std::int64_t exponent = (biased != 0 ? static_cast<std::int64_t>(biased) : 1) - 150;
    const std::int64_t log2 = (63 - std::countl_zero(significand)) + exponent;
    if (log2 > p.maxExponent + 1) { // overflows in every mode: rare
        fallback = true;
        return 0;
    }
    // Step 2: drop the bits below the target's last place (gradual underflow keeps the
    // subnormal quantum):
    //   significand = [ kept | dropped (shift bits) ]      half = 1 << (shift − 1)
    const std::int64_t binade = log2 > p.minExponent ? log2 : p.minExponent;
    const std::int64_t shift = (binade - p.fractionBits) - exponent;
    if (shift >= 64) { // far below the smallest subnormal
        fallback = true;
        return 0;
    }
    std::uint64_t kept = 0;
    std::uint64_t dropped = 0;
    std::uint64_t half = 0;
    if (shift <= 0) {
        kept = significand << -shift; // the target is wider here: exact
    } else {
        kept = significand >> shift;
        dropped = significand & ((std::uint64_t{1} << shift) - 1);
        half = std::uint64_t{1} << (shift - 1);
    }
    // Step 3: round.
    bool up = false;
    if (dropped != 0) {
        if constexpr (Mode == RoundingMode::NearestEven)
            // With no fraction bits (E8M0) every significand is 1: ties go up.
            up = dropped > half || (dropped == half && (p.fractionBits == 0 || (kept & 1) != 0));
        else if constexpr (Mode == RoundingMode::NearestAway)
            up = dropped >= half;
        else if constexpr (Mode == RoundingMode::TowardPositive)
            up = !negative;
        else if constexpr (Mode == RoundingMode::TowardNegative)
            up = negative;
        else if constexpr (Mode == RoundingMode::ToOdd)
            up = (kept & 1) == 0;
    }
    std::uint64_t result = kept + (up ? 1 : 0);
    std::int64_t resultExponent = binade;
    if (result == (std::uint64_t{2} << p.fractionBits)) { // carry: 1.111 + 0.001 = 10.000
        result >>= 1;
        resultExponent += 1;
    }
    // Overflow: the policy and the mode decide, in the exact core (rare).
    if (resultExponent > p.maxExponent ||
        (resultExponent == p.maxExponent && result > p.maxSignificand)) {
        fallback = true;
        return 0;
    }
    // Underflow to zero keeps the sign where the format has −0; E8M0 has no zero at all.
    if (result == 0) {
        if (!p.hasZero) {
            fallback = true;
            return 0;
        }
        return negative ? p.negativeZero : 0;
    }
    // Step 4: encode.
    const std::uint64_t hidden = std::uint64_t{1} << p.fractionBits;
    std::uint64_t fields = result; // subnormal: exponent field 0
    if (!p.exponentZeroIsSubnormal || result >= hidden) {
        const auto field = static_cast<std::uint64_t>(resultExponent + p.bias);
        fields = (field << p.storedBits) | (p.explicitIntegerBit ? result : result - hidden);
    }
    return (negative ? p.signBit : 0) | fields;
}

} // namespace

template <typename Out>
void Fp32Kernel::convertAll(const std::uint32_t* in, Out* out, std::size_t count) const {
    const KernelParams p{fractionBits_,
                         minExponent_,
                         maxExponent_,
                         maxSignificand_,
                         bias_,
                         storedBits_,
                         explicitIntegerBit_,
                         exponentZeroIsSubnormal_,
                         static_cast<std::uint64_t>(signBit_),
                         target_->hasZero(),
                         target_->hasNegativeZero() ? static_cast<std::uint64_t>(signBit_) : 0};
    // The common case in a handful of integer operations: the input and the result are both
    // normal and finite. Rounding is an addition on the FP32 bits that may carry into the
    // exponent (1.111|1 + 1 → 10.000), then a shift, then a change of bias:
    //
    //   fp32  [s][eeeeeeee][mmmmmmm|ddddddddddddddd]     drop = 23 − F bits d
    //   +  increment (nearest even: 0111…1 + last kept bit; toward ∓∞: 1111…1 or 0)
    //   >> drop  →  [eeeeeeee][mmmmmmm]  −  (127 − bias) << F  →  target [e…][m…]
    //
    // Anything else — subnormal results, overflow, NaN, ±∞, zero, round-to-odd, F = 0 —
    // goes through roundFast and, for the rare cases, the exact core.
    const int drop = 23 - p.fractionBits;
    const bool bitTrick = p.exponentZeroIsSubnormal && !p.explicitIntegerBit &&
                          p.fractionBits >= 1 && p.fractionBits <= 22 && p.minExponent >= -126 &&
                          options_.mode != RoundingMode::ToOdd;
    const std::uint32_t minNormal =
        bitTrick ? static_cast<std::uint32_t>(p.minExponent + 127) << 23 : 0;
    const std::uint64_t maxMagnitude =
        (static_cast<std::uint64_t>(p.maxExponent + p.bias) << p.fractionBits) |
        (p.maxSignificand - (std::uint64_t{1} << p.fractionBits));
    const std::int64_t rebias = (p.bias - 127) * (std::int64_t{1} << p.fractionBits);
    const std::uint32_t half = bitTrick ? std::uint32_t{1} << (drop - 1) : 0;
    const std::uint32_t all = bitTrick ? (std::uint32_t{1} << drop) - 1 : 0;
    auto loop = [&](auto mode) {
        constexpr RoundingMode kMode = decltype(mode)::value;
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint32_t x = in[i];
            const std::uint32_t magnitude = x & 0x7fffffffu;
            const bool negative = (x >> 31) != 0;
            if (bitTrick && magnitude >= minNormal && magnitude < 0x7f800000u &&
                (!negative || p.signBit != 0)) {
                std::uint32_t increment = 0;
                if constexpr (kMode == RoundingMode::NearestEven)
                    increment = (half - 1) + ((magnitude >> drop) & 1);
                else if constexpr (kMode == RoundingMode::NearestAway)
                    increment = half;
                else if constexpr (kMode == RoundingMode::TowardPositive)
                    increment = negative ? 0 : all;
                else if constexpr (kMode == RoundingMode::TowardNegative)
                    increment = negative ? all : 0;
                const auto rounded = static_cast<std::int64_t>(
                    (static_cast<std::uint64_t>(magnitude) + increment) >> drop);
                const std::int64_t code = rounded + rebias;
                if (code <= static_cast<std::int64_t>(maxMagnitude)) {
                    out[i] = static_cast<Out>((negative ? p.signBit : 0) |
                                              static_cast<std::uint64_t>(code));
                    continue;
                }
            }
            bool fallback = false;
            const std::uint64_t code = roundFast<kMode>(x, p, fallback);
            out[i] = static_cast<Out>(fallback ? exact(x) : code);
        }
    };
    switch (options_.mode) {
    case RoundingMode::NearestEven:
        loop(std::integral_constant<RoundingMode, RoundingMode::NearestEven>{});
        break;
    case RoundingMode::NearestAway:
        loop(std::integral_constant<RoundingMode, RoundingMode::NearestAway>{});
        break;
    case RoundingMode::TowardZero:
        loop(std::integral_constant<RoundingMode, RoundingMode::TowardZero>{});
        break;
    case RoundingMode::TowardPositive:
        loop(std::integral_constant<RoundingMode, RoundingMode::TowardPositive>{});
        break;
    case RoundingMode::TowardNegative:
        loop(std::integral_constant<RoundingMode, RoundingMode::TowardNegative>{});
        break;
    case RoundingMode::ToOdd:
        loop(std::integral_constant<RoundingMode, RoundingMode::ToOdd>{});
        break;
    case RoundingMode::Stochastic: // refused by create()
        for (std::size_t i = 0; i < count; ++i)
            out[i] = static_cast<Out>(exact(in[i]));
        break;
    }
}

Code Fp32Kernel::convert(std::uint32_t x) const {
    Code code = 0;
    convertAll(&x, &code, 1);
    return code;
}

void Fp32Kernel::convert(const std::uint32_t* in, Code* out, std::size_t count) const {
    convertAll(in, out, count);
}

void Fp32Kernel::convert(const std::uint32_t* in, std::uint8_t* out, std::size_t count) const {
    convertAll(in, out, count);
}

void Fp32Kernel::convert(const std::uint32_t* in, std::uint16_t* out, std::size_t count) const {
    convertAll(in, out, count);
}

void Fp32Kernel::convert(const std::uint32_t* in, std::uint32_t* out, std::size_t count) const {
    convertAll(in, out, count);
}

} // namespace fpx
