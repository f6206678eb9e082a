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

// "gpus = N" in every door (the CLI's --gpus, a link's gpus=, JSON's "gpus"; issue 32 asked
// for it in links): dp = N / (tp x pp x cp), once those are known. Returns "" or why not
// (N not a multiple of the replica). Leaves c as it was on an error.
std::string ResolveGpuTotal(Config& c, int64_t total_gpus);

}  // namespace llmmem::core
