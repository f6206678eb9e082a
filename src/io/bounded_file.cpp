// Bounded file access; see bounded_file.h.
#include "io/bounded_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstring>

namespace llmmem::io {
namespace {

std::string SizeText(uint64_t bytes) {
  if (bytes >= (1ull << 20) && bytes % (1ull << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// What a path that is not a regular file is, as the end of a sentence.
std::string KindText(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory, not a file";
  if (S_ISFIFO(mode)) return "is a pipe (FIFO), not a regular file; to read standard input, give - as the file name";
  if (S_ISCHR(mode)) return "is a character device (like /dev/zero or a terminal), not a regular file";
  if (S_ISBLK(mode)) return "is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "is a socket, not a regular file";
  return "is not a regular file";
}

std::string ErrnoText(int e) {
  if (e == ENOENT) return "no such file";
  if (e == EACCES || e == EPERM) return "permission denied";
  if (e == ENOTDIR) return "a part of the path is not a directory";
  if (e == ELOOP) return "too many symbolic links";
  if (e == ENAMETOOLONG) return "the path is too long";
  return std::strerror(e);
}

// Opens a regular file for reading without blocking; checks the kind before and after open.
int OpenRegular(const std::string& path, uint64_t* size, std::string* error, bool* not_found) {
  if (path.empty()) {
    *error = "no file name given";
    return -1;
  }
  if (path.find('\0') != std::string::npos) {
    *error = "the file name contains a NUL byte";
    return -1;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int e = errno;
    if (not_found != nullptr) *not_found = e == ENOENT;
    *error = ErrnoText(e);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {  // refused before open: opening a device can have effects
    *error = KindText(st.st_mode);
    return -1;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    *error = ErrnoText(errno);
    return -1;
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // replaced between stat and open
    *error = ::fstat(fd, &st) == 0 ? KindText(st.st_mode) : ErrnoText(errno);
    ::close(fd);
    return -1;
  }
  *size = st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : 0;
  return fd;
}

// pread until n bytes, the end of the file, or an error.
bool ReadUpTo(int fd, uint64_t offset, uint64_t n, std::string* out, std::string* error) {
  out->clear();
  constexpr uint64_t kChunk = 1u << 20;
  while (out->size() < n) {
    const uint64_t want = std::min<uint64_t>(kChunk, n - out->size());
    const size_t at = out->size();
    out->resize(at + static_cast<size_t>(want));
    const ssize_t got = ::pread(fd, out->data() + at, static_cast<size_t>(want), static_cast<off_t>(offset + at));
    if (got < 0) {
      if (errno == EINTR) {
        out->resize(at);
        continue;
      }
      *error = "read error: " + ErrnoText(errno);
      return false;
    }
    out->resize(at + static_cast<size_t>(got));
    if (got == 0) break;
  }
  return true;
}

ReadResult ReadStdin(uint64_t max_bytes, const std::string& what) {
  ReadResult r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kStdinSeconds);
  char buf[1 << 16];
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.error = "standard input did not end within " + std::to_string(kStdinSeconds) + " s";
      return r;
    }
    pollfd p{0, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0) {
      if (errno == EINTR) continue;
      r.error = "cannot wait for standard input: " + ErrnoText(errno);
      return r;
    }
    if (ready == 0) continue;  // the deadline is checked above
    const ssize_t got = ::read(0, buf, sizeof buf);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      r.error = "cannot read standard input: " + ErrnoText(errno);
      return r;
    }
    if (got == 0) break;
    if (r.bytes.size() + static_cast<size_t>(got) > max_bytes) {
      r.error = "standard input gave more than " + SizeText(max_bytes) + "; " + what + " is smaller";
      r.bytes.clear();
      return r;
    }
    r.bytes.append(buf, static_cast<size_t>(got));
  }
  r.ok = true;
  r.file_size = r.bytes.size();
  return r;
}

}  // namespace

ReadResult ReadWholeFile(const std::string& path, uint64_t max_bytes, const std::string& what) {
  if (path == "-") return ReadStdin(max_bytes, what);
  ReadResult r;
  const int fd = OpenRegular(path, &r.file_size, &r.error, &r.not_found);
  if (fd < 0) return r;
  if (r.file_size > max_bytes) {
    r.error = "is " + std::to_string(r.file_size) + " bytes; " + what + " is at most " + SizeText(max_bytes);
    ::close(fd);
    return r;
  }
  // One byte past the cap tells a file that grew since fstat (or a /proc file of size 0).
  const bool read_ok = ReadUpTo(fd, 0, max_bytes + 1, &r.bytes, &r.error);
  ::close(fd);
  if (!read_ok) return r;
  if (r.bytes.size() > max_bytes) {
    r.bytes.clear();
    r.error = "grew past " + SizeText(max_bytes) + " while it was read; " + what + " is smaller";
    return r;
  }
  r.file_size = r.bytes.size();
  r.ok = true;
  return r;
}

ReadResult ReadFileTail(const std::string& path, uint64_t max_bytes, size_t head_bytes, std::string* head) {
  ReadResult r;
  head->clear();
  if (path == "-") {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kStdinSeconds);
    char buf[1 << 16];
    uint64_t total = 0;
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        r.error = "standard input did not end within " + std::to_string(kStdinSeconds) + " s";
        r.bytes.clear();
        return r;
      }
      pollfd p{0, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
      if (ready < 0 && errno != EINTR) {
        r.error = "cannot wait for standard input: " + ErrnoText(errno);
        return r;
      }
      if (ready <= 0) continue;
      const ssize_t got = ::read(0, buf, sizeof buf);
      if (got < 0) {
        if (errno == EINTR || errno == EAGAIN) continue;
        r.error = "cannot read standard input: " + ErrnoText(errno);
        return r;
      }
      if (got == 0) break;
      const size_t n = static_cast<size_t>(got);
      if (head->size() < head_bytes) head->append(buf, std::min(n, head_bytes - head->size()));
      total += n;
      r.bytes.append(buf, n);
      // Keep at most twice the tail between trims: amortised linear, memory bounded.
      if (r.bytes.size() > 2 * max_bytes) r.bytes.erase(0, r.bytes.size() - max_bytes);
    }
    if (r.bytes.size() > max_bytes) r.bytes.erase(0, r.bytes.size() - max_bytes);
    r.file_size = total;
    r.ok = true;
    return r;
  }
  RegularFile f;
  if (!f.Open(path, &r.error)) return r;
  r.file_size = f.size();
  if (!f.ReadAt(0, std::min<uint64_t>(head_bytes, f.size()), head, &r.error)) return r;
  const uint64_t from = f.size() > max_bytes ? f.size() - max_bytes : 0;
  r.ok = f.ReadAt(from, f.size() - from, &r.bytes, &r.error);
  return r;
}

