// The Fit tab's layout search (app/plan_view.h) against the planner itself: two doors, one
// answer. The page and the desktop send PlanRequestJson through bindings::CallBackground (the
// dispatch the Web Worker and the desktop's thread share) and show PlanAnswerFromJson of the
// answer; that must equal core::PlanTraining run on the same request, layout by layout.
#include <doctest.h>

#include "app/plan_view.h"
#include "bindings/background_calls.h"
#include "core/config/config_json.h"
#include "core/config/gpu_count.h"
#include "core/plan/plan_json.h"
#include "core/plan/train_plan.h"
#include "setups.h"

namespace llmmem::test {

TEST_CASE("plan view: the request states the configuration's GPUs and tokens per step") {
  Config c = WithSettings("llama-3.2-1b", {{"gpu", "RTX-4090-24GB"}, {"seq", "4096"}, {"batch", "2"}, {"grad_accum", "4"}, {"dp", "8"}});
  app::PlanView v;
  CHECK(app::GlobalBatchTokens(c) == 2 * 4 * 8 * 4096);
  const PlanRequestParse p = PlanRequestFromJsonText(app::PlanRequestJson(c, v, 5), DefaultConfig());
  REQUIRE_FALSE(HasErrors(p.diagnostics));
  CHECK(p.request.gpus == TotalGpus(c));
  CHECK(p.request.max_gpus == 0);
  CHECK(p.request.global_batch_tokens == 2 * 4 * 8 * 4096);
  CHECK(p.request.seq == 4096);
  CHECK(ConfigToQuery(p.request.base) == ConfigToQuery(c));
  v.gpus = 64;
  v.up_to = true;
  v.global_batch_tokens = 1 << 20;
  const PlanRequestParse q = PlanRequestFromJsonText(app::PlanRequestJson(c, v, 5), DefaultConfig());
  CHECK(q.request.max_gpus == 64);
  CHECK(q.request.global_batch_tokens == 1 << 20);
}

TEST_CASE("plan view: what the tab shows is what the planner found (worker path = core)") {
  Config c = WithSettings("llama-3.2-1b", {{"gpu", "RTX-4090-24GB"}, {"seq", "4096"}, {"dp", "8"}});
  app::PlanView v;
  v.global_batch_tokens = 64 * 4096;
  const std::string request = app::PlanRequestJson(c, v, 3);
  const app::PlanAnswer shown = app::PlanAnswerFromJson(1, bindings::CallBackground("plan", request), 0);
  const TrainPlan direct = PlanTraining(PlanRequestFromJsonText(request, DefaultConfig()).request);
  REQUIRE(direct.ok);
  REQUIRE(shown.ok);
  CHECK(shown.considered == direct.counts.considered);
  CHECK(shown.evaluated == direct.counts.evaluated);
  CHECK(shown.feasible == direct.counts.feasible);
  CHECK(shown.budget_bytes == doctest::Approx(direct.budget_bytes));
  REQUIRE(shown.best.size() == direct.best.size());
  REQUIRE_FALSE(shown.best.empty());
  for (size_t i = 0; i < shown.best.size(); ++i) {
    CHECK(shown.best[i].rank == direct.best[i].rank);
    CHECK(shown.best[i].layout == LayoutText(direct.best[i].settings));
    CHECK(shown.best[i].peak_bytes == doctest::Approx(direct.best[i].totals.peak_bytes));
    CHECK(shown.best[i].step_s == doctest::Approx(direct.best[i].time.total_s));
    // Apply gives the configuration the planner estimated.
    CHECK(ConfigToQuery(shown.best[i].config) == ConfigToQuery(direct.best[i].config));
  }
  CHECK(shown.best[0].neighbours.size() == direct.best[0].neighbours.size());
}

TEST_CASE("plan view: stale answers are dropped, errors shown, unknown calls named") {
  app::PlanView v;
  v.seq = 2;
  v.running = true;
  app::PlanAnswered(v, 1, true, "{\"ok\": true}", 5);
  CHECK(v.running);  // seq 1 is older than the search on its way
  app::PlanAnswered(v, 2, false, "the planner could not run in the page (offline)", 0);
  CHECK_FALSE(v.running);
  CHECK_FALSE(v.answer.ok);
  CHECK(v.answer.error == "the planner could not run in the page (offline)");
  const app::PlanAnswer bad = app::PlanAnswerFromJson(3, "{not json", 0);
  CHECK_FALSE(bad.ok);
  CHECK(bad.error.find("the planner's answer") == 0);
  const app::PlanAnswer unknown = app::PlanAnswerFromJson(4, bindings::CallBackground("nope", "{}"), 0);
  CHECK_FALSE(unknown.ok);
  CHECK(unknown.error.find("known: plan, serve_plan, jobs, jobs_examples, read_run") != std::string::npos);
  const app::PlanAnswer refused = app::PlanAnswerFromJson(5, bindings::CallBackground("plan", "{\"gpus\": 8}"), 0);
  CHECK_FALSE(refused.ok);
  CHECK(refused.error.find("global_batch_tokens") != std::string::npos);
}

}  // namespace llmmem::test
