// The names of jobs.h's enumerations and the rules a request keeps (jobs.h ValidateJobs):
// the kinds and how many of each, the runtimes each kind runs under, the names, what others
// hold; each error names its field ("jobs[2].sleep_level").
#include "core/plan/jobs.h"

#include <cmath>
#include <string>

#include "core/base/units.h"
#include "core/config/validate.h"

namespace llmmem::core {

const char* JobKindId(JobKind k) {
  switch (k) {
    case JobKind::kHeld:
      return "held";
    case JobKind::kTrainer:
      return "trainer";
    case JobKind::kEngine:
      return "engine";
    case JobKind::kServer:
      return "server";
  }
  return "";
}

const char* WeightSyncId(WeightSync w) {
  switch (w) {
    case WeightSync::kPerTensor:
      return "per_tensor";
    case WeightSync::kBucket:
      return "bucket";
    case WeightSync::kFull:
      return "full";
  }
  return "";
}

const char* JobPhaseId(JobPhase p) {
  switch (p) {
    case JobPhase::kServe:
      return "serve";
    case JobPhase::kWeightSync:
      return "weight_sync";
    case JobPhase::kGenerate:
      return "generate";
    case JobPhase::kForward:
      return "forward";
    case JobPhase::kBackward:
      return "backward";
    case JobPhase::kOptimizerStep:
      return "optimizer_step";
  }
  return "";
}

const char* JobPhaseName(JobPhase p) {
  switch (p) {
    case JobPhase::kServe:
      return "serving";
    case JobPhase::kWeightSync:
      return "weight sync";
    case JobPhase::kGenerate:
      return "generation";
    case JobPhase::kForward:
      return "forward";
    case JobPhase::kBackward:
      return "backward";
    case JobPhase::kOptimizerStep:
      return "optimizer step";
  }
  return "";
}

namespace {

std::string Gb(double bytes) { return FormatNumber(bytes / kGB, 2) + " GB"; }

struct Rules {
  Diagnostics diags;
  void Error(DiagId id, const std::string& field, const std::string& msg) {
    diags.push_back({id, Severity::kError, field, msg});
  }
};

}  // namespace

Diagnostics ValidateJobs(const JobsRequest& r) {
  Rules out;
  const double capacity = std::round(r.gpu.gpu_memory_gb * kGB);
  if (!(capacity > 0)) out.Error(DiagId::kOutOfRange, "gpu", "the GPU's memory must be more than 0 GB");
  if (r.jobs.empty()) out.Error(DiagId::kMissingField, "jobs", "a plan needs at least one job");
  int trainers = 0, engines = 0;
  double held = 0;
  for (const JobSpec& j : r.jobs) {
    trainers += j.kind == JobKind::kTrainer;
    engines += j.kind == JobKind::kEngine;
  }
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    const JobSpec& j = r.jobs[i];
    const std::string at = "jobs[" + std::to_string(i) + "]";
    if (j.name.empty()) out.Error(DiagId::kMissingField, at + ".name", at + " needs a name");
    for (size_t k = 0; k < i; ++k)
      if (!j.name.empty() && r.jobs[k].name == j.name)
        out.Error(DiagId::kInconsistent, at + ".name", "two jobs are named \"" + j.name + "\"; names must differ");
    if (j.kind == JobKind::kHeld) {
      if (!(j.held_bytes > 0) || !std::isfinite(j.held_bytes) || j.held_bytes > capacity)
        out.Error(DiagId::kOutOfRange, at + ".bytes",
                  "the memory held must be more than 0 and at most the card's " + Gb(capacity));
      else
        held += j.held_bytes;
      continue;
    }
    const Config& c = j.config;
    const std::string cf = at + ".config";
    for (const Diagnostic& d : Validate(c))
      if (d.severity == Severity::kError) out.diags.push_back({d.id, d.severity, cf + "." + d.field, d.message});
    if (c.other_processes_gb > 0)
      out.Error(DiagId::kInconsistent, cf + ".other_processes_gb",
                "memory other processes hold is a job of its own here ({\"kind\": \"held\", \"bytes\": ...})");
    switch (j.kind) {
      case JobKind::kTrainer:
        if (c.mode == Mode::kInference)
          out.Error(DiagId::kInconsistent, cf + ".mode", "a trainer trains: mode train, lora, qlora or rlhf");
        if (c.mode == Mode::kRlhf && c.rollout_engine && c.rlhf != Rlhf::kDpo)
          out.Error(DiagId::kInconsistent, cf + ".rollout_engine",
                    "the colocated rollout engine is a job of its own here (kind engine): set rollout_engine false");
        if (trainers > 1)
          out.Error(DiagId::kUnsupported, at + ".kind",
                    "one trainer per GPU: two trainers' phases do not share one timeline");
        break;
      case JobKind::kEngine:
        if (c.mode != Mode::kInference || !IsPagedServer(c.runtime))
          out.Error(DiagId::kInconsistent, cf + ".runtime",
                    "a rollout engine is vLLM or SGLang in inference (mode infer, runtime vllm or sglang)");
        if (j.sleep_level < 0 || j.sleep_level > 2)
          out.Error(DiagId::kOutOfRange, at + ".sleep_level", "sleep_level is 0 (no sleep mode), 1 or 2");
        else if (j.sleep_level > 0 && c.runtime == Runtime::kSglang)
          out.Error(DiagId::kUnsupported, at + ".sleep_level",
                    "SGLang's release_memory_occupation is not modelled: sleep_level 0 with SGLang");
        if (trainers == 0)
          out.Error(DiagId::kInconsistent, at + ".kind", "a rollout engine needs its trainer on the card (kind trainer)");
        if (engines > 1) out.Error(DiagId::kUnsupported, at + ".kind", "one rollout engine per trainer");
        if (j.sync == WeightSync::kBucket && !(j.bucket_bytes > 0 && std::isfinite(j.bucket_bytes)))
          out.Error(DiagId::kOutOfRange, at + ".bucket_mib", "the weight-sync bucket must be more than 0 MiB");
        if (!j.process.empty()) {
          bool found = false;
          for (const JobSpec& k : r.jobs) found |= k.kind == JobKind::kTrainer && k.name == j.process;
          if (!found)
            out.Error(DiagId::kUnknownValue, at + ".process",
                      "process names the trainer job whose process the engine runs in (\"" + j.process +
                          "\" is not a trainer here)");
        }
        break;
      case JobKind::kServer:
        if (c.mode != Mode::kInference)
          out.Error(DiagId::kInconsistent, cf + ".mode", "a server runs inference: mode infer");
        if (j.has_draft && c.runtime != Runtime::kLlamaCpp)
          out.Error(DiagId::kUnsupported, at + ".draft",
                    "a draft model is counted under llama.cpp (llama-server -md); vLLM and SGLang take a draft's "
                    "weights and KV cache out of their own share, which is not modelled here");
        if (j.has_draft)
          for (const Diagnostic& d : Validate(j.draft))
            if (d.severity == Severity::kError)
              out.diags.push_back({d.id, d.severity, at + ".draft." + d.field, d.message});
        break;
      case JobKind::kHeld:
        break;
    }
  }
  if (capacity > 0 && held >= capacity)
    out.Error(DiagId::kOutOfRange, "jobs",
              "others hold " + Gb(held) + " of the card's " + Gb(capacity) + ": nothing is free");
  return out.diags;
}

}  // namespace llmmem::core
