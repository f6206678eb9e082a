// The training planner (issue 34 part 1): for a model, a GPU kind, a GPU count (or every
// count up to a budget), a global batch in tokens and a sequence length, every layout the
// stack allows: tp, pp (and virtual stages), cp, ep (MoE), dp, ZeRO/FSDP stage, recompute,
// micro-batch (grad accumulation = global / (dp x mb x seq), integral), CPU optimizer offload
// and the optimizer implementation. Each is checked by the estimate's own validation
// (EstimateTotals' IsValid) and the structural rules below, kept when it fits the fit
// solver's budget (fit.h FitBudget: 2% below the card), ranked by step time (step_time.h),
// and reduced to the memory-versus-time Pareto front; for the best few, what each
// neighbouring layout does instead (larger micro-batch, lower tp, ...).
//
// Pruning is by monotone bounds, never by a smaller space (every candidate is counted):
//  - for one layout of the model states (everything but recompute and micro-batch), the
//    least-memory point is full recompute at the smallest micro-batch: when it does not
//    fit, no recompute or micro-batch of that layout does;
//  - a micro-batch that does not fit rules out every larger one (activations grow with it);
//  - recompute none keeps a superset of selective's tensors, selective of torchtitan's
//    op-level policy's, that of full's: the
//    largest micro-batch that fits under a lighter recompute is at most the heavier's.
// tests/test_train_plan.cpp checks the pruned search finds exactly the exhaustive one's set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/estimate/estimate.h"
#include "core/plan/step_time.h"

namespace llmmem::core {

struct TrainPlanRequest {
  Config base;   // model, GPU, precision, optimizer, framework; its layout fields are searched over
  int64_t gpus = 8;      // the GPU count; with max_gpus > 0 the budget instead
  int64_t max_gpus = 0;  // > 0: every count up to it that is a power of two or a whole number of nodes
  int64_t global_batch_tokens = 0;
  int64_t seq = 0;  // 0: base.seq
  int top = 5;
  PlanLinks links;
  bool prune = true;  // false: evaluate every candidate (the tests' reference)
};

// One point of the search: the settings to launch with.
struct PlanSettings {
  int64_t gpus = 1, tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, dp = 1;  // vpp 1: no interleaving
  int zero = 0;
  bool fsdp = false;  // PyTorch FSDP (zero 2: SHARD_GRAD_OP, 3: FULL_SHARD) rather than DeepSpeed ZeRO
  Recompute recompute = Recompute::kNone;
  int64_t micro_batch = 1, grad_accum = 1;
  bool offload = false;  // optimizer states and master weights to CPU (ZeRO-Offload)
  OptimizerImpl optimizer_impl = OptimizerImpl::kAuto;
};

struct PlanPoint {
  PlanSettings settings;
  double peak_bytes = 0;
  double step_s = 0;
};

// What a neighbouring layout of a top candidate does.
struct PlanNeighbour {
  std::string change;  // "micro_batch 1 -> 2"
  std::string verdict;  // "does_not_fit", "fits", "refused", "not_a_layout"
  double peak_bytes = 0;
  double over_bytes = 0;  // above the budget (does_not_fit)
  double step_s = 0;      // fits
  std::string text;       // in words
};

struct PlanCandidate {
  int rank = 0;  // 1-based, by step time
  PlanSettings settings;
  Config config;  // the base with the settings applied
  Totals totals;
  StepTime time;
  std::vector<PlanNeighbour> neighbours;  // filled for the best few
};

struct PlanCounts {
  int64_t considered = 0;  // every point of the space
  int64_t evaluated = 0;   // estimated (EstimateTotals run)
  int64_t pruned = 0;      // ruled out by a bound, never estimated
  int64_t invalid = 0;     // refused by validation or the structural rules, never estimated
  int64_t feasible = 0;    // fit the budget
};

struct TrainPlan {
  bool ok = false;
  std::string error;
  double capacity_bytes = 0;
  double budget_bytes = 0;  // FitBudget(capacity)
  PlanCounts counts;
  std::vector<PlanCandidate> best;  // top K by step time
  std::vector<PlanPoint> pareto;    // fastest first; each uses less memory than every faster one
  std::vector<PlanPoint> feasible;  // every layout that fits, fastest first
};

TrainPlan PlanTraining(const TrainPlanRequest& r);

// The base with a point's settings applied (the search, the neighbours and the JSON share it).
Config ApplyPlanSettings(const Config& base, int64_t seq, const PlanSettings& s);

// The settings in words, as the CLI's table, the JSON's "layout" and the Fit tab print them:
// "tp 2 pp 1 cp 1 dp 4, ZeRO-1, recompute full, micro-batch 1 x 8 accumulation, optimizer auto".
std::string LayoutText(const PlanSettings& s);

// Where the fastest point of `plan.feasible` matching `want` on every field that `want`
// sets (fields at -1 match anything) ranks: 1 + the points strictly faster (ties share a
// rank: layouts that differ only in, say, the optimizer implementation take the same
// time); -1 when none matches. `match`, when given, receives the point.
struct PlanMatch {
  int64_t tp = -1, pp = -1, vpp = -1, cp = -1, ep = -1, dp = -1, micro_batch = -1;
  int zero = -1;
  int fsdp = -1;       // 0 or 1
  int recompute = -1;  // a Recompute value
  int offload = -1;    // 0 or 1
};
int64_t RankOf(const TrainPlan& plan, const PlanMatch& want, const PlanPoint** match = nullptr);

}  // namespace llmmem::core
