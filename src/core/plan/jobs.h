// Several jobs on one GPU (issue 34 part 3): processes and their phases on one timeline, each
// phase with its bytes by category, budgeted from the FREE memory (the card less what others
// already hold: a display, another process), not the total.
//
// The kinds, each a row of what it holds in each phase (jobs_kinds.cpp, every figure from the
// one estimate, EstimateTotals / Explain):
//  - held:    memory others already hold (bytes); it makes the free memory, in no phase sum.
//  - trainer: a training run (any training mode; RLHF without its own rollout engine). Its
//             phases are the estimate's moments: forward (kForwardEnd), backward
//             (kLayerBackward), optimizer_step (kOptimizerStep); between steps (generate,
//             weight_sync) it keeps its persistent states (kGeneration without a rollout).
//  - engine:  the trainer's colocated rollout engine (vLLM; SGLang without sleep): awake while
//             it generates, asleep while the trainer trains (vLLM sleep level 1: the weights
//             to CPU, the KV cache discarded; level 2: both discarded), its weights alone
//             awake while the trainer pushes new weights into them (the weight sync, with the
//             trainer's sync buffer: one gathered tensor, verl's bucket, or TRL's whole copy).
//  - server:  a process serving beside the others (vLLM, SGLang, llama.cpp, Ollama, HF
//             generate), the same bytes in every phase; under llama.cpp it may carry a draft
//             model for speculative decoding in its own process (weights once, a KV cache
//             and compute buffer per slot).
// Every vLLM process asks gpu_memory_utilization x the TOTAL memory and refuses to start when
// less is free (the start check); SGLang takes mem_fraction_static of what is free when it
// starts. Processes start in the order listed, after what others hold.
// The budget: free x (1 - the one headroom policy's share, fit.h AnswerHeadroom, the largest
// over the jobs: 2% once anything but vLLM/SGLang is on the card).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/diagnostics.h"
#include "core/config/config.h"
#include "core/estimate/estimate.h"

