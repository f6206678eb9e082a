// The local Hugging Face cache, read as huggingface_hub writes it (file_download.py,
// try_to_load_from_cache at ee0a4510): HF_HUB_CACHE (or the legacy HUGGINGFACE_HUB_CACHE),
// else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub;
// a repo in models--org--name/, a branch or tag resolved through refs/<revision> to a
// commit, files in snapshots/<commit>/ (symlinks into blobs/). Native only (POSIX).
#pragma once

#include <string>
#include <vector>

#include "core/hub/hub_api.h"
#include "core/hub/hub_ref.h"

namespace llmmem::net {

// The cache folder from the environment (as constants.py computes HF_HUB_CACHE).
std::string HubCacheDir();

struct CachedSnapshot {
  bool found = false;
  std::string dir;  // .../snapshots/<commit>
  std::string commit;
  std::vector<core::HubFile> files;  // paths relative to dir, with sizes (links followed)
};

// The snapshot for ref's revision, or found == false.
CachedSnapshot FindCachedSnapshot(const std::string& cache_dir, const core::HubRef& ref);

}  // namespace llmmem::net
