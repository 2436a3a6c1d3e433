// SPDX-License-Identifier: GPL-3.0-or-later
#include "mapped_file.h"

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

MappedFile::~MappedFile() {
    if (data_)
        ::munmap(const_cast<std::uint8_t*>(data_), size_);
}

} // namespace fpx::tensor_file
