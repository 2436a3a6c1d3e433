// SPDX-License-Identifier: GPL-3.0-or-later
// accumulator_probe: crafted dot products through the tensor cores, one JSON line per result.
//
// Each case fills row 0 of A and column 0 of B with K crafted values (the rest of both matrices
// zero) and the accumulator's element (0, 0) with c, runs one instruction (or a chain of them,
// each one's output the next one's c, for K beyond the instruction's k), and prints D[0][0] as
// FP32 bits, beside the inputs as hexadecimal floats that `fpx dot --a --b --c` reads back.
// The instructions:
//   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32      (sm_80 and later)
//   mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32    (sm_89 and later)
//   wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16      (sm_90a only)
//   wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3    (sm_90a only)
//   cublasLtMatmul E4M3 x E4M3 -> FP32, TN, M = N = 16, with and without
//   CUBLASLT_MATMUL_DESC_FAST_ACCUM                       (sm_89 and later)
// An instruction the device or this build lacks gives one line with "skipped" and its reason.
// Before the cases, each instruction runs a layout check (one product at each k in turn) that
// tells whether the fragments put A's and B's element k in the same place and nothing anywhere
// else; every result line also counts the elements of D other than D[0][0] that are not 0.
//
// Build: tools/gpu_probe/build.sh (nvcc; -gencode arch=compute_90a,code=sm_90a for wgmma).
// The comparison with fpx's machine models is tools/gpu_probe/compare.sh.

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------------------------------------
// Device code. Every kernel writes *ran = 1 when its instruction was compiled in, 0 otherwise,
// and the whole D tile (row-major) to d.

constexpr int kMmaM = 16, kMmaN = 8;
constexpr int kWgM = 64, kWgN = 8;

// mma.m16n8kK fragments (PTX ISA, "Matrix Fragments for mma.m16n8k16" and "mma.m16n8k32"):
// lane = 4 * group + thread_in_group. Element i of a thread's A fragment:
//   f16  (8 per thread):  row = group + 8 * ((i / 2) % 2), col = 2 * tig + i % 2 + 8 * (i / 4)
//   e4m3 (16 per thread): row = group + 8 * ((i / 4) % 2), col = 4 * tig + i % 4 + 16 * (i / 8)
// Element i of B (k × n):
//   f16  (4 per thread):  k = 2 * tig + i % 2 + 8 * (i / 2),   n = group
//   e4m3 (8 per thread):  k = 4 * tig + i % 4 + 16 * (i / 4),  n = group
// C and D (4 floats per thread): row = group + 8 * (i / 2), col = 2 * tig + i % 2.

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ inline void storeMmaD(const float (&acc)[4], float* d) {
    const int lane = threadIdx.x % 32, group = lane / 4, tig = lane % 4;
    for (int i = 0; i < 4; ++i)
        d[(group + 8 * (i / 2)) * kMmaN + 2 * tig + i % 2] = acc[i];
}

__device__ inline void loadMmaC(float (&acc)[4], float c) {
    const int lane = threadIdx.x % 32;
    for (int i = 0; i < 4; ++i)
        acc[i] = (lane == 0 && i == 0) ? c : 0.0f; // (row 0, col 0) is lane 0's element 0
}
#endif

__global__ void mmaF16Kernel(const std::uint16_t* a, const std::uint16_t* b, float c, int k,
                             float* d, int* ran) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const int lane = threadIdx.x % 32, group = lane / 4, tig = lane % 4;
    float acc[4];
    loadMmaC(acc, c);
    for (int k0 = 0; k0 < k; k0 += 16) {
        std::uint32_t ra[4], rb[2];
        for (int r = 0; r < 4; ++r) {
            std::uint32_t word = 0;
            for (int h = 0; h < 2; ++h) {
                const int i = 2 * r + h;
                const int row = group + 8 * ((i / 2) % 2), col = 2 * tig + i % 2 + 8 * (i / 4);
                const std::uint32_t code = row == 0 ? a[k0 + col] : 0u;
                word |= code << (16 * h);
            }
            ra[r] = word;
        }
        for (int r = 0; r < 2; ++r) {
            std::uint32_t word = 0;
            for (int h = 0; h < 2; ++h) {
                const int i = 2 * r + h;
                const int kk = 2 * tig + i % 2 + 8 * (i / 2), n = group;
                const std::uint32_t code = n == 0 ? b[k0 + kk] : 0u;
                word |= code << (16 * h);
            }
            rb[r] = word;
        }
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
    }
    storeMmaD(acc, d);
    if (threadIdx.x == 0)
        *ran = 1;
#else
    (void)a, (void)b, (void)c, (void)k, (void)d;
    if (threadIdx.x == 0)
        *ran = 0;
#endif
}

