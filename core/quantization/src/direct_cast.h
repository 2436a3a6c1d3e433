// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/format_spec.h"
#include "fpx/kernels/bulk_conversion.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace fpx {

// What a run of cast elements did (QuantizedTensor's counts).
struct CastTally {
    std::size_t clipped = 0;
    std::size_t flushed = 0;
    std::size_t nanInputs = 0;
    std::size_t infInputs = 0;
};

// A direct cast of FP32 inputs into a binary float element format (BlockScheme::Direct), with
// quantizeExactly's answers: BulkEncoder's codes (nearest-even, saturating, as the reference
// rounds finite inputs), the reference's own codes for NaN and ±∞, and the counts by two
// magnitude boundaries found with the exact core (docs/proofs.md, "Block quantizers", "Block
// quantizers").
class DirectCast {
  public:
    // nullopt where BulkEncoder has no path for the format or a boundary cannot be stated as
    // one FP32 magnitude for both signs.
    static std::optional<DirectCast> create(const FormatSpec& element);

    // "bit trick (AVX-512)", "widening" …
    const std::string& encoderName() const { return name_; }
    int bytesPerCode() const { return bytes_; }

    // count FP32 inputs (their bits) → packed codes, bytesPerCode() each; adds to `tally`.
    void cast(const std::uint32_t* in, std::size_t count, std::uint8_t* codes,
              CastTally& tally) const;

  private:
    // IEEE binary32 and binary64 hold every FP32 value: their codes are its bits, widened.
    enum class Widening { None, Binary32, Binary64 };

    DirectCast() = default;

    std::optional<BulkEncoder> encoder_; // Widening::None
    Widening widening_ = Widening::None;
    std::string name_;
    int bytes_ = 1;
    std::uint32_t clipFrom_ = 0;  // smallest FP32 magnitude whose rounding overflows
    std::uint32_t flushUpTo_ = 0; // largest FP32 magnitude that rounds to a zero
    Code nonFiniteCodes_[4] = {}; // +NaN, −NaN, +∞, −∞ as quantizeExactly stores them
};

} // namespace fpx
