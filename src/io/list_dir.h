// A folder's entries for the desktop app's "Open file..." (the page uses the browser's own
// picker). POSIX like bounded_file.h; not built for the web. The types are plain data, so the
// app's ImGui-free logic (app/file_browser.h) works on them without doing I/O itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llmmem::io {

struct DirEntry {
  std::string name;  // no folder part
  bool is_dir = false;
  uint64_t size = 0;  // bytes, for files
};

struct DirListing {
  bool ok = false;
  std::string dir;               // absolute, without a trailing '/' (except "/" itself)
  std::vector<DirEntry> entries; // folders first, then files, each by name; no "." or ".."
  bool truncated = false;        // more than the cap: the first ones by readdir's order, sorted
  std::string error;             // "not a folder", "no such folder", "permission denied"
};

// The entries of `dir` ("" is the working directory), at most max_entries. A symlink is
// listed as what it points to; a broken one is left out.
DirListing ListDirectory(const std::string& dir, size_t max_entries = 5000);

}  // namespace llmmem::io
