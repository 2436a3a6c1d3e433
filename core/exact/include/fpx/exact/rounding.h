// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/host_device.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fpx {

enum class RoundingMode {
    NearestEven,    // rne: IEEE default, ties to the even code
    NearestAway,    // rna: ties away from zero (NVIDIA cvt.rna.tf32.f32)
    TowardZero,     // rtz: truncate
    TowardPositive, // rup: ceiling
    TowardNegative, // rdn: floor
    Stochastic,     // sr: round up with probability equal to the discarded fraction (seeded)
    ToOdd,          // rto: truncate, then set the last bit if anything was discarded (von Neumann)
};

enum class OverflowPolicy {
    Ieee, // IEEE 754: overflow gives ±∞ (NaN where there is no ∞), or ±max in directed modes
    Saturate, // "satfinite" (P3109 SatFinite): every non-NaN result is finite; ±∞ → ±max
    // IEEE P3109's other two (Interim Report 4.7.5), for every format: "extended" is a format
    // with ∞, the lowest finite value of an unsigned one is 0 (docs/behaviour.md, "Conversion
    // rules"):
    SatPropagate, // finite overflow → ±max; ±∞ stays ±∞ where the format has it
    SatNone, // overflow → ±∞ where the format has it, else ±max; directed modes keep the side
             // they round toward finite; negatives into an unsigned format → NaN
};

// Exception flags of one conversion (SoftFloat's vocabulary, without global state).
struct ConversionFlags {
    bool inexact = false;
    bool underflow = false; // tiny (after rounding, IEEE 754 default on x86) and inexact
    bool overflow = false; // the rounded value exceeded the largest finite value (or ±∞ saturated)
    bool invalid =
        false; // NaN or a value the format cannot represent at all (negative into unsigned)

    bool any() const { return inexact || underflow || overflow || invalid; }
    bool operator==(const ConversionFlags&) const = default;
};

// Stochastic rounding as hardware does it, with an N-bit random integer R (0 ≤ R < 2^N, the top
// N of the 64 random bits) and the residue ν = the part of |x| below the kept last place, in
// units of that place (0 < ν < 1). IEEE P3109's three variants (Interim Report 4.7.4); each
// rounds away from zero for some of the 2^N values of R (docs/behaviour.md, "Stochastic
// rounding with N random bits"):
enum class StochasticVariant {
    A, // ⌊ν·2^N⌋ + R ≥ 2^N: P(away) = ν truncated to N bits (NVIDIA's cvt.rs adds R so)
    B, // ⌊ν·2^(N+1)⌋ + 2R + 1 ≥ 2^(N+1): P(away) = ν rounded to N bits, ties up
    C, // RNITE(ν·2^N) + R ≥ 2^N: P(away) = ν rounded to N bits, ties to even
};

struct RandomBitRule {
    // N = 1 … kMaxRandomBitCount; 0: all 64 bits decide, up when R / 2^64 < ν, so the
    // probability is ν itself (to within 2^−64): fpx's plain "sr".
    int count = 0;
    StochasticVariant variant = StochasticVariant::A;
    bool operator==(const RandomBitRule&) const = default;
};
inline constexpr int kMaxRandomBitCount = 32;

struct RoundingOptions {
    // Written out so that the many RoundingOptions{mode, overflow, bits} stay complete.
    constexpr RoundingOptions(RoundingMode mode_ = RoundingMode::NearestEven,
                              OverflowPolicy overflow_ = OverflowPolicy::Ieee,
                              std::uint64_t randomBits_ = 0, RandomBitRule stochastic_ = {})
        : mode(mode_), overflow(overflow_), randomBits(randomBits_), stochastic(stochastic_) {}

    RoundingMode mode = RoundingMode::NearestEven;
    OverflowPolicy overflow = OverflowPolicy::Ieee;
    // Stochastic rounding: 64 uniformly random bits for this one conversion. Callers derive
    // them from a seed and the element index (stochasticBits below) so results are
    // reproducible and independent of batching.
    std::uint64_t randomBits = 0;
    // How many of them decide, and how (stochastic rounding only).
    RandomBitRule stochastic;
};

// Counter-based random bits for stochastic rounding: splitmix64 (Steele, Lea, Flood 2014) on
// seed + index·golden ratio, so element i gets the same bits however the input is split into
// batches, on the CPU and on a GPU alike.
// `static`: each translation unit keeps its own copy, so one compiled for AVX-512 (the bulk
// loops) is never what the linker picks for plain x86-64 callers.
FPX_HOST_DEVICE static constexpr std::uint64_t stochasticBits(std::uint64_t seed,
                                                              std::uint64_t index) {
    std::uint64_t z = seed + (index + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// The seed of another stream of random bits beside stochasticBits(seed, ·): splitmix64 on the
// complemented seed and the stream's number. Values drawn from a seed and the stochastic
// roundings of those values take different streams, or each rounding would be decided by the
// very bits that drew its value.
FPX_HOST_DEVICE static constexpr std::uint64_t streamSeed(std::uint64_t seed,
                                                          std::uint64_t stream) {
    return stochasticBits(~seed, stream);
}

std::string_view roundingModeId(RoundingMode mode);   // "rne", "rna", …
std::string_view roundingModeName(RoundingMode mode); // "nearest, ties to even", …
std::optional<RoundingMode> parseRoundingMode(std::string_view text);

// A rounding mode with, for stochastic rounding, its random-bit rule: what `--round` names.
struct RoundingChoice {
    RoundingMode mode = RoundingMode::NearestEven;
    RandomBitRule stochastic;
    bool operator==(const RoundingChoice&) const = default;
};
struct ParsedRounding {
    std::optional<RoundingChoice> choice;
    std::string error; // why not, when choice is empty
};
// A mode id or alias (parseRoundingMode), or "sr:N" (variant A), "srb:N", "src:N" and P3109's
// "StochasticA:N", "StochasticB:N", "StochasticC:N" for N = 1 … kMaxRandomBitCount.
ParsedRounding parseRoundingChoice(std::string_view text);
// "sr:8", "srb:4", or the mode's id.
std::string roundingChoiceId(RoundingMode mode, const RandomBitRule& stochastic);
// "stochastic, 8 random bits (residue truncated, P3109 StochasticA)", or the mode's name.
std::string roundingChoiceName(RoundingMode mode, const RandomBitRule& stochastic);
inline std::string roundingChoiceId(const RoundingOptions& o) {
    return roundingChoiceId(o.mode, o.stochastic);
}
inline std::string roundingChoiceName(const RoundingOptions& o) {
    return roundingChoiceName(o.mode, o.stochastic);
}
std::string_view overflowPolicyId(OverflowPolicy policy);
std::optional<OverflowPolicy> parseOverflowPolicy(std::string_view text);
// "inexact,overflow" (empty when no flag is set).
std::string flagsToString(const ConversionFlags& flags);

} // namespace fpx
