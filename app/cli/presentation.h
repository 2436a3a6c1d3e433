// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/json_writer.h"
#include "text_table.h"

#include "fpx/bit_layout.h"
#include "fpx/exact_value.h"
#include "fpx/format_spec.h"

#include <optional>
#include <string>

namespace fpx::cli {

// k when |v| = 2^k.
std::optional<std::int64_t> powerOfTwoExponent(const ExactValue& v);

// A short human form: "65504", "6.10352e-5 (2^-14)", "inf".
std::string humanValue(const ExactValue& v, int digits = 6);

// Writes "name": "<exact decimal>" (or 40 digits), or null for NaN when `nanIsNull`.
void writeDecimalField(JsonWriter& json, std::string_view name, const std::optional<ExactValue>& v);

// The code's bits grouped by field, each field in its colour.
std::string colouredBits(const FormatSpec& spec, Code code, const TerminalStyle& style);

// Colour (SGR parameter) of a bit field: sign blue, exponent green, integer bit yellow,
// mantissa red, integer level cyan.
std::string_view fieldColour(BitFieldKind kind);

} // namespace fpx::cli