__global__ void mmaE4m3Kernel(const std::uint8_t* a, const std::uint8_t* b, float c, int k,
                              float* d, int* ran) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    const int lane = threadIdx.x % 32, group = lane / 4, tig = lane % 4;
    float acc[4];
    loadMmaC(acc, c);
    for (int k0 = 0; k0 < k; k0 += 32) {
        std::uint32_t ra[4], rb[2];
        for (int r = 0; r < 4; ++r) {
            std::uint32_t word = 0;
            for (int q = 0; q < 4; ++q) {
                const int i = 4 * r + q;
                const int row = group + 8 * ((i / 4) % 2), col = 4 * tig + i % 4 + 16 * (i / 8);
                const std::uint32_t code = row == 0 ? a[k0 + col] : 0u;
                word |= code << (8 * q);
            }
            ra[r] = word;
        }
        for (int r = 0; r < 2; ++r) {
            std::uint32_t word = 0;
            for (int q = 0; q < 4; ++q) {
                const int i = 4 * r + q;
                const int kk = 4 * tig + i % 4 + 16 * (i / 4), n = group;
                const std::uint32_t code = n == 0 ? b[k0 + kk] : 0u;
                word |= code << (8 * q);
            }
            rb[r] = word;
        }
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
    }
    storeMmaD(acc, d);
    if (threadIdx.x == 0)
        *ran = 1;
#else
    (void)a, (void)b, (void)c, (void)k, (void)d;
    if (threadIdx.x == 0)
        *ran = 0;
#endif
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
// wgmma operands in shared memory, K-major without swizzling: the matrix is cut into "core
// matrices" of 8 rows × 16 bytes, each stored as 128 contiguous bytes (row r at 16 r). Both
// instructions here take 32 bytes of K per row (k16 of f16, k32 of e4m3), so a row group holds
// two core matrices side by side in K: the leading-dimension byte offset (the next core matrix
// in K) is 128, the stride-dimension byte offset (the next 8 rows) is 256.
constexpr int kRowBytes = 32;
constexpr std::uint32_t kLeadingBytes = 128, kStrideBytes = 256;

__device__ constexpr int coreMatrixOffset(int row, int byteInRow) {
    return (row / 8) * static_cast<int>(kStrideBytes) +
           (byteInRow / 16) * static_cast<int>(kLeadingBytes) + (row % 8) * 16 + byteInRow % 16;
}

// The shared-memory matrix descriptor: start address, leading and stride byte offsets, each in
// units of 16 bytes (bits 0-13, 16-29, 32-45); base offset 0 and swizzle mode 0 (none).
__device__ inline std::uint64_t smemDescriptor(const void* smem) {
    const auto address = static_cast<std::uint64_t>(__cvta_generic_to_shared(smem));
    return ((address & 0x3FFFF) >> 4) | (static_cast<std::uint64_t>(kLeadingBytes >> 4) << 16) |
           (static_cast<std::uint64_t>(kStrideBytes >> 4) << 32);
}

// Row 0 of A (64 × 32 bytes) holds the chunk's bytes of a, row 0 of B (8 × 32 bytes, B's rows
// being its columns n, K-major) those of b; everything else is zero.
__device__ inline void fillWgmmaOperands(std::uint8_t* smA, std::uint8_t* smB,
                                         const std::uint8_t* aBytes, const std::uint8_t* bBytes) {
    for (int i = threadIdx.x; i < kWgM * kRowBytes; i += blockDim.x) {
        const int row = i / kRowBytes, byte = i % kRowBytes;
        smA[coreMatrixOffset(row, byte)] = row == 0 ? aBytes[byte] : 0;
    }
    for (int i = threadIdx.x; i < kWgN * kRowBytes; i += blockDim.x) {
        const int row = i / kRowBytes, byte = i % kRowBytes;
        smB[coreMatrixOffset(row, byte)] = row == 0 ? bBytes[byte] : 0;
    }
    // Generic-proxy stores made visible to the async proxy that wgmma reads through.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
}

// The m64n8 FP32 accumulator: thread t = 32 w + lane holds rows 16 w + lane / 4 (+ 8), columns
// 2 (lane % 4) (+ 1); D[0][0] is thread 0's element 0.
__device__ inline void wgmmaRowCol(int i, int& row, int& col) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    row = 16 * warp + 8 * (i / 2) + lane / 4;
    col = 2 * (lane % 4) + i % 2;
}
#endif

