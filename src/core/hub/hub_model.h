// A Hub model from what was fetched: config.json (full accounting when the importer knows
// its model_type, else the common fields read generically), the weight headers (exact
// parameters and stored bytes per dtype), and the Hub API's own per-dtype totals, cross-
// checked. Pure: the bytes come from the cache reader, libcurl or the page's fetch().
#pragma once

#include <string>
#include <vector>

#include "core/base/diagnostics.h"
#include "core/model/dtype.h"
#include "core/hub/hub_api.h"
#include "core/parse/json.h"
#include "core/import/quantization_config.h"
#include "core/model/model.h"
#include "core/parse/weight_headers.h"

namespace llmmem::core {

struct HubModelInput {
  std::string name;                             // the repo id (the model's name)
  const std::string* config_text = nullptr;     // config.json; null when the repo has none
  std::string config_source;                    // "cache: PATH" or the URL
  const WeightHeaderResult* weights = nullptr;  // combined headers; null when none were read
  std::string weights_source;
  std::string weights_file;            // the file the header came from (GGUF: the quant)
  const HubModelInfo* info = nullptr;  // the API's answer; null offline
  std::string info_source;
};

struct HubModelBuild {
  bool ok = false;
  ModelSpec model;
  bool approximate = false;  // the architecture was read generically
  std::string model_type;
  bool dtype_known = false;  // the format the weights are stored in
  Dtype dtype = Dtype::kBf16;
  uint64_t stored_bytes = 0;            // the headers' exact weight bytes (0: unknown)
  Diagnostics diagnostics;              // errors (ok false) and notes
  std::vector<std::string> provenance;  // what came from where, one line each
};

HubModelBuild BuildHubModel(const HubModelInput& in);

// The weight headers of a model's files, summed as each one is read, so a loader keeps one
// header's bytes at a time and this running total (issue 28: 512 shard headers of 100 MB
// each must not stay in memory). Only what the estimate needs is kept: the tallies, the
// counts, the first file's format, metadata and GGUF fields (CombineWeightHeaders').
class HubHeaderSum {
 public:
  // False (and error() set) for a header that was not read completely.
  bool Add(const WeightHeaderResult& header);
  size_t count() const { return count_; }
  const WeightHeaderResult& total() const { return total_; }
  const std::string& error() const { return error_; }

 private:
  WeightHeaderResult total_;
  size_t count_ = 0;
  std::string error_;
};

// The weights' format from a safetensors dtype ("BF16"), a quantization_config
// (DtypeFromQuantConfig, quantization_config.h), or a GGUF file name ("...Q4_K_M.gguf"). False when none says.
bool DtypeFromSafetensors(const std::string& dtype, Dtype* out);
bool DtypeFromGgufName(const std::string& file, Dtype* out);

}  // namespace llmmem::core
