// SPDX-License-Identifier: GPL-3.0-or-later
// nf4_dq's 8-bit absmaxes: one value per 64 elements, so plain scalar code; what must be exact
// is (docs/proofs.md, "Fast paths and how they are proved", "Block quantizers"):
//   - the mean of the absmaxes: their exact sum (Superaccumulator) divided and rounded once by
//     the exact core;
//   - each group's spread max |a − offset|: reached at the group's largest or smallest absmax,
//     two exact subtractions;
//   - each code RNE((a − offset) / g): a − offset is exact in a double when the two FP32
//     numbers' bits span at most 53 places; the double quotient gives k0 within one of the
//     answer, and exact comparisons of a − offset with (k0 ± 1/2) · g (products of at most 9
//     and 24 significant bits) settle it, ties to even. Elsewhere the exact core rounds.
#include "block_quant_nf4_dq.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/superaccumulator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace fpx::kernels {

namespace {

constexpr std::size_t kGroup = 256; // absmax codes sharing one FP32 scale
constexpr RoundingOptions kNearestSaturating{RoundingMode::NearestEven, OverflowPolicy::Saturate};

// floor(log2 |x|) and the exponent of x's last place, for a non-zero FP32 x.
int floorLog2(float x) {
    int exponent = 0;
    std::frexp(x, &exponent);
    return exponent - 1;
}
int lastPlace(float x) {
    return std::max(floorLog2(x), -126) - 23;
}

// Whether a − b is exact in a double: it is a multiple of the smaller last place and below
// 2^(larger exponent + 1).
bool differenceFitsDouble(float a, float b) {
    if (a == 0 || b == 0)
        return true;
    const int top = std::max(floorLog2(a), floorLog2(b)) + 1;
    const int low = std::min(lastPlace(a), lastPlace(b));
    return top - low <= 53;
}

double roundToInteger(double x) {
    return (x + 0x1.8p52) - 0x1.8p52; // |x| < 2^51: nearest-even (docs/proofs.md)
}

// RNE(d / g) for d exact, g > 0 an FP32 number, |d / g| within a few hundred.
double nearestQuotient(double d, double g) {
    const double k0 = roundToInteger(d / g);
    const double up = (k0 + 0.5) * g;   // exact: 9 and 24 significant bits
    const double down = (k0 - 0.5) * g; // exact
    const auto even = [](double lo) { return std::fmod(lo, 2.0) == 0 ? lo : lo + 1; };
    if (d > up)
        return k0 + 1;
    if (d == up)
        return even(k0);
    if (d < down)
        return k0 - 1;
    if (d == down)
        return even(k0 - 1);
    return k0;
}

} // namespace

void doubleQuantizeAbsmaxes(QuantizedTensor& quantized, const FormatSpec& levelFormat) {
    std::vector<std::uint32_t>& codes = quantized.scaleCodes;
    const std::size_t blocks = codes.size();
    const auto absmax = [&](std::size_t j) { return std::bit_cast<float>(codes[j]); };
    Superaccumulator sum;
    for (std::size_t j = 0; j < blocks; ++j)
        sum.add(absmax(j));
    const float offset =
        blocks == 0 ? 0.0f : fp32ScaleOf(sum.value() / ExactValue::integer(BigInt(blocks)));
    quantized.tensorScale = offset;
    const ExactValue exactOffset = exactFromDouble(offset);
    const int qmax = (1 << (levelFormat.integerBits - 1)) - 1;
    const std::uint32_t mask = (1u << levelFormat.integerBits) - 1u;
    quantized.groupScales.clear();
    for (std::size_t first = 0; first < blocks; first += kGroup) {
        const std::size_t last = std::min(blocks, first + kGroup);
        float lowest = absmax(first), highest = absmax(first);
        for (std::size_t j = first; j < last; ++j) {
            lowest = std::min(lowest, absmax(j));
            highest = std::max(highest, absmax(j));
        }
        const ExactValue above = exactFromDouble(highest) - exactOffset;
        const ExactValue below = exactOffset - exactFromDouble(lowest);
        const ExactValue spread = compare(above, below) >= 0 ? above : below;
        const float groupScale = spread.isZero() || spread.isNegative()
                                     ? 1.0f
                                     : fp32ScaleOf(spread / ExactValue::integer(BigInt(qmax)));
        quantized.groupScales.push_back(groupScale);
        const ExactValue exactGroup = exactFromDouble(groupScale);
        for (std::size_t j = first; j < last; ++j) {
            const float a = absmax(j);
            double k = 0;
            if (differenceFitsDouble(a, offset)) {
                k = nearestQuotient(static_cast<double>(a) - static_cast<double>(offset),
                                    static_cast<double>(groupScale));
            } else {
                const Conversion c = roundToFormat((exactFromDouble(a) - exactOffset) / exactGroup,
                                                   levelFormat, kNearestSaturating);
                const std::uint32_t code = static_cast<std::uint32_t>(c.code) & mask;
                k = code > mask / 2 ? static_cast<double>(code) - (mask + 1.0)
                                    : static_cast<double>(code);
            }
            k = std::clamp(k, -static_cast<double>(qmax), static_cast<double>(qmax));
            codes[j] = static_cast<std::uint32_t>(static_cast<std::int32_t>(k)) & mask;
        }
    }
}

} // namespace fpx::kernels
