// SPDX-License-Identifier: GPL-3.0-or-later
// A file written whole or not at all: everything goes to a new file beside the target, which
// is renamed over the target only once complete. A failure or an interruption at any step
// removes the temporary file, so a reader of PATH sees the old file or the new one, never half.
#pragma once

#include <array>
#include <cstddef>
#include <streambuf>
#include <string>

namespace fpx {

class AtomicFile {
  public:
    AtomicFile() = default;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    ~AtomicFile();

    // Creates the temporary file beside `path` under a name no other writer holds; false with
    // `error` when it cannot (a directory, no permission).
    bool create(const std::string& path, std::string& error);
    bool write(const void* data, std::size_t size, std::string& error);
    // Closes the temporary file and renames it over the target.
    bool commit(std::string& error);
    // Closes and removes the temporary file; the target stays as it was.
    void discard();

  private:
    std::string path_, temporary_;
    int fd_ = -1;
};

// An output stream buffer over an AtomicFile, for writers that print with <<. The first
// failed write is kept in error() and fails the stream.
class AtomicFileBuffer : public std::streambuf {
  public:
    explicit AtomicFileBuffer(AtomicFile& file);
    const std::string& error() const { return error_; }

  protected:
    int_type overflow(int_type c) override;
    int sync() override;

  private:
    bool drain();

    AtomicFile& file_;
    std::array<char, 1 << 16> buffer_{};
    std::string error_;
};

} // namespace fpx
