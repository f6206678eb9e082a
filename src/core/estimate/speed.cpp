#include "core/estimate/speed.h"

#include <algorithm>
#include <cmath>

#include "core/estimate/account_serving.h"
#include "core/estimate/derived.h"
#include "core/estimate/estimate.h"
#include "core/config/gpu_count.h"
#include "core/catalogue/gpus.h"
#include "core/base/units.h"

namespace llmmem::core {
namespace {

std::string Rate(double per_s, const char* unit) {
  return FormatNumber(per_s, per_s < 10 ? 2 : per_s < 1000 ? 1 : 0) + " " + unit;
}

std::string Seconds(double s) { return s < 1 ? FormatNumber(s * 1000, 1) + " ms" : FormatNumber(s, 2) + " s"; }

// Bytes of the routed experts on this GPU, and of everything else.
struct MoeBytes {
  double routed = 0, other = 0;
};

MoeBytes SplitRouted(const Derived& d) {
  MoeBytes b;
  ForEachTensor(d.c.model, [&](const TensorShape& t) {
    const double bytes = detail::TensorBytes(t, HeldWeightFormat(d.c), d.c.quant, d.c.model) * d.Share(t);
    (t.routed_expert ? b.routed : b.other) += bytes;
  });
  return b;
}

}  // namespace

SpeedEstimate EstimateSpeed(const Config& c) {
  SpeedEstimate r;
  const Totals totals = EstimateTotals(c);
  if (!totals.ok) {
    r.why_not = "the configuration has errors";
    return r;
  }
  const Gpu* g = FindGpu(c.gpu);
  r.bandwidth = (c.bandwidth_gbps > 0 ? c.bandwidth_gbps : g != nullptr ? g->bandwidth_gbps : 0) * 1e9;
  const bool fp8 = c.dtype == Dtype::kFp8 && g != nullptr && g->fp8_tflops > 0 && c.tflops <= 0;
  r.peak_kind = c.tflops > 0 ? "as set" : fp8 ? "fp8" : "bf16";
  r.peak_flops = (c.tflops > 0 ? c.tflops : g == nullptr ? 0 : fp8 ? g->fp8_tflops : g->bf16_tflops) * 1e12;
  r.training = c.mode != Mode::kInference;
  const ModelSpec& m = c.model;
  if (!m.HasArchitecture()) {
    r.why_not = "speed needs the model's dimensions";
    return r;
  }
  const double bw = r.bandwidth * c.bw_efficiency;
  const double flops = r.peak_flops * c.mfu;
  auto line = [&](const std::string& label, const std::string& value, const std::string& note = "") {
    r.lines.push_back({label, value, note});
  };
  line("memory bandwidth",
       r.bandwidth > 0 ? FormatNumber(r.bandwidth / 1e9, 0) + " GB/s x " + FormatNumber(c.bw_efficiency, 2) : "unknown",
       "bw_efficiency: the share of the peak a decode step reads at");
  line("dense peak",
       r.peak_flops > 0
           ? FormatNumber(r.peak_flops / 1e12, 1) + " TFLOPS " + r.peak_kind + " x " + FormatNumber(c.mfu, 2)
           : "unknown",
       "mfu: the share of the peak matrix units sustain");

  // One tensor-parallel rank over every pipeline stage: a token passes them in turn.
  Config whole = c;
  whole.pp = 1;
  const Derived d(whole, 0);
  const ParamCounts& counts = d.counts;
  const double t = d.t;
  const double L = d.L;
  const double attn_width = d.a * d.hd / t;  // query heads on this GPU x head_dim
  // Matrix FLOPs touch every parameter but the embedding lookup (a tied head is a matmul).
  const double matmul_params = (static_cast<double>(counts.active) - static_cast<double>(counts.embedding) +
                                (m.tied_embeddings ? static_cast<double>(m.vocab) * d.h : 0)) /
                               t;

  if (r.training) {
    const double gpus = static_cast<double>(TotalGpus(c));
    const bool adapters = c.mode == Mode::kLora || c.mode == Mode::kQlora;
    const double n = static_cast<double>(counts.active);
    const double tokens = static_cast<double>(c.batch * c.seq * c.grad_accum * c.dp);
    double per_token = (adapters ? 4.0 : 6.0) * n + 12.0 * L * d.h * d.s;
    if (c.recompute == Recompute::kFull) per_token += 2.0 * n + 4.0 * L * d.h * d.s;
    r.step_flops = per_token * tokens;
    if (flops <= 0) {
      r.why_not = "no dense throughput known for this GPU: set tflops";
      return r;
    }
    r.step_s = r.step_flops / (gpus * flops);
    r.train_tokens_s = tokens / r.step_s;
    r.ok = true;
    line("FLOPs per token", FormatNumber(per_token / 1e9, 1) + " GFLOP",
         std::string(adapters ? "4N (frozen weights: no weight gradients)" : "6N") + " + 12 L h s" +
             (c.recompute == Recompute::kFull ? " + recompute 2N + 4 L h s" : ""));
    line("step time", Seconds(r.step_s),
         FormatCount(static_cast<int64_t>(tokens)) + " tokens over " + FormatNumber(gpus, 0) + " GPUs");
    line("training throughput", Rate(r.train_tokens_s, "tokens/s"), Rate(r.train_tokens_s / gpus, "tokens/s per GPU"));
    return r;
  }

  // Decode: bytes each step reads. MoE: a batch of b touches E(1 - (1 - k/E)^b) experts per layer.
  const double b = d.b;
  const double s = d.s;
  double weights = 0, cpu_bytes = 0, kv = 0;
  if (UsesServingRuntime(c) && IsGgml(c.runtime)) {
    Config ggml = c;
    ggml.pp = 1;
    const ServingPlan p = PlanServing(Derived(ggml, 0));
    weights = p.weights_gpu;
    cpu_bytes = p.cpu_layers * p.per_layer_weights + (p.output_on_cpu ? p.output_weights : 0) + p.kv_cpu;
    kv = p.kv_gpu * std::min(1.0, b * s / std::max(1.0, static_cast<double>(p.set.n_ctx)));
  } else {
    const MoeBytes mb = SplitRouted(d);
    const double e = static_cast<double>(m.experts);
    const double touched = m.IsMoe() ? 1.0 - std::pow(1.0 - static_cast<double>(m.experts_per_token) / e, b) : 1.0;
    // The token embedding is a lookup: one row per token, not the table.
    const double embedding = detail::WeightsByGroup(d, c.dtype).group[static_cast<int>(ParamGroup::kEmbedding)];
    weights = mb.other - (m.tied_embeddings ? 0 : embedding) + mb.routed * touched;
    kv = KvCacheBytes(d);
  }
  r.weight_bytes_step = weights;
  r.kv_bytes_step = kv;
  r.cpu_bytes_step = cpu_bytes;
  if (bw <= 0) {
    r.why_not = "no memory bandwidth known for this GPU: set bandwidth_gbps";
    return r;
  }
  const double ram_bw = c.ram_bandwidth_gbps * 1e9 * c.bw_efficiency;
  const double memory_s = (weights + kv) / bw + (cpu_bytes > 0 && ram_bw > 0 ? cpu_bytes / ram_bw : 0);
  const double step_flops = 2.0 * matmul_params * b + 4.0 * b * s * attn_width * L;
  const double compute_s = flops > 0 ? step_flops / flops : 0;
  r.decode_compute_bound = compute_s > memory_s;
  r.decode_step_s = std::max(memory_s, compute_s);
  r.decode_tokens_s = 1.0 / r.decode_step_s;
  r.batch_tokens_s = b / r.decode_step_s;
  line("decode step", Seconds(r.decode_step_s),
       FormatBytesBoth(weights) + " of weights" + (m.IsMoe() ? " (the experts the batch touches)" : "") + " + " +
           FormatBytesBoth(kv) + " of KV (" + FormatCount(c.batch) + " x " + FormatCount(c.seq) + " tokens" +
           // The static cache's attention reads its whole preallocated length, masked.
           (KvCacheTokens(d) != d.s_local ? ", the static cache's " + FormatCount(c.max_cache_len) + " slots" : "") +
           ") read" +
           (cpu_bytes > 0
                ? "; " + FormatBytesBoth(cpu_bytes) + " from RAM at " + FormatNumber(c.ram_bandwidth_gbps, 0) + " GB/s"
                : "") +
           (r.decode_compute_bound ? "; compute-bound at this batch" : ""));
  line("decode, per sequence", Rate(r.decode_tokens_s, "tokens/s"),
       "at the full context (the KV of seq tokens read each step)");
  line("decode, " + FormatCount(c.batch) + " sequences", Rate(r.batch_tokens_s, "tokens/s"));
  if (flops > 0) {
    r.prefill_flops_token = 2.0 * matmul_params + 4.0 * L * (s / 2) * attn_width;
    r.prefill_tokens_s = flops / r.prefill_flops_token;
    r.ttft_s = s / r.prefill_tokens_s;
    line("prefill", Rate(r.prefill_tokens_s, "tokens/s"),
         FormatNumber(r.prefill_flops_token / 1e9, 2) + " GFLOP per token: 2 x active parameters + causal attention");
    line("time to first token", Seconds(r.ttft_s), "a prompt of " + FormatCount(c.seq) + " tokens");
  } else {
    line("prefill", "unknown", "no dense throughput for this GPU: set tflops");
  }
  r.ok = true;
  return r;
}

}  // namespace llmmem::core