template <bool kFp8>
__global__ void wgmmaKernel(const std::uint8_t* aBytes, const std::uint8_t* bBytes, float c,
                            int chunks, float* d, int* ran) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    __shared__ __align__(128) std::uint8_t smA[kWgM * kRowBytes];
    __shared__ __align__(128) std::uint8_t smB[kWgN * kRowBytes];
    float acc[4];
    for (int i = 0; i < 4; ++i)
        acc[i] = (threadIdx.x == 0 && i == 0) ? c : 0.0f;
    for (int chunk = 0; chunk < chunks; ++chunk) {
        fillWgmmaOperands(smA, smB, aBytes + chunk * kRowBytes, bBytes + chunk * kRowBytes);
        const std::uint64_t descA = smemDescriptor(smA), descB = smemDescriptor(smB);
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        if constexpr (kFp8) {
            asm volatile("{\n"
                         ".reg .pred scaleD;\n"
                         "setp.ne.b32 scaleD, %6, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 "
                         "{%0, %1, %2, %3}, %4, %5, scaleD, 1, 1;\n"
                         "}\n"
                         : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                         : "l"(descA), "l"(descB), "r"(1)
                         : "memory");
        } else {
            // imm-scale-a, imm-scale-b = 1; imm-trans-a, imm-trans-b = 0 (both K-major).
            asm volatile("{\n"
                         ".reg .pred scaleD;\n"
                         "setp.ne.b32 scaleD, %6, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
                         "{%0, %1, %2, %3}, %4, %5, scaleD, 1, 1, 0, 0;\n"
                         "}\n"
                         : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                         : "l"(descA), "l"(descB), "r"(1)
                         : "memory");
        }
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        __syncthreads(); // the next chunk overwrites the operands
    }
    for (int i = 0; i < 4; ++i) {
        int row = 0, col = 0;
        wgmmaRowCol(i, row, col);
        d[row * kWgN + col] = acc[i];
    }
    if (threadIdx.x == 0)
        *ran = 1;
#else
    (void)aBytes, (void)bBytes, (void)c, (void)chunks, (void)d;
    if (threadIdx.x == 0)
        *ran = 0;
#endif
}

// ---------------------------------------------------------------------------------------------
// Host side: the elements, exactly.

enum class Element { F16, E4M3 };

const char* elementName(Element e) {
    return e == Element::F16 ? "fp16" : "fp8_e4m3";
}

// The code of v in a binary format with `exponentBits` and `fraction` bits (bias
// 2^(exponentBits-1) - 1, subnormals below 2^(1 - bias)) whose largest finite value has biased
// exponent `maxBiased` and fraction `maxTopFraction`; false when v is not exactly one of its
// finite values.
bool encodeExactly(double v, int exponentBits, int fraction, int maxBiased,
                   std::uint32_t maxTopFraction, std::uint32_t& code) {
    const int bias = (1 << (exponentBits - 1)) - 1, emin = 1 - bias;
    const std::uint32_t sign = std::signbit(v) ? 1u : 0u;
    const double m = std::fabs(v);
    std::uint32_t magnitude = 0;
    if (m != 0) {
        int e2 = 0;
        (void)std::frexp(m, &e2);
        const int exponent = e2 - 1; // m = 1.f * 2^exponent
        if (exponent < emin) {
            const double q = std::ldexp(m, fraction - emin); // in units of the smallest step
            if (q != std::floor(q) || q >= std::ldexp(1.0, fraction))
                return false;
            magnitude = static_cast<std::uint32_t>(q);
        } else {
            const double q = std::ldexp(std::ldexp(m, -exponent) - 1.0, fraction);
            const int biased = exponent + bias;
            if (q != std::floor(q) || biased > maxBiased ||
                (biased == maxBiased && static_cast<std::uint32_t>(q) > maxTopFraction))
                return false;
            magnitude =
                (static_cast<std::uint32_t>(biased) << fraction) | static_cast<std::uint32_t>(q);
        }
    }
    code = (sign << (exponentBits + fraction)) | magnitude;
    return true;
}

bool encodeElement(Element e, double v, std::uint32_t& code) {
    if (e == Element::F16) // binary16: bias 15, largest 65504 (biased 30, fraction 0x3FF)
        return encodeExactly(v, 5, 10, 30, 0x3FF, code);
    // E4M3 (OCP): bias 7, largest 448 (biased 15, fraction 6; S.1111.111 is NaN)
    return encodeExactly(v, 4, 3, 15, 6, code);
}

std::string hexFloat(double v) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%a", v);
    return buffer;
}

std::string bitsOf(float f) {
    std::uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "0x%08x", u);
    return buffer;
}

// ---------------------------------------------------------------------------------------------
// The crafted cases. A term puts a·b at position k; every other position is 0·0. What each
// case tells apart is in `tells` (ASCII, no quotes: it goes into JSON as it is).

struct Term {
    int k;
    double a, b;
};

struct Case {
    const char* id;
    Element element;
    int k;
    double c;
    std::vector<Term> terms;
    const char* tells;
};

std::vector<Term> longTail(double first, double rest, int count) {
    std::vector<Term> terms{{0, first, first}};
    for (int i = 1; i < count; ++i)
        terms.push_back({i, rest, rest});
    return terms;
}

