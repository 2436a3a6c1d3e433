// SPDX-License-Identifier: GPL-3.0-or-later
// Direct casts of FP32 tensors (docs/proofs.md, "Block quantizers", "Block
// quantizers"). quantizeExactly casts a finite x by roundToFormat(x, nearest-even, saturating)
// and NaN or ±∞ by roundToFormat with the default options; it counts x as clipped when that
// rounding sets the overflow flag and as flushed when x ≠ 0 and its code's value is zero.
//   - Finite codes: BulkEncoder with the same options, proved and tested against the exact core;
//     for IEEE binary32 and binary64, which hold every FP32 value (no rounding happens), the
//     value's own encoding: the FP32 bits, or those of the same value as a double.
//   - NaN and ±∞: four codes, worked out here by the exact core, replace the encoder's.
//   - Counts: the rounding is monotone in x and goes by |x| (a sign-magnitude format rounds
//     the magnitude and keeps the sign), so "overflows" holds exactly for |x| at or above one
//     boundary and "rounds to a zero" exactly for |x| at or below another. FP32 magnitude bits
//     order like the magnitudes, so each boundary is one magnitude, found by bisection over
//     the bits with the exact core itself and checked for the other sign:
//         clipped  ⇔  clipFrom ≤ |x|bits < 0x7f800000
//         flushed  ⇔  1 ≤ |x|bits ≤ flushUpTo
#include "direct_cast.h"

#include "quantizer_plan.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/packed_codes.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <utility>

