// The model box's state and logic for Hugging Face models (issue 15), without ImGui so the
// tests cover it: what a load or a search answered, applying a loaded model as one undoable
// step (the configuration stays as it was when a load fails), the search's debounce, and
// the link key (hf=org/name@rev). The fetching is the platform's (hooks.hub_load /
// hub_search: web/hub.js in the page, src/net with a thread on the desktop).
// May include: core (no imgui).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/hub/hub_api.h"

namespace llmmem::app {

struct State;

// What the platform is asked for. The token is typed by the user and kept in memory only:
// never in the URL, the saved state or a log.
struct HubRequest {
  int64_t seq = 0;        // answers carry it; a newer request makes older answers stale
  std::string ref;        // as typed: id, id@rev or a URL
  std::string gguf_file;  // a GGUF repo's chosen file ("" : the default choice)
  std::string endpoint;   // https://huggingface.co or a mirror
  std::string token;
};

struct HubResult {
  int64_t seq = 0;
  bool ok = false;
  std::string error;  // a sentence when !ok
  std::string ref;    // "org/name" or "org/name@rev"
  core::ModelSpec model;
  bool dtype_known = false;
  core::Dtype dtype = core::Dtype::kBf16;
  bool approximate = false;
  std::vector<std::string> provenance;  // what came from where
  std::vector<core::HubFile> gguf_files;
  std::string gguf_file;  // the file read (GGUF repos)
};

struct HubHits {
  int64_t seq = 0;
  bool ok = false;
  std::string error;
  std::vector<core::HubSearchHit> hits;
};

struct HubView {
  char text[512] = "";   // the box: never cleared by a failure
  char token[256] = "";  // memory only
  int mirror = 0;        // core::HubMirrors() index
  int64_t seq = 0;       // the last request's
  bool loading = false;
  std::string loading_ref;
  std::string error;  // the last load's failure
  HubResult loaded;   // the last successful load (its provenance and quant list)
  // Search as you type: only after the user typed, debounced.
  bool typed = false;
  double edited_at = -1;  // ImGui time of the last edit
  std::string searched;   // the query last sent
  bool searching = false;
  int64_t search_seq = 0;
  HubHits hits;
  std::string pending_link;  // hf= from the link, loaded once the platform can
};

constexpr double kHubSearchDebounce = 0.35;  // seconds after the last keystroke
constexpr size_t kHubSearchMinChars = 2;

// The query to send now, or "" (nothing typed, too short, a URL or id@rev, already sent,
// or the debounce has not passed).
std::string HubSearchDue(const HubView& v, double now);

// The page's answer (web/hub.js through web_hub.cpp) as a HubResult.
HubResult HubResultFromJson(const std::string& text);
HubHits HubHitsFromJson(const std::string& text);

// A load finished: on success the model (and its stored format, unless the mode cannot
// train it) replaces the current one as one undoable step; on failure nothing changes
// but the error line. Stale answers (an older seq) are ignored.
void ApplyHubResult(State& s, const HubResult& r);

// "hf=org/name@rev" while the current model is the loaded one, else "".
std::string HubLinkKey(const State& s);

}  // namespace llmmem::app
