// SPDX-License-Identifier: GPL-3.0-or-later
#include "conversion_paths.h"

#include "fpx/exact/format_encoding.h"
#include "fpx/kernels/bulk_conversion.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <utility>

namespace fpx::cuda {
namespace {

// The format's encoding is exactly this binary float, whatever its id (fpx/format_encoding.h:
// a custom "e5m10" is FP16 too).
bool isTf32(const FormatSpec& f) {
    return isBinaryFloat(f, 8, 10, 127, SpecialEncoding::Ieee);
}
bool isE4m3(const FormatSpec& f) {
    return isBinaryFloat(f, 4, 3, 7, SpecialEncoding::NanAtAllOnes);
}
bool isE5m2(const FormatSpec& f) {
    return isBinaryFloat(f, 5, 2, 15, SpecialEncoding::Ieee);
}
bool isE2m3(const FormatSpec& f) {
    return isBinaryFloat(f, 2, 3, 1, SpecialEncoding::None);
}
bool isE3m2(const FormatSpec& f) {
    return isBinaryFloat(f, 3, 2, 3, SpecialEncoding::None);
}
bool isE2m1(const FormatSpec& f) {
    return isBinaryFloat(f, 2, 1, 1, SpecialEncoding::None);
}

template <typename T, typename F> std::optional<T> tryCore(F&& f) {
    try {
        return f();
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

ConversionPath encodePath(std::string name, EncodeOp op, int codeBytes, bool hardware,
                          bench::Deviations deviations, std::string note) {
    ConversionPath p;
    p.description.name = std::move(name);
    p.description.hardware = hardware;
    p.description.deviations = deviations;
    p.description.note = std::move(note);
    p.direction = bench::Direction::Encode;
    p.codeBytes = codeBytes;
    p.encode.op = op;
    p.encode.codeBytes = codeBytes;
    return p;
}

ConversionPath decodePath(std::string name, DecodeOp op, int codeBytes, bool hardware,
                          bench::Deviations deviations, std::string note) {
    ConversionPath p;
    p.description.name = std::move(name);
    p.description.hardware = hardware;
    p.description.deviations = deviations;
    p.description.note = std::move(note);
    p.direction = bench::Direction::Decode;
    p.codeBytes = codeBytes;
    p.decode.op = op;
    p.decode.codeBytes = codeBytes;
    return p;
}

// FP16 and BF16: one intrinsic per IEEE rounding direction; none of them saturates.
// `directedArch`: the first architecture with the directed-rounding instructions (BF16's
// cvt.rz/rp/rm came with sm_90; cuda_bf16.hpp emulates them before).
void addHalfLike(std::vector<ConversionPath>& paths, const RoundingOptions& options,
                 const DeviceFeatures& features, const char* prefix, EncodeOp rn, EncodeOp rz,
                 EncodeOp ru, EncodeOp rd, int directedArch) {
    struct Choice {
        RoundingMode mode;
        EncodeOp op;
        const char* suffix;
    };
    const Choice choices[] = {{RoundingMode::NearestEven, rn, "_rn"},
                              {RoundingMode::TowardZero, rz, "_rz"},
                              {RoundingMode::TowardPositive, ru, "_ru"},
                              {RoundingMode::TowardNegative, rd, "_rd"}};
    const Choice* choice = nullptr;
    for (const Choice& c : choices)
        if (c.mode == options.mode)
            choice = &c;
    if (choice == nullptr)
        return; // no intrinsic for rna, rto or stochastic rounding
    bench::Deviations deviations{bench::Deviation::NanPayload};
    std::string note = "NaN inputs give CUDA's canonical NaN, not the exact core's NaN code";
    if (options.overflow == OverflowPolicy::Saturate) {
        deviations |= {bench::Deviation::InfinityInput, bench::Deviation::OverflowInput};
        note += "; the intrinsic does not saturate: overflow and ±inf give ±inf where the "
                "saturating exact core gives ±max";
    }
    const bool hardware = choice->op == rn || features.arch >= directedArch;
    if (!hardware)
        note += "; software emulation in the CUDA header before sm_" +
                std::to_string(directedArch / 10);
    paths.push_back(encodePath(std::string(prefix) + choice->suffix, choice->op, 2, hardware,
                               deviations, note));
}

// K·2^−k of a signed integer format under nearest-even, where it is an FP32 number in the
// normal range (K ≤ 127 has 7 bits): the device's FP32 path (IntegerNearestEvenEncode) is
// exact then. Else 0.
float integerNearestEvenScale(const kernels::EncodeParams& p, RoundingMode mode) {
    if (p.kind != kernels::EncodeKind::SignedInteger || mode != RoundingMode::NearestEven)
        return 0.0f;
    const double r = p.reciprocalScale;
    if (!(r >= std::ldexp(1.0, -126) && r <= std::ldexp(1.0, 127)) ||
        static_cast<double>(static_cast<float>(r)) != r)
        return 0.0f;
    return static_cast<float>(r);
}

std::vector<ConversionPath> encodePaths(const FormatSpec& format, const RoundingOptions& options,
                                        const DeviceFeatures& features) {
    std::vector<ConversionPath> paths;
    const int codeBytes = kernelCodeBytes(format);
    if (codeBytes == 0)
        return paths;

    const std::string mode(roundingModeId(options.mode));
    if (auto params =
            tryCore<kernels::EncodeParams>([&] { return encodeParams(format, options); })) {
        const float integerScale = integerNearestEvenScale(*params, options.mode);
        ConversionPath p =
            encodePath("own kernel: encodeElement<" + mode + ">" +
                           (integerScale != 0.0f ? " (FP32 two-product, cvt.rni)" : ""),
                       EncodeOp::Element, codeBytes, false, {}, {});
        p.description.ownKernel = true;
        p.encode.encode = *params;
        p.encode.mode = options.mode;
        p.encode.symmetric = params->kind == kernels::EncodeKind::BinaryFloat &&
                             kernels::symmetricSpecials(*params, options.mode);
        p.encode.unsignedZero =
            options.mode == RoundingMode::NearestEven && kernels::unsignedZeroApplies(*params);
        p.encode.integerReciprocalScale = integerScale;
        paths.push_back(std::move(p));
    } else if (auto lookup =
                   tryCore<kernels::LookupParams>([&] { return lookupParams(format, options); })) {
        // By the buckets where the breakpoints fit them (NF4 does), else by bisection.
        const auto buckets = kernels::bucketBreakpoints(*lookup);
        ConversionPath p = encodePath(
            buckets ? "own kernel: bucketLookupElement" : "own kernel: lookupElementBisect",
            buckets ? EncodeOp::BucketLookup : EncodeOp::Lookup, codeBytes, false, {}, {});
        p.description.ownKernel = true;
        p.encode.lookup = *lookup;
        if (buckets)
            p.encode.buckets = *buckets;
        p.encode.mode = options.mode;
        paths.push_back(std::move(p));
    }

    const bool rne = options.mode == RoundingMode::NearestEven;
    const bool rtz = options.mode == RoundingMode::TowardZero;
    const bool saturate = options.overflow == OverflowPolicy::Saturate;
    if (isFp16Encoding(format)) {
        addHalfLike(paths, options, features, "__float2half", EncodeOp::HalfRn, EncodeOp::HalfRz,
                    EncodeOp::HalfRu, EncodeOp::HalfRd, 0);
    } else if (isBf16Encoding(format)) {
        addHalfLike(paths, options, features, "__float2bfloat16", EncodeOp::Bf16Rn,
                    EncodeOp::Bf16Rz, EncodeOp::Bf16Ru, EncodeOp::Bf16Rd, 900);
    } else if (isTf32(format)) {
        bench::Deviations deviations{bench::Deviation::NanPayload};
        std::string note = "NaN payloads may differ from the exact core's NaN code";
        if (saturate) {
            deviations |= {bench::Deviation::InfinityInput, bench::Deviation::OverflowInput};
            note += "; no satfinite: overflow and ±inf give ±inf where the saturating exact "
                    "core gives ±max";
        }
        // cvt.rna rounds a NaN's bits as a number's: NaNs whose payload lies in the low bits
        // come out as ±inf (±max with .satfinite), where cvt.rn and cvt.rz keep them NaN
        // (docs/behaviour.md, "Known hardware deviations").
        const std::string rnaNaNs =
            "NaN inputs with a payload in the low bits may give ±inf or ±max: the instruction "
            "rounds a NaN's bits as a number's";
        if (options.mode == RoundingMode::NearestAway && saturate &&
            encodeOpCompiled(EncodeOp::Tf32RnaSatFinite))
            paths.push_back(
                encodePath("cvt.rna.satfinite.tf32.f32 (nearest, ties away)",
                           EncodeOp::Tf32RnaSatFinite, 4, true,
                           bench::Deviations{bench::Deviation::NanPayload,
                                             bench::Deviation::NanInputToInfinity},
                           "NaN payloads may differ from the exact core's NaN code; " + rnaNaNs));
        else if (options.mode == RoundingMode::NearestAway)
            paths.push_back(
                encodePath("cvt.rna.tf32.f32 (nearest, ties away: what cuBLAS and "
                           "CUTLASS use)",
                           EncodeOp::Tf32Rna, 4, true,
                           deviations | bench::Deviations{bench::Deviation::NanInputToInfinity},
                           note + "; " + rnaNaNs));
        else if (rne && features.tf32DirectedRounding)
            paths.push_back(
                encodePath("cvt.rn.tf32.f32", EncodeOp::Tf32Rn, 4, true, deviations, note));
        else if (rtz && features.tf32DirectedRounding)
            paths.push_back(
                encodePath("cvt.rz.tf32.f32", EncodeOp::Tf32Rz, 4, true, deviations, note));
    } else if ((isE4m3(format) || isE5m2(format)) && rne) {
        const bool e4m3 = isE4m3(format);
        const std::string kind = e4m3 ? "E4M3" : "E5M2";
        const std::string nanNote = "NaN inputs give CUDA's NaN code (0x7f or 0x7e|payload), "
                                    "not necessarily the exact core's";
        if (saturate)
            paths.push_back(
                encodePath("__nv_cvt_float_to_fp8 (" + kind + ", __NV_SATFINITE)",
                           e4m3 ? EncodeOp::Fp8E4m3SatFinite : EncodeOp::Fp8E5m2SatFinite, 1,
                           features.fp8Convert, {bench::Deviation::NanPayload},
                           nanNote + (features.fp8Convert
                                          ? "; cvt.rn.satfinite." +
                                                std::string(e4m3 ? "e4m3x2" : "e5m2x2") + ".f32"
                                          : "; software emulation in cuda_fp8.hpp below sm_89")));
        else
            paths.push_back(
                encodePath("__nv_cvt_float_to_fp8 (" + kind + ", __NV_NOSAT)",
                           e4m3 ? EncodeOp::Fp8E4m3NoSat : EncodeOp::Fp8E5m2NoSat, 1, false,
                           {bench::Deviation::NanPayload},
                           nanNote + "; the hardware converts only with satfinite, so cuda_fp8.hpp "
                                     "emulates __NV_NOSAT in software (through double)"));
    } else if ((isE2m3(format) || isE3m2(format) || isE2m1(format)) && (rne || rtz)) {
        // The format has no ∞ and no NaN, so every conversion saturates, as the intrinsics do.
        EncodeOp op;
        std::string name;
        if (isE2m3(format)) {
            op = rne ? EncodeOp::Fp6E2m3Rn : EncodeOp::Fp6E2m3Rz;
            name = "__nv_cvt_float_to_fp6 (E2M3, ";
        } else if (isE3m2(format)) {
            op = rne ? EncodeOp::Fp6E3m2Rn : EncodeOp::Fp6E3m2Rz;
            name = "__nv_cvt_float_to_fp6 (E3M2, ";
        } else {
            op = rne ? EncodeOp::Fp4E2m1Rn : EncodeOp::Fp4E2m1Rz;
            name = "__nv_cvt_float_to_fp4 (E2M1, ";
        }
        name += rne ? "cudaRoundNearest)" : "cudaRoundZero)";
        const bool hardware = rne && features.shortConvert;
        std::string note = "NaN inputs give +max (the format has no NaN; the exact core's "
                           "choice may differ)";
        note += hardware ? "; cvt.rn.satfinite"
                         : "; software emulation in the CUDA header on "
                           "this architecture (hardware only in "
                           "sm_100/sm_120 family-specific code)";
        if (encodeOpCompiled(op))
            paths.push_back(encodePath(name, op, 1, hardware, {bench::Deviation::NanInputAnyCode},
                                       std::move(note)));
    }
    return paths;
}

std::vector<ConversionPath> decodePaths(const FormatSpec& format, const RoundingOptions& options,
                                        const DeviceFeatures& features) {
    std::vector<ConversionPath> paths;
    const int codeBytes = kernelCodeBytes(format);
    if (codeBytes == 0)
        return paths;

    if (auto widen = tryCore<kernels::WidenParams>([&] { return widenParams(format, options); })) {
        ConversionPath p =
            decodePath("own kernel: widenElement", DecodeOp::Widen, codeBytes, false, {}, {});
        p.description.ownKernel = true;
        p.decode.widen = *widen;
        paths.push_back(std::move(p));
    } else if (codeBytes <= 2) {
        auto table =
            tryCore<std::vector<std::uint32_t>>([&] { return decodeTable(format, options); });
        const std::size_t codes = std::size_t{1} << (8 * codeBytes);
        if (table && !table->empty() && table->size() <= codes) {
            ConversionPath p =
                decodePath(codeBytes == 1 ? "own kernel: decodeTable in shared memory"
                                          : "own kernel: decodeTable in global memory",
                           DecodeOp::Table, codeBytes, false, {}, {});
            p.description.ownKernel = true;
            // Formats with fewer codes than their byte holds (FP6, FP4, INT4, NF4, INT2): the
            // core reads only a code's own bits, so the table repeats for every value of the
            // bits above them.
            const std::size_t formatCodes = table->size();
            p.hostTable.resize(codes);
            for (std::size_t k = 0; k < codes; ++k)
                p.hostTable[k] = (*table)[k % formatCodes];
            paths.push_back(std::move(p));
        }
    }

    // Under the saturating policy the exact core decodes ±inf codes to ±FLT_MAX; the
    // intrinsics give ±inf.
    bench::Deviations deviations{bench::Deviation::NanPayload};
    std::string note = "NaN codes give CUDA's NaN, not the exact core's NaN bits";
    if (options.overflow == OverflowPolicy::Saturate && format.hasInfinity()) {
        deviations |= {bench::Deviation::InfinityInput};
        note += "; ±inf codes give ±inf where the saturating exact core gives ±FLT_MAX";
    }
    if (isFp16Encoding(format))
        paths.push_back(decodePath("__half2float", DecodeOp::Half, 2, true, deviations, note));
    else if (isBf16Encoding(format))
        paths.push_back(decodePath("__bfloat162float", DecodeOp::Bf16, 2, true, deviations, note));
    else if (isE4m3(format) || isE5m2(format)) {
        const bool e4m3 = isE4m3(format);
        paths.push_back(decodePath(
            std::string("__nv_cvt_fp8_to_halfraw (") + (e4m3 ? "E4M3" : "E5M2") +
                ") + __half2float",
            e4m3 ? DecodeOp::Fp8E4m3 : DecodeOp::Fp8E5m2, 1, features.fp8Convert, deviations,
            note + (features.fp8Convert
                        ? "; cvt.rn.f16x2." + std::string(e4m3 ? "e4m3x2" : "e5m2x2")
                        : "; software emulation below sm_89")));
    } else if (isE2m3(format) || isE3m2(format) || isE2m1(format)) {
        const DecodeOp op = isE2m3(format)   ? DecodeOp::Fp6E2m3
                            : isE3m2(format) ? DecodeOp::Fp6E3m2
                                             : DecodeOp::Fp4E2m1;
        const std::string name = isE2m1(format)   ? "__nv_cvt_fp4_to_halfraw (E2M1)"
                                 : isE2m3(format) ? "__nv_cvt_fp6_to_halfraw (E2M3)"
                                                  : "__nv_cvt_fp6_to_halfraw (E3M2)";
        if (decodeOpCompiled(op))
            paths.push_back(decodePath(name + " + __half2float", op, 1, features.shortConvert, {},
                                       features.shortConvert
                                           ? std::string()
                                           : "software emulation in the CUDA header on this "
                                             "architecture"));
    }
    return paths;
}

} // namespace

int kernelCodeBytes(const FormatSpec& format) {
    const int bytes = tryCore<int>([&] { return packedBytes(format); }).value_or(0);
    return bytes == 1 || bytes == 2 || bytes == 4 ? bytes : 0;
}

std::vector<ConversionPath> conversionPaths(const FormatSpec& format,
                                            const RoundingOptions& options,
                                            bench::Direction direction,
                                            const DeviceFeatures& features) {
    return direction == bench::Direction::Encode ? encodePaths(format, options, features)
                                                 : decodePaths(format, options, features);
}

namespace {
int selectDevice(int device) {
    check(cudaSetDevice(device), "cudaSetDevice");
    return device;
}
} // namespace

DeviceRunner::DeviceRunner(int device) : device_(selectDevice(device)) {
    check(cudaDeviceGetAttribute(&multiProcessors_, cudaDevAttrMultiProcessorCount, device_),
          "cudaDeviceGetAttribute(multiprocessors)");
    check(probeDeviceFeatures(&features_, stream_.get()), "probe kernel");
    check(copyResidentBlocks(&copyResidentBlocks_), "occupancy of the copy kernel");
}

void DeviceRunner::activate() const {
    check(cudaSetDevice(device_), "cudaSetDevice");
}

int DeviceRunner::blocksFor(std::size_t elements, int residentBlocksPerSM) const {
    const std::size_t needed = (elements + kTileElements - 1) / kTileElements;
    const std::size_t wave = static_cast<std::size_t>(std::max(1, multiProcessors_)) *
                             static_cast<std::size_t>(std::max(1, residentBlocksPerSM));
    return static_cast<int>(std::clamp<std::size_t>(needed, 1, wave));
}

int DeviceRunner::copyBlocksFor(std::size_t bytes) const {
    return blocksFor((bytes + 3) / 4, copyResidentBlocks_); // as FP32 elements
}

void DeviceRunner::launch(ConversionPath& path, const void* in, void* out, std::size_t count,
                          std::uint64_t seed) {
    if (path.residentBlocks == 0) {
        int resident = 0;
        const cudaError_t status = path.direction == bench::Direction::Encode
                                       ? encodeResidentBlocks(path.encode, &resident)
                                       : decodeResidentBlocks(path.decode, &resident);
        check(status, "kernel occupancy");
        path.residentBlocks = std::max(1, resident);
    }
    const int blocks = blocksFor(count, path.residentBlocks);
    if (path.direction == bench::Direction::Encode) {
        path.encode.seed = seed;
        check(launchEncode(path.encode, static_cast<const std::uint32_t*>(in), out, count, blocks,
                           stream()),
              "encode kernel launch");
        return;
    }
    if (path.decode.op == DecodeOp::Table && path.decode.table == nullptr) {
        const std::size_t bytes = path.hostTable.size() * sizeof(std::uint32_t);
        path.deviceTable.allocate(bytes);
        copyOnStream(path.deviceTable.get(), path.hostTable.data(), bytes, cudaMemcpyHostToDevice,
                     stream(), "decode table upload");
        path.decode.table = path.deviceTable.as<const std::uint32_t>();
    }
    check(launchDecode(path.decode, in, static_cast<std::uint32_t*>(out), count, blocks, stream()),
          "decode kernel launch");
}

} // namespace fpx::cuda
