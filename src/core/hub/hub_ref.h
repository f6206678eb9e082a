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

// Accepts "org/name", "name", "org/name@rev", and Hub URLs:
// https://huggingface.co/org/name, .../tree/rev, .../blob/rev/file, .../resolve/rev/file
// (also "hf.co/org/name" without a scheme). Surrounding spaces are ignored. A URL's host
// must be the endpoint's (scheme and port aside); huggingface.co, www.huggingface.co and
// hf.co are also taken when the endpoint is huggingface.co or one of HubMirrors() (a
// mirror serves the same ids). Any other host is refused: the model would silently come
// from the endpoint, not from where the URL points (issue 28).
HubRefParse ParseHubRef(std::string_view text, std::string_view endpoint = kHubDefaultEndpoint);
bool IsValidRepoId(std::string_view id);
bool IsCommitHash(std::string_view rev);  // 40 lower-case hex digits

// "org/name" or "org/name@rev" (the revision only when it is not main): the value that
// share links and --hf carry.
std::string HubRefToText(const HubRef& ref);

// HF_ENDPOINT's value (empty: the default), without its trailing slashes. Anything that is
// not an http(s) URL with a host is refused: error set, the default returned. A user name or
// password before '@' is dropped with a warning in `error` that does not repeat it (the
// endpoint is printed in info lines; the token goes as HF_TOKEN).
std::string HubEndpoint(std::string_view env_value, std::string* error = nullptr);

// Why an access token (HF_TOKEN, the token field) cannot be sent, or "" when it can: it
// goes into one "Authorization: Bearer" header, so only visible ASCII is taken (RFC 6750
// §2.1's b64token is a subset); a space, CR/LF or other control character would end the
// header or start another. The sentence never repeats the token. `source` names it.
std::string HubTokenProblem(std::string_view token, std::string_view source = "HF_TOKEN");

// Why a file name from the Hub (a sibling's rfilename, an index's shard, a revision) is not
// a relative path inside the repo, or "" when it is: not empty, no leading '/', no '\', no
// control character or NUL, no empty, "." or ".." segment, also once percent-decoded
// ("%2e%2e"), no drive letter ("C:"). It is used as a URL path and as a cache file path.
std::string HubPathProblem(std::string_view name);
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
