// SPDX-License-Identifier: GPL-3.0-or-later
#include "matmul_bench.h"

#include "cuda_util.h"
#include "device_kernels.h"

#include <cublasLt.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::cuda {
namespace {

class CublasError : public std::runtime_error {
  public:
    CublasError(std::string_view what, cublasStatus_t status)
        : std::runtime_error(std::string(what) + ": " + cublasLtGetStatusName(status) + " (" +
                             cublasLtGetStatusString(status) + ")") {}
};

void checkBlas(cublasStatus_t status, std::string_view what) {
    if (status != CUBLAS_STATUS_SUCCESS)
        throw CublasError(what, status);
}

// One matrix multiply D = A·B (TN: A is stored transposed, as FP8 and INT8 require).
struct MatmulCase {
    const char* format; // the format id the result is filed under
    const char* label;  // how the operands are set up
    cudaDataType_t a, b, c;
    cublasComputeType_t compute;
    cudaDataType_t scale;
    FillKind fillA, fillB;
    std::size_t aBytes, bBytes, cBytes;
    int minComputeCapability;
    bool fastAccumulation;
    int size; // M = N = K
    const char* note;
};

const std::vector<MatmulCase>& cases() {
    static const std::vector<MatmulCase> list = {
        {"fp64", "FP64 × FP64 → FP64, compute 64F", CUDA_R_64F, CUDA_R_64F, CUDA_R_64F,
         CUBLAS_COMPUTE_64F, CUDA_R_64F, FillKind::F64, FillKind::F64, 8, 8, 8, 0, false, 4096, ""},
        {"fp32", "FP32 × FP32 → FP32, compute 32F", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
         CUBLAS_COMPUTE_32F, CUDA_R_32F, FillKind::F32, FillKind::F32, 4, 4, 4, 0, false, 8192, ""},
        {"tf32", "FP32 × FP32 → FP32, compute 32F_FAST_TF32", CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
         CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, FillKind::F32, FillKind::F32, 4, 4, 4, 80, false,
         8192, "inputs rounded to TF32 by the tensor cores"},
        {"fp16", "FP16 × FP16 → FP16, compute 32F", CUDA_R_16F, CUDA_R_16F, CUDA_R_16F,
         CUBLAS_COMPUTE_32F, CUDA_R_32F, FillKind::F16, FillKind::F16, 2, 2, 2, 0, false, 8192, ""},
        {"bf16", "BF16 × BF16 → BF16, compute 32F", CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF,
         CUBLAS_COMPUTE_32F, CUDA_R_32F, FillKind::Bf16, FillKind::Bf16, 2, 2, 2, 80, false, 8192,
         ""},
        {"fp8_e4m3", "E4M3 × E4M3 → BF16, compute 32F", CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUDA_R_16BF,
         CUBLAS_COMPUTE_32F, CUDA_R_32F, FillKind::Fp8E4m3, FillKind::Fp8E4m3, 1, 1, 2, 89, false,
         8192, "no scale factors (1)"},
        {"fp8_e4m3", "E4M3 × E4M3 → BF16, compute 32F, fast accumulation", CUDA_R_8F_E4M3,
         CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, FillKind::Fp8E4m3,
         FillKind::Fp8E4m3, 1, 1, 2, 89, true, 8192,
         "CUBLASLT_MATMUL_DESC_FAST_ACCUM: no periodic promotion of partial sums to FP32"},
        {"fp8_e5m2", "E4M3 × E5M2 → BF16, compute 32F", CUDA_R_8F_E4M3, CUDA_R_8F_E5M2, CUDA_R_16BF,
         CUBLAS_COMPUTE_32F, CUDA_R_32F, FillKind::Fp8E4m3, FillKind::Fp8E5m2, 1, 1, 2, 89, false,
         8192,
         "cuBLASLt has no E5M2 × E5M2 matmul; E5M2 is measured as the B operand of E4M3 × E5M2"},
        {"int8", "INT8 × INT8 → INT32, compute 32I", CUDA_R_8I, CUDA_R_8I, CUDA_R_32I,
         CUBLAS_COMPUTE_32I, CUDA_R_32I, FillKind::Int8, FillKind::Int8, 1, 1, 4, 0, false, 8192,
         "operations counted as 2·M·N·K integer multiply-adds"},
    };
    return list;
}

constexpr std::size_t kWorkspaceBytes = 64u << 20;

// RAII wrappers for the cuBLASLt descriptors.
struct HandleDeleter {
    void operator()(cublasLtContext* h) const { cublasLtDestroy(h); }
};
struct DescDeleter {
    void operator()(cublasLtMatmulDescOpaque_t* d) const { cublasLtMatmulDescDestroy(d); }
};
struct LayoutDeleter {
    void operator()(cublasLtMatrixLayoutOpaque_t* l) const { cublasLtMatrixLayoutDestroy(l); }
};
struct PreferenceDeleter {
    void operator()(cublasLtMatmulPreferenceOpaque_t* p) const {
        cublasLtMatmulPreferenceDestroy(p);
    }
};
using Handle = std::unique_ptr<cublasLtContext, HandleDeleter>;
using Desc = std::unique_ptr<cublasLtMatmulDescOpaque_t, DescDeleter>;
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, LayoutDeleter>;
using Preference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, PreferenceDeleter>;

Layout makeLayout(cudaDataType_t type, std::uint64_t rows, std::uint64_t cols, std::int64_t ld) {
    cublasLtMatrixLayout_t layout = nullptr;
    checkBlas(cublasLtMatrixLayoutCreate(&layout, type, rows, cols, ld), "matrix layout");
    return Layout(layout);
}

std::string smName(int computeCapability) {
    return "sm_" + std::to_string(computeCapability);
}

// Measures one case; returns the result (or throws, for the caller to turn into a note).
bench::BenchResult measureCase(const MatmulCase& c, const MatmulTarget& target,
                               cublasLtHandle_t handle, const bench::TimingPlan& plan,
                               const std::atomic<bool>* cancel, bench::BenchResult result) {
    const std::uint64_t n = static_cast<std::uint64_t>(c.size);
    const std::size_t elements = static_cast<std::size_t>(n * n);

    // C apart from D: cuBLASLt runs some kernels (FP8 among them) only out of place.
    DeviceBuffer a(elements * c.aBytes), b(elements * c.bBytes), cIn(elements * c.cBytes),
        d(elements * c.cBytes);
    DeviceBuffer workspace(kWorkspaceBytes);
    const int blocks = target.multiProcessors * 8;
    check(launchFill(c.fillA, a.get(), elements, 1, blocks, target.stream), "fill A");
    check(launchFill(c.fillB, b.get(), elements, 2, blocks, target.stream), "fill B");
    check(cudaMemsetAsync(cIn.get(), 0, elements * c.cBytes, target.stream), "clear C");
    check(cudaMemsetAsync(d.get(), 0, elements * c.cBytes, target.stream), "clear D");
    check(cudaStreamSynchronize(target.stream), "matrix fill");

    cublasLtMatmulDesc_t rawDesc = nullptr;
    checkBlas(cublasLtMatmulDescCreate(&rawDesc, c.compute, c.scale), "matmul descriptor");
    Desc desc(rawDesc);
    const cublasOperation_t transA = CUBLAS_OP_T, transB = CUBLAS_OP_N;
    checkBlas(cublasLtMatmulDescSetAttribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSA, &transA,
                                             sizeof transA),
              "TRANSA");
    checkBlas(cublasLtMatmulDescSetAttribute(desc.get(), CUBLASLT_MATMUL_DESC_TRANSB, &transB,
                                             sizeof transB),
              "TRANSB");
    const bool fp8 = c.a == CUDA_R_8F_E4M3 || c.a == CUDA_R_8F_E5M2;
    if (fp8) {
        // No per-tensor scale pointers: their factors default to 1, and with them set
        // cuBLASLt may refuse every FP8 algorithm (CUBLAS_STATUS_NOT_SUPPORTED) where without
        // them it runs.
        const std::int8_t fast = c.fastAccumulation ? 1 : 0;
        checkBlas(cublasLtMatmulDescSetAttribute(desc.get(), CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                                 sizeof fast),
                  "FAST_ACCUM");
    }
    // A is K×M stored column-major and used transposed; B is K×N; C and D are M×N.
    Layout layoutA = makeLayout(c.a, n, n, static_cast<std::int64_t>(n));
    Layout layoutB = makeLayout(c.b, n, n, static_cast<std::int64_t>(n));
    Layout layoutC = makeLayout(c.c, n, n, static_cast<std::int64_t>(n));

