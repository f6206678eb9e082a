// Which parts of a configuration's memory the estimate cannot count (issue 28: no confident
// answer that is wrong), and the words that say so: facts of the configuration alone, so
// validation (validate.cpp) and the accounting (estimate_totals.cpp) ask the same rule.
// Standard library and core only.
#pragma once

#include <cstdint>
#include <string>

#include "core/config/config.h"

namespace llmmem::core {

// Bits of Totals::not_counted: the parts of the memory the estimate cannot count.
enum NotCounted : uint8_t {
  kNotCountedKvCache = 1,      // inference without an architecture: no layers, heads or head size
  kNotCountedActivations = 2,  // no architecture: no hidden size or sequence shapes to count
  kNotCountedRuntime = 4,      // a runtime path whose allocation is not modelled (vLLM/SGLang GGUF)
};

// NotCounted bits for a valid configuration: no architecture (a parameter count alone, as a
// Hub repo whose config.json the importer could not read) leaves the KV cache and the
// activations unknown; vLLM/SGLang over GGUF leave the runtime's allocation unknown.
uint8_t NotCountedParts(const Config& c);

// "weights only: the KV cache and activations are unknown because ..." for the
// architecture's bits; empty when they are all counted.
std::string NotCountedNote(const Config& c, uint8_t not_counted);

}  // namespace llmmem::core
