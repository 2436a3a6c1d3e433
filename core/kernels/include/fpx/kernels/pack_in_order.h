// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Four vectors of dword codes packed into one vector of bytes, in order (AVX-512: 64 bytes,
// AVX2: 32), and two vectors of dwords into words or of words into bytes: shared by the byte
// encoders of the loop sets (make_loop_set.h) and of the hardware paths (x86_hardware.h).

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

// A two-vector pack (within 128-bit lanes: lane L holds 8 bytes of the first vector's lane L,
// then 8 of the second's) put in order by one vpermq: the first's quadwords at 0, 2, 4, 6 → 0…3.
[[gnu::target("avx512f"), gnu::always_inline]] inline __m512i quadwordsInOrder(__m512i packed) {
    return _mm512_maskz_permutexvar_epi64(static_cast<__mmask8>(0xff),
                                          _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), packed);
}

// Two AVX-512 vectors of 16 dword codes (below 2^16) packed into 32 words, in order.
[[gnu::target("avx512f,avx512bw"), gnu::always_inline]] inline __m512i
packWordsInOrder(__m512i first, __m512i second) {
    return quadwordsInOrder(_mm512_packus_epi32(first, second));
}

// Two AVX-512 vectors of 32 word codes (below 256) packed into 64 bytes, in order.
[[gnu::target("avx512f,avx512bw"), gnu::always_inline]] inline __m512i
packBytesInOrder(__m512i first, __m512i second) {
    return quadwordsInOrder(_mm512_packus_epi16(first, second));
}

// The same for four AVX2 vectors of 8 dword codes into 32 bytes: vpack* packs within 128-bit
// lanes, dword 4L + v → 2v + L.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i lanesInOrder(__m256i packed) {
    return _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

[[gnu::target("avx2"), gnu::always_inline]] inline __m256i
packCodesInOrder(const __m256i (&codes)[4]) {
    return lanesInOrder(_mm256_packus_epi16(_mm256_packus_epi32(codes[0], codes[1]),
                                            _mm256_packus_epi32(codes[2], codes[3])));
}

// Two AVX2 vectors of 8 dword codes (below 2^16) into 16 words: quadwords 0, 2, 1, 3.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i packWordsInOrder(__m256i first,
                                                                            __m256i second) {
    return _mm256_permute4x64_epi64(_mm256_packus_epi32(first, second), 0b11011000);
}

} // namespace fpx::kernels
#endif