    cublasLtMatmulPreference_t rawPreference = nullptr;
    checkBlas(cublasLtMatmulPreferenceCreate(&rawPreference), "preference");
    Preference preference(rawPreference);
    const std::size_t workspaceBytes = kWorkspaceBytes;
    checkBlas(cublasLtMatmulPreferenceSetAttribute(preference.get(),
                                                   CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                   &workspaceBytes, sizeof workspaceBytes),
              "workspace preference");
    // The heuristic's candidates in its order of preference; the first that runs is timed
    // (one it proposes may still be refused at run time, as FP8 kernels can be).
    constexpr int kCandidates = 8;
    cublasLtMatmulHeuristicResult_t heuristics[kCandidates] = {};
    int found = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
        handle, desc.get(), layoutA.get(), layoutB.get(), layoutC.get(), layoutC.get(),
        preference.get(), kCandidates, heuristics, &found);
    if (status != CUBLAS_STATUS_SUCCESS || found == 0) {
        result.note = std::string("not measured: cuBLASLt's heuristic returned no algorithm "
                                  "for ") +
                      c.label + " on " + smName(target.computeCapability) +
                      (status != CUBLAS_STATUS_SUCCESS
                           ? std::string(" (") + cublasLtGetStatusName(status) + ")"
                           : std::string());
        return result;
    }

    const double oneD = 1.0, zeroD = 0.0;
    const float oneF = 1.0f, zeroF = 0.0f;
    const std::int32_t oneI = 1, zeroI = 0;
    const void* alpha = c.scale == CUDA_R_64F   ? static_cast<const void*>(&oneD)
                        : c.scale == CUDA_R_32I ? static_cast<const void*>(&oneI)
                                                : static_cast<const void*>(&oneF);
    const void* beta = c.scale == CUDA_R_64F   ? static_cast<const void*>(&zeroD)
                       : c.scale == CUDA_R_32I ? static_cast<const void*>(&zeroI)
                                               : static_cast<const void*>(&zeroF);
    auto run = [&](const cublasLtMatmulAlgo_t& algo) {
        return cublasLtMatmul(handle, desc.get(), alpha, a.get(), layoutA.get(), b.get(),
                              layoutB.get(), beta, cIn.get(), layoutC.get(), d.get(), layoutC.get(),
                              &algo, workspace.get(), kWorkspaceBytes, target.stream);
    };
    // A first run of each candidate outside the timing, until one runs.
    const cublasLtMatmulAlgo_t* chosen = nullptr;
    cublasStatus_t refusal = CUBLAS_STATUS_SUCCESS;
    for (int i = 0; i < found && chosen == nullptr; ++i) {
        if (heuristics[i].state != CUBLAS_STATUS_SUCCESS)
            continue;
        const cublasStatus_t ran = run(heuristics[i].algo);
        if (ran == CUBLAS_STATUS_SUCCESS) {
            check(cudaStreamSynchronize(target.stream), "matmul");
            chosen = &heuristics[i].algo;
        } else {
            refusal = ran;
            cudaGetLastError(); // a refused launch may leave a non-sticky error
        }
    }
    if (chosen == nullptr)
        throw std::runtime_error("cublasLtMatmul refused all " + std::to_string(found) +
                                 " algorithms its heuristic proposed (" +
                                 cublasLtGetStatusName(refusal) + ")");
    auto body = [&] {
        checkBlas(run(*chosen), "cublasLtMatmul");
        check(cudaStreamSynchronize(target.stream), "matmul");
    };
    result.time = bench::measure(body, plan, cancel);
    if (result.time.median > 0) {
        const double operations =
            2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
        result.operationsPerSecond = operations / result.time.median;
        result.elementsPerSecond = 0;
    }
    result.note = c.note;
    return result;
}

} // namespace

