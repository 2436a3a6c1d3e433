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
    // Asks the kernel to start reading [offset, offset + length) from disk now (a hint), so
    // that a tensor about to be read sequentially arrives ahead of the page faults.
    void prefetch(std::size_t offset, std::size_t length) const;
    std::string_view bytes() const { return {reinterpret_cast<const char*>(data_), size_}; }

  private:
    MappedFile() = default;
    const std::uint8_t* data_ = nullptr; // null for an empty file
    std::size_t size_ = 0;
};

// Uninitialised memory for n values of a widened or reordered tensor. A large buffer is an
// anonymous mapping marked for transparent huge pages: the values are written once, and with
// 2 MiB pages the first touch of fresh memory faults once per 2 MiB rather than once per 4 KiB,
// which otherwise costs more than the widening itself. A small one comes from new[].
std::shared_ptr<void> allocateBuffer(std::size_t bytes);

template <typename T> std::shared_ptr<T[]> allocateValues(std::size_t n) {
    std::shared_ptr<void> buffer = allocateBuffer(n * sizeof(T));
    return std::shared_ptr<T[]>(buffer, static_cast<T*>(buffer.get()));
}

} // namespace fpx::tensor_file
