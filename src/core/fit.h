// The fit solver: the inverse questions, answered with the fast path (EstimateTotals),
// quick enough to run live while a slider moves.
//  - the fewest data-parallel GPUs for a ZeRO stage (per-GPU memory is A + B/k in the
//    data-parallel size k: solved exactly, then checked by a direct estimate),
//  - the largest micro-batch and the longest sequence that fit,
//  - the highest-precision weight and KV formats that fit for inference,
//  - the largest model (by parameters) a card holds for a given scheme.
#pragma once

#include <cstdint>

#include "core/config.h"

namespace llmmem::core {

// The margin the UI's fit answers keep below the card: 2% of its memory, for what an
// estimate cannot see (allocator jitter between runs, a monitoring process, a newer
// driver's context). Answers are solved against FitBudget(capacity) and say so.
constexpr double kFitHeadroom = 0.02;
inline double FitBudget(double capacity_bytes) { return capacity_bytes * (1.0 - kFitHeadroom); }

struct FitGpus {
  bool possible = false;   // false: the unsharded part alone exceeds the card (more GPUs never help)
  double threshold = 0;    // the continuous k with A + B/k = capacity (seed 002's "k > 1.88")
  int64_t min_dp = 0;      // the fewest data-parallel replicas that fit
  int64_t min_gpus = 0;    // min_dp x tp x pp x cp
  double unsharded_bytes = 0;  // A
  double sharded_bytes = 0;    // B
};

FitGpus MinDataParallel(const Config& c, double capacity_bytes);
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
