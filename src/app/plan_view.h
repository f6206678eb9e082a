// The Fit tab's layout search (issue 34 part 5, issue 32 part 2): the training planner
// (core/plan/train_plan.h) asked for the current model, card and global batch, run off the UI
// thread (hooks.background: the page's Web Worker, a thread on the desktop), its answer read
// back from its JSON (llmmem.plan/1, the CLI's and the JS API's document) so every door shows
// the same plan. Without ImGui, so the tests cover the request, the answer and staleness.
// May include: core (no imgui).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"

namespace llmmem::app {

// One layout the planner kept, as the Fit tab lists it.
struct PlanRow {
  int rank = 0;
  std::string layout;  // "tp 8 pp 1 dp 4, ZeRO-1, recompute selective, micro-batch 1 x 16"
  double peak_bytes = 0;
  double step_s = 0;
  double tokens_per_s = 0;
  core::Config config;                  // the settings to launch with (its "config")
  std::vector<std::string> neighbours;  // why the layouts next to it lose
};

struct PlanAnswer {
  int64_t seq = 0;
  bool ok = false;
  std::string error;
  double ms = 0;  // the search's own time, where the platform measured it
  int64_t considered = 0, evaluated = 0, pruned = 0, invalid = 0, feasible = 0;
  double budget_bytes = 0, capacity_bytes = 0;
  std::vector<PlanRow> best;
};

struct PlanView {
  int64_t seq = 0;         // the last request's; older answers are stale
  bool running = false;
  std::string asked_for;   // the configuration query the last request searched for
  int gpus = 0;            // 0: the configuration's own count
  bool up_to = false;      // every count up to `gpus` (powers of two and whole nodes)
  int64_t global_batch_tokens = 0;  // 0: the configuration's (micro-batch x accumulation x dp x seq)
  PlanAnswer answer;
};

// The configuration's tokens per optimizer step and GPU count, the search's defaults.
int64_t GlobalBatchTokens(const core::Config& c);

// The request's JSON (plan_json.h PlanRequestFromJsonText) for `c` with the view's choices.
std::string PlanRequestJson(const core::Config& c, const PlanView& v, int top);

// The planner's llmmem.plan/1 document (or the platform's error) as the tab shows it.
PlanAnswer PlanAnswerFromJson(int64_t seq, const std::string& text, double ms);

// The answer to hooks.background for a plan: taken when it is the last request's (seq), else
// dropped as stale; `ok` false carries the platform's error (the worker could not load).
void PlanAnswered(PlanView& v, int64_t seq, bool ok, const std::string& text, double ms);

}  // namespace llmmem::app
