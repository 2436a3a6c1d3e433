// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Conversion and scale conventions as data: how named specifications and implementations (the
// OCP specs, NVIDIA's cvt instruction, PyTorch, ml_dtypes, Transformer Engine) cast one value
// into a narrow format, and which E8M0 scale each MX scale rule picks for a block's amax. Each
// convention is a set of the core's RoundingOptions plus the one thing those options do not
// say, the NaN code, so every code is the exact core's rounding (docs/behaviour.md,
// "Conversion conventions", has the table, the sources and what is uncertain).

#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/quantization/block_format.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// The code a convention gives for a NaN input. Implementations agree that a NaN stays NaN where
// the format has one, but not on its bits, and the formats without NaN (FP6, FP4) leave it to
// the implementation.
enum class NanRule {
    Core,            // the core's: the canonical NaN with the input's sign (E4M3 0x7f, E5M2
                     // 0x7e); into FP6/FP4 the sign bit alone for +NaN, +0 for −NaN
    AllOnes,         // the all-ones code with the input's sign (E5M2 0x7f, 0xff)
    PositiveAllOnes, // the positive all-ones code whatever the sign; +max where there is no NaN
};
std::string_view nanRuleId(NanRule rule); // "core", "all-ones", "positive-all-ones"

// What a finite input beyond the largest finite value becomes in one format.
enum class OverflowResult { Max, NaN, Infinity };
std::string_view overflowResultId(OverflowResult result); // "max", "nan", "inf"

struct CastConvention {
    std::string id;     // "ocp-sat", "pytorch", …
    std::string name;   // "PyTorch tensor.to(float8)"
    std::string source; // where the behaviour is stated
    RoundingOptions rounding;
    NanRule nan = NanRule::Core;
    std::vector<std::string> formats; // built-in ids it casts into
    std::string note;                 // what is implementation-defined or uncertain
};

// The conventions, in display order.
const std::vector<CastConvention>& castConventions();

// Whether `convention` casts into `spec`: one of its formats, under any id or alias.
bool conventionCovers(const CastConvention& convention, const FormatSpec& spec);

// The built-in formats some convention covers, in catalogue order.
std::vector<FormatSpec> conventionFormats();

struct ConventionCast {
    Conversion conversion;   // code and flags
    OverflowResult overflow; // what overflow gives in this format under the convention
};

// x cast into `spec` as `convention` does: roundToFormat with its options; a NaN x takes the
// convention's NaN rule.
ConventionCast castWithConvention(const ExactValue& x, const FormatSpec& spec,
                                  const CastConvention& convention);

// What overflow gives in `spec` under `options`, read off the core's own rounding of a value
// far beyond the format's range.
OverflowResult overflowResult(const FormatSpec& spec, const RoundingOptions& options);

// An MX scale rule with its source.
struct ScaleConvention {
    ScaleRule rule;
    std::string name;
    std::string source;
};

// floor, ceil, even, in that order.
const std::vector<ScaleConvention>& scaleConventions();

// The MX quantizer whose elements are `element` (mxfp8_e4m3 for fp8_e4m3, …) under `rule`;
// nullopt when no MX format has that element.
std::optional<BlockFormat> mxFormatForElement(const FormatSpec& element, ScaleRule rule);

} // namespace fpx