std::vector<Case> makeCases() {
    const double p = 1.0;
    auto x = [](int e) { return std::ldexp(1.0, e); };
    return {
        // FP8 E4M3, one instruction (K = 32) unless said.
        {"fp8-subnormal-product",
         Element::E4M3,
         32,
         0.0,
         {{0, p, p}, {1, -p, p}, {2, x(-9), x(-9)}},
         "1 - 1 + 2^-9*2^-9 (subnormal operands): the product 2^-18 is kept at F >= 18 "
         "(result 2^-18) and lost at F = 13 (result 0)"},
        {"fp8-subnormal-product-c",
         Element::E4M3,
         32,
         -1.0,
         {{0, p, p}, {1, x(-9), x(-9)}},
         "the same through the accumulator: c = -1, 1*1 + 2^-18: c takes part in the "
         "alignment as a product does; 2^-18 at F >= 18, 0 at F = 13"},
        {"fp8-2^-14",
         Element::E4M3,
         32,
         0.0,
         {{0, p, p}, {1, -p, p}, {2, x(-7), x(-7)}},
         "1 - 1 + 2^-14: kept at F >= 14 (Blackwell, and Hopper mma.sync at F = 25), lost "
         "at F = 13 (Ada mma, Hopper wgmma)"},
        {"fp8-2^-13",
         Element::E4M3,
         32,
         0.0,
         {{0, p, p}, {1, -p, p}, {2, x(-6), x(-7)}},
         "control: 1 - 1 + 2^-13 is kept at F = 13, so F is at least 13"},
        {"fp8-negative",
         Element::E4M3,
         32,
         0.0,
         {{0, p, p}, {1, -1.5 * x(-7), x(-7)}},
         "1 - 1.5*2^-14: at F = 13 truncation toward zero drops the product (1), rounding "
         "to nearest or toward -inf gives 1 - 2^-13; at F = 25 it is kept (1 - 1.5*2^-14)"},
        {"fp8-e8m13-output",
         Element::E4M3,
         32,
         0.0,
         {{0, p, p}, {1, p, p}, {2, x(-6), x(-7)}},
         "1 + 1 + 2^-13 = 2 + 2^-13 lies between two e8m13 values: an e8m13 output gives 2, "
         "an FP32 output 2 + 2^-13"},
        {"fp8-e8m13-rounding",
         Element::E4M3,
         32,
         0.0,
         {{0, p, p}, {1, p, p}, {2, x(-6), x(-6)}, {3, x(-6), x(-7)}},
         "2 + 3*2^-13 into e8m13: truncated 2 + 2^-12, rounded to nearest 2 + 2^-11; an FP32 "
         "output keeps 2 + 3*2^-13"},
        {"fp8-halves",
         Element::E4M3,
         32,
         0.0,
         {{0, p, p}, {1, -p, p}, {16, x(-9), x(-9)}},
         "1 - 1 in k = 0..15, 2^-18 at k = 16: one group of 32 at F = 13 loses 2^-18 beside 1 "
         "(0); two chained groups of 16 (Ada) align the second on its own and keep it (2^-18)"},
        {"fp8-c-cut",
         Element::E4M3,
         32,
         1.0 + std::ldexp(1.0, -20),
         {{0, -p, p}},
         "c = 1 + 2^-20 with -1*1: c is cut like a product, to 1 at F = 13 (result 0); kept at "
         "F >= 20 (2^-20)"},
        {"fp8-long-k", Element::E4M3, 256, 0.0, longTail(16.0, x(-3), 256),
         "K = 256: 16*16 = 256 first, then 255 products 2^-6: a chain of F = 13 instructions "
         "loses every one (256); promotion into FP32 every N elements keeps all but those of "
         "the first N (N = 128: 258); F = 25 keeps them all (259.984375)"},
        // FP16, one instruction (K = 16).
        {"fp16-2^-25",
         Element::F16,
         16,
         0.0,
         {{0, p, p}, {1, -p, p}, {2, x(-12), x(-13)}},
         "1 - 1 + 2^-25: kept at F = 25 (Hopper, Blackwell), lost at F = 24 (Ampere, Ada)"},
        {"fp16-2^-24",
         Element::F16,
         16,
         0.0,
         {{0, p, p}, {1, -p, p}, {2, x(-12), x(-12)}},
         "control: 1 - 1 + 2^-24 is kept at F >= 24, lost at F = 23 (Volta)"},
        {"fp16-output-rounding",
         Element::F16,
         16,
         0.0,
         {{0, p, p}, {1, x(-12), x(-12)}, {2, x(-12), x(-13)}},
         "1 + 2^-24 + 2^-25 into FP32: at F = 25 truncation gives 1 and rounding to nearest "
         "1 + 2^-23; at F = 24 the sum is 1 + 2^-24 and both give 1"},
        {"fp16-negative",
         Element::F16,
         16,
         0.0,
         {{0, p, p}, {1, -1.5 * x(-13), x(-13)}},
         "1 - 1.5*2^-26: truncated toward zero the product vanishes (1); toward -inf the "
         "result is 1 - 2^-24, and so it is rounded to nearest at F = 25"},
        {"fp16-halves",
         Element::F16,
         16,
         0.0,
         {{0, p, p}, {1, -p, p}, {8, x(-13), x(-13)}},
         "1 - 1 in k = 0..7, 2^-26 at k = 8: one group of 16 at F = 25 loses 2^-26 beside 1 (0); "
         "two chained groups of 8 (Ampere, Ada) keep it (2^-26)"},
        {"fp16-c-small",
         Element::F16,
         16,
         std::ldexp(1.0, -25),
         {{0, p, p}, {1, -p, p}},
         "c = 2^-25 with 1 - 1: the accumulator is cut as a product is: kept at F = 25 "
         "(2^-25), lost at F = 24 (0, where an FP32 addition keeps 2^-25)"},
    };
}

