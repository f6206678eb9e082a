// Hugging Face config.json -> ModelSpec, with each family's quirks (biases a config
// does not state, tied embeddings, extra norms, q/k norms, fused projections, MoE
// layouts). Presets are stored as config.json too, so presets and imports share this.
#pragma once

#include <string>

#include "core/base/diagnostics.h"
#include "core/parse/json.h"
#include "core/model/model.h"

namespace llmmem::core {

struct HfImport {
  bool ok = false;
  ModelSpec model;
  Diagnostics diagnostics;  // errors name the missing field and how to fill it in
  // The model_type is not in the importer's table (or absent): the common fields were read
  // generically (ReadGenericConfig) and the count is approximate; a warning says so.
  bool approximate = false;
};

// The one config.json import of every door (a pasted or dropped file, --hf-config, --hf and
// the page's Hub box, the JS API, the presets; issue 29): a model_type of the table is read
// by its family's reader, any other by ReadGenericConfig, marked approximate.
HfImport ImportHfConfig(const Json& config, const std::string& name);
HfImport ImportHfConfigText(const std::string& text, const std::string& name);

// The common config fields (hidden size, layers, heads, KV heads, head dim, intermediate
// size, vocab; their GPT-2/T5/Falcon spellings too; a multimodal config's text_config),
// llama-like otherwise. False when hidden size, layers or heads are missing.
bool ReadGenericConfig(const Json& config, ModelSpec* m, std::string* missing);

// The model_type values this importer understands, comma-separated.
const char* SupportedModelTypes();

}  // namespace llmmem::core
