#include "io/list_dir.h"

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace llmmem::io {
namespace {

std::string Why(int err) {
  switch (err) {
    case ENOENT: return "no such folder";
    case ENOTDIR: return "not a folder";
    case EACCES: return "permission denied";
    default: return std::strerror(err);
  }
}

}  // namespace

DirListing ListDirectory(const std::string& dir, size_t max_entries) {
  DirListing out;
  const std::string asked = dir.empty() ? "." : dir;
  std::unique_ptr<char, decltype(&std::free)> real(realpath(asked.c_str(), nullptr), &std::free);
  if (!real) {
    out.error = Why(errno);
    return out;
  }
  out.dir = real.get();
  struct stat st {};
  if (stat(out.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    out.error = Why(ENOTDIR);
    return out;
  }
  DIR* d = opendir(out.dir.c_str());
  if (d == nullptr) {
    out.error = Why(errno);
    return out;
  }
  const std::string prefix = out.dir == "/" ? "/" : out.dir + "/";
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (out.entries.size() >= max_entries) {
      out.truncated = true;
      break;
    }
    struct stat es {};
    if (stat((prefix + name).c_str(), &es) != 0) continue;  // a broken symlink
    DirEntry entry;
    entry.name = name;
    entry.is_dir = S_ISDIR(es.st_mode);
    entry.size = entry.is_dir ? 0 : static_cast<uint64_t>(es.st_size);
    out.entries.push_back(std::move(entry));
  }
  closedir(d);
  std::sort(out.entries.begin(), out.entries.end(), [](const DirEntry& a, const DirEntry& b) {
    if (a.is_dir != b.is_dir) return a.is_dir;
    return a.name < b.name;
  });
  out.ok = true;
  return out;
}

}  // namespace llmmem::io
