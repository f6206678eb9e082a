// Bounded file access for the native front ends (the CLI and the desktop app): every file
// the program reads or writes goes through here, so no input can make it read without end,
// block on a pipe or a device, or allocate more than the caller's cap.
//  - The kind is checked first (stat, then fstat on the open descriptor): only regular
//    files are read; directories, FIFOs, sockets and devices (/dev/zero, a symlink to one)
//    are refused with a sentence saying what the path is. Standard input is read only when
//    the path is "-", and only for a bounded time.
//  - Opens never block (O_NONBLOCK: a FIFO with no writer cannot hang the open).
//  - Reads are capped in bytes: a whole-file read refuses a file larger than its cap before
//    reading, and its read loop stops at cap + 1 bytes even if the file grows meanwhile.
// POSIX; not part of src/core (which does no I/O) and not built for the web.
#pragma once

#include <cstdint>
#include <string>

namespace llmmem::io {

// How long standard input ("-") may take to deliver its bytes, in all.
constexpr int kStdinSeconds = 30;

struct ReadResult {
  bool ok = false;
  bool not_found = false;  // the path does not exist (a first run's settings file)
  std::string bytes;
  uint64_t file_size = 0;  // of the whole file (a prefix read returns fewer bytes)
  std::string error;       // "is a directory, not a file"; no path in it (the caller names it)
};

// The whole of `path` (a regular file, or standard input for "-"), at most max_bytes;
// `what` names what is expected, for the size message ("a config.json").
ReadResult ReadWholeFile(const std::string& path, uint64_t max_bytes, const std::string& what);

// A log's end: the last max_bytes of `path` (a regular file, or standard input for "-", read
// within kStdinSeconds while only the last max_bytes are kept), so a log of any size is read
// in bounded memory. `head` gets its first bytes (up to head_bytes: a byte-order mark says how
// the tail is encoded). file_size is the whole log's; bytes.size() < file_size when cut.
ReadResult ReadFileTail(const std::string& path, uint64_t max_bytes, size_t head_bytes, std::string* head);

// The first n bytes of a regular file (fewer at its end) and the file's size.
ReadResult ReadFilePrefix(const std::string& path, uint64_t n);

// A regular file opened for reading at offsets (weight headers: chunks, never the whole).
class RegularFile {
 public:
  RegularFile() = default;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile();

  // False with *error set when the path is not a readable regular file.
  bool Open(const std::string& path, std::string* error);
  uint64_t size() const { return size_; }
  // Up to n bytes at offset (fewer at the end of the file) into *out.
  bool ReadAt(uint64_t offset, uint64_t n, std::string* out, std::string* error) const;

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Writes text to a regular file (created 0644, or truncated): refuses a path that is a
// directory, FIFO or device, never blocks on open.
bool WriteRegularFile(const std::string& path, const std::string& text, std::string* error);

}  // namespace llmmem::io
