// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "arguments.h"
#include "commands.h"

#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::cli {

// The options every converting command shares: --round, --overflow, --seed, --scale.
struct ConversionSetup {
    RoundingOptions rounding;
    std::uint64_t seed = 0;
    std::optional<ExactValue> scale; // for integer and lookup formats
    std::string error;               // non-empty when an option was invalid

    // Random bits for element `index` under stochastic rounding.
    RoundingOptions forElement(std::uint64_t index) const;
    // Applies --scale to an integer or lookup format (no change for floats).
    void applyScale(FormatSpec& spec) const;
};

ConversionSetup readConversionSetup(const Arguments& args);

// How the error for a format without arithmetic begins: with the option alone, the reason
// naming the format ("--element: nf4 has no arithmetic: …"), or with the option and the format
// (fpx sgd: "--formats nf4: nf4 has no arithmetic: …", which of a list it was).
enum class ArithmeticErrorForm { Option, OptionAndId };

// The format `id` given to --`option`, with --scale applied, for a command that computes in it:
// a usage error when the id is unknown or the format has no arithmetic.
Outcome<FormatSpec> readArithmeticFormat(std::string_view option, std::string_view id,
                                         const ConversionSetup& setup, ArithmeticErrorForm form);

// Options with values shared by the converting commands.
inline const char* const kConversionOptions[] = {"round", "overflow", "seed", "scale"};

} // namespace fpx::cli
