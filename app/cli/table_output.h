// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a listing of codes will cost before it is written, and writing it safely: an output
// file that is complete or absent, and Ctrl+C that stops between rows.

#include "fpx/data/atomic_file.h"
#include "fpx/exact/code.h"
#include "fpx/exact/format_spec.h"

#include "interrupt_guard.h"

#include <atomic>
#include <cstdint>
#include <ostream>
#include <string>

namespace fpx::cli {

// Listings estimated above this are refused unless asked for with --limit or --stream: far
// more than any built-in format of 16 bits needs, far less than a wide exponent's decimals.
constexpr std::uint64_t kMaxTableBytes = std::uint64_t(64) << 20;

struct TableSize {
    std::uint64_t bytes = 0;        // estimated output, all rows
    std::uint64_t longestValue = 0; // estimated characters of the longest exact decimal
    std::size_t hexWidth = 3;       // the text table's columns: "hex", "bits", "class"
    std::size_t bitsWidth = 4;
    std::size_t classWidth = 5;
};

// Codes 0 … count−1 of `spec`: decoded (cheap), never printed. Each exact decimal's length is
// estimated from the value's bits, so a table of a wide exponent is known to be enormous
// before its first digit is computed.
TableSize measureTable(const FormatSpec& spec, std::uint64_t count);

// "1.1 GB", "640 kB": a size for a message.
std::string describeBytes(std::uint64_t bytes);

// A file for << written whole or not at all (fpx/atomic_file.h): an interrupted or failed
// write leaves `path` as it was.
class OutputFile {
  public:
    explicit OutputFile(std::string path);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    bool ok() const { return open_; }
    const std::string& error() const { return error_; }
    const std::string& path() const { return path_; }
    std::ostream& stream() { return stream_; }
    bool commit();
    void discard();

  private:
    std::string path_;
    AtomicFile file_;
    AtomicFileBuffer buffer_;
    std::ostream stream_;
    std::string error_;
    bool open_ = false;
};

} // namespace fpx::cli
