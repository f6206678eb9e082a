// Compatibility modes: the figures two widely used tools print for the same inputs, so a
// user can reconcile them with this calculator, each with the places where it departs
// from the paper accounting the default estimate follows. Each is a port of the tool's
// current code, cited by repository, path and commit in its .cpp:
//  - DeepSpeed (compat_deepspeed.cpp): estimate_zero2_model_states_mem_needs and
//    estimate_zero3_model_states_mem_needs, deepspeed/runtime/zero/stage_1_and_2.py and stage3.py.
//  - Megatron-LM (compat_megatron.cpp): report_theoretical_memory and the functions it
//    calls, megatron/training/theoretical_memory_usage.py, with arguments.py's defaults.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"

namespace llmmem::core {

struct CompatLine {
  std::string label;
  double gpu_bytes = 0;
  double cpu_bytes = 0;
  std::string formula;
};

struct CompatEstimate {
  bool ok = false;
  std::string tool;               // "DeepSpeed ZeRO-3 estimator"
  std::string scope;              // what the figure describes: the call, the pipeline stage
  std::vector<CompatLine> lines;  // one per option row the tool prints
  double gpu_bytes = 0;           // the row matching the config
  double cpu_bytes = 0;
  std::vector<std::string> departures;  // where it differs from the default accounting
  std::string error;
};

// DeepSpeed's estimators for ZeRO-2 (zero <= 2) or ZeRO-3, all option rows; the config's
// dp x tp x pp x cp GPUs on gpus_per_node-GPU nodes. Model states only (no activations).
CompatEstimate DeepSpeedEstimate(const Config& c, int gpus_per_node);
// Megatron-LM's theoretical memory for the first pipeline stage (which it assumes is the
// most loaded), as tools/report_theoretical_memory.py prints it.
CompatEstimate MegatronEstimate(const Config& c);
// Megatron's padded vocabulary: the next multiple of divisible_by x tp
// (--make-vocab-size-divisible-by, default 128).
int64_t MegatronPaddedVocab(int64_t vocab, int64_t tp, int64_t divisible_by = 128);

}  // namespace llmmem::core
