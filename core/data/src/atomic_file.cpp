// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/data/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fpx {

AtomicFile::~AtomicFile() {
    discard();
}

bool AtomicFile::create(const std::string& path, std::string& error) {
    discard();
    path_ = path;
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
        error = path + ": is a directory";
        return false;
    }
    const std::size_t slash = path.find_last_of('/');
    const std::string directory = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    // Mode 0666 lets the umask decide the permissions, as for any new file; O_EXCL never
    // reuses a name another writer (or a file of the user's) holds.
    for (int attempt = 0; attempt < 100; ++attempt) {
        temporary_ = directory + "." + name + ".fpx-" + std::to_string(::getpid()) + "-" +
                     std::to_string(attempt) + ".tmp";
        fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd_ >= 0)
            return true;
        if (errno != EEXIST)
            break;
    }
    error = path + ": cannot create a file beside it to write into: " + std::strerror(errno);
    temporary_.clear();
    return false;
}

bool AtomicFile::write(const void* data, std::size_t size, std::string& error) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t written = ::write(fd_, p, size);
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0) {
            error = path_ + ": write failed: " + std::strerror(errno);
            return false;
        }
        p += written;
        size -= static_cast<std::size_t>(written);
    }
    return true;
}

bool AtomicFile::commit(std::string& error) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) {
        error = path_ + ": write failed: " + std::strerror(errno);
        return false;
    }
    if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
        error = path_ + ": cannot replace the file: " + std::strerror(errno);
        return false;
    }
    temporary_.clear();
    return true;
}

void AtomicFile::discard() {
    if (fd_ >= 0)
        ::close(fd_);
    fd_ = -1;
    if (!temporary_.empty())
        ::unlink(temporary_.c_str());
    temporary_.clear();
}

AtomicFileBuffer::AtomicFileBuffer(AtomicFile& file) : file_(file) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
}

bool AtomicFileBuffer::drain() {
    const std::size_t size = static_cast<std::size_t>(pptr() - pbase());
    if (!error_.empty() || (size > 0 && !file_.write(pbase(), size, error_)))
        return false;
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return true;
}

AtomicFileBuffer::int_type AtomicFileBuffer::overflow(int_type c) {
    if (!drain())
        return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof()))
        return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
}

int AtomicFileBuffer::sync() {
    return drain() ? 0 : -1;
}

} // namespace fpx
