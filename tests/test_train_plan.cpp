// The training planner (core/plan/train_plan.h): the pruned search finds exactly what the
// exhaustive one finds, the budget is the fit solver's, and the step-time terms are the
// cited formulas' worked figures.
#include <algorithm>
#include <tuple>

#include <doctest.h>

#include "core/plan/train_plan.h"
#include "core/solve/fit.h"
#include "setups.h"

namespace llmmem::test {
namespace {

TrainPlanRequest SmallRequest(bool prune) {
  TrainPlanRequest r;
  r.base = WithSettings("llama-3.2-1b", {{"gpu", "RTX-4090-24GB"}});
  r.gpus = 8;
  r.global_batch_tokens = 64 * 4096;
  r.seq = 4096;
  r.top = 3;
  r.prune = prune;
  return r;
}

auto Key(const PlanPoint& p) {
  const PlanSettings& s = p.settings;
  return std::make_tuple(s.tp, s.pp, s.vpp, s.cp, s.ep, s.dp, s.zero, s.fsdp, static_cast<int>(s.recompute),
                         s.micro_batch, s.offload, static_cast<int>(s.optimizer_impl));
}

}  // namespace

TEST_CASE("plan: the bounds prune only what the exhaustive search finds infeasible") {
  const TrainPlan pruned = PlanTraining(SmallRequest(true));
  const TrainPlan full = PlanTraining(SmallRequest(false));
  REQUIRE(pruned.ok);
  REQUIRE(full.ok);
  CHECK(pruned.counts.considered == full.counts.considered);
  CHECK(full.counts.pruned == 0);
  CHECK(pruned.counts.pruned > 0);
  CHECK(pruned.counts.evaluated < full.counts.evaluated);
  // Every candidate is accounted for once: estimated, pruned or refused.
  CHECK(pruned.counts.evaluated + pruned.counts.pruned + pruned.counts.invalid == pruned.counts.considered);
  CHECK(full.counts.evaluated + full.counts.invalid == full.counts.considered);
  std::vector<decltype(Key(PlanPoint{}))> a, b;
  for (const PlanPoint& p : pruned.feasible) a.push_back(Key(p));
  for (const PlanPoint& p : full.feasible) b.push_back(Key(p));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  CHECK(a.size() > 0);
  CHECK(a == b);
  MESSAGE("small plan: ", pruned.counts.considered, " considered, ", pruned.counts.evaluated, " estimated (",
          full.counts.evaluated, " exhaustive), ", pruned.counts.pruned, " pruned, ", pruned.counts.feasible, " fit");
}

TEST_CASE("plan: the budget is the fit solver's headroom, and the micro-batch edge agrees with MaxMicroBatch") {
  const TrainPlanRequest r = SmallRequest(true);
  const TrainPlan plan = PlanTraining(r);
  REQUIRE(plan.ok);
  // RTX 4090: 25,757,220,864 B as the device reports; the budget 2% below.
  CHECK(plan.capacity_bytes == doctest::Approx(25757220864.0));
  CHECK(plan.budget_bytes == doctest::Approx(25757220864.0 * 0.98));
  for (const PlanPoint& p : plan.feasible) CHECK(p.peak_bytes <= plan.budget_bytes);
  REQUIRE(!plan.best.empty());
  for (size_t i = 1; i < plan.feasible.size(); ++i) CHECK(plan.feasible[i - 1].step_s <= plan.feasible[i].step_s);
  // The front: faster first, each with less memory than every faster point.
  for (size_t i = 1; i < plan.pareto.size(); ++i) {
    CHECK(plan.pareto[i - 1].step_s <= plan.pareto[i].step_s);
    CHECK(plan.pareto[i - 1].peak_bytes > plan.pareto[i].peak_bytes);
  }
  for (const PlanCandidate& k : plan.best) {
    const int64_t max_mb = MaxMicroBatch(k.config, plan.budget_bytes);
    CHECK(max_mb >= k.settings.micro_batch);
    for (const PlanNeighbour& n : k.neighbours) {
      if (n.change.rfind("micro_batch", 0) != 0 || n.verdict == "not_a_layout") continue;
      const int64_t next = std::stoll(n.change.substr(n.change.rfind(' ') + 1));
      CHECK((n.verdict == "fits") == (max_mb >= next));
    }
  }
}

TEST_CASE("plan step time: the pipeline bubble and tensor-parallel all-reduces, worked") {
  // Megatron-LM's Llama-3 70B row (examples/llama/README.md@d98e8a6): pp 8, vpp 5, 64
  // micro-batches. Narayanan et al. 2021, 2.2.2: bubble = (p - 1) / (v m) = 7 / 320.
  Config c = WithSettings("llama-3-70b", {{"framework", "megatron"}});
  PlanSettings s;
  s.gpus = 64;
  s.tp = 4;
  s.pp = 8;
  s.vpp = 5;
  s.dp = 2;
  s.micro_batch = 1;
  s.grad_accum = 64;
  s.zero = 1;
  c = ApplyPlanSettings(c, 8192, s);
  const Totals t = EstimateTotals(c);
  REQUIRE(t.ok);
  const StepTime st = PlanStepTime(c, t, 1e18, 989.5e12, PlanLinks{});
  REQUIRE(st.ok);
  // compute = 1e18 / (64 x 989.5e12 x 0.4) = 39.4770 s
  CHECK(st.compute_s == doctest::Approx(1e18 / (64 * 989.5e12 * 0.4)));
  CHECK(st.bubble_s / st.compute_s == doctest::Approx(7.0 / 320.0));
  // TP: 4 all-reduces x 10 layers x 64 micro-batches of b s h x 2 B = 134,217,728 B, the
  // ring moving 2 x 3/4 of it: 201,326,592 B each, at 450 GB/s = 0.447392 ms; x 2560 = 1.14532 s.
  CHECK(st.tp_comm_s == doctest::Approx(2560 * 201326592.0 / 450e9));
}


TEST_CASE("plan: every point's estimate is the configuration ApplyPlanSettings gives (the program's defaults followed)") {
  // The search follows the program's conditional defaults through a memo (stacks.h
  // StackFollower); each recorded point must be what ApplyPlanSettings, which calls
  // FollowChanged itself, gives for its settings.
  TrainPlanRequest r = SmallRequest(true);
  r.base = WithSettings("llama-3.2-1b", {{"gpu", "RTX-4090-24GB"}, {"mode", "training"}, {"dtype", "bf16"}});
  const TrainPlan plan = PlanTraining(r);
  REQUIRE(plan.ok);
  REQUIRE(plan.feasible.size() > 20);
  bool masters_follow = false;
  for (size_t i = 0; i < plan.feasible.size(); i += std::max<size_t>(1, plan.feasible.size() / 40)) {
    const PlanPoint& p = plan.feasible[i];
    const Config c = ApplyPlanSettings(r.base, r.seq, p.settings);
    CHECK(EstimateTotals(c).peak_bytes == p.peak_bytes);
    if (p.settings.zero >= 1 && !p.settings.fsdp) masters_follow = masters_follow || c.master_weights;
  }
  CHECK_FALSE(r.base.master_weights);  // the Trainer at ZeRO-0 steps bf16 parameters as loaded
  CHECK(masters_follow);               // DeepSpeed's ZeRO keeps fp32 masters: the plan counts them
}

}  // namespace llmmem::test
