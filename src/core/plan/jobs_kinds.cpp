// What each kind of job holds in each phase (jobs_kinds.h). Sources:
//  - vLLM's share and its start check: vllm-project/vllm vllm/v1/worker/gpu_worker.py@35d5cda1
//    Worker.init_device: requested_memory = total_memory x gpu_memory_utilization, and
//    "Free memory on device ... on startup is less than desired GPU memory utilization" when
//    the free memory is less (the CUDA context and NCCL are taken before the snapshot).
//  - vLLM's sleep: the same file, Worker.sleep / wake_up: the weights are allocated in the
//    CuMemAllocator pool tagged "weights" (load_model), the KV cache in "kv_cache"
//    (initialize_from_config); sleep(level 1) offloads the "weights" pool to CPU and discards
//    the rest, level 2 discards both; wake_up(tags) maps a pool back. What the pools do not
//    hold stays: the CUDA context, the CUDA graphs, the activation blocks torch's allocator
//    keeps, non-torch memory (docs.vllm.ai/en/latest/features/sleep_mode: "Level 1 sleep will
//    offload the model weights and discard the KV cache ... Level 2 sleep will discard both").
//  - The RL step's order: TRL trl/generation/vllm_generation.py@f2cd5771 sync_weights
//    (wake_up(tags=["weights"]), then each parameter pushed), generate (wake_up(tags=
//    ["kv_cache"]), generate, sleep(level=2)); verl verl/workers/fsdp_workers.py@b178a3cd
//    rollout_mode (resume(tags=["weights"]), update_weights, resume(tags=["kv_cache"])).
//  - llama.cpp's draft: ggml-org/llama.cpp tools/server/server.cpp@aa6192d3 load_model:
//    params_dft.n_ctx = speculative.n_ctx == 0 ? llama_n_ctx_seq(ctx) (-cd 0: a slot's
//    context), n_parallel 1, the draft's own -ctkd/-ctvd and -ngld; init(): one draft context
//    per slot (slot.ctx_dft = llama_init_from_model(model_dft, cparams_dft)), the weights once.
#include "core/plan/jobs_kinds.h"

#include <algorithm>
#include <cmath>

#include "core/base/units.h"
#include "core/estimate/serving.h"
#include "core/report/launch_export.h"

