// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the OpenCL backend runs for a format and direction: the kernels of kernels.cl, with the
// parameters the core derives from the FormatSpec in the layout kernels.cl declares.

#include "cl_support.h"

#include "fpx/bench/backend.h"
#include "fpx/bench/verification.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fpx::opencl {

// ---- kernel parameters, laid out as kernels.cl declares them (32-bit fields only) --------

struct ClEncodeParams {
    cl_uint kind;
    cl_uint fractionShift;
    cl_uint normalRebias;
    cl_uint minNormalBits;
    cl_int smallShiftBase;
    cl_uint multiplier;
    cl_uint maxMagnitude;
    cl_uint maxNegativeMagnitude;
    cl_uint signBit;
    cl_uint codeMask;
    cl_uint nearestEvenAddend;
    cl_uint subnormalMagicBits;
    cl_uint zeroCode[2];
    cl_uint overflowCode[2];
    cl_uint nanCode[2];
    cl_uint infinityCode[2];
    cl_ulong reciprocalScaleBits; // a double, used by the CPU only
};
static_assert(sizeof(ClEncodeParams) == 22 * 4);

struct ClLookupParams {
    cl_uint count;
    cl_int breakpoints[32];
    cl_uint codes[33];
    cl_uint nanCode[2];
};
static_assert(sizeof(ClLookupParams) == 68 * 4);

struct ClWidenParams {
    cl_uint codeMask;
    cl_uint shift;
    cl_uint nanBits[2];
    cl_uint infinityBits[2];
};
static_assert(sizeof(ClWidenParams) == 6 * 4);

// ---- what runs for a format and direction ------------------------------------------------

enum class PathKind { NativeEncode, Encode, Lookup, NativeDecode, Widen, Table };

struct ConversionPath {
    PathKind kind = PathKind::Encode;
    std::string name; // BenchResult::path
    bool hardware = false;
    std::string kernel; // kernels.cl entry point
    std::string note;
    bench::Deviations deviations; // where it may differ from the exact core by design
    ClEncodeParams encode{};
    ClLookupParams lookup{};
    ClWidenParams widen{};
    cl_uint overflow = 0; // the native kernels' OverflowPolicy
};

struct ConversionPlan {
    FormatSpec format;
    bench::Direction direction = bench::Direction::Encode;
    RoundingOptions options; // what the exact core is asked for (bench::exactCoreOptions)
    int codeBits = 0;
    int codeBytes = 0;
    std::vector<ConversionPath> paths;
    std::string unsupported;          // why there is no path
    std::vector<std::uint32_t> table; // FP32 bits of every code (≤ 16-bit formats)

    // The adversarial check, shared by every path and device: inputs and the exact core's
    // answers (computed on first use).
    std::optional<bench::AdversarialSet> adversarial;

    int inBytes() const { return direction == bench::Direction::Encode ? 4 : codeBytes; }
    int outBytes() const { return direction == bench::Direction::Encode ? codeBytes : 4; }
};

// The paths for a format and direction (`withTable`: also the decode table the table kernel
// reads); none, and why, where kernels.cl has none.
ConversionPlan planConversion(const FormatSpec& spec, bench::Direction direction,
                              const RoundingOptions& requested, bool withTable);

// "u8", "u16", "u32": the kernels' suffix for codes of 1, 2 or 4 bytes.
const char* widthSuffix(int bytes);

} // namespace fpx::opencl
