// SPDX-License-Identifier: GPL-3.0-or-later
// Copies with non-temporal stores, and the fence after them.
#include "fpx/kernels/x86_hardware.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "hardware_path_support.h"

#include <immintrin.h>

#include <cstddef>
#include <cstring>

namespace fpx::kernels {

namespace {

// A whole cache line per streaming store: written in one piece, it leaves its write-combining
// buffer at once instead of waiting there for its other three parts.
[[gnu::target("avx512f")]] void streamingCopyAvx512(unsigned char* to, const unsigned char* from,
                                                    std::size_t bytes) {
    const std::size_t head = headBytes(to, bytes, 64);
    std::memcpy(to, from, head);
    std::size_t i = head;
    for (; i + 64 <= bytes; i += 64)
        _mm512_stream_si512(reinterpret_cast<__m512i*>(to + i), _mm512_loadu_si512(from + i));
    std::memcpy(to + i, from + i, bytes - i);
}

} // namespace

void streamingCopy(void* destination, const void* source, std::size_t bytes) {
    auto* to = static_cast<unsigned char*>(destination);
    const auto* from = static_cast<const unsigned char*>(source);
    if (hasAvx512()) {
        streamingCopyAvx512(to, from, bytes);
        return;
    }
    // Head up to a 16-byte boundary, 16-byte streaming stores (SSE2: every x86-64), tail.
    const std::size_t head = headBytes(to, bytes, 16);
    std::memcpy(to, from, head);
    std::size_t i = head;
    for (; i + 16 <= bytes; i += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(to + i),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i)));
    std::memcpy(to + i, from + i, bytes - i);
}

void streamingFence() {
    _mm_sfence();
}

} // namespace fpx::kernels

#endif
