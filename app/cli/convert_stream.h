// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What fpx convert's two streaming loops share (convert_text.cpp, convert_raw.cpp): the chunk
// they read and write in, the error log on stderr, and the code-to-code converter.

#include "conversion_setup.h"

#include "fpx/exact/format_spec.h"
#include "fpx/kernels/bulk_conversion.h"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fpx::cli {

// Input is read, and output written, this many bytes at a time.
inline constexpr std::size_t kChunkBytes = 1 << 16;

// Bytes per element in raw mode: the smallest of 1, 2, 4, 8, 10, 16 that holds the code.
std::size_t rawElementBytes(int bits);

// Reports errors on stderr, at most kMaxReportedErrors of them, and counts them all: a stream
// of bad input says what is wrong without burying the terminal.
class ErrorLog {
  public:
    static constexpr std::size_t kMaxReportedErrors = 100;

    explicit ErrorLog(std::ostream& err) : err_(err) {}
    void report(const std::string& message);
    // A message that stops the stream is shown even past kMaxReportedErrors: it says why.
    void fatal(const std::string& message);
    // How many were left unshown, once the stream is done.
    void summarize() const;
    std::size_t count() const { return count_; }

  private:
    std::ostream& err_;
    std::size_t count_ = 0;
};

// Converts codes of one format into another, caching every result when the source has at
// most 16 bits (and the rounding is deterministic): then each element is one table lookup.
// FP32 → format and format → FP32 go through the bulk kernels, proven against the exact core.
class CodeConverter {
  public:
    CodeConverter(const FormatSpec& from, const FormatSpec& to, const ConversionSetup& setup);

    // The bulk kernel for the whole stream, where one applies (else null).
    const BulkEncoder* encoder() const { return encoder_ ? &*encoder_ : nullptr; }
    const BulkDecoder* decoder() const { return decoder_ ? &*decoder_ : nullptr; }

    // Element `index` of the stream: stochastic rounding draws from it.
    Code convert(Code code, std::uint64_t index);

  private:
    const FormatSpec& from_;
    const FormatSpec& to_;
    const ConversionSetup& setup_;
    std::vector<std::optional<Code>> cache_;
    std::optional<BulkEncoder> encoder_;
    std::optional<BulkDecoder> decoder_;
};

} // namespace fpx::cli
