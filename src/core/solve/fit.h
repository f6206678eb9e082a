// The fit solver: the inverse questions, answered with the fast path (EstimateTotals),
// quick enough to run live while a slider moves.
//  - the fewest data-parallel GPUs for a ZeRO stage (per-GPU memory is A + B/k in the
//    data-parallel size k: solved exactly, then checked by a direct estimate),
//  - the largest micro-batch and the longest sequence that fit,
//  - the highest-precision weight and KV formats that fit for inference,
//  - the largest model (by parameters) a card holds for a given scheme.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"

namespace llmmem::core {

// The margin the UI's fit answers keep below the card: 2% of its memory, for what an
// estimate cannot see (allocator jitter between runs, a monitoring process, a newer
// driver's context). Answers are solved against FitBudget(capacity) and say so.
constexpr double kFitHeadroom = 0.02;
inline double FitBudget(double capacity_bytes) { return capacity_bytes * (1.0 - kFitHeadroom); }

struct FitGpus {
  bool possible = false;       // false: the unsharded part alone exceeds the card (more GPUs never help)
  double threshold = 0;        // the continuous k with A + B/k = capacity (seed 002's "k > 1.88")
  int64_t min_dp = 0;          // the fewest data-parallel replicas that fit
  int64_t min_gpus = 0;        // min_dp x tp x pp x cp
  double unsharded_bytes = 0;  // A
  double sharded_bytes = 0;    // B
};

FitGpus MinDataParallel(const Config& c, double capacity_bytes);

// The configuration moved to ZeRO stage `stage`, as every fewest-GPUs answer solves it:
// shards over all data-parallel replicas (zero_group 0), and keeps parameter offload only
// at stage 3 (it needs ZeRO-3; below, the stage is solved without it, and says so).
Config AtZeroStage(const Config& c, int stage);

// One row of "the fewest GPUs per ZeRO stage" (the CLI's fit, the UI's table, the JSON).
struct ZeroStageFit {
  int stage = 0;
  Config config;  // AtZeroStage(c, stage)
  FitGpus fit;
  bool offload_params_dropped = false;  // the config offloads parameters; this stage cannot
  std::string error;                    // the stage's configuration is refused (Validate's first error): no answer
  std::string why_not;                  // when !fit.possible: what limits it, in words
  double peak_at_min_bytes = 0;         // the estimate at min_dp (0 when impossible)
};
constexpr int kZeroStages = 4;
// Stages 0 to 3 for `c` against `capacity_bytes` (callers choose FitBudget or the card).
std::vector<ZeroStageFit> FewestGpusPerZeroStage(const Config& c, double capacity_bytes);
// 0 when even 1 does not fit.
int64_t MaxMicroBatch(const Config& c, double capacity_bytes);
int64_t MaxSequence(const Config& c, double capacity_bytes);
// MaxSequence, but never past the model's context (ModelContext: its learned position
// table or max_position_embeddings): a longer sequence fits in memory but not in the model.
int64_t MaxSequenceInContext(const Config& c, double capacity_bytes);

struct FitFormats {
  bool found = false;
  Dtype dtype = Dtype::kBf16;
  Dtype kv_dtype = Dtype::kBf16;
  double peak_bytes = 0;
};
// Inference: the first (weights, KV) pair, from most to least precise, that fits.
FitFormats CheapestInferenceFormats(const Config& c, double capacity_bytes);

// The parameter count whose model states (per the config's scheme, params-only) fill
// `capacity_bytes`: seed 002's "a 24 GB card trains 1.5B".
double MaxParamsForMemory(const Config& c, double capacity_bytes);

}  // namespace llmmem::core
