// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace fpx {

// FP32 → binary float conversion with 64-bit integer arithmetic only: the fast path of
// `fpx convert --raw --from fp32` and the start of the bulk kernels. It handles finite,
// in-range values itself and hands every rare case (NaN, ±∞, ±0, overflow, underflow to
// zero, negative into unsigned) to the exact core, so it agrees with roundToFormat bit for
// bit by construction of those cases and by test (tst_fp32kernel) for the rest
// (docs/proofs.md, "Fast paths and how they are proved").
//
// Available for binary float targets of at most 32 fraction bits in every mode but
// stochastic rounding.
class Fp32Kernel {
  public:
    static std::optional<Fp32Kernel> create(const FormatSpec& target,
                                            const RoundingOptions& options);

    Code convert(std::uint32_t fp32Bits) const;
    void convert(const std::uint32_t* in, Code* out, std::size_t count) const;
    // Packed output, as stored: 1, 2 or 4 bytes per element (the target must fit).
    void convert(const std::uint32_t* in, std::uint8_t* out, std::size_t count) const;
    void convert(const std::uint32_t* in, std::uint16_t* out, std::size_t count) const;
    void convert(const std::uint32_t* in, std::uint32_t* out, std::size_t count) const;

  private:
    Fp32Kernel(const FormatSpec& target, const RoundingOptions& options);
    Code exact(std::uint32_t fp32Bits) const;
    template <typename Out>
    void convertAll(const std::uint32_t* in, Out* out, std::size_t count) const;

    const FormatSpec* target_;
    RoundingOptions options_;
    int fractionBits_;
    std::int64_t minExponent_;
    std::int64_t maxExponent_;
    std::uint64_t maxSignificand_;
    std::int64_t bias_;
    int storedBits_;
    bool explicitIntegerBit_;
    bool exponentZeroIsSubnormal_;
    Code signBit_;
};

} // namespace fpx
