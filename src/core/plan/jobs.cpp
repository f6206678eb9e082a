// Several jobs on one GPU (jobs.h): the timeline, the sums per phase against the budget from
// the free memory, the verdict and what to change. The rules a request keeps: jobs_rules.cpp;
// what each kind holds: jobs_kinds.cpp.
//
// Index
//  [SECTION] Timeline and sums
//  [SECTION] What to change
#include "core/plan/jobs.h"

#include <algorithm>
#include <cmath>

#include "core/base/units.h"
#include "core/estimate/serving.h"
#include "core/plan/jobs_kinds.h"
#include "core/solve/fit.h"
#include "core/solve/largest_fitting.h"

namespace llmmem::core {
namespace {

std::string Gb(double bytes) { return FormatNumber(bytes / kGB, 2) + " GB"; }

// [SECTION] Timeline and sums ------------------------------------------------------------------

std::vector<JobPhase> Timeline(const JobsRequest& r) {
  bool trainer = false, engine = false;
  for (const JobSpec& j : r.jobs) {
    trainer |= j.kind == JobKind::kTrainer;
    engine |= j.kind == JobKind::kEngine;
  }
  if (!trainer) return {JobPhase::kServe};
  std::vector<JobPhase> p;
  if (engine) p = {JobPhase::kWeightSync, JobPhase::kGenerate};
  for (JobPhase x : {JobPhase::kForward, JobPhase::kBackward, JobPhase::kOptimizerStep}) p.push_back(x);
  return p;
}

// The job that drives a phase: the one most above its own least bytes there (the engine
// awake, the trainer's forward), else, when nothing changes, the one holding the most.
std::string Driver(const JobsPlan& plan, size_t phase) {
  const JobResult* best = nullptr;
  double rise = 0, most = -1;
  for (const JobResult& j : plan.jobs) {
    if (j.kind == JobKind::kHeld) continue;
    double least = j.phases[phase].bytes;
    for (const JobState& s : j.phases) least = std::min(least, s.bytes);
    if (j.phases[phase].bytes - least > rise) {
      rise = j.phases[phase].bytes - least;
      best = &j;
    }
  }
  if (best != nullptr) return best->name;
  for (const JobResult& j : plan.jobs)
    if (j.kind != JobKind::kHeld && j.phases[phase].bytes > most) {
      most = j.phases[phase].bytes;
      best = &j;
    }
  return best != nullptr ? best->name : "";
}

void Judge(JobsPlan& plan) {
  plan.verdict = Verdict::kFits;
  bool incomplete = false;
  for (size_t p = 0; p < plan.totals.size(); ++p) {
    const PhaseTotal& t = plan.totals[p];
    if (t.over_bytes > 0)
      plan.reasons.push_back(std::string(JobPhaseName(t.phase)) + ": " + Gb(t.bytes) + " is " + Gb(t.over_bytes) +
                             " over the budget of " + Gb(plan.budget_bytes) + " (driven by " + t.driver + ")");
  }
  for (const JobResult& j : plan.jobs) {
    if (j.kind == JobKind::kHeld) continue;
    if (!j.starts)
      plan.reasons.push_back(j.name + ": vLLM refuses to start: " + Gb(j.start_free_bytes) + " free at its start, " +
                             Gb(j.requested_bytes) + " asked (gpu_memory_utilization x the total)");
    if (j.verdict == Verdict::kDoesNotFit)
      plan.reasons.push_back(j.name + " does not fit by itself" + (j.verdict_note.empty() ? "" : ": " + j.verdict_note));
    incomplete |= j.verdict == Verdict::kIncomplete;
  }
  if (!plan.reasons.empty())
    plan.verdict = Verdict::kDoesNotFit;
  else if (incomplete)
    plan.verdict = Verdict::kIncomplete;
}

JobsPlan Evaluate(const JobsRequest& r, bool detail) {
  JobsPlan plan;
  plan.capacity_bytes = std::round(r.gpu.gpu_memory_gb * kGB);
  plan.phases = Timeline(r);
  const JobSpec* engine = nullptr;
  for (const JobSpec& j : r.jobs) {
    if (j.kind == JobKind::kHeld) plan.held_bytes += j.held_bytes;
    if (j.kind == JobKind::kEngine) engine = &j;
    if (j.kind != JobKind::kHeld) plan.headroom = std::max(plan.headroom, AnswerHeadroom(j.config));
  }
  plan.free_bytes = plan.capacity_bytes - plan.held_bytes;
  plan.budget_bytes = plan.free_bytes * (1.0 - plan.headroom);
  JobContext ctx;
  ctx.phases = &plan.phases;
  ctx.engine = engine;
  ctx.detail = detail;
  ctx.before_bytes = plan.held_bytes;  // what others hold is there before any job starts
  for (const JobSpec& j : r.jobs) {
    double hold = 0;
    plan.jobs.push_back(EvaluateJob(j, ctx, hold));
    if (j.kind != JobKind::kHeld) ctx.before_bytes += hold;
  }
  for (size_t p = 0; p < plan.phases.size(); ++p) {
    PhaseTotal t;
    t.phase = plan.phases[p];
    for (const JobResult& j : plan.jobs) {
      if (j.kind == JobKind::kHeld) continue;
      t.bytes += j.phases[p].bytes;
      for (int c = 0; c < kCategoryCount; ++c) t.category_bytes[c] += j.phases[p].category_bytes[c];
    }
    t.driver = Driver(plan, p);
    t.over_bytes = std::max(0.0, t.bytes - plan.budget_bytes);
    plan.totals.push_back(std::move(t));
    if (plan.totals[p].bytes > plan.totals[static_cast<size_t>(plan.peak_phase)].bytes)
      plan.peak_phase = static_cast<int>(p);
  }
  Judge(plan);
  plan.ok = true;
  return plan;
}

// [SECTION] What to change ---------------------------------------------------------------------

bool Fits(const JobsRequest& r) { return Evaluate(r, false).verdict != Verdict::kDoesNotFit; }

// vLLM's gpu_memory_utilization in hundredths: the range at which the whole plan fits (the
// job's own pool holds its requests from the low end; the others keep room up to the high end).
void FractionRange(JobsPlan& plan, const JobsRequest& r, size_t i) {
  JobsRequest x = r;
  JobChange ch;
  ch.job = r.jobs[i].name;
  ch.setting = "mem_fraction";
  ch.current = ResolveServing(r.jobs[i].config).mem_fraction;
  ch.lo = 1;
  ch.hi = 0;
  for (int k = 1; k <= 99; ++k) {
    x.jobs[i].config.mem_fraction = k / 100.0;
    if (!Fits(x)) continue;
    ch.lo = std::min(ch.lo, k / 100.0);
    ch.hi = k / 100.0;
  }
  const std::string flag = r.jobs[i].config.runtime == Runtime::kVllm ? "gpu_memory_utilization" : "mem_fraction_static";
  ch.text = ch.hi >= ch.lo ? ch.job + ": " + flag + " from " + FormatNumber(ch.lo, 2) + " to " + FormatNumber(ch.hi, 2) +
                                 " fits (now " + FormatNumber(ch.current, 2) + ")"
                           : ch.job + ": no " + flag + " from 0.01 to 0.99 fits beside the other jobs";
  plan.changes.push_back(std::move(ch));
}

void MicroBatchRange(JobsPlan& plan, const JobsRequest& r, size_t i) {
  JobsRequest x = r;
  JobChange ch;
  ch.job = r.jobs[i].name;
  ch.setting = "batch";
  ch.current = static_cast<double>(r.jobs[i].config.batch);
  ch.lo = 1;
  const int64_t most = LargestFitting(1024, [&](int64_t b) {
    x.jobs[i].config.batch = b;
    return Fits(x);
  });
  ch.hi = static_cast<double>(most);
  ch.text = most > 0 ? ch.job + ": a micro-batch of at most " + std::to_string(most) + " fits (now " +
                           std::to_string(r.jobs[i].config.batch) + ")"
                     : ch.job + ": not even a micro-batch of 1 fits beside the other jobs";
  plan.changes.push_back(std::move(ch));
}

// The most others may hold: every held job replaced by one of x bytes (bisection to 1 MB).
void HeldRange(JobsPlan& plan, const JobsRequest& r) {
  JobsRequest x;
  x.gpu = r.gpu;
  JobSpec held;
  held.name = "(held)";
  held.kind = JobKind::kHeld;
  x.jobs.push_back(held);
  for (const JobSpec& j : r.jobs)
    if (j.kind != JobKind::kHeld) x.jobs.push_back(j);
  auto fits = [&](double bytes) {
    if (bytes <= 0) {
      JobsRequest none = x;
      none.jobs.erase(none.jobs.begin());
      return Fits(none);
    }
    x.jobs[0].held_bytes = bytes;
    return Fits(x);
  };
  JobChange ch;
  ch.setting = "held_bytes";
  ch.current = plan.held_bytes;
  ch.lo = 0;
  ch.hi = -1;
  if (fits(0)) {
    double lo = 0, hi = plan.capacity_bytes;
    while (hi - lo > 1e6) {
      const double mid = std::floor((lo + hi) / 2);
      if (fits(mid))
        lo = mid;
      else
        hi = mid;
    }
    ch.hi = lo;
  }
  ch.text = ch.hi >= 0 ? "the jobs fit while others hold at most " + Gb(ch.hi) + " (now " + Gb(ch.current) + ")"
                       : "the jobs do not fit even on an empty card";
  plan.changes.push_back(std::move(ch));
}

}  // namespace

JobsPlan PlanJobs(const JobsRequest& r, bool detail) {
  const Diagnostics diags = ValidateJobs(r);
  for (const Diagnostic& d : diags)
    if (d.severity == Severity::kError) {
      JobsPlan bad;
      bad.error = (d.field.empty() ? "" : d.field + ": ") + d.message;
      return bad;
    }
  JobsPlan plan = Evaluate(r, detail);
  if (!detail) return plan;
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    const JobSpec& j = r.jobs[i];
    if (j.kind != JobKind::kHeld && IsPagedServer(j.config.runtime) && j.config.mode == Mode::kInference)
      FractionRange(plan, r, i);
    if (j.kind == JobKind::kTrainer) MicroBatchRange(plan, r, i);
  }
  HeldRange(plan, r);
  return plan;
}

}  // namespace llmmem::core
