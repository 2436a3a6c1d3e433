// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "text_table.h"

#include "fpx/exact/bit_layout.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>

namespace fpx::cli {

// k when |v| = 2^k.
std::optional<std::int64_t> powerOfTwoExponent(const ExactValue& v);

// A short human form: "65504", "6.10352e-5 (2^-14)", "inf".
std::string humanValue(const ExactValue& v, int digits = 6);

// `text` cut to `limit` characters with "…" at the end, unless `full` (--full) or it fits.
std::string elide(const std::string& text, bool full, std::size_t limit = 42);

// JSON documents keep their keys in the order they were written.
using Json = nlohmann::ordered_json;

// The exact decimal text of `v` as a JSON string (exact values stay exact as text, however
// long), or null when there is none or it is NaN.
Json decimalOrNull(const std::optional<ExactValue>& v);

// A JSON integer when it fits in 64 bits. nlohmann holds no wider integer, so a wider one
// (fp128's 112-bit mantissa field, the 2^64 codes of fp64) is its exact decimal digits in a
// string, like the exact values: never a double that would round it.
Json integerOrDigits(Code n);
Json integerOrDigits(const BigInt& n);

// Prints `document` with two-space indents and a final newline. Any bytes that are not UTF-8
// become U+FFFD, so the output is JSON whatever text reaches it.
void printJson(std::ostream& out, const Json& document);
// One document on one line (JSON Lines), for a stream of results such as `fpx calc -`.
void printJsonLine(std::ostream& out, const Json& document);

// A CSV cell: as it is, or in double quotes (inner quotes doubled) where it holds a comma, a
// quote or a line break (RFC 4180), so a tensor named "a,b" stays one cell.
std::string csvField(std::string_view text);

// The code's bits grouped by field, each field in its colour.
std::string colouredBits(const FormatSpec& spec, Code code, const TerminalStyle& style);

// Colour (SGR parameter) of a bit field: sign blue, exponent green, integer bit yellow,
// mantissa red, integer level cyan.
std::string_view fieldColour(BitFieldKind kind);

} // namespace fpx::cli
