// Hugging Face Hub references and the URLs and cache paths they name. Pure: standard
// library only, no I/O; the CLI, the desktop (src/net) and the page (web/hub.js through
// the Embind API) all build their requests from these functions.
// Sources (huggingface_hub at ee0a4510, 2026-08-20):
//  - constants.py: ENDPOINT = os.getenv("HF_ENDPOINT", "https://huggingface.co").rstrip("/"),
//    HUGGINGFACE_CO_URL_TEMPLATE = ENDPOINT + "/{repo_id}/resolve/{revision}/{filename}",
//    HF_HUB_OFFLINE true for "1", "ON", "YES", "TRUE" (ENV_VARS_TRUE_VALUES, upper-cased).
//  - file_download.py hf_hub_url: revision quoted with safe="" and filename with quote()
//    (keeps "/"); repo_folder_name: "models--" + repo_id with "/" -> "--".
//  - utils/_validators.py REPO_ID_REGEX: optional "namespace/", name of [\w\-.]{1,96},
//    not starting or ending with '-' or '.' (validate_repo_id also refuses "--" and "..").
//  - hf_api.py model_info: {endpoint}/api/models/{repo_id}[/revision/{quote(rev, safe='')}],
//    params blobs=True (siblings with sizes); list_models: {endpoint}/api/models with
//    search, sort (no direction parameter: huggingface_hub sends none, most downloaded first), limit and expand
//    (repeated) params.
#pragma once

#include <string>
#include <string_view>

namespace llmmem::core {

constexpr const char* kHubDefaultEndpoint = "https://huggingface.co";

// One model on the Hub, at a revision (branch, tag or commit), optionally one file in it.
struct HubRef {
  std::string repo_id;  // "Qwen/Qwen2.5-7B-Instruct" or a legacy "gpt2"
  std::string revision = "main";
  std::string file;  // from a .../blob/rev/file or .../resolve/rev/file URL
};

struct HubRefParse {
  bool ok = false;
  HubRef ref;
  std::string error;  // a sentence for the user: what is wrong and what is accepted
};

// Accepts "org/name", "name", "org/name@rev", and Hub URLs on any host:
// https://huggingface.co/org/name, .../tree/rev, .../blob/rev/file, .../resolve/rev/file
// (also "hf.co/org/name" without a scheme). Surrounding spaces are ignored.
HubRefParse ParseHubRef(std::string_view text);
bool IsValidRepoId(std::string_view id);
bool IsCommitHash(std::string_view rev);  // 40 lower-case hex digits

// "org/name" or "org/name@rev" (the revision only when it is not main): the value that
// share links and --hf carry.
std::string HubRefToText(const HubRef& ref);

// HF_ENDPOINT's value (empty: the default), without its trailing slashes. Anything that is
// not an http(s) URL is refused: error set, the default returned.
std::string HubEndpoint(std::string_view env_value, std::string* error = nullptr);
bool HubOfflineValue(std::string_view env_value);  // HF_HUB_OFFLINE semantics

std::string HubFileUrl(const std::string& endpoint, const HubRef& ref, const std::string& file);
std::string HubModelApiUrl(const std::string& endpoint, const HubRef& ref);  // with ?blobs=true
// Search by text, most downloaded first, with the fields a result line shows.
std::string HubSearchUrl(const std::string& endpoint, std::string_view query, int limit);

// The cache folder of a model repo: "models--org--name" (relative to HF_HUB_CACHE).
std::string HubCacheFolder(const std::string& repo_id);

// Known endpoints, for the page's one-click mirror choice (also in web/index.html's CSP).
struct HubMirror {
  const char* name;
  const char* endpoint;
};
const HubMirror* HubMirrors(size_t* count);

}  // namespace llmmem::core