namespace llmmem::core {

enum class JobKind : uint8_t { kHeld, kTrainer, kEngine, kServer };
const char* JobKindId(JobKind k);  // "held", "trainer", "engine", "server"

// How the trainer hands its weights to the engine (the buffer it holds meanwhile).
//  kPerTensor: one parameter at a time, gathered to full size when the trainer shards its
//              parameters (ZeRO-3 / FSDP full_shard), else nothing extra: TRL's sync_weights
//              (trl/generation/vllm_generation.py@f2cd5771: gather_params([param]) per
//              parameter; FSDP2 param.full_tensor()).
//  kBucket:    verl's CUDA IPC bucket (update_weights_bucket_megabytes, 2048 MiB by default)
//              plus the gathered tensor being copied into it (verl/workers/rollout/
//              vllm_rollout/vllm_rollout.py@b178a3cd update_weights; fsdp_workers.py
//              rollout_mode: full_tensor() per parameter).
//  kFull:      a whole 16-bit copy of the model at once, as TRL's GRPO first loaded the state
//              dict into vLLM (huggingface/trl#2927: "GRPO needs room ... to load the model
//              weights ... 3B will take 6GB").
enum class WeightSync : uint8_t { kPerTensor, kBucket, kFull };
const char* WeightSyncId(WeightSync w);  // "per_tensor", "bucket", "full"

// The timeline's phases, in the order a step runs them (an RL step: the weights are synced,
// the engine generates, the trainer trains).
enum class JobPhase : uint8_t { kServe, kWeightSync, kGenerate, kForward, kBackward, kOptimizerStep };
const char* JobPhaseId(JobPhase p);    // "serve", "weight_sync", "generate", "forward", "backward", "optimizer_step"
const char* JobPhaseName(JobPhase p);  // "serving", "weight sync", ...

struct JobSpec {
  std::string name;
  JobKind kind = JobKind::kServer;
  Config config;              // every kind but held (its gpu is the plan's)
  double held_bytes = 0;      // held
  int sleep_level = 1;        // engine: 0 (no sleep mode), 1 or 2
  WeightSync sync = WeightSync::kPerTensor;  // engine
  double bucket_bytes = 2048.0 * 1048576.0;  // engine, kBucket: verl's default 2048 MiB
  std::string process;        // engine: the job whose process (and CUDA context) it runs in; "": its own
  bool has_draft = false;     // server under llama.cpp: a draft model (-md) in the same process
  Config draft;               // its model and formats; runtime, GPU, context are the server's
};

struct JobsRequest {
  Config gpu;  // the card: gpu and gpu_memory_gb (SelectGpu); every job runs on it
  std::vector<JobSpec> jobs;
};

// One job in one phase.
struct JobState {
  std::string state;  // "held", "serving", "awake", "asleep", "weights_awake", "resident", "forward_end", ...
  double bytes = 0;
  double category_bytes[kCategoryCount] = {};  // filled in detail (the trainer's by Explain)
};

struct JobResult {
  std::string name;
  JobKind kind = JobKind::kServer;
  std::vector<JobState> phases;  // one per plan phase (held: its bytes, outside the sums)
  double peak_bytes = 0;
  Verdict verdict = Verdict::kFits;  // its own estimate's (an engine's pool holds its requests)
  std::string verdict_note;
  // vLLM's start check (gpu_worker.py init_device): requested = utilisation x total; refused
  // when the free memory at its start is less. SGLang: its share of what is free then.
  bool paged = false;
  bool starts = true;
  double start_free_bytes = 0;
  double requested_bytes = 0;
  double cpu_bytes = 0;          // host RAM it holds asleep (vLLM level 1: the weights)
  double sync_buffer_bytes = 0;  // trainer: the weight-sync buffer (in its weight_sync phase)
  double draft_bytes = 0;        // server: the draft model's part of its bytes
  Config config;                 // as estimated (SGLang: sized from the memory free at its start)
  std::string launch;            // server: the runtime's command
  std::string source;            // where its phases come from
};

struct PhaseTotal {
  JobPhase phase = JobPhase::kServe;
  double bytes = 0;  // every job but held
  double category_bytes[kCategoryCount] = {};
  std::string driver;    // the job that drives it: the most above its own least, else the most bytes
  double over_bytes = 0;  // above the budget (0: within)
};

// What to change: a setting's range that fits, or the bytes to free.
struct JobChange {
  std::string job;      // "" for the card
  std::string setting;  // "mem_fraction", "batch", "held_bytes"
  double current = 0;
  double lo = 0, hi = 0;  // fits from lo to hi (a fraction, a micro-batch, bytes); hi < lo: none
  std::string text;
};

struct JobsPlan {
  bool ok = false;
  std::string error;
  double capacity_bytes = 0;  // the card (round(gpu_memory_gb x 1e9), as the estimate's verdict)
  double held_bytes = 0;
  double free_bytes = 0;      // capacity - held
  double headroom = 0;        // the share kept free (AnswerHeadroom, the largest over the jobs)
  double budget_bytes = 0;    // free x (1 - headroom)
  std::vector<JobPhase> phases;
  std::vector<JobResult> jobs;  // in the request's order
  std::vector<PhaseTotal> totals;
  int peak_phase = 0;  // index into phases
  Verdict verdict = Verdict::kFits;
  std::vector<std::string> reasons;  // why not, in words (empty when it fits)
  std::vector<JobChange> changes;
};

// The rules a request must keep (kinds, counts, runtimes, names), each error naming its
// field as "jobs[2].sleep_level"; PlanJobs refuses a request with any.
Diagnostics ValidateJobs(const JobsRequest& r);

// `detail`: categories per phase (the trainer's by Explain) and the changes; the searches
// behind the changes run without.
JobsPlan PlanJobs(const JobsRequest& r, bool detail = true);

}  // namespace llmmem::core
