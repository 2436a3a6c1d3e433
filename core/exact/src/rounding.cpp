// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/rounding.h"

#include "fpx/exact/text_util.h"

#include <array>
#include <utility>

namespace fpx {

namespace {

struct ModeNames {
    RoundingMode mode;
    std::string_view id;
    std::string_view name;
    std::array<std::string_view, 4> aliases;
};

// The last alias of each deterministic mode is IEEE P3109's name for it (Interim Report 4.2),
// compared without case: NearestTiesToEven, TowardZero, … P3109's ties to even take the even
// code, which is fpx's rule for every format (conversion.cpp, keptIsOdd).
constexpr std::array<ModeNames, 7> kModes{{
    {RoundingMode::NearestEven,
     "rne",
     "nearest, ties to even",
     {"nearest", "even", "rn", "nearesttiestoeven"}},
    {RoundingMode::NearestAway,
     "rna",
     "nearest, ties away from zero",
     {"away", "ties-away", "", "nearesttiestoaway"}},
    {RoundingMode::TowardZero,
     "rtz",
     "toward zero (truncate)",
     {"rz", "zero", "trunc", "towardzero"}},
    {RoundingMode::TowardPositive,
     "rup",
     "toward +infinity (ceiling)",
     {"ru", "up", "ceil", "towardpositive"}},
    {RoundingMode::TowardNegative,
     "rdn",
     "toward -infinity (floor)",
     {"rd", "down", "floor", "towardnegative"}},
    {RoundingMode::Stochastic, "sr", "stochastic (seeded)", {"stochastic", "rs", "", ""}},
    {RoundingMode::ToOdd, "rto", "to odd (sticky)", {"odd", "ro", "", "toodd"}},
}};

} // namespace

std::string_view roundingModeId(RoundingMode mode) {
    for (const auto& m : kModes)
        if (m.mode == mode)
            return m.id;
    return "?";
}

std::string_view roundingModeName(RoundingMode mode) {
    for (const auto& m : kModes)
        if (m.mode == mode)
            return m.name;
    return "?";
}

std::optional<RoundingMode> parseRoundingMode(std::string_view text) {
    const std::string key = toLower(trim(text));
    for (const auto& m : kModes) {
        if (key == m.id)
            return m.mode;
        for (std::string_view alias : m.aliases)
            if (!alias.empty() && key == alias)
                return m.mode;
    }
    return std::nullopt;
}

std::string_view overflowPolicyId(OverflowPolicy policy) {
    switch (policy) {
    case OverflowPolicy::Ieee:
        return "ieee";
    case OverflowPolicy::Saturate:
        return "saturate";
    case OverflowPolicy::SatPropagate:
        return "satpropagate";
    case OverflowPolicy::SatNone:
        return "satnone";
    }
    return "?";
}

std::optional<OverflowPolicy> parseOverflowPolicy(std::string_view text) {
    const std::string key = toLower(trim(text));
    if (key == "ieee" || key == "inf" || key == "nonsaturating")
        return OverflowPolicy::Ieee;
    if (key == "saturate" || key == "satfinite" || key == "sat")
        return OverflowPolicy::Saturate;
    if (key == "satpropagate")
        return OverflowPolicy::SatPropagate;
    // P3109's report before version 4 called SatNone OvfInf.
    if (key == "satnone" || key == "ovfinf")
        return OverflowPolicy::SatNone;
    return std::nullopt;
}

std::string flagsToString(const ConversionFlags& flags) {
    std::string text;
    auto add = [&](bool on, std::string_view name) {
        if (!on)
            return;
        if (!text.empty())
            text += ',';
        text += name;
    };
    add(flags.inexact, "inexact");
    add(flags.underflow, "underflow");
    add(flags.overflow, "overflow");
    add(flags.invalid, "invalid");
    return text;
}

} // namespace fpx
