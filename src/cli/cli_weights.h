// `llmmem --weights-file FILE...`: exact parameter counts and weight bytes from the
// headers of .safetensors, model.safetensors.index.json and .gguf files, read with
// bounded reads (never the whole file).
#pragma once

#include <string>
#include <vector>

#include "core/parse/json.h"
#include "core/parse/weight_headers.h"

namespace llmmem::cli {

// Reads only as much of the file as the header needs (kNeedMoreBytes loop).
core::WeightHeaderResult InspectWeightFile(const std::string& path);
std::string RenderWeightHeaders(const std::vector<std::string>& paths, const std::vector<core::WeightHeaderResult>& rs);
core::Json WeightHeadersToJson(const std::vector<std::string>& paths, const std::vector<core::WeightHeaderResult>& rs);

}  // namespace llmmem::cli
