// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What "verified" means on every backend (docs/behaviour.md, "Benchmarks"): before a conversion
// path is timed, its outputs are compared bit for bit with the exact core's over the same two
// sets of inputs —
//   - the adversarial set: every FP32 exponent with the fractions on, just below and just
//     above each rounding position, the specials, every value of a small format with its
//     neighbours and the midpoints between them (encode); every code, or a spread of them
//     (decode);
//   - the first kRandomSampleElements of the timed random inputs;
// and every difference is put in a class. A path declares up front the classes it may fall
// into (docs/behaviour.md, "Known hardware deviations"); a difference outside them is a failure.

#include "fpx/bench/backend.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::bench {

// The ways a path may differ from the exact core by design.
enum class Deviation {
    // Where the exact core's answer is a NaN, another NaN (payload, sign or quiet bit).
    NanPayload,
    // NaN inputs into a format without NaN (FP6, FP4) may give any code.
    NanInputAnyCode,
    // ±∞ inputs may give another code (no saturation: ±∞ instead of ±max); decoding, ±∞ codes
    // may give ±∞ where the saturating exact core gives ±FLT_MAX.
    InfinityInput,
    // Finite inputs beyond the format's largest finite value may give another code: the
    // overflow rule differs.
    OverflowInput,
    // NaN inputs may give ±∞ or ±max of the input's sign: an instruction that rounds a NaN's
    // bits as a number's, so that a payload in the dropped bits carries into the exponent.
    NanInputToInfinity,
    // FP32 subnormal inputs are taken as zeros of their sign (denormals-are-zero).
    SubnormalInputFlushed,
};
inline constexpr std::array<Deviation, 6> kDeviations = {
    Deviation::NanPayload,    Deviation::NanInputAnyCode,    Deviation::InfinityInput,
    Deviation::OverflowInput, Deviation::NanInputToInfinity, Deviation::SubnormalInputFlushed};

// "nan-payload", "subnormal-input-flushed" …
std::string_view deviationId(Deviation deviation);
// "NaN payloads or signs (both results NaN)", "subnormal inputs flushed to ±0" …
std::string_view deviationDescription(Deviation deviation);

// A set of deviation classes: what a path declares.
class Deviations {
  public:
    constexpr Deviations() = default;
    constexpr Deviations(std::initializer_list<Deviation> list) {
        for (Deviation d : list)
            bits_ |= bit(d);
    }
    constexpr bool contains(Deviation d) const { return (bits_ & bit(d)) != 0; }
    constexpr bool empty() const { return bits_ == 0; }
    constexpr Deviations& operator|=(Deviations other) {
        bits_ |= other.bits_;
        return *this;
    }
    friend constexpr Deviations operator|(Deviations a, Deviations b) { return a |= b; }
    constexpr bool operator==(const Deviations&) const = default;
    // The descriptions joined by "; ", in kDeviations' order; "" when empty.
    std::string describe() const;

  private:
    static constexpr unsigned bit(Deviation d) { return 1u << static_cast<unsigned>(d); }
    unsigned bits_ = 0;
};

// Elements of the timed random inputs that are compared with the exact core, per size.
inline constexpr std::size_t kRandomSampleElements = std::size_t{1} << 16;

// The seed of stochastic rounding (element i rounds with stochasticBits(kSeed, i)) and, offset
// by the size, of the random inputs (randomInputs): the same on every backend, so that each
// checks and times the same elements at the same size. A new seed for every size keeps branch
// predictors and memory compression from learning one array.
inline constexpr std::uint64_t kSeed = 0x5eed0f00d;
constexpr std::uint64_t randomInputSeed(std::size_t elements) {
    return kSeed + elements;
}

// Decode inputs: the random FP32 inputs encoded with nearest-even (BulkEncoder), so that NaNs,
// subnormals and overflow are as frequent as the distribution says, not as uniformly random
// codes would make them. Empty where the format has no bulk encoder.
std::vector<std::uint8_t> decodeInputs(const FormatSpec& format, const std::uint32_t* fp32Bits,
                                       std::size_t count);

// Decode inputs where decodeInputs is empty (no bulk encoder): every code equally likely, the
// same on every backend at a size. Element i is the high half of
// stochasticBits(randomInputSeed(count), i) masked to the code; packed, packedBytes(format)
// bytes each; formats of at most 32 bits. writeRandomCodes fills elements [begin, end) of the
// `count` into `codes` (a backend may split the work); randomCodes all of them.
void writeRandomCodes(const FormatSpec& format, std::size_t count, void* codes, std::size_t begin,
                      std::size_t end);
std::vector<std::uint8_t> randomCodes(const FormatSpec& format, std::size_t count);

// The options the exact core is asked for in a direction. Decoding rounds only the values FP32
// cannot hold (INT8's k/127) and saturates ±∞ under the saturating policy; stochastic rounding
// becomes nearest-even there, since a table of results cannot be stochastic.
RoundingOptions exactCoreOptions(const RoundingOptions& requested, Direction direction);

