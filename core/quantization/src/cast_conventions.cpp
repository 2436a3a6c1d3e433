// SPDX-License-Identifier: GPL-3.0-or-later
// The conventions as data (docs/behaviour.md, "Conversion conventions", states what each source
// says and how it was read). A convention adds no rounding of its own: the code is the exact
// core's roundToFormat under the convention's options, and only a NaN input's bits follow the
// convention's NaN rule.
#include "fpx/quantization/cast_conventions.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_identity.h"
#include "fpx/exact/format_limits.h"

#include <algorithm>

namespace fpx {

namespace {

constexpr RoundingOptions kNearestSaturating{RoundingMode::NearestEven, OverflowPolicy::Saturate};
constexpr RoundingOptions kNearestIeee{RoundingMode::NearestEven, OverflowPolicy::Ieee};

const std::vector<std::string> kFp8{"fp8_e4m3", "fp8_e5m2"};
const std::vector<std::string> kOcpFormats{"fp8_e4m3", "fp8_e5m2", "fp6_e3m2", "fp6_e2m3",
                                           "fp4_e2m1"};

std::vector<CastConvention> makeConventions() {
    return {
        {"ocp-sat", "OCP, saturating",
         "OCP 8-bit Floating Point Specification (OFP8) v1.0, 2023: conversion in saturation "
         "mode; OCP Microscaling Formats (MX) v1.0, 2023, for FP6 and FP4",
         kNearestSaturating, NanRule::Core, kOcpFormats,
         "the spec leaves saturating or not to the implementation; NaN stays NaN, which of the "
         "format's NaN codes is not fixed"},
        {"ocp-nonsat", "OCP, non-saturating",
         "OCP OFP8 v1.0, 2023: conversion in non-saturation mode (E4M3 overflows to NaN, E5M2 to "
         "±∞); OCP MX v1.0: FP6 and FP4 have neither, so they saturate",
         kNearestIeee, NanRule::Core, kOcpFormats,
         "the spec leaves saturating or not to the implementation"},
        {"nvidia-cvt-satfinite", "NVIDIA PTX cvt.rn.satfinite",
         "PTX ISA, cvt: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 (sm_89 and later), "
         "{e2m3x2,e3m2x2,e2m1x2} (sm_100a and later); CUDA cuda_fp8.hpp __nv_cvt_float_to_fp8 "
         "with __NV_SATFINITE; cuda_fp6.h and cuda_fp4.h",
         kNearestSaturating, NanRule::PositiveAllOnes, kOcpFormats,
         "±∞ gives ±max (the PTX text: an input whose magnitude exceeds MAX_NORM gives "
         "sign-preserved MAX_NORM); the NaN bits 0x7f are those of cuda_fp8.hpp's host code, "
         "not checked on hardware; FP6/FP4: NaN gives +max (cuda_fp6.h, cuda_fp4.h)"},
        {"pytorch", "PyTorch tensor.to(float8)",
         "PyTorch c10/util/Float8_e4m3fn.h fp8e4m3fn_from_fp32_value, Float8_e5m2.h "
         "fp8e5m2_from_fp32_value",
         kNearestIeee, NanRule::AllOnes, kFp8,
         "from FP32: E4M3 inputs of at least 480 and E5M2 inputs of at least 65536 give NaN / ±∞ "
         "directly, and those between max + ½ ulp and there round up into the NaN / ∞ code, so "
         "overflow is decided after rounding; NaN gives the all-ones code with its sign"},
        {"ml-dtypes", "ml_dtypes (JAX) astype",
         "ml_dtypes float8.h ConvertImpl (kSaturate = false, the default of a cast), mxfloat.h "
         "for float6_e3m2fn, float6_e2m3fn and float4_e2m1fn",
         kNearestIeee, NanRule::Core, kOcpFormats,
         "float8_e4m3fn's infinity() is its NaN code, so overflow gives NaN; the FP6/FP4 types' "
         "infinity() is max, so they saturate; NaN gives quiet_NaN() with its sign (E5M2 0x7e; "
         "FP6/FP4 the sign-bit code), the rule fpx follows"},
        {"transformer-engine", "NVIDIA Transformer Engine FP8 cast",
         "Transformer Engine transformer_engine/common: its fp8e4m3 and fp8e5m2 are CUDA's "
         "__nv_fp8_e4m3 and __nv_fp8_e5m2, whose float constructors call "
         "__nv_cvt_float_to_fp8(…, __NV_SATFINITE, …)",
         kNearestSaturating, NanRule::PositiveAllOnes, kFp8,
         "Transformer Engine multiplies by its FP32 scale first; shown is the cast of the value "
         "itself"},
    };
}

std::vector<ScaleConvention> makeScaleConventions() {
    return {
        {ScaleRule::Floor, "floor (OCP MX)",
         "OCP Microscaling Formats (MX) v1.0, 2023, section 6.3: scale 2^(floor(log2 amax) − "
         "emax of the element)"},
        {ScaleRule::Ceil, "ceil (NVIDIA RCEIL)",
         "cuBLAS documentation, 1D block quantization: the scale amax / element max rounded up "
         "to a power of two (cvt.rp.satfinite.ue8m0x2.f32 in Transformer Engine and torchao's "
         "RCEIL)"},
        {ScaleRule::Even, "even (torchao EVEN)",
         "torchao mx_formats ScaleCalculationMode.EVEN, AMD Quark: amax rounded to the "
         "element's precision, nearest even, before floor(log2 amax) − emax"},
    };
}

// The all-ones code with the given sign, where it is a NaN of the format.
std::optional<Code> allOnesNaN(const FormatSpec& spec, bool negative) {
    const int bits = spec.totalBits();
    const Code signBit = spec.isSigned ? Code(1) << (bits - 1) : 0;
    const Code magnitude = (Code(1) << (spec.isSigned ? bits - 1 : bits)) - 1;
    const Code code = magnitude | (negative ? signBit : 0);
    if (decodeCode(spec, code).valueClass != ValueClass::NaN)
        return std::nullopt;
    return code;
}

} // namespace

std::string_view nanRuleId(NanRule rule) {
    switch (rule) {
    case NanRule::Core:
        return "core";
    case NanRule::AllOnes:
        return "all-ones";
    case NanRule::PositiveAllOnes:
        return "positive-all-ones";
    }
    return "core";
}

std::string_view overflowResultId(OverflowResult result) {
    switch (result) {
    case OverflowResult::Max:
        return "max";
    case OverflowResult::NaN:
        return "nan";
    case OverflowResult::Infinity:
        return "inf";
    }
    return "max";
}

const std::vector<CastConvention>& castConventions() {
    static const std::vector<CastConvention> conventions = makeConventions();
    return conventions;
}

bool conventionCovers(const CastConvention& convention, const FormatSpec& spec) {
    return std::any_of(convention.formats.begin(), convention.formats.end(),
                       [&](const std::string& id) {
                           const FormatLookup builtin = findFormat(id);
                           return builtin && sameEncoding(*builtin.spec, spec);
                       });
}

std::vector<FormatSpec> conventionFormats() {
    std::vector<FormatSpec> formats;
    for (const FormatSpec& spec : builtinFormats())
        if (std::any_of(castConventions().begin(), castConventions().end(),
                        [&](const CastConvention& c) { return conventionCovers(c, spec); }))
            formats.push_back(spec);
    return formats;
}

OverflowResult overflowResult(const FormatSpec& spec, const RoundingOptions& options) {
    const ExactValue beyond = deriveLimits(spec).max.timesPowerOfTwo(2);
    const Conversion c = roundToFormat(beyond, spec, options);
    switch (decodeCode(spec, c.code).valueClass) {
    case ValueClass::NaN:
        return OverflowResult::NaN;
    case ValueClass::Infinity:
        return OverflowResult::Infinity;
    default:
        return OverflowResult::Max;
    }
}

ConventionCast castWithConvention(const ExactValue& x, const FormatSpec& spec,
                                  const CastConvention& convention) {
    ConventionCast cast{roundToFormat(x, spec, convention.rounding),
                        overflowResult(spec, convention.rounding)};
    if (!x.isNaN())
        return cast;
    switch (convention.nan) {
    case NanRule::Core:
        break;
    case NanRule::AllOnes:
        if (const auto code = allOnesNaN(spec, x.isNegative()))
            cast.conversion.code = *code;
        break;
    case NanRule::PositiveAllOnes:
        cast.conversion.code = allOnesNaN(spec, false).value_or(deriveLimits(spec).maxCode);
        break;
    }
    return cast;
}

const std::vector<ScaleConvention>& scaleConventions() {
    static const std::vector<ScaleConvention> rules = makeScaleConventions();
    return rules;
}

std::optional<BlockFormat> mxFormatForElement(const FormatSpec& element, ScaleRule rule) {
    for (const std::string& id : scaledQuantizerIds()) {
        std::string error;
        std::optional<BlockFormat> format = findBlockFormat(id, {std::nullopt, rule}, error);
        if (format && format->scheme == BlockScheme::Mx && sameEncoding(format->element, element))
            return format;
    }
    return std::nullopt;
}

} // namespace fpx
