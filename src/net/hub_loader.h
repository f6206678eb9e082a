// A Hugging Face model by its id, for the CLI and the desktop app: the local cache first
// (no request when the files are there), then the Hub (or HF_ENDPOINT) through bounded
// libcurl requests: the API's model info, config.json, and only the weight headers (HTTP
// Range requests: the first 8 bytes, then the header). The model itself is built by the
// pure core (core/hub_model.h). Every failure is a sentence; nothing is half-applied.
#pragma once

#include <string>
#include <vector>

#include "core/hub/hub_api.h"
#include "core/hub/hub_model.h"
#include "core/hub/hub_ref.h"
#include "core/parse/weight_headers.h"

namespace llmmem::net {

struct HubLoadOptions {
  std::string endpoint = core::kHubDefaultEndpoint;
  std::string token;        // HF_TOKEN; never printed
  std::string token_source = "HF_TOKEN";  // names it in the sentence that refuses a bad one
  bool offline = false;     // HF_HUB_OFFLINE: the cache only
  std::string cache_dir;    // HubCacheDir()
  std::string gguf_file;    // the GGUF file to read (empty: PlanHubFiles' choice)
  long timeout_ms = 30000;  // per request; the whole load has core::HubBudgetFor(timeout_ms)
};

// From the environment as huggingface_hub reads it (constants.py): HF_ENDPOINT, HF_TOKEN,
// HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE), HF_HUB_DOWNLOAD_TIMEOUT (seconds; ours
// defaults to 30, not 10: a large header over a slow link), the cache folder.
// `notes` gets a sentence for each value that was refused.
HubLoadOptions HubOptionsFromEnv(std::vector<std::string>* notes);

struct HubLoad {
  bool ok = false;
  std::string error;                      // one sentence, when !ok
  core::HubModelBuild build;              // the model, its stored format, provenance
  core::WeightHeaderResult weights;       // the combined headers
  std::vector<core::HubFile> gguf_files;  // a GGUF repo's quant list (name, size)
  bool from_cache = false;                // no request was made
  bool refused = false;                   // a name from the Hub or the load's budget stopped it
};

HubLoad LoadHubModel(const core::HubRef& ref, const HubLoadOptions& options);

// One page of search results (the box's search-as-you-type; `llmmem --hf-search`).
core::HubSearchParse SearchHub(const std::string& query, const HubLoadOptions& options, std::string* error);

}  // namespace llmmem::net
