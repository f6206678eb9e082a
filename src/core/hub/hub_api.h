// The Hub API's JSON, read into plain structs, and the choice of files to read from a
// repo. Pure: the caller fetches the text (libcurl natively, fetch() in the page).
// Fields as huggingface_hub's hf_api.py reads them (ModelInfo.__init__ at ee0a4510):
// "id", "sha", "gated" (false, "auto" or "manual"), "downloads", "library_name",
// "config" {"model_type", ...}, "safetensors" {"parameters": {dtype: count}, "total"},
// "gguf" {"total", "architecture", "context_length"}, "siblings" [{"rfilename", "size"
// (with blobs=true), "lfs": {"size"}}]. list_models answers an array of the same objects.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace llmmem::core {

struct HubFile {
  std::string name;   // rfilename: a path inside the repo
  int64_t size = -1;  // bytes; -1 when the listing did not say
};

struct HubModelInfo {
  std::string id;
  std::string sha;         // the commit the revision resolved to
  std::string gated;       // "" (not gated), "auto" or "manual"
  std::string model_type;  // config.model_type as the Hub read it
  std::string library_name;
  int64_t downloads = -1;
  std::vector<std::pair<std::string, int64_t>> safetensors_parameters;  // dtype -> parameters
  int64_t safetensors_total = -1;
  int64_t gguf_total = -1;  // parameters the Hub read from the GGUF files
  std::string gguf_architecture;
  std::vector<HubFile> files;  // siblings
};

struct HubInfoParse {
  bool ok = false;
  HubModelInfo info;
  std::string error;
};

// /api/models/{id}: one object. A malformed body is an error value, never a crash.
HubInfoParse ReadHubModelInfo(const std::string& text);

struct HubSearchHit {
  std::string id;
  int64_t downloads = -1;
  int64_t parameters = -1;  // safetensors.total, else gguf.total; -1 unknown
};
struct HubSearchParse {
  bool ok = false;
  std::vector<HubSearchHit> hits;
  std::string error;
};
HubSearchParse ReadHubSearch(const std::string& text);

// Which weight files to read for a repo, from its file list (the API's siblings, or a
// cached snapshot's files): the safetensors index, else one root .safetensors; GGUF repos
// list every .gguf file (the user picks one; `chosen_gguf` empty: the Q4_K_M if present,
// else the smallest).
enum class HubWeightKind { kNone, kSafetensors, kSafetensorsIndex, kGguf };
struct HubFilePlan {
  bool has_config = false;  // config.json at the root
  HubWeightKind kind = HubWeightKind::kNone;
  std::string weights_file;  // the index, the single file or the chosen GGUF
  // A GGUF split into parts (llama.cpp's llama_split_path: "PREFIX-%05d-of-%05d.gguf"):
  // every part, in order, whose headers are summed; empty otherwise.
  std::vector<std::string> gguf_parts;
  std::vector<HubFile> gguf_files;  // every GGUF file, by name
  std::string note;                 // why nothing was chosen, or what was skipped
};
HubFilePlan PlanHubFiles(const std::vector<HubFile>& files, const std::string& chosen_gguf = "");

// A failed request as the Hub tells it: the status, or 0 when no answer came (then
// `transport` says why: offline, timeout, DNS, CORS in the page); the Hub's X-Error-Code
// (GatedRepo, RepoNotFound, RevisionNotFound, EntryNotFound) and X-Error-Message headers;
// whether a token was sent (a 401 then means the token was refused).
struct HubFailure {
  int status = 0;
  std::string transport;
  std::string error_code;
  std::string error_message;
  bool token_sent = false;
};

// The failure as a sentence that says what to do. Told apart as huggingface_hub's
// hf_raise_for_status does (utils/_http.py at 01dd37b8): X-Error-Code first; a 401 with no
// code on a repo URL is a missing, private or gated repo without a token, a refused token
// with one; a 403 is a token without the permission; the server's message is quoted.
std::string HubErrorMessage(const HubFailure& failure, const std::string& repo_id, const std::string& what);
std::string HubErrorMessage(int status, const std::string& repo_id, const std::string& what,
                            const std::string& transport = "");

}  // namespace llmmem::core
