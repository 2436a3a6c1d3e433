// SPDX-License-Identifier: GPL-3.0-or-later
#include "opencl_paths.h"

#include "fpx/exact/format_encoding.h"
#include "fpx/exact/rounding.h"
#include "fpx/kernels/bulk_conversion.h"
#include "fpx/kernels/element_conversion.h"

#include <bit>
#include <exception>

namespace fpx::opencl {

namespace {

using bench::Direction;

// kernels.cl translates element_conversion.h: a field added there must be added here too.
static_assert(sizeof(kernels::EncodeParams) == sizeof(ClEncodeParams),
              "EncodeParams changed: update ClEncodeParams and kernels.cl");
static_assert(sizeof(kernels::LookupParams) == sizeof(ClLookupParams),
              "LookupParams changed: update ClLookupParams and kernels.cl");
static_assert(sizeof(kernels::WidenParams) == sizeof(ClWidenParams),
              "WidenParams changed: update ClWidenParams and kernels.cl");

template <std::size_t N, typename T> void copyArray(cl_uint (&to)[N], const T (&from)[N]) {
    for (std::size_t i = 0; i < N; ++i)
        to[i] = static_cast<cl_uint>(from[i]);
}

ClEncodeParams toCl(const kernels::EncodeParams& p) {
    ClEncodeParams c{};
    c.kind = static_cast<cl_uint>(p.kind); // FPX_KIND_* (kernel_constants.cpp)
    c.fractionShift = p.fractionShift;
    c.normalRebias = p.normalRebias;
    c.minNormalBits = p.minNormalBits;
    c.smallShiftBase = p.smallShiftBase;
    c.multiplier = p.multiplier;
    c.maxMagnitude = p.maxMagnitude;
    c.maxNegativeMagnitude = p.maxNegativeMagnitude;
    c.signBit = p.signBit;
    c.codeMask = p.codeMask;
    c.nearestEvenAddend = p.nearestEvenAddend;
    c.subnormalMagicBits = p.subnormalMagicBits;
    copyArray(c.zeroCode, p.zeroCode);
    copyArray(c.overflowCode, p.overflowCode);
    copyArray(c.nanCode, p.nanCode);
    copyArray(c.infinityCode, p.infinityCode);
    c.reciprocalScaleBits = std::bit_cast<cl_ulong>(p.reciprocalScale);
    return c;
}

ClLookupParams toCl(const kernels::LookupParams& p) {
    ClLookupParams c{};
    c.count = p.count;
    static_assert(kernels::LookupParams::kMaxBreakpoints == 32, "kernels.cl has 32");
    for (std::size_t i = 0; i < 32; ++i)
        c.breakpoints[i] = p.breakpoints[i];
    copyArray(c.codes, p.codes);
    copyArray(c.nanCode, p.nanCode);
    return c;
}

ClWidenParams toCl(const kernels::WidenParams& p) {
    ClWidenParams c{};
    c.codeMask = p.codeMask;
    c.shift = p.shift;
    copyArray(c.nanBits, p.nanBits);
    copyArray(c.infinityBits, p.infinityBits);
    return c;
}

// vstore_half_<suffix>: the rounding modes OpenCL's own FP16 conversion offers.
const char* nativeSuffix(RoundingMode mode) {
    switch (mode) {
    case RoundingMode::NearestEven:
        return "rte";
    case RoundingMode::TowardZero:
        return "rtz";
    case RoundingMode::TowardPositive:
        return "rtp";
    case RoundingMode::TowardNegative:
        return "rtn";
    default:
        return nullptr;
    }
}

} // namespace

const char* widthSuffix(int bytes) {
    return bytes == 1 ? "u8" : bytes == 2 ? "u16" : "u32";
}

ConversionPlan planConversion(const FormatSpec& spec, Direction direction,
                              const RoundingOptions& requested, bool withTable) {
    ConversionPlan plan;
    plan.format = spec;
    plan.direction = direction;
    plan.options = bench::exactCoreOptions(requested, direction);
    const RoundingOptions& options = plan.options;
    try {
        plan.codeBits = spec.totalBits();
        if (plan.codeBits > 32) {
            plan.unsupported = spec.id + " has " + std::to_string(plan.codeBits) +
                               "-bit codes; the OpenCL kernels handle at most 32 bits";
            return plan;
        }
        plan.codeBytes = packedBytes(spec);
        if (withTable && plan.codeBits <= 16)
            plan.table = decodeTable(spec, options);
        const bool saturate = options.overflow == OverflowPolicy::Saturate;
        if (direction == Direction::Encode) {
            const char* native = nativeSuffix(options.mode);
            if (isFp16Encoding(spec) && native != nullptr) {
                ConversionPath path;
                path.kind = PathKind::NativeEncode;
                path.name =
                    std::string("OpenCL vstore_half_") + native + (saturate ? " + clamp" : "");
                path.hardware = true;
                path.kernel = std::string("encode_native_") + native;
                path.overflow = static_cast<cl_uint>(options.overflow); // FPX_OVERFLOW_*
                path.deviations = {bench::Deviation::NanPayload};
                if (saturate)
                    path.note = "saturation by clamping to ±65504 before vstore_half";
                plan.paths.push_back(std::move(path));
            }
            if (const auto params = encodeParams(spec, options)) {
                ConversionPath path;
                path.kind = PathKind::Encode;
                path.name = "OpenCL bit trick";
                path.kernel = "encode_" + std::string(roundingModeId(options.mode)) + "_" +
                              widthSuffix(plan.codeBytes);
                path.encode = toCl(*params);
                plan.paths.push_back(std::move(path));
            } else if (const auto params = lookupParams(spec, options)) {
                ConversionPath path;
                path.kind = PathKind::Lookup;
                path.name = "OpenCL breakpoint lookup";
                path.kernel = std::string("lookup_") + widthSuffix(plan.codeBytes);
                path.lookup = toCl(*params);
                plan.paths.push_back(std::move(path));
            }
            if (plan.paths.empty())
                plan.unsupported =
                    options.mode == RoundingMode::Stochastic
                        ? "no OpenCL kernel for stochastic rounding into " + spec.id
                        : "no OpenCL kernel for FP32 → " + spec.id +
                              " (the core gives no element-kernel parameters for it)";
        } else {
            if (isFp16Encoding(spec)) {
                ConversionPath path;
                path.kind = PathKind::NativeDecode;
                path.name = std::string("OpenCL vload_half") + (saturate ? " + clamp" : "");
                path.hardware = true;
                path.kernel = "decode_native_fp16";
                path.overflow = static_cast<cl_uint>(options.overflow); // FPX_OVERFLOW_*
                path.deviations = {bench::Deviation::NanPayload};
                if (saturate)
                    path.note = "saturation by clamping ±∞ to ±FLT_MAX after vload_half";
                plan.paths.push_back(std::move(path));
            }
            const auto widen = widenParams(spec, options);
            if (widen) {
                ConversionPath path;
                path.kind = PathKind::Widen;
                path.name = "OpenCL bit trick";
                path.kernel = std::string("decode_widen_") + widthSuffix(plan.codeBytes);
                path.widen = toCl(*widen);
                plan.paths.push_back(std::move(path));
            } else if (plan.codeBits <= 16 && (!withTable || !plan.table.empty())) {
                ConversionPath path;
                path.kind = PathKind::Table;
                path.name = "OpenCL table lookup";
                path.kernel = std::string("decode_table_") + widthSuffix(plan.codeBytes);
                plan.paths.push_back(std::move(path));
            }
            if (plan.paths.empty())
                plan.unsupported = "no OpenCL kernel for " + spec.id + " → FP32";
        }
    } catch (const std::exception& e) {
        plan.paths.clear();
        plan.unsupported = std::string("the core could not prepare the kernel: ") + e.what();
    }
    return plan;
}

} // namespace fpx::opencl