// ---------------------------------------------------------------------------------------------
// Running one case on one instruction.

enum class Instruction { MmaF16, MmaE4m3, WgmmaF16, WgmmaE4m3, LtE4m3, LtE4m3Fast };

struct InstructionInfo {
    Instruction id;
    const char* name;
    Element element;
    int k;             // the instruction's own k (the chain's step)
    int minCc, maxCc;  // the compute capabilities that have it (inclusive)
    const char* needs; // what a skip says
};

const InstructionInfo kInstructions[] = {
    {Instruction::MmaF16, "mma.sync.m16n8k16.row.col.f32.f16.f16.f32", Element::F16, 16, 80, 999,
     "sm_80 or later"},
    {Instruction::MmaE4m3, "mma.sync.m16n8k32.row.col.f32.e4m3.e4m3.f32", Element::E4M3, 32, 89,
     999, "sm_89 or later"},
    {Instruction::WgmmaF16, "wgmma.m64n8k16.f32.f16.f16", Element::F16, 16, 90, 90,
     "sm_90a (Hopper)"},
    {Instruction::WgmmaE4m3, "wgmma.m64n8k32.f32.e4m3.e4m3", Element::E4M3, 32, 90, 90,
     "sm_90a (Hopper)"},
    {Instruction::LtE4m3, "cublasLt.e4m3.f32", Element::E4M3, 16, 89, 999, "sm_89 or later"},
    {Instruction::LtE4m3Fast, "cublasLt.e4m3.f32.fast-accum", Element::E4M3, 16, 89, 999,
     "sm_89 or later"},
};

bool isLt(Instruction i) {
    return i == Instruction::LtE4m3 || i == Instruction::LtE4m3Fast;
}

struct Outcome {
    std::string error; // empty when it ran
    bool compiled = true;
    bool unsupported = false; // cuBLASLt has no algorithm for it here
    float d00 = 0;
    int strays = 0;   // elements of D other than D[0][0] that are not +0 or -0
    std::string algo; // cuBLASLt's choice
};

