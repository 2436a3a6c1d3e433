// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Four AVX-512 vectors of 16 dword codes packed into one vector of 64 bytes, in order: shared
// by the byte encoders of the loop sets (bulk_loops.h) and of x86_hardware.cpp.

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace fpx::kernels {

// vpack* packs within 128-bit lanes, so lane L of the packed vector holds lane L of the four
// inputs in turn: dword 4L + v → 4v + L puts them in order. (The zero-masked permute with every
// lane kept: the plain intrinsic starts from _mm512_undefined_epi32(), which GCC 12 reports as
// maybe uninitialised.)
[[gnu::target("avx512f"), gnu::always_inline]] inline __m512i lanesInOrder(__m512i packed) {
    return _mm512_maskz_permutexvar_epi32(
        static_cast<__mmask16>(0xffff),
        _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), packed);
}

// Codes below 256, which the unsigned saturating packs keep.
[[gnu::target("avx512f,avx512bw"), gnu::always_inline]] inline __m512i
packCodesInOrder(const __m512i (&codes)[4]) {
    return lanesInOrder(_mm512_packus_epi16(_mm512_packus_epi32(codes[0], codes[1]),
                                            _mm512_packus_epi32(codes[2], codes[3])));
}

} // namespace fpx::kernels
#endif
