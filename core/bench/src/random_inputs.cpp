// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/backend.h"

#include "fpx/exact/parallel_chunks.h"

#include <algorithm>
#include <bit>

namespace fpx::bench {

namespace {

// One element from its own counter-based random bits (splitmix64 of seed and index), so the
// array can be filled by several threads and is the same however it is split.
float randomElement(InputDistribution distribution, std::uint64_t seed, std::uint64_t index) {
    const std::uint64_t r = stochasticBits(seed, index);
    const std::uint32_t sign = static_cast<std::uint32_t>(r >> 63) << 31;
    const std::uint32_t fraction = static_cast<std::uint32_t>(r) & 0x7fffffu;
    // Roughly normal N(0, 1): the sum of four uniform 16-bit numbers (Irwin–Hall), rescaled.
    auto normal = [&] {
        const double sum =
            static_cast<double>((r >> 0) & 0xffff) + static_cast<double>((r >> 16) & 0xffff) +
            static_cast<double>((r >> 32) & 0xffff) + static_cast<double>((r >> 48) & 0xffff);
        return static_cast<float>((sum / 65536.0 - 2.0) * 1.7320508075688772);
    };
    switch (distribution) {
    case InputDistribution::Normal:
        return normal();
    case InputDistribution::Subnormal: {
        // Binades 2^−149 … 2^−10: FP32 subnormals and the underflow range of every small format.
        const std::uint32_t binade = static_cast<std::uint32_t>((r >> 23) % 140u); // 0 … 139
        const std::uint32_t bits = binade < 23 ? (sign | (fraction >> (22 - binade)))
                                               : (sign | ((binade - 22u) << 23) | fraction);
        return std::bit_cast<float>(bits);
    }
    case InputDistribution::Overflowing: {
        // Binades 2^0 … 2^127, and ±∞ now and then: past every format's largest value.
        const std::uint32_t binade = static_cast<std::uint32_t>((r >> 23) % 130u);
        const std::uint32_t exponent = std::min(127u + binade, 255u);
        return std::bit_cast<float>(sign | (exponent << 23) | (exponent == 255u ? 0u : fraction));
    }
    case InputDistribution::WithNaN:
        // One element in eight is a NaN of either sign with a random payload.
        if ((r >> 40) % 8 == 0)
            return std::bit_cast<float>(sign | 0x7f800000u | (fraction | 1u));
        return normal();
    }
    return 0.0f;
}

} // namespace

std::vector<float> randomInputs(std::size_t count, InputDistribution distribution,
                                std::uint64_t seed) {
    std::vector<float> values(count);
    // Element i depends only on the seed and i, so the chunks are independent.
    parallelChunks(count, std::size_t(1) << 20, 0, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            values[i] = randomElement(distribution, seed, i);
    });
    return values;
}

} // namespace fpx::bench
