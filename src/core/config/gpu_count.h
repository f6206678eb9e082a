// How many GPUs a layout spans: one model replica is tensor x pipeline x context
// parallel, and dp replicas of it make the whole job. The one place the product is written
// (the fit solver, --gpus, the UI, the launch exports, the compat estimators, the roofline).
// Both are for validated configurations (Validate bounds dp x tp x pp x cp by 1e7).
#pragma once

#include <cstdint>
#include <string>

#include "core/config/config.h"

namespace llmmem::core {

inline int64_t GpusPerReplica(const Config& c) { return c.tp * c.pp * c.cp; }
inline int64_t TotalGpus(const Config& c) { return c.dp * GpusPerReplica(c); }

// One server over `count` GPUs as the serving runtime splits a model: vLLM and SGLang shard
// each layer (tensor parallel, --tensor-parallel-size), llama.cpp and HF's device_map split
// the layers (pipeline stages). The serving fit's GPU sets and the page's "How many?".
Config WithGpuCount(const Config& c, int64_t count);

// "gpus = N" in every door (the CLI's --gpus, a link's gpus=, JSON's "gpus", the page's "How
// many?"; issue 32): once tp, pp, cp and the mode are known,
//  - inference with no split given (tp = pp = cp = 1): one server over the N GPUs
//    (WithGpuCount, dp 1): what "vLLM on 2 x A100" means, not two replicas that each hold
//    the whole model;
//  - otherwise dp = N / (tp x pp x cp): replicas of the layout given.
// Returns "" or why not (N not a multiple of the replica). Leaves c as it was on an error.
std::string ResolveGpuTotal(Config& c, int64_t total_gpus);

}  // namespace llmmem::core
