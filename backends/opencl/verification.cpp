// SPDX-License-Identifier: GPL-3.0-or-later
#include "verification.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace fpx::opencl {

namespace {

float toFloat(std::uint32_t bits) {
    return std::bit_cast<float>(bits);
}
std::uint32_t toBits(float value) {
    return std::bit_cast<std::uint32_t>(value);
}

// The value, its two FP32 neighbours (toward ±∞), both signs.
void pushWithNeighbours(std::vector<std::uint32_t>& out, float value) {
    if (std::isnan(value))
        return;
    for (const float v : {value, std::nextafter(value, std::numeric_limits<float>::infinity()),
                          std::nextafter(value, -std::numeric_limits<float>::infinity())}) {
        out.push_back(toBits(v));
        out.push_back(toBits(-v));
    }
}

std::string hex(std::uint32_t value, int bytes) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%0*x", bytes * 2, static_cast<unsigned>(value));
    return text;
}

} // namespace

std::vector<std::uint32_t> adversarialFp32(const std::vector<std::uint32_t>& values) {
    std::vector<std::uint32_t> out;

    // Specials: zeros, infinities, quiet and signalling NaNs with payloads, FP32 subnormals.
    for (const std::uint32_t sign : {0u, 0x80000000u})
        for (const std::uint32_t magnitude :
             {0x0u, 0x7f800000u, 0x7fc00000u, 0x7f800001u, 0x7fbfffffu, 0x7fffffffu, 0x7fc00001u,
              0x7fa00000u, 0x7f802000u, 0x1u, 0x2u, 0x3u, 0x100u, 0x400000u, 0x7fffffu, 0x7f7fffffu,
              0x800000u})
            out.push_back(sign | magnitude);

    // Every exponent, with fractions on, just below and just above every rounding position
    // k (a tie when k bits are dropped) and with an odd or even kept part.
    std::vector<std::uint32_t> fractions = {0u, 0x7fffffu, 0x555555u, 0x2aaaaau, 0x7ffffeu};
    for (std::uint32_t k = 0; k < 23; ++k) {
        const std::uint32_t bit = 1u << k;
        fractions.insert(fractions.end(), {bit, bit - 1u, bit + 1u, (bit - 1u) | 0x400000u,
                                           bit | (bit << 1), (bit | (bit << 1)) - 1u,
                                           (bit | (bit << 1)) + 1u, 0x7fffffu & ~(bit - 1u)});
    }
    for (std::uint32_t exponent = 0; exponent < 256; ++exponent)
        for (const std::uint32_t fraction : fractions)
            for (const std::uint32_t sign : {0u, 0x80000000u})
                out.push_back(sign | (exponent << 23) | (fraction & 0x7fffffu));

    // Every value of the format, its neighbours, and the midpoints between consecutive values.
    std::vector<float> finite;
    for (const std::uint32_t bits : values) {
        const float v = std::fabs(toFloat(bits));
        if (std::isfinite(v))
            finite.push_back(v);
    }
    std::sort(finite.begin(), finite.end());
    finite.erase(std::unique(finite.begin(), finite.end()), finite.end());
    if (!finite.empty() && finite.front() != 0.0f)
        finite.insert(finite.begin(), 0.0f); // the midpoint below the smallest value
    for (std::size_t i = 0; i < finite.size(); ++i) {
        pushWithNeighbours(out, finite[i]);
        const double next =
            i + 1 < finite.size()
                ? static_cast<double>(finite[i + 1])
                // Past the largest finite value: the next value of an unbounded
                // exponent range, whose midpoint is the overflow tie.
                : 2.0 * finite[i] - (i > 0 ? static_cast<double>(finite[i - 1]) : 0.0);
        const double midpoint = (static_cast<double>(finite[i]) + next) / 2.0;
        if (midpoint < std::numeric_limits<float>::max())
            pushWithNeighbours(out, static_cast<float>(midpoint));
        if (i + 1 == finite.size() && next < std::numeric_limits<float>::max())
            pushWithNeighbours(out, static_cast<float>(next));
    }

    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<std::uint8_t> adversarialCodes(int bits, int bytes, std::size_t limit) {
    const std::uint64_t codes = bits >= 64 ? ~std::uint64_t{0} : std::uint64_t{1} << bits;
    const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(codes, limit));
    const std::uint64_t stride = codes <= limit ? 1 : codes / limit;
    std::vector<std::uint8_t> out(count * static_cast<std::size_t>(bytes));
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t code = static_cast<std::uint32_t>(i * stride);
        std::memcpy(out.data() + i * static_cast<std::size_t>(bytes), &code,
                    static_cast<std::size_t>(bytes)); // little-endian hosts only
    }
    return out;
}

std::uint32_t loadPacked(const void* data, int bytes, std::size_t index) {
    const auto* p =
        static_cast<const std::uint8_t*>(data) + index * static_cast<std::size_t>(bytes);
    switch (bytes) {
    case 1:
        return p[0];
    case 2: {
        std::uint16_t v;
        std::memcpy(&v, p, 2);
        return v;
    }
    default: {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    }
}

CheckOutcome compareOutputs(const void* inputs, int inBytes, const void* expected,
                            const void* actual, int outBytes, std::size_t count,
                            const std::function<bool(std::uint32_t)>& isNaN) {
    CheckOutcome outcome;
    outcome.checked = count;
    // Whole blocks first: equal blocks (almost all of them) are compared with memcmp.
    constexpr std::size_t kBlock = 4096;
    const auto* e = static_cast<const std::uint8_t*>(expected);
    const auto* a = static_cast<const std::uint8_t*>(actual);
    const std::size_t width = static_cast<std::size_t>(outBytes);
    for (std::size_t start = 0; start < count; start += kBlock) {
        const std::size_t n = std::min(kBlock, count - start);
        if (std::memcmp(e + start * width, a + start * width, n * width) == 0)
            continue;
        for (std::size_t i = start; i < start + n; ++i) {
            const std::uint32_t want = loadPacked(expected, outBytes, i);
            const std::uint32_t got = loadPacked(actual, outBytes, i);
            if (want == got)
                continue;
            ++outcome.mismatches;
            if (isNaN && isNaN(want) && isNaN(got))
                ++outcome.nanMismatches;
            if (outcome.firstMismatch.empty())
                outcome.firstMismatch = "input " + hex(loadPacked(inputs, inBytes, i), inBytes) +
                                        ": expected " + hex(want, outBytes) + ", got " +
                                        hex(got, outBytes);
        }
    }
    return outcome;
}

void CheckOutcome::add(const CheckOutcome& other) {
    checked += other.checked;
    mismatches += other.mismatches;
    nanMismatches += other.nanMismatches;
    if (firstMismatch.empty())
        firstMismatch = other.firstMismatch;
}

std::string CheckOutcome::describe() const {
    if (mismatches == 0)
        return {};
    std::string text = std::to_string(mismatches) + " of " + std::to_string(checked) +
                       " elements differ from the exact core";
    if (nanMismatches == mismatches)
        text += " (all NaN payloads or signs: both results are NaN)";
    else if (nanMismatches > 0)
        text += " (" + std::to_string(nanMismatches) + " of them NaN payloads or signs)";
    return text + "; first: " + firstMismatch;
}

} // namespace fpx::opencl