template <class T> struct DeviceArray {
    T* p = nullptr;
    explicit DeviceArray(std::size_t n) {
        if (cudaMalloc(&p, n * sizeof(T)) != cudaSuccess)
            p = nullptr;
        else
            cudaMemset(p, 0, n * sizeof(T));
    }
    ~DeviceArray() {
        if (p)
            cudaFree(p);
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
};

std::string cudaText(const char* what, cudaError_t e) {
    return std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

int countStrays(const std::vector<float>& d) {
    int strays = 0;
    for (std::size_t i = 1; i < d.size(); ++i)
        strays += d[i] != 0.0f;
    return strays;
}

// The kernels: a, b are element codes of length k (a multiple of the instruction's k).
Outcome runKernel(Instruction which, const std::vector<std::uint8_t>& aBytes,
                  const std::vector<std::uint8_t>& bBytes, float c, int k) {
    Outcome out;
    const bool wgmma = which == Instruction::WgmmaF16 || which == Instruction::WgmmaE4m3;
    const std::size_t dCount = wgmma ? kWgM * kWgN : kMmaM * kMmaN;
    DeviceArray<std::uint8_t> a(aBytes.size()), b(bBytes.size());
    DeviceArray<float> d(dCount);
    DeviceArray<int> ran(1);
    if (!a.p || !b.p || !d.p || !ran.p) {
        out.error = "cudaMalloc failed";
        return out;
    }
    cudaMemcpy(a.p, aBytes.data(), aBytes.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(b.p, bBytes.data(), bBytes.size(), cudaMemcpyHostToDevice);
    switch (which) {
    case Instruction::MmaF16:
        mmaF16Kernel<<<1, 32>>>(reinterpret_cast<const std::uint16_t*>(a.p),
                                reinterpret_cast<const std::uint16_t*>(b.p), c, k, d.p, ran.p);
        break;
    case Instruction::MmaE4m3:
        mmaE4m3Kernel<<<1, 32>>>(a.p, b.p, c, k, d.p, ran.p);
        break;
    case Instruction::WgmmaF16:
        wgmmaKernel<false><<<1, 128>>>(a.p, b.p, c, k / 16, d.p, ran.p);
        break;
    case Instruction::WgmmaE4m3:
        wgmmaKernel<true><<<1, 128>>>(a.p, b.p, c, k / 32, d.p, ran.p);
        break;
    default:
        out.error = "not a kernel";
        return out;
    }
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        out.error = cudaText("kernel", e);
        cudaGetLastError();
        return out;
    }
    int compiled = 0;
    std::vector<float> host(dCount);
    cudaMemcpy(&compiled, ran.p, sizeof compiled, cudaMemcpyDeviceToHost);
    cudaMemcpy(host.data(), d.p, dCount * sizeof(float), cudaMemcpyDeviceToHost);
    out.compiled = compiled == 1;
    out.d00 = host[0];
    out.strays = countStrays(host);
    return out;
}

// cuBLASLt: D (16 × 16, FP32, column-major) = A^T B with A (K × 16) and B (K × 16) E4M3,
// column-major (the "TN" layout FP8 requires); column 0 of each holds the case's vector.
// alpha = 1, beta = 0 (c must be 0), no scale pointers (their factors are 1). An algorithm
// without split-K is preferred, first with no workspace, so that K is summed in one pass.
Outcome runLt(cublasLtHandle_t handle, bool fast, const std::vector<std::uint8_t>& aVec,
              const std::vector<std::uint8_t>& bVec, int k) {
    Outcome out;
    const int m = 16, n = 16;
    std::vector<std::uint8_t> aHost(static_cast<std::size_t>(k) * m, 0),
        bHost(static_cast<std::size_t>(k) * n, 0);
    std::memcpy(aHost.data(), aVec.data(), k);
    std::memcpy(bHost.data(), bVec.data(), k);
    DeviceArray<std::uint8_t> a(aHost.size()), b(bHost.size());
    DeviceArray<float> cIn(m * n), d(m * n);
    const std::size_t bigWorkspace = 32u << 20;
    DeviceArray<std::uint8_t> workspace(bigWorkspace);
    if (!a.p || !b.p || !cIn.p || !d.p || !workspace.p) {
        out.error = "cudaMalloc failed";
        return out;
    }
    cudaMemcpy(a.p, aHost.data(), aHost.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(b.p, bHost.data(), bHost.size(), cudaMemcpyHostToDevice);

    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    auto cleanup = [&] {
        if (pref)
            cublasLtMatmulPreferenceDestroy(pref);
        if (lc)
            cublasLtMatrixLayoutDestroy(lc);
        if (lb)
            cublasLtMatrixLayoutDestroy(lb);
        if (la)
            cublasLtMatrixLayoutDestroy(la);
        if (desc)
            cublasLtMatmulDescDestroy(desc);
    };
    auto fail = [&](const char* what, cublasStatus_t s) {
        out.error = std::string(what) + ": " + cublasLtGetStatusName(s);
        cleanup();
        return out;
    };
    cublasStatus_t s = cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (s != CUBLAS_STATUS_SUCCESS)
        return fail("matmul descriptor", s);
    const cublasOperation_t opT = CUBLAS_OP_T, opN = CUBLAS_OP_N;
    const std::int8_t fastAccum = fast ? 1 : 0;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opT, sizeof opT);
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &opN, sizeof opN);
    s = cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fastAccum,
                                       sizeof fastAccum);
    if (s != CUBLAS_STATUS_SUCCESS)
        return fail("FAST_ACCUM", s);
    if ((s = cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, m, k)) != CUBLAS_STATUS_SUCCESS ||
        (s = cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, k, n, k)) != CUBLAS_STATUS_SUCCESS ||
        (s = cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m)) != CUBLAS_STATUS_SUCCESS)
        return fail("matrix layout", s);
    if ((s = cublasLtMatmulPreferenceCreate(&pref)) != CUBLAS_STATUS_SUCCESS)
        return fail("preference", s);

    const float alpha = 1.0f, beta = 0.0f;
    std::string refusals;
    for (const std::size_t workspaceBytes : {std::size_t{0}, bigWorkspace}) {
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                             &workspaceBytes, sizeof workspaceBytes);
        constexpr int kCandidates = 16;
        cublasLtMatmulHeuristicResult_t found[kCandidates] = {};
        int count = 0;
        s = cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, lc, lc, pref, kCandidates, found,
                                           &count);
        if (s != CUBLAS_STATUS_SUCCESS || count == 0) {
            refusals += std::string(refusals.empty() ? "" : "; ") + "heuristic (workspace " +
                        std::to_string(workspaceBytes) + "): " +
                        (s != CUBLAS_STATUS_SUCCESS ? cublasLtGetStatusName(s) : "no algorithm");
            continue;
        }
        // Two passes: algorithms without split-K first, then any.
        for (int pass = 0; pass < 2; ++pass) {
            for (int i = 0; i < count; ++i) {
                if (found[i].state != CUBLAS_STATUS_SUCCESS)
                    continue;
                int id = -1, tile = -1, splitK = -1, stages = -1;
                std::size_t written = 0;
                cublasLtMatmulAlgoConfigGetAttribute(&found[i].algo, CUBLASLT_ALGO_CONFIG_ID, &id,
                                                     sizeof id, &written);
                cublasLtMatmulAlgoConfigGetAttribute(&found[i].algo, CUBLASLT_ALGO_CONFIG_TILE_ID,
                                                     &tile, sizeof tile, &written);
                cublasLtMatmulAlgoConfigGetAttribute(&found[i].algo,
                                                     CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitK,
                                                     sizeof splitK, &written);
                cublasLtMatmulAlgoConfigGetAttribute(&found[i].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID,
                                                     &stages, sizeof stages, &written);
                if (pass == 0 && splitK > 1)
                    continue;
                if (pass == 1 && splitK <= 1)
                    continue;                                 // tried in the first pass
                cudaMemset(d.p, 0xFF, m * n * sizeof(float)); // NaN: a D not written shows
                s = cublasLtMatmul(handle, desc, &alpha, a.p, la, b.p, lb, &beta, cIn.p, lc, d.p,
                                   lc, &found[i].algo, workspace.p, workspaceBytes, 0);
                if (s != CUBLAS_STATUS_SUCCESS) {
                    cudaGetLastError();
                    refusals += std::string(refusals.empty() ? "" : "; ") + "algo " +
                                std::to_string(id) + ": " + cublasLtGetStatusName(s);
                    continue;
                }
                const cudaError_t e = cudaDeviceSynchronize();
                if (e != cudaSuccess) {
                    out.error = cudaText("cublasLtMatmul", e);
                    cleanup();
                    return out;
                }
                std::vector<float> host(m * n);
                cudaMemcpy(host.data(), d.p, host.size() * sizeof(float), cudaMemcpyDeviceToHost);
                out.d00 = host[0];
                out.strays = countStrays(host);
                out.algo = "id " + std::to_string(id) + ", tile " + std::to_string(tile) +
                           ", split-k " + std::to_string(splitK) + ", stages " +
                           std::to_string(stages) + ", workspace " + std::to_string(workspaceBytes);
                cleanup();
                return out;
            }
        }
    }
    out.error = "cuBLASLt ran no algorithm (" + refusals + ")";
    out.unsupported = true;
    cleanup();
    return out;
}

