// SPDX-License-Identifier: GPL-3.0-or-later
// 8-bit codes decoded by a table of FP32 answers split into byte planes (AVX512-VBMI).
#include "fpx/kernels/x86_hardware.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "hardware_path_support.h"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace fpx::kernels {

namespace {

// A 256-entry table of dwords takes 8 dword permutes and 7 blends per 16 codes
// (registerTableLoop, table_decode_loop.h), all on one port. Split into its four byte planes, each
// plane is looked up for 64 codes at once: vpermi2b picks from 128 entries by the index's
// low 7 bits, two of them and a blend on bit 7 cover 256. The four planes' bytes are then
// interleaved into dwords by unpacking, which works within 128-bit lanes:
//
//   plane bytes, per lane:  P0 = b0 of codes 0…15, P1 = b1, …
//   unpack 8 → 16 bits:     lo01 = (b0,b1) of codes 0…7,  hi01 = codes 8…15  (and P2/P3)
//   unpack 16 → 32 bits:    lo01+lo23 → codes 0…3, 4…7;   hi01+hi23 → codes 8…11, 12…15
//
// Result k lane L so holds lane L's codes 4k…4k+3. Permuting the 64 codes first (kLaneOrder:
// lane L, position 4k + i ← code 16k + 4L + i) makes result k hold codes 16k…16k+15 in order.
// 13 instructions on the permute port per 64 codes instead of about 40.
[[gnu::target("avx512f,avx512bw,avx512vbmi")]] inline __m512i tableLaneOrder() {
    alignas(64) std::uint8_t order[64];
    for (int lane = 0; lane < 4; ++lane)
        for (int k = 0; k < 4; ++k)
            for (int i = 0; i < 4; ++i)
                order[16 * lane + 4 * k + i] = static_cast<std::uint8_t>(16 * k + 4 * lane + i);
    return _mm512_load_si512(order);
}

template <OutputStores Stores>
[[gnu::target("avx512f,avx512bw,avx512vbmi")]] void
avx512VbmiTableDecodeWith(const std::uint8_t* in, std::uint32_t* out, std::size_t count,
                          const std::uint32_t* table,
                          const std::uint8_t (&planes)[kTablePlaneBytes], std::uint8_t mask) {
    // The loops over planes are unrolled so that the 16 table registers and the planes stay in
    // registers (GCC -O2 keeps such arrays on the stack otherwise).
    __m512i entries[4][4]; // [plane][64 entries]
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p)
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q)
            entries[p][q] = _mm512_loadu_si512(planes + 256 * p + 64 * q);
    const __m512i laneOrder = tableLaneOrder();
    const __m512i indexMask = _mm512_set1_epi8(static_cast<char>(mask));
    std::size_t i = 0;
    if constexpr (Stores == OutputStores::Streaming)
        for (const std::size_t head =
                 headBytes(reinterpret_cast<unsigned char*>(out), count * 4, 64) / 4;
             i < head; ++i)
            out[i] = table[in[i] & mask];
    for (; i + 64 <= count; i += 64) {
        // The zero-masked form with every lane kept: the plain intrinsic starts from
        // _mm512_undefined_epi32(), which GCC 12 reports as maybe uninitialised.
        const __m512i index = _mm512_and_si512(
            _mm512_maskz_permutexvar_epi8(~__mmask64{0}, laneOrder, _mm512_loadu_si512(in + i)),
            indexMask);
        const __mmask64 upperHalf = _mm512_movepi8_mask(index);
        __m512i plane[4];
#pragma GCC unroll 4
        for (int p = 0; p < 4; ++p)
            plane[p] = _mm512_mask_blend_epi8(
                upperHalf, _mm512_permutex2var_epi8(entries[p][0], index, entries[p][1]),
                _mm512_permutex2var_epi8(entries[p][2], index, entries[p][3]));
        const __m512i low01 = _mm512_unpacklo_epi8(plane[0], plane[1]);
        const __m512i high01 = _mm512_unpackhi_epi8(plane[0], plane[1]);
        const __m512i low23 = _mm512_unpacklo_epi8(plane[2], plane[3]);
        const __m512i high23 = _mm512_unpackhi_epi8(plane[2], plane[3]);
        const __m512i answers[4] = {
            _mm512_unpacklo_epi16(low01, low23), _mm512_unpackhi_epi16(low01, low23),
            _mm512_unpacklo_epi16(high01, high23), _mm512_unpackhi_epi16(high01, high23)};
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
            if constexpr (Stores == OutputStores::Streaming)
                _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i + 16 * k), answers[k]);
            else
                _mm512_storeu_si512(out + i + 16 * k, answers[k]);
        }
    }
    for (; i < count; ++i)
        out[i] = table[in[i] & mask];
}

} // namespace

void avx512VbmiTableDecode(const std::uint8_t* in, std::uint32_t* out, std::size_t count,
                           const std::uint32_t* table,
                           const std::uint8_t (&planes)[kTablePlaneBytes], std::uint8_t mask,
                           OutputStores stores) {
    loopFor(stores, &avx512VbmiTableDecodeWith<OutputStores::Cached>,
            &avx512VbmiTableDecodeWith<OutputStores::Streaming>)(in, out, count, table, planes,
                                                                 mask);
}

} // namespace fpx::kernels

#endif
