#include "app/file_browser.h"

#include <cctype>
#include <cstdio>
#include <utility>

namespace llmmem::app {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool EndsWith(const std::string& s, const char* tail) {
  const std::string t = tail;
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

void Show(FileBrowser& b, io::DirListing listing) {
  b.listing = std::move(listing);
  b.path_text = b.listing.dir;
  b.message.clear();
  b.highlight = -1;
}

}  // namespace

bool IsOpenableName(const std::string& name) {
  static const char* const kEndings[] = {".json", ".safetensors", ".gguf", ".yaml", ".yml", ".toml",
                                         ".sh",   ".txt",         ".log",  ".out",  ".err"};
  const std::string lower = Lower(name);
  for (const char* e : kEndings)
    if (EndsWith(lower, e)) return true;
  return false;
}

std::vector<const io::DirEntry*> Visible(const FileBrowser& b) {
  std::vector<const io::DirEntry*> out;
  for (const io::DirEntry& e : b.listing.entries) {
    if (!b.all_files && (e.name.empty() || e.name[0] == '.')) continue;
    if (e.is_dir || b.all_files || IsOpenableName(e.name)) out.push_back(&e);
  }
  return out;
}

std::string ParentDir(const std::string& dir) {
  const size_t slash = dir.find_last_of('/');
  if (slash == std::string::npos) return dir;
  return slash == 0 ? "/" : dir.substr(0, slash);
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

bool BrowseTo(FileBrowser& b, const ListDir& list, const std::string& dir) {
  if (!list) return false;
  io::DirListing next = list(dir);
  if (!next.ok) {
    b.message = dir + ": " + next.error;
    return false;
  }
  Show(b, std::move(next));
  return true;
}

std::string SubmitPathText(FileBrowser& b, const ListDir& list) {
  std::string path = b.path_text;
  while (!path.empty() && std::isspace(static_cast<unsigned char>(path.back()))) path.pop_back();
  while (!path.empty() && std::isspace(static_cast<unsigned char>(path.front()))) path.erase(0, 1);
  if (path.empty()) return {};
  if (path[0] != '/' && b.listing.ok) path = JoinPath(b.listing.dir, path);
  if (list) {
    io::DirListing there = list(path);
    if (there.ok) {
      Show(b, std::move(there));
      return {};
    }
  }
  return path;
}

std::string Choose(FileBrowser& b, const ListDir& list, const io::DirEntry& entry) {
  const std::string path = JoinPath(b.listing.dir, entry.name);
  if (entry.is_dir) {
    BrowseTo(b, list, path);
    return {};
  }
  return path;
}

std::string SizeText(uint64_t bytes) {
  char buf[32];
  if (bytes < 1000) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else if (bytes < 1000ull * 1000) {
    std::snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(bytes) / 1e3);
  } else if (bytes < 1000ull * 1000 * 1000) {
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(bytes) / 1e9);
  }
  return buf;
}

}  // namespace llmmem::app
