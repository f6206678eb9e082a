// The inverse questions of serving (issue 16), each answered with the fast path
// (EstimateTotals) under the configured runtime, so the answer is what the runtime would do:
//  - the longest context per request, and the most concurrent requests at the set context,
//  - the most layers on the GPU (llama.cpp -ngl) and the system RAM the rest needs,
//  - the GPU sets from the catalogue that run it, least memory first (the catalogue has no
//    prices: total memory is the cost proxy, stated as such),
//  - the most precise weight and KV formats the runtime runs that fit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/gpu_count.h"  // WithGpuCount: a GPU set under the runtime

namespace llmmem::core {

struct GpuSetFit {
  std::string gpu;             // catalogue key
  int64_t count = 0;           // GPUs: tp (vLLM, SGLang) or pp (llama.cpp layer split, HF device_map)
  double memory_bytes = 0;     // count x the card's memory
  double peak_bytes = 0;       // per GPU, on the most loaded one
  double max_concurrency = 0;  // vLLM/SGLang: requests of seq tokens the pool holds
};

struct ServeFit {
  bool ok = false;
  int64_t max_context = 0;      // longest seq (tokens per request) at the set batch; 0: none
  int64_t model_context = 0;    // the model's own context (0: unknown)
  int64_t max_concurrency = 0;  // most requests of seq tokens at once; 0: not even one
  bool ggml = false;
  int64_t max_gpu_layers = -1;         // llama.cpp: largest -ngl that fits (0..layers+1); -1: none
  double ram_bytes_at_max_layers = 0;  // the RAM the rest then needs
  bool formats_found = false;
  Dtype dtype = Dtype::kBf16;       // the most precise weight format that fits
  Dtype kv_dtype = Dtype::kBf16;    // and KV cache format
  std::vector<GpuSetFit> gpu_sets;  // least memory first, at most `limit`
};

ServeFit FitServing(const Config& c, int gpu_set_limit = 6);

}  // namespace llmmem::core
