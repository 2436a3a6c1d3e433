// SPDX-License-Identifier: GPL-3.0-or-later
// What the CPU offers, and FPX_MAX_ISA, which can hide the wider instruction sets.
#include "fpx/kernels/x86_hardware.h"

#include "fpx/kernels/cpu_has.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace fpx::kernels {

namespace {

enum class IsaCap { Baseline, Avx2, Unlimited };

struct MaxIsa {
    IsaCap cap = IsaCap::Unlimited;
    std::string note;
};

// FPX_MAX_ISA, read once: the paths a converter has chosen must not change under it.
const MaxIsa& maxIsa() {
    static const MaxIsa parsed = [] {
        const char* value = std::getenv("FPX_MAX_ISA");
        if (value == nullptr || *value == '\0')
            return MaxIsa{};
        std::string name(value);
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (name == "avx2")
            return MaxIsa{IsaCap::Avx2, "FPX_MAX_ISA=avx2: AVX-512 not used"};
        if (name == "baseline")
            return MaxIsa{IsaCap::Baseline, "FPX_MAX_ISA=baseline: AVX2, F16C, AVX-512 not used"};
        if (name == "avx512")
            return MaxIsa{IsaCap::Unlimited, "FPX_MAX_ISA=avx512: everything the CPU has"};
        return MaxIsa{IsaCap::Unlimited, "FPX_MAX_ISA=" + std::string(value) +
                                             " not understood (avx512, avx2 or baseline): ignored"};
    }();
    return parsed;
}

} // namespace

std::string maxIsaNote() {
    return maxIsa().note;
}

bool hasF16c() {
    return maxIsa().cap != IsaCap::Baseline && cpuHasF16c() && __builtin_cpu_supports("avx2");
}
bool hasAvx2() {
    // The AVX2 loop set is compiled with -mavx2 -mbmi2 -mfma.
    return maxIsa().cap != IsaCap::Baseline && __builtin_cpu_supports("avx2") &&
           __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma");
}
bool hasAvx512() {
    return maxIsa().cap == IsaCap::Unlimited && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq");
}
bool hasAvx512Bf16() {
    return hasAvx512() && __builtin_cpu_supports("avx512bf16");
}
bool hasAvx512Fp16() {
    // Without the compiler's AVX512-FP16 intrinsics its paths are not built
    // (FPX_AVX512FP16_INTRINSICS).
    return FPX_AVX512FP16_INTRINSICS && hasAvx512() && cpuHasAvx512Fp16();
}
bool hasAvx512Vbmi() {
    return hasAvx512() && __builtin_cpu_supports("avx512vbmi");
}

} // namespace fpx::kernels

#endif
