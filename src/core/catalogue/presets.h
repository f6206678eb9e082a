// The model presets embedded from presets/models/*.json: a Hugging Face id, a display
// name, the config.json (imported through hf_config) and the published parameter count
// with its source.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/diagnostics.h"
#include "core/model/dtype.h"
#include "core/model/model.h"

namespace llmmem::core {

struct Preset {
  std::string key;               // file name without .json: "llama-3-8b"; used in URLs and --model
  std::string hf_id;             // "meta-llama/Meta-Llama-3-8B"
  std::string name;              // "Llama 3 8B"
  std::string family;            // "Llama 3"
  int64_t published_params = 0;  // 0 when no exact published figure was found (its source: the file's params_source)
  bool published_counts_tied_head = false;  // the published total counts a tied head twice
  // The format the checkpoint ships in: quantization_config's method (fp8, GPTQ, AWQ)
  // when present, else torch_dtype (or dtype), else fp32 (transformers' default, as for
  // GPT-2 and BERT). The UI opens a preset in it for inference.
  Dtype shipped_dtype = Dtype::kFp32;
  bool ok = false;  // the config imported
  ModelSpec model;
  Diagnostics diagnostics;  // why it did not import
};

// All presets, sorted by family then name; parsed once.
const std::vector<Preset>& Presets();
// nullptr when unknown. Accepts the key or the Hugging Face id, case-insensitively.
const Preset* FindPreset(const std::string& key_or_id);
// The model the apps open with.
constexpr const char* kDefaultPreset = "llama-3.1-8b";

}  // namespace llmmem::core
