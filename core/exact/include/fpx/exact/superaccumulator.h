// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/exact_value.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace fpx {

// The exact sum of any number of doubles (floats widen exactly): a fixed-point number wide
// enough for every double, from 2^−1074 up to 2^1024 with 64 bits of headroom for the count.
//
// It is held as 32-bit digits, each in a signed 64-bit limb: limb i weighs 2^(32·i − 1074).
// A double m·2^e (m < 2^53, e ≥ −1074) lands at bit o = e + 1074, so m·2^(o mod 32) (at most
// 85 bits) is split into three 32-bit digits added to limbs o/32, o/32 + 1 and o/32 + 2:
//
//   limb:      k+2        k+1          k
//           [ 32 bits ][ 32 bits ][ 32 bits ]
//                 m << (o mod 32)  (≤ 85 bits)
//
// Each add changes a limb by less than 2^32, so 2^30 adds cannot overflow a limb whatever
// their signs; only then (and when the value is read) are the carries propagated. That keeps
// one add to a few integer operations without a carry chain, which is what lets the exact sum
// keep pace with reading the terms.
class Superaccumulator {
  public:
    static constexpr int kLimbs = (1024 + 1074 + 64 + 32 + 31) / 32 + 3;

    void add(double x) {
        addUncounted(x);
        if (++pending_ == kCarryInterval)
            propagateCarries();
    }
    void add(float x) {
        addUncounted(x);
        if (++pending_ == kCarryInterval)
            propagateCarries();
    }
    // Many terms: the carry count is kept per stretch of terms, not per term.
    template <class T> void add(const T* data, std::size_t n) {
        while (n > 0) {
            const std::size_t stretch = std::min<std::size_t>(n, kCarryInterval - pending_);
            for (std::size_t i = 0; i < stretch; ++i)
                addUncounted(data[i]);
            data += stretch;
            n -= stretch;
            pending_ += static_cast<std::uint32_t>(stretch);
            if (pending_ == kCarryInterval)
                propagateCarries();
        }
    }

    // The exact sum so far: NaN after a NaN or after both +∞ and −∞, ±∞ after one of them.
    ExactValue value() const;

  private:
    static constexpr std::uint32_t kCarryInterval = 1u << 30;

    void addUncounted(double x) {
        const auto bits = std::bit_cast<std::uint64_t>(x);
        const auto field = static_cast<int>((bits >> 52) & 0x7ff);
        std::uint64_t m = bits & ((std::uint64_t(1) << 52) - 1);
        if (field == 0x7ff) [[unlikely]] {
            addSpecial(m != 0, (bits >> 63) != 0);
            return;
        }
        int offset = field - 1; // e + 1074 with e = field − 1075 for a normal double
        if (field != 0)
            m |= std::uint64_t(1) << 52;
        else
            offset = 0;                                // subnormal: m · 2^−1074
        const Code shifted = Code(m) << (offset & 31); // Code: an unsigned 128-bit integer
        const auto d0 = static_cast<std::int64_t>(static_cast<std::uint32_t>(shifted));
        const auto d1 = static_cast<std::int64_t>(static_cast<std::uint32_t>(shifted >> 32));
        const auto d2 = static_cast<std::int64_t>(static_cast<std::uint32_t>(shifted >> 64));
        // Negation without a branch (signs of random terms would defeat the predictor):
        // (d ^ negate) − negate is d for negate = 0 and −d for negate = −1.
        const std::int64_t negate = -static_cast<std::int64_t>(bits >> 63);
        std::int64_t* limb = &limbs_[static_cast<std::size_t>(offset >> 5)];
        limb[0] += (d0 ^ negate) - negate;
        limb[1] += (d1 ^ negate) - negate;
        limb[2] += (d2 ^ negate) - negate;
    }

    // The same for a float, without widening it: m·2^e with m < 2^24 and e ≥ −149 lands at bit
    // e + 1074 ≥ 925, and m·2^(o mod 32) < 2^55 fills two digits.
    void addUncounted(float x) {
        const auto bits = std::bit_cast<std::uint32_t>(x);
        const auto field = static_cast<int>((bits >> 23) & 0xff);
        std::uint64_t mantissa = bits & ((1u << 23) - 1);
        if (field == 0xff) [[unlikely]] {
            addSpecial(mantissa != 0, (bits >> 31) != 0);
            return;
        }
        int offset = field + 924; // e + 1074 with e = field − 150 for a normal float
        if (field != 0)
            mantissa |= std::uint64_t(1) << 23;
        else
            offset = 925; // subnormal: m · 2^−149
        const std::uint64_t shifted = mantissa << (offset & 31);
        const auto d0 = static_cast<std::int64_t>(shifted & 0xffffffffu);
        const auto d1 = static_cast<std::int64_t>(shifted >> 32);
        const std::int64_t negate = -static_cast<std::int64_t>(bits >> 31);
        std::int64_t* limb = &limbs_[static_cast<std::size_t>(offset >> 5)];
        limb[0] += (d0 ^ negate) - negate;
        limb[1] += (d1 ^ negate) - negate;
    }

    void addSpecial(bool isNaN, bool negative);
    void propagateCarries();

    std::array<std::int64_t, kLimbs> limbs_{};
    std::uint32_t pending_ = 0;
    bool nan_ = false;
    bool positiveInfinity_ = false;
    bool negativeInfinity_ = false;
};

} // namespace fpx
