// Hugging Face config.json -> ModelSpec, with each family's quirks (biases a config
// does not state, tied embeddings, extra norms, q/k norms, fused projections, MoE
// layouts). Presets are stored as config.json too, so presets and imports share this.
#pragma once

#include <string>

#include "core/config/diagnostics.h"
#include "core/io/json.h"
#include "core/model/model.h"

namespace llmmem::core {

struct HfImport {
  bool ok = false;
  ModelSpec model;
  Diagnostics diagnostics;  // errors name the missing field and how to fill it in
};

HfImport ImportHfConfig(const Json& config, const std::string& name);
HfImport ImportHfConfigText(const std::string& text, const std::string& name);

// The model_type values this importer understands, comma-separated.
const char* SupportedModelTypes();

}  // namespace llmmem::core
