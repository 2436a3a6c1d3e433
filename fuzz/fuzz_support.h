// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the fuzz targets share: the input as text, a stream that discards what is printed (the
// printing itself still runs), and a scratch file for readers that take a path.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <unistd.h>

namespace fpx::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// Counts what is written and keeps none of it, so a long run holds no output in memory.
class DiscardingBuffer : public std::streambuf {
  public:
    std::size_t written() const { return written_; }

  protected:
    int_type overflow(int_type c) override {
        ++written_;
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char*, std::streamsize n) override {
        written_ += static_cast<std::size_t>(n);
        return n;
    }

  private:
    std::size_t written_ = 0;
};

class DiscardingStream : public std::ostream {
  public:
    DiscardingStream() : std::ostream(&buffer_) {}
    std::size_t written() const { return buffer_.written(); }

  private:
    DiscardingBuffer buffer_;
};

// A file holding the input, for readers that open a path (tensor files, saved runs). One per
// process (the process id in its name), rewritten for every input, removed at exit.
class ScratchFile {
  public:
    explicit ScratchFile(const std::string& extension) {
        const char* dir = std::getenv("TMPDIR");
        path_ = std::string(dir && *dir ? dir : "/tmp") + "/fpx_fuzz_" +
                std::to_string(::getpid()) + extension;
    }
    ~ScratchFile() { std::remove(path_.c_str()); }
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;

    const std::string& write(const std::uint8_t* data, std::size_t size) {
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        return path_;
    }

  private:
    std::string path_;
};

} // namespace fpx::fuzz