namespace fpx {

namespace {

constexpr RoundingOptions kNearestSaturating{RoundingMode::NearestEven, OverflowPolicy::Saturate};
constexpr std::uint32_t kInfinityBits = 0x7f800000u;
// Elements counted at a time: the loops count in 32-bit lanes.
constexpr std::size_t kCountRun = std::size_t(1) << 30;
constexpr std::uint32_t kLargestFinite = 0x7f7fffffu;

// The FP32 number with these magnitude bits (finite), exactly.
ExactValue exactFp32(std::uint32_t magnitude, bool negative) {
    if (magnitude == 0)
        return ExactValue::zero(negative);
    const std::uint32_t field = magnitude >> 23;
    const std::uint32_t fraction = magnitude & 0x7fffffu;
    if (field == 0)
        return ExactValue::dyadic(negative, BigInt(fraction), -149);
    return ExactValue::dyadic(negative, BigInt(fraction | 0x800000u),
                              static_cast<std::int64_t>(field) - 150);
}

bool overflows(const FormatSpec& element, std::uint32_t magnitude, bool negative) {
    return roundToFormat(exactFp32(magnitude, negative), element, kNearestSaturating)
        .flags.overflow;
}

bool roundsToZero(const FormatSpec& element, std::uint32_t magnitude, bool negative) {
    const Code code =
        roundToFormat(exactFp32(magnitude, negative), element, kNearestSaturating).code;
    return decodeCode(element, code).value.isZero();
}

// The smallest magnitude that overflows (kInfinityBits when none does), by bisection.
std::uint32_t firstOverflow(const FormatSpec& element) {
    std::uint32_t lo = 0, hi = kInfinityBits; // overflows(hi) taken as true
    while (lo < hi) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (overflows(element, mid, false))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

// The largest magnitude that rounds to a zero (0 rounds to one), by bisection.
std::uint32_t lastZero(const FormatSpec& element) {
    std::uint32_t lo = 0, hi = kLargestFinite;
    while (lo < hi) {
        const std::uint32_t mid = lo + (hi - lo + 1) / 2;
        if (roundsToZero(element, mid, false))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

bool isIeeeInterchange(const FormatSpec& spec, int exponentBits, int fractionBits) {
    return spec.kind == FormatKind::BinaryFloat && spec.isSigned &&
           spec.specials == SpecialEncoding::Ieee && !spec.explicitIntegerBit &&
           spec.exponentZeroIsSubnormal && spec.exponentBits == exponentBits &&
           spec.fractionBits == fractionBits && spec.bias == (1 << (exponentBits - 1)) - 1;
}

Code widened(std::uint32_t bits, bool toBinary64) {
    if (!toBinary64)
        return bits;
    return std::bit_cast<std::uint64_t>(static_cast<double>(std::bit_cast<float>(bits)));
}

} // namespace

std::optional<DirectCast> DirectCast::create(const FormatSpec& element) {
    if (element.kind != FormatKind::BinaryFloat || !element.isSigned)
        return std::nullopt;
    DirectCast cast;
    if (std::optional<BulkEncoder> encoder = BulkEncoder::create(element, kNearestSaturating)) {
        cast.name_ = encoder->path().name;
        cast.bytes_ = encoder->bytesPerElement();
        cast.encoder_ = std::move(encoder);
    } else if (isIeeeInterchange(element, 8, 23) || isIeeeInterchange(element, 11, 52)) {
        cast.widening_ = element.exponentBits == 8 ? Widening::Binary32 : Widening::Binary64;
        cast.name_ = element.exponentBits == 8 ? "the FP32 bits as they are" : "widening to FP64";
        cast.bytes_ = element.exponentBits == 8 ? 4 : 8;
        // The encoding is the standard one: a few values, each sign, as the exact core has them.
        for (const std::uint32_t bits : {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu,
                                         0x3f800000u, 0xc0490fdbu, 0x7f7fffffu, 0xff7fffffu})
            if (roundToFormat(exactFp32(bits & 0x7fffffffu, (bits >> 31) != 0), element).code !=
                widened(bits, cast.widening_ == Widening::Binary64))
                return std::nullopt;
    } else {
        return std::nullopt;
    }
    if (cast.bytes_ != packedBytes(element))
        return std::nullopt;
    cast.clipFrom_ = firstOverflow(element);
    cast.flushUpTo_ = lastZero(element);
    // The same boundaries for negative inputs, and none at 0: else no fast path.
    if (overflows(element, 0, false) || overflows(element, 0, true))
        return std::nullopt;
    if (cast.clipFrom_ < kInfinityBits &&
        (!overflows(element, cast.clipFrom_, true) || overflows(element, cast.clipFrom_ - 1, true)))
        return std::nullopt;
    if (!roundsToZero(element, cast.flushUpTo_, true) ||
        (cast.flushUpTo_ < kLargestFinite && roundsToZero(element, cast.flushUpTo_ + 1, true)))
        return std::nullopt;
    if (cast.flushUpTo_ >= cast.clipFrom_)
        return std::nullopt;
    cast.nonFiniteCodes_[0] = roundToFormat(ExactValue::nan(false), element).code;
    cast.nonFiniteCodes_[1] = roundToFormat(ExactValue::nan(true), element).code;
    cast.nonFiniteCodes_[2] = roundToFormat(ExactValue::infinity(false), element).code;
    cast.nonFiniteCodes_[3] = roundToFormat(ExactValue::infinity(true), element).code;
    return cast;
}

void DirectCast::cast(const std::uint32_t* in, std::size_t count, std::uint8_t* codes,
                      CastTally& tally) const {
    if (encoder_) {
        encoder_->encode(in, codes, count);
    } else if (widening_ == Widening::Binary32) {
        std::memcpy(codes, in, count * sizeof(std::uint32_t));
    } else {
        for (std::size_t i = 0; i < count; ++i) {
            const double d = std::bit_cast<float>(in[i]);
            std::memcpy(codes + i * sizeof(double), &d, sizeof(double));
        }
    }
    std::size_t clipped = 0, flushed = 0, nonFinite = 0;
    for (std::size_t first = 0; first < count; first += kCountRun)
        quantizer::fastestLoops().castCounts(in + first, std::min(kCountRun, count - first),
                                             clipFrom_, flushUpTo_, clipped, flushed, nonFinite);
    tally.clipped += clipped;
    tally.flushed += flushed;
    if (nonFinite == 0)
        return;
    const int bytes = bytesPerCode();
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t m = in[i] & 0x7fffffffu;
        if (m < kInfinityBits)
            continue;
        const bool nan = m > kInfinityBits;
        const bool negative = (in[i] >> 31) != 0;
        writePackedCode(codes, bytes, i, nonFiniteCodes_[(nan ? 0 : 2) + (negative ? 1 : 0)]);
        ++(nan ? tally.nanInputs : tally.infInputs);
    }
}

} // namespace fpx
