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

struct RoundingOptions {
    RoundingMode mode = RoundingMode::NearestEven;
    OverflowPolicy overflow = OverflowPolicy::Ieee;
    // Stochastic rounding: 64 uniformly random bits for this one conversion. Round up when
    // randomBits / 2^64 < discarded fraction. Callers derive it from a seed and the element
    // index (stochasticBits below) so results are reproducible and independent of batching.
    std::uint64_t randomBits = 0;
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
std::string_view overflowPolicyId(OverflowPolicy policy);
std::optional<OverflowPolicy> parseOverflowPolicy(std::string_view text);
// "inexact,overflow" (empty when no flag is set).
std::string flagsToString(const ConversionFlags& flags);

} // namespace fpx
