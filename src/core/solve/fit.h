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

struct Totals;

// The one headroom policy (issue 29): every "the largest / the most that fits" answer, in
// every door (CLI fit, JS API, the UI's Fit and Serving tabs, the serving solver), is solved
// against AnswerBudget(c) with FitsBudget, and says so where it is shown.
//  - Under vLLM or SGLang in inference the runtime budgets memory itself
//    (gpu_memory_utilization, mem_fraction_static: CapacityBytes is already that share), so
//    the budget is the capacity: the answers then equal the runtime's own figures.
//  - Everywhere else 2% of the card stays free, for what an estimate cannot see (allocator
//    jitter between runs, a monitoring process, a newer driver's context).
// The verdict itself compares the peak with the whole capacity (estimate.h Totals::Judge).
constexpr double kFitHeadroom = 0.02;
inline double FitBudget(double capacity_bytes) { return capacity_bytes * (1.0 - kFitHeadroom); }
double AnswerBudget(const Config& c);
// The headroom AnswerBudget keeps for this configuration (0 or kFitHeadroom).
double AnswerHeadroom(const Config& c);
// Counted, within `budget_bytes`, and the host RAM the placement needs is there.
bool FitsBudget(const Totals& t, double budget_bytes);

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
// The formats the configured runtime loads, from most to least precise: GGUF types under
// llama.cpp and Ollama (and their -ctk cache types), vLLM's and SGLang's checkpoint formats
// (and --kv-cache-dtype), transformers' quantisers under HF generate. The one ladder behind
// every "most precise format" answer (issue 29: the CLI's fit once held two).
struct FormatLadder {
  std::vector<Dtype> weights;
  std::vector<Dtype> kv;
};
FormatLadder InferenceFormatLadder(const Config& c);
// Inference: the first (weights, KV) pair of the runtime's ladder that fits.
FitFormats CheapestInferenceFormats(const Config& c, double capacity_bytes);

// The parameter count whose model states (per the config's scheme, params-only) fill
// `capacity_bytes`: seed 002's "a 24 GB card trains 1.5B".
double MaxParamsForMemory(const Config& c, double capacity_bytes);

// Every fit answer for one configuration, as the CLI's fit, the JS API and the UI's Fit tab
// show them: one computation, so the doors cannot disagree.
struct FitAnswers {
  double capacity_bytes = 0;  // what the verdict compares against (CapacityBytes)
  double budget_bytes = 0;    // what the answers may use (AnswerBudget)
  double headroom = 0;        // AnswerHeadroom: the share of the capacity kept free
  int64_t model_context = 0;  // the model's context (0: unknown); the longest sequence stops there
  std::vector<ZeroStageFit> zero;  // training only (empty in inference)
  int64_t max_micro_batch = 0;
  int64_t max_sequence = 0;  // MaxSequenceInContext
  FitFormats formats;
  double max_params = 0;
};
FitAnswers AnswerFit(const Config& c);

}  // namespace llmmem::core
