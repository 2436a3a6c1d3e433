// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/fp32_kernel.h"

#include "float_geometry.h"
#include "fpx/conversion.h"
#include "fpx/format_catalogue.h"

#include <bit>

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
    static const FormatSpec fp32 = *findFormat("fp32").spec;
    return roundToFormat(decodeCode(fp32, fp32Bits).value, *target_, options_).code;
}

Code Fp32Kernel::convert(std::uint32_t x) const {
    const bool negative = (x >> 31) != 0;
    const std::uint32_t magnitude = x & 0x7fffffffu;
    // NaN, ±∞, ±0 and negative values into unsigned formats: the exact core decides.
    if (magnitude >= 0x7f800000u || magnitude == 0 || (negative && signBit_ == 0))
        return exact(x);

    // Step 1: the input as significand × 2^exponent.
    //   fp32  [s][eeeeeeee][mmmmmmmmmmmmmmmmmmmmmmm]
    //   normal: (2^23 + m) × 2^(e − 150)   subnormal: m × 2^(1 − 150)
    const std::uint32_t biased = magnitude >> 23;
    const std::uint64_t significand =
        biased != 0 ? ((magnitude & 0x7fffffu) | 0x800000u) : (magnitude & 0x7fffffu);
    const std::int64_t exponent = (biased != 0 ? static_cast<std::int64_t>(biased) : 1) - 150;
    const std::int64_t log2 = (63 - std::countl_zero(significand)) + exponent;
    if (log2 > maxExponent_ + 1)
        return exact(x); // overflows in every mode: rare

    // Step 2: drop the bits below the target's last place (gradual underflow keeps the
    // subnormal quantum):
    //   significand = [ kept | dropped (shift bits) ]      half = 1 << (shift − 1)
    const std::int64_t binade = log2 > minExponent_ ? log2 : minExponent_;
    const std::int64_t shift = (binade - fractionBits_) - exponent;
    std::uint64_t kept = 0;
    std::uint64_t dropped = 0;
    std::uint64_t half = 0;
    if (shift <= 0) {
        kept = significand << -shift; // the target is wider here: exact
    } else if (shift < 64) {
        kept = significand >> shift;
        dropped = significand & ((std::uint64_t{1} << shift) - 1);
        half = std::uint64_t{1} << (shift - 1);
    } else {
        return exact(x); // far below the smallest subnormal: rounds to 0 or the smallest value
    }

    // Step 3: round.
    bool up = false;
    if (dropped != 0) {
        switch (options_.mode) {
        case RoundingMode::NearestEven:
            // With no fraction bits (E8M0) every significand is 1: ties go up.
            up = dropped > half || (dropped == half && (fractionBits_ == 0 || (kept & 1) != 0));
            break;
        case RoundingMode::NearestAway:
            up = dropped >= half;
            break;
        case RoundingMode::TowardZero:
            break;
        case RoundingMode::TowardPositive:
            up = !negative;
            break;
        case RoundingMode::TowardNegative:
            up = negative;
            break;
        case RoundingMode::ToOdd:
            up = (kept & 1) == 0;
            break;
        case RoundingMode::Stochastic:
            return exact(x);
        }
    }
    std::uint64_t result = kept + (up ? 1 : 0);
    std::int64_t resultExponent = binade;
    if (result == (std::uint64_t{2} << fractionBits_)) { // carry: 1.111 + 0.001 = 10.000
        result >>= 1;
        resultExponent += 1;
    }
    if (resultExponent > maxExponent_ ||
        (resultExponent == maxExponent_ && result > maxSignificand_))
        return exact(x); // overflow: policy and mode decide, rare
    if (result == 0)
        return exact(x); // underflow to zero (or E8M0's smallest value): the exact core's rules

    // Step 4: encode.
    const std::uint64_t hidden = std::uint64_t{1} << fractionBits_;
    Code fields = 0;
    if (!exponentZeroIsSubnormal_ || result >= hidden) {
        const Code field = static_cast<Code>(resultExponent + bias_);
        fields = (field << storedBits_) |
                 static_cast<Code>(explicitIntegerBit_ ? result : result - hidden);
    } else {
        fields = static_cast<Code>(result);
    }
    return (negative ? signBit_ : Code(0)) | fields;
}

void Fp32Kernel::convert(const std::uint32_t* in, Code* out, std::size_t count) const {
    for (std::size_t i = 0; i < count; ++i)
        out[i] = convert(in[i]);
}

void Fp32Kernel::convert(const std::uint32_t* in, std::uint8_t* out, std::size_t count) const {
    for (std::size_t i = 0; i < count; ++i)
        out[i] = static_cast<std::uint8_t>(convert(in[i]));
}

void Fp32Kernel::convert(const std::uint32_t* in, std::uint16_t* out, std::size_t count) const {
    for (std::size_t i = 0; i < count; ++i)
        out[i] = static_cast<std::uint16_t>(convert(in[i]));
}

void Fp32Kernel::convert(const std::uint32_t* in, std::uint32_t* out, std::size_t count) const {
    for (std::size_t i = 0; i < count; ++i)
        out[i] = static_cast<std::uint32_t>(convert(in[i]));
}

} // namespace fpx
