// SPDX-License-Identifier: GPL-3.0-or-later
// The statistics loops compiled for baseline, and the choice among the copies.
#include "statistics_loops_body.h"

#include <cctype>
#include <cstdlib>
#include <string>

namespace fpx::tensor_file {

namespace {

// FPX_MAX_ISA as fpx_kernels reads it (x86_hardware.h, which fpx_data sits below): "avx2" hides
// AVX-512, "baseline" hides both; anything else hides nothing. Read once.
enum class IsaCap { Baseline, Avx2, Unlimited };

IsaCap maxIsa() {
    static const IsaCap cap = [] {
        const char* value = std::getenv("FPX_MAX_ISA");
        std::string name = value ? value : "";
        for (char& c : name)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return name == "avx2"       ? IsaCap::Avx2
               : name == "baseline" ? IsaCap::Baseline
                                    : IsaCap::Unlimited;
    }();
    return cap;
}

bool runsAvx512() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    return maxIsa() == IsaCap::Unlimited && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512dq");
#else
    return false;
#endif
}

bool runsAvx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // The AVX2 copy is compiled with -mavx2 -mbmi2 -mfma (core/CMakeLists.txt).
    return maxIsa() != IsaCap::Baseline && __builtin_cpu_supports("avx2") &&
           __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
}

} // namespace

const StatisticsLoops& baselineStatisticsLoops() {
    static const StatisticsLoops loops = makeStatisticsLoops("baseline");
    return loops;
}

const StatisticsLoops& fastestStatisticsLoops() {
    if (runsAvx512())
        if (const StatisticsLoops* loops = avx512StatisticsLoops())
            return *loops;
    if (runsAvx2())
        if (const StatisticsLoops* loops = avx2StatisticsLoops())
            return *loops;
    return baselineStatisticsLoops();
}

} // namespace fpx::tensor_file
