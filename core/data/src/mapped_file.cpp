// SPDX-License-Identifier: GPL-3.0-or-later
#include "mapped_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fpx::tensor_file {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, std::string& error) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = path + ": cannot open the file: " + std::strerror(errno);
        return nullptr;
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        error = path + ": cannot read the file's size: " + std::strerror(errno);
        ::close(fd);
        return nullptr;
    }
    if (!S_ISREG(info.st_mode)) {
        error = path + ": not a regular file";
        ::close(fd);
        return nullptr;
    }
    std::shared_ptr<MappedFile> file(new MappedFile);
    file->size_ = static_cast<std::size_t>(info.st_size);
    if (file->size_ > 0) {
        void* address = ::mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (address == MAP_FAILED) {
            error = path + ": cannot map the file into memory: " + std::strerror(errno);
            ::close(fd);
            return nullptr;
        }
        file->data_ = static_cast<const std::uint8_t*>(address);
    }
    // The mapping keeps the file's pages reachable after the descriptor is closed.
    ::close(fd);
    return file;
}

void MappedFile::prefetch(std::size_t offset, std::size_t length) const {
    if (!data_ || length == 0 || offset >= size_)
        return;
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t start = offset / page * page;
    const std::size_t end = std::min(size_, offset + length);
    ::madvise(const_cast<std::uint8_t*>(data_) + start, end - start, MADV_WILLNEED);
}

MappedFile::~MappedFile() {
    if (data_)
        ::munmap(const_cast<std::uint8_t*>(data_), size_);
}

std::shared_ptr<void> allocateBuffer(std::size_t bytes) {
    constexpr std::size_t kLarge = std::size_t(4) << 20;
    if (bytes >= kLarge) {
        void* address =
            ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (address != MAP_FAILED) {
#ifdef MADV_HUGEPAGE
            ::madvise(address, bytes, MADV_HUGEPAGE); // a hint: without it, 4 KiB pages
#endif
            return std::shared_ptr<void>(address, [bytes](void* p) { ::munmap(p, bytes); });
        }
    }
    // Doubles and floats need no more alignment than new[] of doubles gives.
    double* memory = new double[(bytes + sizeof(double) - 1) / sizeof(double) + 1];
    return std::shared_ptr<void>(memory, [](void* p) { delete[] static_cast<double*>(p); });
}

} // namespace fpx::tensor_file
