// SPDX-License-Identifier: GPL-3.0-or-later
#include "cpu_arithmetic.h"

#include "fpx/kernels/x86_hardware.h"

#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace fpx::bench {

namespace {

// Iterations per call: long enough that a call is ~100 µs, short enough to calibrate.
constexpr int kIterations = 4096;
// Independent accumulators: an FMA has 4 cycles of latency and two issue ports, so at least
// 8 chains are needed to keep both busy; 12 leave margin.
constexpr int kChains = 12;

// Portable fallback: what the compiler makes of plain C++ (it vectorises the chains).
template <typename T> double scalarFma() {
    T acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = static_cast<T>(c + 1) * T(1e-3);
    const T a = T(0.999999), b = T(1e-7);
    for (int i = 0; i < kIterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = acc[c] * a + b;
    double sum = 0;
    for (int c = 0; c < kChains; ++c)
        sum += static_cast<double>(acc[c]);
    return sum;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

[[gnu::target("avx512f")]] double avx512Fp64() {
    __m512d acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_set1_pd(1e-3 * (c + 1));
    const __m512d a = _mm512_set1_pd(0.999999), b = _mm512_set1_pd(1e-7);
    for (int i = 0; i < kIterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm512_fmadd_pd(acc[c], a, b);
    __m512d sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm512_add_pd(sum, acc[c]);
    alignas(64) double lanes[8];
    _mm512_store_pd(lanes, sum);
    return lanes[0] + lanes[7];
}

[[gnu::target("avx512f")]] double avx512Fp32() {
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_set1_ps(1e-3f * static_cast<float>(c + 1));
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (int i = 0; i < kIterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm512_fmadd_ps(acc[c], a, b);
    __m512 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm512_add_ps(sum, acc[c]);
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, sum);
    return static_cast<double>(lanes[0]) + static_cast<double>(lanes[15]);
}

[[gnu::target("avx2,fma")]] double avx2Fp32() {
    __m256 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm256_set1_ps(1e-3f * static_cast<float>(c + 1));
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (int i = 0; i < kIterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm256_fmadd_ps(acc[c], a, b);
    float lanes[8];
    __m256 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm256_add_ps(sum, acc[c]);
    _mm256_storeu_ps(lanes, sum);
    return lanes[0] + lanes[7];
}

[[gnu::target("avx2,fma")]] double avx2Fp64() {
    __m256d acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm256_set1_pd(1e-3 * (c + 1));
    const __m256d a = _mm256_set1_pd(0.999999), b = _mm256_set1_pd(1e-7);
    for (int i = 0; i < kIterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm256_fmadd_pd(acc[c], a, b);
    double lanes[4];
    __m256d sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm256_add_pd(sum, acc[c]);
    _mm256_storeu_pd(lanes, sum);
    return lanes[0] + lanes[3];
}

// Only where the compiler has the AVX512-FP16 intrinsics (FPX_AVX512FP16_INTRINSICS); elsewhere
// hasAvx512Fp16() is false and the kernel is not listed.
#if FPX_AVX512FP16_INTRINSICS
[[gnu::target("avx512f,avx512bw,avx512vl,avx512fp16")]] double avx512Fp16() {
    __m512h acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_set1_ph(static_cast<_Float16>(0.01f * static_cast<float>(c + 1)));
    const __m512h a = _mm512_set1_ph(static_cast<_Float16>(0.999f));
    const __m512h b = _mm512_set1_ph(static_cast<_Float16>(0.0001f));
    for (int i = 0; i < kIterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm512_fmadd_ph(acc[c], a, b);
    __m512h sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm512_add_ph(sum, acc[c]);
    alignas(64) _Float16 lanes[32];
    _mm512_store_ph(lanes, sum);
    return static_cast<double>(lanes[0]) + static_cast<double>(lanes[31]);
}
#endif

// vdpbf16ps: 32 BF16 products per instruction, summed in pairs into 16 FP32 lanes.
[[gnu::target("avx512f,avx512bw,avx512vl,avx512bf16")]] double avx512Bf16Dot() {
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_set1_ps(0.0f);
    const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
    const __m512bh b = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-3f), _mm512_set1_ps(2e-3f));
    for (int i = 0; i < kIterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm512_dpbf16_ps(acc[c], a, b);
    __m512 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm512_add_ps(sum, acc[c]);
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, sum);
    return static_cast<double>(lanes[0]) + static_cast<double>(lanes[15]);
}

// vpdpbusd: 64 u8 × s8 products per instruction, summed in fours into 16 INT32 lanes.
[[gnu::target("avx512f,avx512bw,avx512vl,avx512vnni")]] double avx512Int8Dot() {
    __m512i acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = _mm512_set1_epi32(c);
    const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
    for (int i = 0; i < kIterations; ++i)
        for (int c = 0; c < kChains; ++c)
            acc[c] = _mm512_dpbusd_epi32(acc[c], a, b);
    __m512i sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum = _mm512_add_epi32(sum, acc[c]);
    alignas(64) std::int32_t lanes[16];
    _mm512_store_si512(lanes, sum);
    return static_cast<double>(lanes[0]) + static_cast<double>(lanes[15]);
}

bool cpuHas(const char* feature) {
    // __builtin_cpu_supports needs a literal; these are the few names used here.
    const std::string f = feature;
    if (f == "avx512vnni")
        return __builtin_cpu_supports("avx512vnni");
    if (f == "fma")
        return __builtin_cpu_supports("fma");
    return false;
}

#endif

} // namespace

std::vector<ArithmeticKernel> cpuArithmeticKernels() {
    std::vector<ArithmeticKernel> kernels;
    const double fmas = 2.0 * kIterations * kChains; // FLOP per lane
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    using namespace fpx::kernels;
    if (hasAvx512()) {
        kernels.push_back({"fp64", "AVX-512 vfmadd231pd", fmas * 8, &avx512Fp64});
        kernels.push_back({"fp32", "AVX-512 vfmadd231ps", fmas * 16, &avx512Fp32});
    } else if (hasAvx2() && cpuHas("fma")) {
        kernels.push_back({"fp64", "AVX2 vfmadd231pd", fmas * 4, &avx2Fp64});
        kernels.push_back({"fp32", "AVX2 vfmadd231ps", fmas * 8, &avx2Fp32});
    }
#if FPX_AVX512FP16_INTRINSICS
    if (hasAvx512Fp16())
        kernels.push_back({"fp16", "AVX512-FP16 vfmadd231ph", fmas * 32, &avx512Fp16});
#endif
    if (hasAvx512Bf16())
        kernels.push_back({"bf16", "AVX512-BF16 vdpbf16ps", fmas * 32, &avx512Bf16Dot});
    if (hasAvx512() && cpuHas("avx512vnni"))
        kernels.push_back({"int8", "AVX512-VNNI vpdpbusd", fmas * 64, &avx512Int8Dot});
#endif
    if (kernels.empty()) {
        kernels.push_back({"fp64", "compiler-vectorised C++", fmas, &scalarFma<double>});
        kernels.push_back({"fp32", "compiler-vectorised C++", fmas, &scalarFma<float>});
    }
    return kernels;
}

} // namespace fpx::bench
