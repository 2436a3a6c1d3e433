// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// What the hand-written block encoders share: the rules for their special values, their loop
// (encodeCodes) and, with AVX-512, their store of 64 codes in order.

#include "fpx/kernels/pack_in_order.h"
#include "line_streaming.h"
#include "loop_set.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace {

using namespace fpx;
using namespace fpx::kernels;

#if defined(__AVX2__)
// The hand-written nearest-even encoders (floats to codes of 1, 2 or 4 bytes, integers to
// bytes; AVX-512 where the loop set has it, AVX2 otherwise) share these rules, decided once per
// parameter set, and this loop.

// unsignedZeroApplies (element_conversion.h) says whether the unsigned-zero sign rule gives
// every answer of a format.

// How a float byte encoder finds the answers beyond its normal formula:
//
// - Overflow (code > maxMagnitude): by one vpminud with the overflow code where that is
//   maxMagnitude (saturation) or maxMagnitude + 1 (E4M3's NaN 0x7f, E5M2's ∞ 0x7c, fnuz's NaN
//   0x80), instead of a compare and a select.
// - NaN and ±∞: they take the normal formula; where it lands above maxMagnitude for all of
//   them, the overflow step catches them, and only answers that differ from the overflow answer
//   need their own test (E4M3 IEEE: all three are 0x7f). The sum |x| + addend + lsb wraps
//   modulo 2^32 by design (the addend holds −rebias); over the NaN and ∞ magnitudes it must not
//   cross a multiple of 2^32, so that it grows with |x| there and ∞'s sum is the smallest.
struct SpecialTests {
    bool overflowByMin = false;
    bool nan = true;
    bool infinity = true;
};
SpecialTests specialTests(const EncodeParams& p) {
    const std::uint64_t lowest = std::uint64_t{0x7f800000u} + p.nearestEvenAddend;
    const std::uint64_t highest = std::uint64_t{0x7fffffffu} + p.nearestEvenAddend + 1u;
    const bool noWrap = lowest >> 32 == highest >> 32;
    const bool specialsOverflow = noWrap && roundFloatMagnitude<RoundingMode::NearestEven>(
                                                p, 0x7f800000u, 0, 0) > p.maxMagnitude;
    return {p.overflowCode[0] == p.maxMagnitude || p.overflowCode[0] == p.maxMagnitude + 1u,
            !specialsOverflow || p.nanCode[0] != p.overflowCode[0],
            !specialsOverflow || p.infinityCode[0] != p.overflowCode[0]};
}

// Calls f(make(tests)) with `tests` a SpecialTests value as a template argument
// (std::integral_constant), so that the block encoder `make` returns has no branches for it.
template <typename Make, typename F>
void withSpecialTests(SpecialTests tests, const Make& make, const F& f) {
    const auto call = [&](auto overflowByMin, auto nan, auto infinity) {
        constexpr SpecialTests kTests{decltype(overflowByMin)::value, decltype(nan)::value,
                                      decltype(infinity)::value};
        f(make(std::integral_constant<SpecialTests, kTests>{}));
    };
    const auto withInfinity = [&](auto overflowByMin, auto nan) {
        tests.infinity ? call(overflowByMin, nan, std::true_type{})
                       : call(overflowByMin, nan, std::false_type{});
    };
    const auto withNaN = [&](auto overflowByMin) {
        tests.nan ? withInfinity(overflowByMin, std::true_type{})
                  : withInfinity(overflowByMin, std::false_type{});
    };
    tests.overflowByMin ? withNaN(std::true_type{}) : withNaN(std::false_type{});
}

// The integer encoder's clamp: |x| at most this (2^30 in units of the scale) rounds to an
// int32 beyond every code.
double integerClampMagnitude(const EncodeParams& p) {
    return 0x1p30 / p.reciprocalScale;
}

// Whether the integer byte encoder's answers are exactly these: zero 0, saturation for
// overflow and ±∞, one NaN code, codes within what the signed saturating packs keep (the NaN
// code goes in before them).
bool integerByteEncoderApplies(const EncodeParams& p) {
    const std::uint32_t minCode = (0u - p.maxNegativeMagnitude) & p.codeMask;
    return p.kind == EncodeKind::SignedInteger && p.reciprocalScale > 0 &&
           integerClampMagnitude(p) < 1e300 && p.zeroCode[0] == 0u && p.zeroCode[1] == 0u &&
           p.overflowCode[0] == p.maxMagnitude && p.overflowCode[1] == minCode &&
           p.infinityCode[0] == p.overflowCode[0] && p.infinityCode[1] == p.overflowCode[1] &&
           p.nanCode[0] == p.nanCode[1] && p.maxMagnitude <= 127u &&
           p.maxNegativeMagnitude <= 128u && p.nanCode[0] <= p.maxMagnitude;
}

// A hand-written encoder's loop: whole blocks of 64 codes by the encoder's block function
// encode64(in, out) (see withBlockEncoder), the rest one at a time; streaming (outputs far
// beyond the cache) in the interleaved runs of encodeLoop (encode_loop.h).
template <OutputStores Stores, typename Encoder, typename Out>
void encodeCodes(const Encoder& encoder, const std::uint32_t* __restrict__ in,
                 Out* __restrict__ out, std::size_t count) {
    encoder.withBlockEncoder([&](const auto& encode64) {
        if constexpr (Stores == OutputStores::Streaming) {
            streamLocalBlocks(
                in, out, count,
                [&](std::size_t first, std::size_t n) {
                    encodeCodes<OutputStores::Cached>(encoder, in + first, out + first, n);
                },
                [&](std::size_t first, auto& block) { encode64(in + first, block); });
        } else {
            std::size_t i = 0;
            for (; i + 64 <= count; i += 64)
                encode64(in + i, out + i);
            for (; i < count; ++i)
                out[i] = encoder.encodeOne(in[i]);
        }
    });
}
#endif

#if defined(__AVX512BW__) && defined(__AVX512DQ__)
// The zero-masked forms of some intrinsics are used with every lane kept: the plain ones start
// from _mm512_undefined_epi32(), which GCC 12 reports as maybe uninitialised.
constexpr __mmask16 kAllLanes = 0xffff;
constexpr __mmask32 kAllWordLanes = 0xffffffffu;

// 64 dword codes (four vectors of 16, in order) stored as 64 codes of Out: bytes by the packs
// (codes below 256), words likewise (below 2^16), dwords as they are.
template <typename Out>
[[gnu::always_inline]] inline void storeCodesInOrder(Out* out, const __m512i (&codes)[4]) {
    if constexpr (sizeof(Out) == 1) {
        _mm512_storeu_si512(out, packCodesInOrder(codes));
    } else if constexpr (sizeof(Out) == 2) {
        _mm512_storeu_si512(out, packWordsInOrder(codes[0], codes[1]));
        _mm512_storeu_si512(out + 32, packWordsInOrder(codes[2], codes[3]));
    } else {
        for (int v = 0; v < 4; ++v)
            _mm512_storeu_si512(out + 16 * v, codes[v]);
    }
}
#endif

} // namespace
