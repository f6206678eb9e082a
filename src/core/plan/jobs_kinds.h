// What each kind of job holds in each phase of the timeline (jobs.h): one function per kind,
// every byte from the one estimate (EstimateTotals; the trainer's categories per moment from
// Explain's leaves), nothing recomputed beside it. Used by jobs.cpp only.
#pragma once

#include <vector>

#include "core/plan/jobs.h"

namespace llmmem::core {

struct JobContext {
  const std::vector<JobPhase>* phases = nullptr;
  double before_bytes = 0;           // held by others and by the jobs started before this one
  const JobSpec* engine = nullptr;   // the colocated engine, when there is one (its weight sync)
  bool detail = true;
};

// The job's phases, peak, own verdict and (vLLM, SGLang) start check. `hold_bytes` receives
// what it holds while the jobs after it start (a trainer: its resident states).
JobResult EvaluateJob(const JobSpec& j, const JobContext& ctx, double& hold_bytes);

// The trainer's weight-sync buffer for an engine's sync style (jobs.h WeightSync).
double WeightSyncBytes(const Config& trainer, const JobSpec& engine);

}  // namespace llmmem::core
