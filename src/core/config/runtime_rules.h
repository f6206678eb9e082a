// What each serving runtime refuses to start with, and the GPUs a llama.cpp layer split
// names: rules of the configuration, so validation (validate.cpp) asks them without
// climbing up to the accounting. Standard library and core only; no I/O.
#pragma once

#include <vector>

#include "core/base/diagnostics.h"
#include "core/config/config.h"

namespace llmmem::core {

struct Gpu;

// The GPUs of gpu_set (catalogue rows), in order; empty when not set or not all known.
std::vector<const Gpu*> GpuSet(const Config& c);

// The runtime's own rules: errors stop the estimate (the runtime would refuse to start),
// notes explain a setting. `out` may be nullptr (the fast path decides validity only).
// Returns false on an error.
bool CheckRuntime(const Config& c, Diagnostics* out);

// vLLM or SGLang over a GGUF checkpoint: both load GGUF only experimentally, and their
// allocation for it is not modelled (the verdict says so: NotCounted's runtime bit).
bool RuntimePathUnchecked(const Config& c);

// The KV cache formats a runtime stores (llama.cpp -ctk/-ctv; vLLM/SGLang --kv-cache-dtype).
bool RuntimeKvFormat(Runtime r, Dtype d);

}  // namespace llmmem::core