int matmulCaseCount() {
    return static_cast<int>(cases().size());
}

void runMatmulBench(const MatmulTarget& target, const bench::TimingPlan& plan,
                    const bench::ResultSink& sink, const std::atomic<bool>* cancel,
                    const std::function<void(const std::string&)>& step) {
    Handle handle;
    std::string handleError;
    try {
        check(cudaSetDevice(target.info.index), "cudaSetDevice");
        cublasLtHandle_t raw = nullptr;
        checkBlas(cublasLtCreate(&raw), "cublasLtCreate");
        handle.reset(raw);
    } catch (const std::exception& e) {
        handleError = e.what();
    }

    for (const MatmulCase& c : cases()) {
        if (cancel && cancel->load())
            return;
        if (step)
            step(std::string("cuBLASLt ") + c.label);
        bench::BenchResult result;
        result.backend = "cuda";
        result.device = target.info.name;
        result.deviceIndex = target.info.index;
        result.operation = bench::Operation::Arithmetic;
        result.format = c.format;
        result.direction = bench::Direction::Encode;
        result.path = std::string("cuBLASLt matmul ") + c.label;
        result.hardware = true;
        // Throughput only: the products are not compared with anything, so an unverified
        // matmul is not a failure.
        result.exactByDesign = false;
        result.elements = static_cast<std::size_t>(c.size);
        result.threads = 1;
        for (const auto& [id, peak] : target.info.datasheetPeaks)
            if (id == c.format)
                result.ceiling = peak;
        result.ceilingName = result.ceiling > 0 ? "datasheet dense peak (" + target.info.name + ")"
                                                : "no datasheet figure for " + target.info.name;
        if (!handle) {
            result.note = "not measured: " + handleError;
        } else if (target.computeCapability < c.minComputeCapability) {
            result.note = "not measured: needs sm_" + std::to_string(c.minComputeCapability) +
                          " or newer; this GPU is " + smName(target.computeCapability);
        } else {
            try {
                result = measureCase(c, target, handle.get(), plan, cancel, result);
            } catch (const std::exception& e) {
                result.note = std::string("not measured: ") + e.what();
                cudaGetLastError(); // clear a non-sticky error before the next case
            }
        }
        sink(result);
    }
}

} // namespace fpx::cuda