// ---------------------------------------------------------------------------------------------
// Output.

// Free text (library messages, the device's name) made safe inside a JSON string.
std::string jsonText(const std::string& text) {
    std::string out;
    for (const char ch : text) {
        if (ch == '"' || ch == '\\')
            out += '\'';
        else if (static_cast<unsigned char>(ch) < 0x20)
            out += ' ';
        else
            out += ch;
    }
    return out;
}

void printSkip(const InstructionInfo& info, const std::string& why) {
    std::printf("{\"instruction\":\"%s\",\"element\":\"%s\",\"skipped\":\"%s\"}\n", info.name,
                elementName(info.element), jsonText(why).c_str());
}

std::string listOf(const std::vector<double>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + hexFloat(v[i]);
    return s;
}

bool toCodes(Element e, const std::vector<double>& values, std::vector<std::uint8_t>& bytes) {
    bytes.clear();
    for (const double v : values) {
        std::uint32_t code = 0;
        if (!encodeElement(e, v, code))
            return false;
        bytes.push_back(static_cast<std::uint8_t>(code & 0xFF));
        if (e == Element::F16)
            bytes.push_back(static_cast<std::uint8_t>(code >> 8));
    }
    return true;
}

Outcome runOne(const InstructionInfo& info, cublasLtHandle_t lt, const std::vector<std::uint8_t>& a,
               const std::vector<std::uint8_t>& b, float c, int k) {
    if (isLt(info.id))
        return runLt(lt, info.id == Instruction::LtE4m3Fast, a, b, k);
    return runKernel(info.id, a, b, c, k);
}

// One product a_j * b_j = w_j at each k = j of one instruction in turn, with every b_i a
// different value w_i: D[0][0] must be w_j, and nothing else in D non-zero.
// `compiled` false: the instruction is not in this build, or (cuBLASLt) the library offers no
// algorithm for it; `detail` says why.
bool layoutCheck(const InstructionInfo& info, cublasLtHandle_t lt, std::string& detail,
                 bool& compiled) {
    const int k = isLt(info.id) ? 32 : info.k;
    std::vector<double> w(k);
    for (int i = 0; i < k; ++i)
        w[i] = (1.0 + (i % 8) / 8.0) * std::ldexp(1.0, i / 8); // distinct in E4M3 and FP16
    std::vector<std::uint8_t> bBytes;
    toCodes(info.element, w, bBytes);
    compiled = true;
    for (int j = 0; j < k; ++j) {
        std::vector<double> a(k, 0.0);
        a[j] = 1.0;
        std::vector<std::uint8_t> aBytes;
        toCodes(info.element, a, aBytes);
        const Outcome o = runOne(info, lt, aBytes, bBytes, 0.0f, k);
        if (o.unsupported && j == 0) {
            compiled = false;
            detail = o.error;
            return false;
        }
        if (!o.error.empty()) {
            detail = "k = " + std::to_string(j) + ": " + o.error;
            return false;
        }
        if (!o.compiled) {
            compiled = false;
            detail = std::string("not compiled in: build for ") + info.needs;
            return false;
        }
        if (static_cast<double>(o.d00) != w[j] || o.strays != 0) {
            detail = "k = " + std::to_string(j) + ": D[0][0] = " + hexFloat(o.d00) + ", expected " +
                     hexFloat(w[j]) + ", " + std::to_string(o.strays) + " other elements not zero";
            return false;
        }
    }
    return true;
}

