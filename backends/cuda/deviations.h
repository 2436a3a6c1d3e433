// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Decides whether a difference between a CUDA path and the exact core falls into one of the
// path's declared deviation classes (conversion_runner.h). Used by the benchmark to word its
// notes and by tst_cuda to fail on every other difference. Only the core is needed.

#include "conversion_runner.h"

#include "fpx/bulk_conversion.h"

#include <cstdint>

namespace fpx::cuda {

class DeviationJudge {
  public:
    DeviationJudge(const FormatSpec& format, const RoundingOptions& options,
                   bench::Direction direction, unsigned deviations)
        : format_(format), options_(options), direction_(direction), deviations_(deviations) {
        if (direction == bench::Direction::Encode &&
            (deviations & (kDeviationOverflowInput | kDeviationNanInputToInfinity)) != 0) {
            // Largest finite magnitude: FLT_MAX rounded toward zero (IEEE overflow in a
            // directed mode toward zero gives the largest finite value), decoded.
            const std::uint32_t fltMax = 0x7f7fffffu;
            std::uint32_t code = 0;
            encodeWithExactCore(format_, {RoundingMode::TowardZero, OverflowPolicy::Ieee, 0},
                                &fltMax, &code, 1);
            maxFiniteBits_ = decodeBits(code) & 0x7fffffffu;
        }
    }

    // Whether `got` (the path's answer) may differ from `expected` (the exact core's) for
    // this input (FP32 bits for an encode, the code for a decode).
    bool explains(std::uint32_t input, std::uint32_t got, std::uint32_t expected) const {
        if (direction_ == bench::Direction::Decode) {
            if ((deviations_ & kDeviationNanEncoding) != 0 && isNanBits(expected) && isNanBits(got))
                return true;
            // An infinity code: ±inf where the saturating exact core gives ±FLT_MAX (no finite
            // code of a format the GPU decodes is FLT_MAX), same sign.
            return (deviations_ & kDeviationInfinityInput) != 0 &&
                   (expected & 0x7fffffffu) == 0x7f7fffffu &&
                   got == ((expected & 0x80000000u) | 0x7f800000u);
        }
        const std::uint32_t magnitude = input & 0x7fffffffu;
        if ((deviations_ & kDeviationNanEncoding) != 0 && isNanBits(decodeBits(expected)) &&
            isNanBits(decodeBits(got)))
            return true;
        if ((deviations_ & kDeviationNanInputAnyCode) != 0 && magnitude > 0x7f800000u &&
            !format_.hasNaN())
            return true;
        if ((deviations_ & kDeviationInfinityInput) != 0 && magnitude == 0x7f800000u)
            return true;
        if ((deviations_ & kDeviationNanInputToInfinity) != 0 && magnitude > 0x7f800000u) {
            // Decoded as IEEE: the saturating policy would read an infinity code as ±FLT_MAX.
            RoundingOptions ieee = options_;
            ieee.overflow = OverflowPolicy::Ieee;
            std::uint32_t gotBits = 0;
            decodeWithExactCore(format_, ieee, &got, &gotBits, 1);
            const std::uint32_t gotMagnitude = gotBits & 0x7fffffffu;
            if ((gotBits & 0x80000000u) == (input & 0x80000000u) &&
                (gotMagnitude == 0x7f800000u || gotMagnitude == maxFiniteBits_))
                return true;
        }
        if ((deviations_ & kDeviationOverflowInput) != 0 && magnitude < 0x7f800000u &&
            magnitude > maxFiniteBits_)
            return true;
        return false;
    }

    static bool isNanBits(std::uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }

  private:
    // The exact core's FP32 bits of a code (little-endian: the code's bytes come first).
    std::uint32_t decodeBits(std::uint32_t code) const {
        std::uint32_t bits = 0;
        decodeWithExactCore(format_, options_, &code, &bits, 1);
        return bits;
    }

    FormatSpec format_;
    RoundingOptions options_;
    bench::Direction direction_;
    unsigned deviations_;
    std::uint32_t maxFiniteBits_ = 0x7f800000u;
};

} // namespace fpx::cuda