ReadResult ReadFilePrefix(const std::string& path, uint64_t n) {
  ReadResult r;
  RegularFile f;
  if (!f.Open(path, &r.error)) return r;
  r.file_size = f.size();
  r.ok = f.ReadAt(0, std::min(n, f.size()), &r.bytes, &r.error);
  return r;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool RegularFile::Open(const std::string& path, std::string* error) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = OpenRegular(path, &size_, error, nullptr);
  return fd_ >= 0;
}

bool RegularFile::ReadAt(uint64_t offset, uint64_t n, std::string* out, std::string* error) const {
  if (fd_ < 0) {
    *error = "the file is not open";
    return false;
  }
  if (offset >= size_) {
    out->clear();
    return true;
  }
  return ReadUpTo(fd_, offset, std::min(n, size_ - offset), out, error);
}

bool WriteRegularFile(const std::string& path, const std::string& text, std::string* error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    *error = KindText(st.st_mode);
    return false;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = ErrnoText(errno);
    return false;
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || ::ftruncate(fd, 0) != 0) {
    *error = ::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) ? KindText(st.st_mode) : ErrnoText(errno);
    ::close(fd);
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      *error = "write error: " + ErrnoText(errno);
      ::close(fd);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    *error = "write error: " + ErrnoText(errno);
    return false;
  }
  return true;
}

}  // namespace llmmem::io
