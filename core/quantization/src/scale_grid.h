// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// NVFP4's block scale codes from their values (gridCode, in the block loops of
// block_quant_body.h), and the check that the scale format is laid out as that formula
// assumes (gridCodesAgree), made once when the quantizer is set up (tensor_quantizer.cpp)
// rather than in every call of the loops. Internal linkage: the loop sets include this too,
// each compiled with its own instruction set, so the copies never mix.

#include "block_quant_loops.h"

#include <bit>
#include <cstdint>

namespace {

// 2^e as a double (e within the double's normal range).
inline double powerOfTwo(int e) {
    return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
}

// The code of a value r on the scale format's grid (0 ≤ r ≤ its max), from r's exponent
// instead of the general encoder: with e = max(floor(log2 r), emin) and P = 2^(p − 1),
//   code = (e − emin) · P + r · 2^(p − 1 − e)      (an exact integer in a double)
//   normal r = 2^e · (1.f):   (e − emin + 1) · P + .f · P  =  [ exponent field | fraction ]
//   subnormal r < 2^emin:     r / 2^(emin − p + 1)         =  [ 0             | fraction ]
// which is a binary float's layout with subnormals and bias 1 − emin. Whether the scale
// format is laid out so is checked (gridCodesAgree), not assumed.
inline std::uint32_t gridCode(const fpx::kernels::BlockQuantParams& p, double r) {
    const int e0 = static_cast<int>((std::bit_cast<std::uint64_t>(r) >> 52) & 0x7ffu) - 1023;
    const int e = e0 > p.scaleMinExponent ? e0 : p.scaleMinExponent;
    const double fieldUnit = static_cast<double>(1u << (p.scalePrecision - 1));
    return static_cast<std::uint32_t>((e - p.scaleMinExponent) * fieldUnit +
                                      r * powerOfTwo(p.scalePrecision - 1 - e));
}

// gridCode equals the encoder on every value roundToScaleGrid can return: the grid values
// v(c) (the inverse of the formula above, ascending in c) up to the scale's max, and the max.
inline bool gridCodesAgree(const fpx::kernels::BlockQuantParams& p) {
    if (p.scalePrecision < 1 || p.scalePrecision > 8)
        return false;
    const auto encode = [&](double r) {
        return fpx::kernels::encodeElementOf<fpx::RoundingMode::NearestEven,
                                             fpx::kernels::EncodeKind::BinaryFloat>(
            p.scaleEncoder, std::bit_cast<std::uint32_t>(static_cast<float>(r)), 0);
    };
    const std::uint32_t unit = 1u << (p.scalePrecision - 1);
    const int lowest = p.scaleMinExponent - p.scalePrecision + 1; // the subnormal spacing
    for (std::uint32_t c = 0; c < 256; ++c) {
        const std::uint32_t field = c / unit, fraction = c % unit;
        const double r = field == 0
                             ? fraction * powerOfTwo(lowest)
                             : (unit + fraction) * powerOfTwo(static_cast<int>(field) - 1 + lowest);
        if (r > p.scaleMax)
            break;
        if (encode(r) != c)
            return false;
    }
    return encode(p.scaleMax) == gridCode(p, p.scaleMax);
}

} // namespace