// The adversarial encode inputs for a format, FP32 bits, sorted and without duplicates.
std::vector<std::uint32_t> adversarialFp32(const FormatSpec& format);
// The same around explicit values (FP32 bits of every code of the target; may be empty).
std::vector<std::uint32_t> adversarialFp32(const std::vector<std::uint32_t>& values);

// The adversarial decode inputs: every code of a format of at most 20 bits, else `limit`
// codes spread evenly; packed, packedBytes(format) bytes each.
std::vector<std::uint8_t> adversarialCodes(const FormatSpec& format,
                                           std::size_t limit = std::size_t{1} << 20);

// The adversarial set of a format and direction as every backend checks its paths on it: the
// inputs packed (FP32 bits for an encode, adversarialFp32; codes of packedBytes(format) bytes
// for a decode, adversarialCodes) and the exact core's outputs for them (element i rounding
// stochastically with stochasticBits(kSeed, i)).
struct AdversarialSet {
    std::vector<std::uint8_t> inputs;
    std::vector<std::uint8_t> expected;
    std::size_t count = 0;
};
// `options` are the exact core's (exactCoreOptions).
AdversarialSet adversarialSet(const FormatSpec& format, const RoundingOptions& options,
                              Direction direction);

// The exact core's outputs for packed inputs of a direction: codes of packedBytes(format)
// bytes (Encode; element i rounds stochastically with stochasticBits(seed, firstIndex + i))
// or FP32 bits (Decode). `options` are the exact core's (exactCoreOptions).
std::vector<std::uint8_t> exactCoreOutputs(const FormatSpec& format, const RoundingOptions& options,
                                           Direction direction, const void* inputs,
                                           std::size_t count, std::uint64_t seed = 0,
                                           std::uint64_t firstIndex = 0);

// Decides which declared class, if any, explains a difference between a path's answer and the
// exact core's.
class DeviationJudge {
  public:
    // `options` are the exact core's for the direction (exactCoreOptions).
    DeviationJudge(const FormatSpec& format, const RoundingOptions& options, Direction direction,
                   Deviations declared);

    // The class that explains `got` (the path's answer) where the exact core gave `expected`,
    // for this input (FP32 bits for an encode, the code for a decode); nullopt when none of
    // the declared ones does.
    std::optional<Deviation> explain(std::uint32_t input, std::uint32_t got,
                                     std::uint32_t expected) const;
    bool explains(std::uint32_t input, std::uint32_t got, std::uint32_t expected) const {
        return explain(input, got, expected).has_value();
    }

    const FormatSpec& format() const { return format_; }
    Direction direction() const { return direction_; }
    Deviations declared() const { return declared_; }
    int inputBytes() const;  // 4 (FP32) for an encode, packedBytes(format) for a decode
    int outputBytes() const; // the other way round

  private:
    std::uint32_t decodeBits(std::uint32_t code) const; // the exact core's FP32 bits of a code

    FormatSpec format_;
    RoundingOptions options_;
    Direction direction_;
    Deviations declared_;
    int codeBytes_ = 0;
    std::uint32_t maxFiniteBits_ = 0x7f800000u; // FP32 bits of the largest finite magnitude
    std::uint32_t zeroCode_[2] = {0, 0};        // the exact core's +0 and −0 codes
};

// The outcome of comparing a path's outputs with the exact core's.
struct Verification {
    std::uint64_t checked = 0;
    std::uint64_t mismatches = 0;
    // Mismatches explained by each declared class, in kDeviations' order.
    std::array<std::uint64_t, kDeviations.size()> explainedBy{};
    std::string firstMismatch; // "input 0x7f800001 gave 0x7c01, exact core 0x7e00"

    std::uint64_t explained() const;
    std::uint64_t unexplained() const { return mismatches - explained(); }
    void add(const Verification& other);
    // "" when nothing differs; else "3 of 70000 checked elements differ from the exact core:
    // all NaN payloads or signs (both results NaN); first: …", or with the count outside the
    // declared classes.
    std::string describe() const;
};

// Compares `count` outputs of a path (`actual`) with the exact core's (`expected`), both packed
// judge.outputBytes() each; `inputs` (judge.inputBytes() each) classify and describe them.
Verification verify(const DeviationJudge& judge, const void* inputs, const void* expected,
                    const void* actual, std::size_t count);

// Records a verification in a result: checked, mismatches, verified (something checked,
// nothing differs), exactByDesign and the description in the note. exactByDesign is false for
// a path that declares deviations (its differences are reported, not failures) unless a
// difference falls outside them: that one fails the path like any other.
void recordVerification(BenchResult& result, const Verification& verification, Deviations declared);

// "a; b", either part possibly empty.
std::string joinNotes(const std::string& a, const std::string& b);

} // namespace fpx::bench
