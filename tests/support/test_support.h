// SPDX-License-Identifier: GPL-3.0-or-later
// Small helpers shared by the Qt Test executables: format lookup, hex text, the rounding
// cases every test sweeps, and the NF4 levels of docs/behaviour.md, "Format facts" (typed once,
// independent of the core).
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/value_parser.h"

#include <QString>
#include <QtGlobal>

#include <cstdint>
#include <string>
#include <vector>

namespace fpx::test {

inline FormatSpec lookUp(const QString& name) {
    const FormatLookup lookup = findFormat(name.toStdString());
    if (!lookup)
        qFatal("format %s: %s", qPrintable(name), lookup.error.c_str());
    return *lookup.spec;
}

inline QString hex(const FormatSpec& spec, Code code) {
    return QString::fromStdString(codeToHex(code, spec.totalBits()));
}

inline ExactValue exactValue(const QString& text) {
    const ParsedValue parsed = parseValue(text.toStdString());
    if (!parsed.value)
        qFatal("bad test value %s: %s", qPrintable(text), parsed.error.message.c_str());
    return *parsed.value;
}

// An exact value as text for failure messages: n/d*2^k (or nan, ±inf).
inline QString valueText(const ExactValue& v) {
    if (v.isNaN())
        return "nan";
    if (v.isInfinity())
        return v.isNegative() ? "-inf" : "inf";
    return QString("%1%2/%3*2^%4")
        .arg(v.isNegative() ? "-" : "")
        .arg(QString::fromStdString(v.numerator().str()))
        .arg(QString::fromStdString(v.denominator().str()))
        .arg(v.exponent2());
}

struct ModeCase {
    RoundingMode mode;
    std::uint64_t randomBits; // only read by Stochastic
    const char* name;
};

// Every rounding mode; stochastic rounding at both ends of the random range, where it must act
// as a directed rounding (0: away from zero whenever inexact; 2^64−1: toward zero unless the
// discarded fraction exceeds 1 − 2^−64), and in the middle, where an exact midpoint must not
// round away (2^63 / 2^64 < 1/2 is false).
inline constexpr ModeCase kModes[] = {
    {RoundingMode::NearestEven, 0, "rne"},
    {RoundingMode::NearestAway, 0, "rna"},
    {RoundingMode::TowardZero, 0, "rtz"},
    {RoundingMode::TowardPositive, 0, "rup"},
    {RoundingMode::TowardNegative, 0, "rdn"},
    {RoundingMode::ToOdd, 0, "rto"},
    {RoundingMode::Stochastic, 0, "sr(0)"},
    {RoundingMode::Stochastic, ~std::uint64_t(0), "sr(2^64-1)"},
    {RoundingMode::Stochastic, std::uint64_t(1) << 63, "sr(2^63)"},
};

inline constexpr OverflowPolicy kPolicies[] = {OverflowPolicy::Ieee, OverflowPolicy::Saturate};

// The NF4 levels exactly as docs/behaviour.md, "Format facts" lists them (QLoRA / bitsandbytes),
// codes 0–15.
inline constexpr const char* kNf4Decimals[16] = {
    "-1.0",
    "-0.6961928009986877",
    "-0.5250730514526367",
    "-0.39491748809814453",
    "-0.28444138169288635",
    "-0.18477343022823334",
    "-0.09105003625154495",
    "0.0",
    "0.07958029955625534",
    "0.16093020141124725",
    "0.24611230194568634",
    "0.33791524171829224",
    "0.44070982933044434",
    "0.5626170039176941",
    "0.7229568362236023",
    "1.0",
};

// RFC 4180: fields separated by commas, quoted fields may hold commas, quotes ("") and
// newlines. Returns the rows, each a list of fields.
inline std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(field);
            field.clear();
        } else if (c == '\n') {
            row.push_back(field);
            field.clear();
            rows.push_back(row);
            row.clear();
        } else {
            field += c;
        }
    }
    if (!field.empty() || !row.empty()) {
        row.push_back(field);
        rows.push_back(row);
    }
    return rows;
}

} // namespace fpx::test
