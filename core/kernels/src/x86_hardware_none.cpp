// SPDX-License-Identifier: GPL-3.0-or-later
// Targets other than x86-64 with GCC or Clang: none of the instructions of x86_hardware.h.
#include "fpx/kernels/x86_hardware.h"

#if !(defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)))
#include <cstring>

namespace fpx::kernels {
std::string maxIsaNote() {
    return "";
}
bool hasF16c() {
    return false;
}
bool hasAvx2() {
    return false;
}
bool hasAvx512() {
    return false;
}
bool hasAvx512Bf16() {
    return false;
}
bool hasAvx512Fp16() {
    return false;
}
bool hasAvx512Vbmi() {
    return false;
}
void avx512BucketLookup(const BucketedBreakpoints&, const std::uint32_t*, std::uint8_t*,
                        std::size_t, OutputStores) {}
void avx512VbmiTableDecode(const std::uint8_t*, std::uint32_t*, std::size_t, const std::uint32_t*,
                           const std::uint8_t (&)[kTablePlaneBytes], std::uint8_t, OutputStores) {}
void f16cEncode(RoundingMode, const std::uint32_t*, std::uint16_t*, std::size_t,
                const std::uint32_t (&)[2], OutputStores) {}
void f16cDecode(const std::uint16_t*, std::uint32_t*, std::size_t, const std::uint32_t (&)[2],
                OutputStores) {}
void avx512Bf16Encode(const std::uint32_t*, std::uint16_t*, std::size_t, const std::uint32_t (&)[2],
                      OutputStores) {}
void avx512Fp16Encode(RoundingMode, const std::uint32_t*, std::uint16_t*, std::size_t,
                      const std::uint32_t (&)[2], OutputStores) {}
void avx512Fp16Decode(const std::uint16_t*, std::uint32_t*, std::size_t, const std::uint32_t (&)[2],
                      OutputStores) {}
void f16cEncodeBare(const std::uint32_t*, std::uint16_t*, std::size_t) {}
void streamingCopy(void* destination, const void* source, std::size_t bytes) {
    std::memcpy(destination, source, bytes);
}
void streamingFence() {}
void avx512Fp16EncodeBare(const std::uint32_t*, std::uint16_t*, std::size_t) {}
void avx512Bf16EncodeBare(const std::uint32_t*, std::uint16_t*, std::size_t) {}
} // namespace fpx::kernels

#endif
