// SPDX-License-Identifier: GPL-3.0-or-later
// A whole file mapped read-only into memory (POSIX mmap), so that files larger than RAM are
// read page by page as the values are used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace fpx::tensor_file {

class MappedFile {
  public:
    // nullptr with `error` ("PATH: cannot open the file: No such file or directory") otherwise.
    static std::shared_ptr<const MappedFile> open(const std::string& path, std::string& error);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::uint8_t* data() const { return data_; }
    std::size_t size() const { return size_; }
    std::string_view bytes() const { return {reinterpret_cast<const char*>(data_), size_}; }

  private:
    MappedFile() = default;
    const std::uint8_t* data_ = nullptr; // null for an empty file
    std::size_t size_ = 0;
};

} // namespace fpx::tensor_file
