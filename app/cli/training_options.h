// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "presentation.h"

#include "fpx/exact/exact_value.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace fpx::cli {

// The options of the training commands (loss-scale, fp8-scaling) read alike.

// A positive FP32 number: the text parsed exactly and rounded once (nearest even) to FP32, as
// a framework's FP32 scale holds it. nullopt with `error` when it is not a number, not
// positive, or beyond FP32's range.
std::optional<float> parsePositiveFp32(const std::string& option, const std::string& text,
                                       std::string& error);

// A positive factor as a Python float holds it: the text rounded once (nearest even) to a
// double. nullopt with `error` when it is not a number, not positive, or beyond a double.
std::optional<double> parsePositiveDouble(const std::string& option, const std::string& text,
                                          std::string& error);

// A count from 1 to `limit`.
std::optional<std::size_t> parseCountOption(const std::string& option, const std::string& text,
                                            std::size_t limit, std::string& error);

std::optional<std::uint64_t> parseSeedOption(const std::string& text, std::string& error);

// An FP32 scale or a double factor as its exact decimal ("65536", "0.0009765625").
std::string exactDecimal(double value);
// A double for JSON: a number when finite, else "inf", "-inf" or "nan" as a string.
Json jsonNumber(double value);
// A fraction as a percentage for text output: "12.5%", "0%", "<0.01%".
std::string percentText(double fraction);
// A double in 6 significant digits for text output.
std::string shortNumber(double value);

} // namespace fpx::cli
