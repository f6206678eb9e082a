// Files the user opens or drops: which kind a name is, the bounded header-read loop for
// weight files (the platform supplies the reads: File.slice in the browser, std::ifstream
// on the desktop), and what a GGUF header can fill in of a model.
// May include: core (no imgui), so tests can cover it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/weight_headers.h"

namespace llmmem::app {

enum class FileKind {
  kJsonText,  // a .json that is not an index: a Hugging Face config.json or an llmmem config
  kWeights,   // .safetensors, .gguf, model.safetensors.index.json, or anything else (sniffed)
};
FileKind ClassifyFileName(const std::string& name);

// True when a parsed JSON text looks like a Hugging Face config.json (model_type or
// architectures), false for an llmmem configuration.
bool LooksLikeHfConfig(const std::string& text);

// The first `n` bytes of the file (fewer at its end), its size, or an error.
struct FilePrefix {
  bool ok = false;
  std::string bytes;
  uint64_t file_size = 0;
  std::string error;
};
using PrefixReader = std::function<FilePrefix(uint64_t n)>;

// Reads kWeightHeaderFirstRead bytes, then what each kNeedMoreBytes answer asks for, at
// most `max_reads` times. Never reads past the header.
core::WeightHeaderResult ProbeWeightHeader(const PrefixReader& read, int max_reads = 32);

// The model fields a GGUF header states, applied onto `m` (only those it states).
// Returns the applied fields as "layers=32, hidden=4096, ..." (empty: nothing usable).
std::string ApplyGgufInfo(const core::GgufModelInfo& g, core::ModelSpec* m);

}  // namespace llmmem::app
