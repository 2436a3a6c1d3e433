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

namespace {

struct VariantNames {
    StochasticVariant variant;
    std::string_view id;    // fpx's: "sr", "srb", "src"
    std::string_view p3109; // the standard's, lower case
    std::string_view residue;
};

constexpr std::array<VariantNames, 3> kVariants{{
    {StochasticVariant::A, "sr", "stochastica", "residue truncated"},
    {StochasticVariant::B, "srb", "stochasticb", "residue rounded, ties up"},
    {StochasticVariant::C, "src", "stochasticc", "residue rounded, ties to even"},
}};

const VariantNames& namesOf(StochasticVariant variant) {
    for (const auto& v : kVariants)
        if (v.variant == variant)
            return v;
    return kVariants[0];
}

} // namespace

ParsedRounding parseRoundingChoice(std::string_view text) {
    const std::string key = toLower(trim(text));
    const std::size_t colon = key.find(':');
    if (colon == std::string::npos) {
        for (const auto& v : kVariants)
            if (key == v.p3109 || (key == v.id && v.variant != StochasticVariant::A))
                return {std::nullopt, "'" + std::string(text) +
                                          "' needs its number of random bits, e.g. " + key + ":8"};
        if (const auto mode = parseRoundingMode(key))
            return {RoundingChoice{*mode, {}}, {}};
        return {std::nullopt, "unknown rounding mode '" + std::string(text) +
                                  "' (use rne, rna, rtz, rup, rdn, sr, sr:N or rto)"};
    }
    const std::string name = key.substr(0, colon);
    const std::string digits = key.substr(colon + 1);
    const VariantNames* variant = nullptr;
    for (const auto& v : kVariants)
        if (name == v.id || name == v.p3109 ||
            (v.variant == StochasticVariant::A && (name == "stochastic" || name == "rs")))
            variant = &v;
    if (!variant)
        return {std::nullopt, "unknown rounding mode '" + std::string(text) +
                                  "': only stochastic modes take a number of random bits (sr:N)"};
    int count = 0;
    const bool number = !digits.empty() && digits.size() <= 3 &&
                        digits.find_first_not_of("0123456789") == std::string::npos;
    if (number)
        count = std::stoi(digits);
    if (!number || count < 1 || count > kMaxRandomBitCount)
        return {std::nullopt, "'" + std::string(text) + "': the number of random bits after ':' " +
                                  "must be 1 to " + std::to_string(kMaxRandomBitCount)};
    return {RoundingChoice{RoundingMode::Stochastic, RandomBitRule{count, variant->variant}}, {}};
}

std::string roundingChoiceId(RoundingMode mode, const RandomBitRule& stochastic) {
    if (mode != RoundingMode::Stochastic || stochastic.count == 0)
        return std::string(roundingModeId(mode));
    return std::string(namesOf(stochastic.variant).id) + ":" + std::to_string(stochastic.count);
}

std::string roundingChoiceName(RoundingMode mode, const RandomBitRule& stochastic) {
    if (mode != RoundingMode::Stochastic || stochastic.count == 0)
        return std::string(roundingModeName(mode));
    const VariantNames& v = namesOf(stochastic.variant);
    const char letter = static_cast<char>('A' + static_cast<int>(stochastic.variant));
    return "stochastic, " + std::to_string(stochastic.count) + " random bit" +
           (stochastic.count == 1 ? "" : "s") + " (" + std::string(v.residue) +
           ", P3109 Stochastic" + letter + ")";
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
