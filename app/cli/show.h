// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// fpx show in its three steps: the options read from the command line, the report the core
// computes from them, and the renderers that print it (cmd_show.cpp, show_render.cpp).

#include "arguments.h"
#include "commands.h"
#include "text_table.h"

#include "fpx/exact/code_details.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/same_bits.h"
#include "fpx/exact/stochastic_rounding.h"
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/cast_conventions.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fpx::cli {

// The value to show: VALUE as typed, or --bits CODE --as FORMAT decoded.
struct ShowInput {
    ExactValue value;
    std::string text;                   // as typed
    std::string fromFormat;             // with --bits: the format the code belongs to
    std::optional<FormatSpec> fromSpec; // with --bits: that format and the code itself
    Code code = 0;
    bool exact = true; // false when the value stands in for a very long or far input
};

struct ShowOptions {
    ShowInput input;
    std::vector<FormatSpec> formats; // --scale applied
    bool formatsGiven = false;       // --formats named them (else the built-ins)
    RoundingOptions rounding;
    std::uint64_t seed = 0;
    std::uint64_t draws = 0; // --draws, with --round sr
    // --width N: --bits CODE read in every N-bit format, as typed (input.code holds the code).
    std::optional<std::string> width;
    int widthBits = 0;
    bool json = false;
    bool full = false;
    bool conventions = false; // --conventions: each convention's cast and the E8M0 scales
    ColorChoice color = ColorChoice::Auto;
};

Outcome<ShowOptions> parseShowOptions(const Arguments& args);

// Stochastic rounding of the input: the two neighbours, the exact probability of going up and,
// with draws, the fraction of that many seeded roundings that went up.
struct StochasticView {
    std::optional<StochasticOutcomes> outcomes;
    std::optional<ExactValue> observed;
};

struct ShowReport {
    ShowInput input;
    RoundingOptions rounding;
    std::uint64_t seed = 0;
    std::uint64_t draws = 0;
    std::vector<FormatSpec> formats;        // those that could take the input
    std::vector<ConversionReport> results;  // one per format
    std::vector<StochasticView> stochastic; // one per format under --round sr, else none
    std::vector<std::string> skipped;       // why a format could not take the input
    // With --draws: whether the seed's random bits are independent of its neighbour's.
    std::optional<SeedAudit> seedAudit;
    // kExitDataError when a named format was skipped, or every format (nothing to show).
    int status = kExitOk;
};

ShowReport computeShow(const ShowOptions& options);

// --width: the rows of the explorer's "Same bits in every format" view.
struct SameBitsReport {
    Code code = 0;
    int bits = 0;
    std::string widthText; // --width as typed
    std::vector<SameBitsRow> rows;
};

SameBitsReport computeSameBits(const ShowOptions& options);

// --conventions: VALUE cast into each format as every convention that covers it casts it, beside
// fpx's own cast under --round and --overflow; and |VALUE| as the amax of a one-value MX block,
// with the E8M0 scale each scale rule picks (docs/behaviour.md, "Conversion conventions").
struct ConventionResult {
    const CastConvention* convention = nullptr; // an entry of castConventions()
    ConventionCast cast;
    DecodedCode decoded;
    bool agreesWithDefault = false; // the same code as fpx's own cast
};

struct ConventionsForFormat {
    FormatSpec spec;
    DecodedCode fpx; // fpx's own cast with the command line's options
    ConversionFlags fpxFlags;
    std::vector<ConventionResult> results; // the conventions that cover the format
    bool allAgree = true;                  // every convention gives the same code
};

struct ScaleRuleResult {
    const ScaleConvention* rule = nullptr; // an entry of scaleConventions()
    MxBlockScale scale;
    ExactValue quotient;     // |amax| / scale, what the element rounds (finite amax)
    ExactValue elementValue; // the element code's value
    ExactValue clippedBy;    // |amax| − element value × scale, when the element clipped
};

struct ScalesForElement {
    FormatSpec element;
    std::string blockFormat; // mxfp8_e4m3, …
    ExactValue elementMax;
    std::vector<ScaleRuleResult> rules; // floor, ceil, even
};

struct ConventionsReport {
    ShowInput input;
    RoundingOptions rounding;
    bool inputIsFp32 = true; // VALUE is an FP32 value, as the implementations' inputs are
    ExactValue amax;         // |VALUE|
    std::vector<ConventionsForFormat> formats;
    std::vector<ScalesForElement> scales;
};

ConventionsReport computeConventions(const ShowOptions& options);
void renderConventionsText(const ConventionsReport& report, const TerminalStyle& style,
                           std::ostream& out);
void renderConventionsJson(const ConventionsReport& report, std::ostream& out);

// One format: a step-by-step decode; several: one row each.
void renderShowText(const ShowReport& report, const TerminalStyle& style, bool full,
                    std::ostream& out);
void renderShowJson(const ShowReport& report, std::ostream& out);
void renderSameBitsText(const SameBitsReport& report, const TerminalStyle& style, bool full,
                        std::ostream& out);
void renderSameBitsJson(const SameBitsReport& report, std::ostream& out);

} // namespace fpx::cli