namespace llmmem::core {
namespace {

constexpr const char* kSrcHeld = "as given: memory another process or the display already holds";
constexpr const char* kSrcTrainer =
    "the training estimate's moments: forward_end (forward), layer_backward (backward), optimizer_step, "
    "generation (between steps: the persistent states); the weight-sync buffer: TRL "
    "trl/generation/vllm_generation.py@f2cd5771 sync_weights, verl vllm_rollout.py@b178a3cd update_weights, "
    "huggingface/trl#2927";
constexpr const char* kSrcEngine =
    "vLLM v1 gpu_worker.py@35d5cda1 init_device (utilisation x total, refused when less is free) and "
    "sleep/wake_up (pools tagged weights and kv_cache; level 1 offloads the weights to CPU, level 2 "
    "discards them); docs.vllm.ai features/sleep_mode";
constexpr const char* kSrcServer = "the serving estimate (runtime.h), the same bytes in every phase";
constexpr const char* kSrcDraft =
    "llama.cpp tools/server/server.cpp@aa6192d3 load_model/init: the draft's weights once, one context "
    "(a slot's n_ctx, n_parallel 1) per slot";

using Cats = double[kCategoryCount];

void Add(double* dst, const double* src, double k = 1.0) {
  for (int i = 0; i < kCategoryCount; ++i) dst[i] += k * src[i];
}

JobState MakeState(const char* state, double bytes, const double* cats) {
  JobState s;
  s.state = state;
  s.bytes = bytes;
  if (cats != nullptr) Add(s.category_bytes, cats);
  return s;
}

// Explain's GPU leaves, summed by category at each moment.
void LeafCategories(const BreakdownNode& n, double out[kMomentCount][kCategoryCount]) {
  if (n.children.empty()) {
    if (n.device != Device::kGpu) return;
    for (int m = 0; m < kMomentCount; ++m) out[m][static_cast<int>(n.category)] += n.moment_bytes[m];
    return;
  }
  for (const BreakdownNode& c : n.children) LeafCategories(c, out);
}

void OwnVerdict(JobResult& out, const Config& c, const Totals& t) {
  out.verdict = t.Judge();
  out.verdict_note = VerdictNote(c, t);
}

// vLLM and SGLang size themselves from the memory CUDA reports (ServingTotalBytes).
void StartCheck(JobResult& out, Config& c, double before) {
  out.paged = true;
  const double total = ServingTotalBytes(c);
  const double own_context = c.cuda_context_gb * kGB;
  out.start_free_bytes = std::max(0.0, total - before - own_context);
  const ServingSettings set = ResolveServing(c);
  if (c.runtime == Runtime::kVllm) {
    out.requested_bytes = set.mem_fraction * total;
    out.starts = out.start_free_bytes >= out.requested_bytes;
  } else {
    // SGLang: mem_fraction_static of the memory free when it starts (serving.h): the
    // estimate is sized from that memory rather than the card's.
    c.gpu_memory_gb = std::max(0.0, total - before) / kGB;
    out.requested_bytes = set.mem_fraction * out.start_free_bytes;
    out.starts = true;  // its own verdict says whether the weights and the pool fit the share
  }
}

JobResult Held(const JobSpec& j, const JobContext& ctx) {
  JobResult out;
  Cats cats = {};
  cats[static_cast<int>(Category::kOverheads)] = j.held_bytes;
  for (size_t i = 0; i < ctx.phases->size(); ++i) out.phases.push_back(MakeState("held", j.held_bytes, cats));
  out.peak_bytes = j.held_bytes;
  out.source = kSrcHeld;
  return out;
}

JobResult Trainer(const JobSpec& j, const JobContext& ctx, double& hold) {
  JobResult out;
  out.config = j.config;
  const Totals t = EstimateTotals(out.config);
  OwnVerdict(out, out.config, t);
  hold = t.moment_bytes[static_cast<int>(Moment::kGeneration)];
  double cats[kMomentCount][kCategoryCount] = {};
  if (ctx.detail) LeafCategories(Explain(out.config).tree, cats);
  out.sync_buffer_bytes = ctx.engine != nullptr ? WeightSyncBytes(out.config, *ctx.engine) : 0;
  for (const JobPhase p : *ctx.phases) {
    Moment m = Moment::kGeneration;  // between steps: weight sync, generation
    switch (p) {
      case JobPhase::kForward:
        m = Moment::kForwardEnd;
        break;
      case JobPhase::kBackward:
        m = Moment::kLayerBackward;
        break;
      case JobPhase::kOptimizerStep:
        m = Moment::kOptimizerStep;
        break;
      default:
        break;
    }
    const int mi = static_cast<int>(m);
    const char* state = m == Moment::kGeneration ? "resident" : MomentId(m);
    JobState s = MakeState(state, t.moment_bytes[mi], cats[mi]);
    if (p == JobPhase::kWeightSync && out.sync_buffer_bytes > 0) {
      s.state = "resident_and_sync_buffer";
      s.bytes += out.sync_buffer_bytes;
      s.category_bytes[static_cast<int>(Category::kBuffers)] += out.sync_buffer_bytes;
    }
    out.peak_bytes = std::max(out.peak_bytes, s.bytes);
    out.phases.push_back(std::move(s));
  }
  out.source = kSrcTrainer;
  return out;
}

JobResult Engine(const JobSpec& j, const JobContext& ctx) {
  JobResult out;
  out.config = j.config;
  if (!j.process.empty()) out.config.cuda_context_gb = 0;  // the trainer's process: one CUDA context
  StartCheck(out, out.config, ctx.before_bytes);
  const Totals t = EstimateTotals(out.config);
  OwnVerdict(out, out.config, t);
  const double weights = t.category_bytes[static_cast<int>(Category::kWeights)];
  const double kv = t.category_bytes[static_cast<int>(Category::kKvCache)];
  Cats awake = {}, weights_awake = {}, asleep = {};
  Add(awake, t.category_bytes);
  Add(weights_awake, t.category_bytes);
  weights_awake[static_cast<int>(Category::kKvCache)] = 0;
  Add(asleep, weights_awake);
  asleep[static_cast<int>(Category::kWeights)] = 0;
  const bool sleeps = j.sleep_level > 0;
  for (const JobPhase p : *ctx.phases) {
    if (!sleeps || p == JobPhase::kGenerate)
      out.phases.push_back(MakeState("awake", t.peak_bytes, awake));
    else if (p == JobPhase::kWeightSync)
      out.phases.push_back(MakeState("weights_awake", t.peak_bytes - kv, weights_awake));
    else
      out.phases.push_back(MakeState("asleep", t.peak_bytes - kv - weights, asleep));
  }
  out.peak_bytes = t.peak_bytes;
  out.cpu_bytes = j.sleep_level == 1 ? weights : 0;  // level 1 keeps the weights in host RAM
  out.source = kSrcEngine;
  return out;
}

JobResult Server(const JobSpec& j, const JobContext& ctx) {
  JobResult out;
  out.config = j.config;
  if (IsPagedServer(out.config.runtime)) StartCheck(out, out.config, ctx.before_bytes);
  const Totals t = EstimateTotals(out.config);
  OwnVerdict(out, out.config, t);
  Cats cats = {};
  Add(cats, t.category_bytes);
  double bytes = t.peak_bytes;
  out.source = kSrcServer;
  if (j.has_draft) {
    // The draft in the server's process: no CUDA context of its own; weights once, and per
    // slot a context of a slot's cells with its compute buffer.
    Config d = j.draft;
    d.mode = Mode::kInference;
    d.runtime = out.config.runtime;
    d.gpu = out.config.gpu;
    d.gpu_memory_gb = out.config.gpu_memory_gb;
    d.seq = out.config.seq;
    d.batch = 1;
    d.prefill_chunk = out.config.prefill_chunk;
    d.flash_attn = out.config.flash_attn;
    d.ram_gb = out.config.ram_gb;
    d.cuda_context_gb = 0;
    d.other_processes_gb = 0;
    const Totals td = EstimateTotals(d);
    const double slots = static_cast<double>(ResolveServing(out.config).slots);
    const double w = td.category_bytes[static_cast<int>(Category::kWeights)];
    Cats per_slot = {};
    Add(per_slot, td.category_bytes);
    per_slot[static_cast<int>(Category::kWeights)] = 0;
    cats[static_cast<int>(Category::kWeights)] += w;
    Add(cats, per_slot, slots);
    out.draft_bytes = w + slots * (td.peak_bytes - w);
    bytes += out.draft_bytes;
    if (td.Judge() != Verdict::kFits && out.verdict == Verdict::kFits) {
      out.verdict = td.Judge();
      out.verdict_note = "the draft: " + VerdictNote(d, td);
    }
    out.source = kSrcDraft;
  }
  for (size_t i = 0; i < ctx.phases->size(); ++i) out.phases.push_back(MakeState("serving", bytes, cats));
  out.peak_bytes = bytes;
  LaunchTarget target;
  if (ServingLaunchTarget(out.config.runtime, target)) out.launch = ExportLaunch(out.config, target);
  if (j.has_draft && !out.launch.empty()) {
    // llama-server's draft flags (common/arg.cpp): -md the draft, -ngld its layers on the GPU
    // (all, and the output layer, as -ngl counts them), -cd 0: a slot's context.
    const int64_t layers = j.draft.gpu_layers >= 0 ? j.draft.gpu_layers : j.draft.model.layers + 1;
    while (!out.launch.empty() && out.launch.back() == '\n') out.launch.pop_back();
    out.launch += " \\\n  -md " + GgufFileName(j.draft) + " \\\n  -ngld " + std::to_string(layers) + " \\\n  -cd 0\n";
  }
  return out;
}

}  // namespace

double WeightSyncBytes(const Config& trainer, const JobSpec& engine) {
  const ParamCounts n = CountParameters(trainer.model);
  const double bpp = Info(trainer.dtype).bits / 8.0;
  // Parameters sharded over the data-parallel GPUs (ZeRO-3, FSDP full_shard) are gathered to
  // full size one at a time; unsharded ones are pushed from where they are.
  const double gathered = trainer.zero >= 3 ? static_cast<double>(n.largest_tensor) * bpp : 0.0;
  switch (engine.sync) {
    case WeightSync::kPerTensor:
      return gathered;
    case WeightSync::kBucket:
      return engine.bucket_bytes + gathered;
    case WeightSync::kFull:
      return static_cast<double>(n.total) * bpp;
  }
  return 0;
}

JobResult EvaluateJob(const JobSpec& j, const JobContext& ctx, double& hold_bytes) {
  JobResult out;
  hold_bytes = -1;
  switch (j.kind) {
    case JobKind::kHeld:
      out = Held(j, ctx);
      break;
    case JobKind::kTrainer:
      out = Trainer(j, ctx, hold_bytes);
      break;
    case JobKind::kEngine:
      out = Engine(j, ctx);
      break;
    case JobKind::kServer:
      out = Server(j, ctx);
      break;
  }
  out.name = j.name;
  out.kind = j.kind;
  // What the later jobs see taken when they start: a trainer's resident states (an engine
  // restarted mid-run, as verl and TRL recreate it, meets the optimizer states too), an
  // engine or a server at its full size.
  if (hold_bytes < 0) hold_bytes = out.peak_bytes;
  return out;
}

}  // namespace llmmem::core
