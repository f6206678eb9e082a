// The serving planner (issue 34 part 2): for a model, a serving runtime and up to `gpus`
// GPUs, every setting of tensor parallelism (llama.cpp: a layer split over the GPUs and the
// layers kept on them), KV cache format and, per goal, the most concurrent requests at the
// set context (seq) or the longest context at the set concurrency (batch), each checked
// against the fit solver's budget (fit.h FitBudget; vLLM and SGLang: the share they are
// given, which is their headroom) under the runtime's own accounting
// (EstimateTotals), best first, each with its launch command (report/launch_export.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"

namespace llmmem::core {

enum class ServeGoal : uint8_t { kConcurrency, kContext };

struct ServePlanRequest {
  Config base;  // mode inference; runtime, model, weights format, seq (context) and batch (concurrency)
  int64_t gpus = 1;
  ServeGoal goal = ServeGoal::kConcurrency;
  int top = 5;
};

struct ServeOption {
  int64_t gpus = 1;         // tp (vLLM, SGLang) or layer-split GPUs (llama.cpp, Ollama)
  Dtype kv_dtype = Dtype::kBf16;
  int64_t gpu_layers = -1;  // llama.cpp: -ngl (-1: all)
  int64_t context = 0;      // tokens per request
  int64_t concurrency = 0;  // requests at once
  double peak_bytes = 0;    // per GPU at that point
  Config config;            // the settings to launch with
  std::string launch;       // the runtime's command (empty under HF generate)
};

struct ServePlan {
  bool ok = false;
  std::string error;
  double budget_bytes = 0;  // per GPU, for the last layout tried
  int64_t considered = 0;  // layouts x KV formats (x layer counts) searched
  int64_t evaluated = 0;   // estimates run
  std::vector<ServeOption> options;  // best first: the goal's figure, then fewer GPUs, then the more precise KV
};

ServePlan PlanServing(const ServePlanRequest& r);

}  // namespace llmmem::core
