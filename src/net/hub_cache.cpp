// The local Hugging Face cache; see hub_cache.h for the layout and its source.
#include "net/hub_cache.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cstdlib>

#include "io/bounded_file.h"

namespace llmmem::net {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string ExpandUser(const std::string& p) {
  if (p.size() >= 1 && p[0] == '~' && (p.size() == 1 || p[1] == '/')) return Env("HOME") + p.substr(1);
  return p;
}

// Regular files under dir (links followed), at most a few levels and a few thousand names:
// a snapshot holds a repo's files, never a tree to walk without end.
void ListFiles(const std::string& dir, const std::string& prefix, int depth, std::vector<core::HubFile>* out) {
  if (depth > 4 || out->size() > 10000) return;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = dir + "/" + name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0) continue;  // a dangling link: the blob is gone
    if (S_ISDIR(st.st_mode))
      ListFiles(path, prefix + name + "/", depth + 1, out);
    else if (S_ISREG(st.st_mode))
      out->push_back({prefix + name, static_cast<int64_t>(st.st_size)});
  }
  closedir(d);
}

bool IsDir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string HubCacheDir() {
  std::string dir = Env("HF_HUB_CACHE");
  if (dir.empty()) dir = Env("HUGGINGFACE_HUB_CACHE");
  if (dir.empty()) {
    std::string home = Env("HF_HOME");
    if (home.empty()) {
      const std::string xdg = Env("XDG_CACHE_HOME");
      home = (xdg.empty() ? std::string("~/.cache") : xdg) + "/huggingface";
    }
    dir = home + "/hub";
  }
  return ExpandUser(dir);
}

CachedSnapshot FindCachedSnapshot(const std::string& cache_dir, const core::HubRef& ref) {
  CachedSnapshot s;
  const std::string repo = cache_dir + "/" + core::HubCacheFolder(ref.repo_id);
  std::string commit = ref.revision;
  // A revision with "/" (refs/pr/1) is stored under refs/ the same way (huggingface_hub
  // writes refs/<revision> with its slashes as folders).
  const io::ReadResult r = io::ReadWholeFile(repo + "/refs/" + ref.revision, 256, "a cache ref");
  if (r.ok) {
    commit = r.bytes;
    while (!commit.empty() && (commit.back() == '\n' || commit.back() == ' ')) commit.pop_back();
  }
  if (commit.empty() || commit.find('/') != std::string::npos || commit == "." || commit == "..") return s;
  s.dir = repo + "/snapshots/" + commit;
  if (!IsDir(s.dir)) return s;
  s.commit = commit;
  ListFiles(s.dir, "", 0, &s.files);
  s.found = !s.files.empty();
  return s;
}

}  // namespace llmmem::net