void printResult(const Case& cs, const InstructionInfo& info, const std::vector<double>& a,
                 const std::vector<double>& b, float c, const Outcome* o) {
    std::printf("{\"case\":\"%s\",\"instruction\":\"%s\",\"element\":\"%s\",\"k\":%d,"
                "\"c\":\"%s\",\"a\":\"%s\",\"b\":\"%s\",\"gpu_bits\":\"%s\","
                "\"gpu_value\":\"%s\",\"strays\":%d,\"algo\":\"%s\",\"tells\":\"%s\"}\n",
                cs.id, info.name, elementName(cs.element), cs.k, hexFloat(c).c_str(),
                listOf(a).c_str(), listOf(b).c_str(), o ? bitsOf(o->d00).c_str() : "",
                o ? hexFloat(o->d00).c_str() : "", o ? o->strays : 0,
                o ? jsonText(o->algo).c_str() : "", cs.tells);
    std::fflush(stdout);
}

} // namespace

// accumulator_probe            runs every case on this device's instructions
// accumulator_probe --list CC  prints the lines it would run on compute capability CC, with
//                              empty GPU bits and no device needed
int main(int argc, char** argv) {
    int cc = 0;
    const bool listOnly = argc == 3 && std::strcmp(argv[1], "--list") == 0;
    if (argc != 1 && !listOnly) {
        std::fprintf(stderr, "usage: accumulator_probe [--list CC]\n");
        return 2;
    }
    cublasLtHandle_t lt = nullptr;
    cublasStatus_t ltStatus = CUBLAS_STATUS_SUCCESS;
    if (listOnly) {
        cc = std::atoi(argv[2]);
        std::printf("{\"probe\":\"accumulator\",\"device\":\"(listed, not run)\",\"cc\":%d}\n", cc);
    } else {
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e != cudaSuccess || count == 0) {
            std::printf("{\"probe\":\"accumulator\",\"error\":\"%s\"}\n",
                        jsonText(e != cudaSuccess ? cudaText("cudaGetDeviceCount", e)
                                                  : std::string("no CUDA device"))
                            .c_str());
            return 2;
        }
        cudaDeviceProp prop{};
        cudaGetDeviceProperties(&prop, 0);
        cc = prop.major * 10 + prop.minor;
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        std::printf("{\"probe\":\"accumulator\",\"device\":\"%s\",\"cc\":%d,\"driver\":%d,"
                    "\"runtime\":%d,\"cublaslt\":%zu}\n",
                    jsonText(prop.name).c_str(), cc, driver, runtime, cublasLtGetVersion());
        ltStatus = cublasLtCreate(&lt);
    }

    const std::vector<Case> cases = makeCases();
    int errors = 0;
    for (const InstructionInfo& info : kInstructions) {
        if (cc < info.minCc || cc > info.maxCc) {
            printSkip(info, std::string("needs ") + info.needs + ", the device is sm_" +
                                std::to_string(cc));
            continue;
        }
        if (isLt(info.id) && ltStatus != CUBLAS_STATUS_SUCCESS) {
            printSkip(info, std::string("cublasLtCreate: ") + cublasLtGetStatusName(ltStatus));
            continue;
        }
        if (!listOnly) {
            std::string detail;
            bool compiled = true;
            const bool layoutOk = layoutCheck(info, lt, detail, compiled);
            if (!compiled) {
                printSkip(info, detail);
                continue;
            }
            std::printf(
                "{\"check\":\"layout\",\"instruction\":\"%s\",\"ok\":%s,\"detail\":\"%s\"}\n",
                info.name, layoutOk ? "true" : "false", jsonText(detail).c_str());
            errors += !layoutOk;
        }
        for (const Case& cs : cases) {
            if (cs.element != info.element)
                continue;
            if (isLt(info.id) && cs.c != 0.0)
                continue; // cuBLASLt's C enters in the epilogue, outside the instruction
            std::vector<double> a(cs.k, 0.0), b(cs.k, 0.0);
            for (const Term& t : cs.terms) {
                a[t.k] = t.a;
                b[t.k] = t.b;
            }
            std::vector<std::uint8_t> aBytes, bBytes;
            const float c = static_cast<float>(cs.c);
            if (!toCodes(cs.element, a, aBytes) || !toCodes(cs.element, b, bBytes) ||
                static_cast<double>(c) != cs.c || cs.k % info.k != 0) {
                std::printf("{\"case\":\"%s\",\"instruction\":\"%s\",\"error\":\"an input is not "
                            "exact in its format, or K is not a multiple of k\"}\n",
                            cs.id, info.name);
                ++errors;
                continue;
            }
            if (listOnly) {
                printResult(cs, info, a, b, c, nullptr);
                continue;
            }
            const Outcome o = runOne(info, lt, aBytes, bBytes, c, cs.k);
            if (!o.error.empty()) {
                std::printf("{\"case\":\"%s\",\"instruction\":\"%s\",\"error\":\"%s\"}\n", cs.id,
                            info.name, jsonText(o.error).c_str());
                ++errors;
                continue;
            }
            printResult(cs, info, a, b, c, &o);
        }
    }
    if (lt)
        cublasLtDestroy(lt);
    return errors == 0 ? 0 : 1;
}
