// Serving runtimes (issue 16): which program runs the model for inference decides how GPU
// memory is allocated. One row per runtime; the serving accounting (account_serving.h), the
// serving settings and report (serving.h), the launch commands (launch_export.h), the UI,
// CLI, URL and JS API take their ids, names, help and sources from this table.
// Standard library only (config.h includes it).
#pragma once

#include <cstdint>
#include "core/base/enum_table.h"

namespace llmmem::core {

enum class Runtime : uint8_t { kHfGenerate, kVllm, kSglang, kLlamaCpp, kOllama, kLast = kOllama };

struct RuntimeInfo {
  Runtime value;
  const char* id;       // "vllm": configs, URLs, --runtime
  const char* aliases;  // other spellings accepted, space-separated
  const char* label;    // shown in the UI
  const char* help;     // one line: what it allocates
  const char* source;   // the files (and commits) the accounting follows
};

EnumTable<RuntimeInfo> TableOf(Runtime);  // Info, Id, ParseId, IdList: enum_table.h

// Runtimes that preallocate a paged KV pool from a share of the GPU (vLLM, SGLang).
inline bool IsPagedServer(Runtime r) { return r == Runtime::kVllm || r == Runtime::kSglang; }
// Runtimes built on ggml (llama.cpp and Ollama, which launches llama-server).
inline bool IsGgml(Runtime r) { return r == Runtime::kLlamaCpp || r == Runtime::kOllama; }

// vLLM's KV block: 16 tokens (vllm/config/cache.py CacheConfig.block_size default on CUDA).
constexpr int64_t kVllmBlockTokens = 16;
// vLLM >= 0.7 logs non_torch_memory 0.16 GiB for one GPU (cuBLAS workspaces and the like
// allocated during profiling; vllm/utils memory_profiling, non_torch_increase).
constexpr double kVllmNonTorchBytes = 0.16 * 1073741824.0;
// ggml's default number of compute-buffer copies when llama.cpp pipelines a batch over
// several GPUs (GGML_SCHED_MAX_COPIES, ggml/src/ggml-backend.cpp).
constexpr int kGgmlPipelineCopies = 4;

}  // namespace llmmem::core
