// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Two x86 CPU features asked for by name where the compiler knows the name, and by cpuid where
// it does not: clang 14 and 15 reject __builtin_cpu_supports("f16c") and ("avx512fp16") at
// compile time. FPX_CPU_SUPPORTS_F16C and FPX_CPU_SUPPORTS_AVX512FP16 (1 where the compiler
// takes the name) come from the build's compiler checks (core/CMakeLists.txt) for the core's
// files that ask; elsewhere (tests) they are undefined and cpuid answers, equally right.
// x86-64 with GCC or clang only.

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <cpuid.h>

namespace fpx::kernels {

// F16C (vcvtps2ph, vcvtph2ps): CPUID.1:ECX bit 29. Its instructions use the YMM registers, so
// the cpuid answer counts only where AVX is usable, which includes the operating system
// saving the YMM state (what the builtin checks as well).
// Internal linkage: the body differs between files that have the compiler's answer and files
// that ask cpuid, so one shared inline definition would break the one-definition rule.
static inline bool cpuHasF16c() {
#if defined(FPX_CPU_SUPPORTS_F16C) && FPX_CPU_SUPPORTS_F16C
    return __builtin_cpu_supports("f16c");
#else
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 &&
           (ecx & (1u << 29)) != 0;
#endif
}

// AVX512-FP16: CPUID.(EAX=7,ECX=0):EDX bit 23, usable only where AVX-512 is (ZMM state saved
// by the operating system: the builtin's "avx512f" checks that).
static inline bool cpuHasAvx512Fp16() {
#if defined(FPX_CPU_SUPPORTS_AVX512FP16) && FPX_CPU_SUPPORTS_AVX512FP16
    return __builtin_cpu_supports("avx512fp16");
#else
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __builtin_cpu_supports("avx512f") &&
           __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 && (edx & (1u << 23)) != 0;
#endif
}

} // namespace fpx::kernels

#endif
