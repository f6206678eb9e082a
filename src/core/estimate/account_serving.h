// Inference as the serving runtimes allocate it (issue 16; runtime.h has the table and the
// sources). One plan per GPU (PlanServing) holds every figure; the accounting below turns
// it into the breakdown's lines and serving.cpp into the report, so the two agree.
//  - vLLM: gpu_memory_utilization x memory, less weights, the profiled activation peak
//    (max_num_batched_tokens) and non-torch memory, is cut into 16-token KV blocks.
//  - SGLang: mem_fraction_static of the free memory holds weights and the token pool.
//  - llama.cpp / Ollama: the last -ngl layers (and the output layer past n_layer) on the
//    GPU, the rest mmapped in RAM; KV beside its layer; ggml compute buffers sized for
//    n_ubatch tokens; the logits output buffer in host memory.
// Included by account.h. May include: core headers only.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/phrase.h"
#include "core/estimate/account_inference.h"
#include "core/estimate/account_weights.h"
#include "core/estimate/derived.h"
#include "core/catalogue/gpus.h"
#include "core/estimate/serving.h"
#include "core/estimate/serving_pools.h"
#include "core/estimate/sinks.h"
#include "core/base/units.h"

namespace llmmem::core {

// Every figure of one GPU's serving memory (the GPU of pipeline stage d.stage).
struct ServingPlan {
  ServingSettings set;
  double total = 0;           // the GPU's memory
  double context = 0;         // CUDA context (cuda_context_gb)
  double weights = 0;         // weights on this GPU (paged servers)
  double kv_token_layer = 0;  // one token's K and V in one layer, on this GPU
  double layers_here = 0;     // layers whose KV this GPU holds
  // vLLM / SGLang.
  double budget = 0;        // vLLM: utilisation x memory; SGLang: fraction x free memory
  double workspace = 0;     // profiling forward's activation peak
  double sampler = 0;       // vLLM: the dummy sampler run's logits
  double activation = 0;    // max(workspace, sampler)
  double graphs = 0;        // CUDA graph pool (estimate)
  double non_torch = 0;     // vLLM: non-torch memory during profiling
  double kv_available = 0;  // what the budget leaves for the KV pool
  double block_bytes = 0;   // vLLM: a block over one KV cache group's layers; SGLang: one token (cell_size)
  double pool_units = 0;    // vLLM blocks / SGLang tokens (the full layers' pool)
  double pool_bytes = 0;
  double needed_units = 0;  // batch x blocks per request / batch x seq tokens
  double needed_bytes = 0;
  LayerKinds kinds;             // this GPU's layers by kind (serving_pools.h)
  VllmLayout vllm;              // vLLM's KV cache groups and page
  SglangPools sglang;           // SGLang's token, SWA and mamba pools
  double per_request = 0;       // vLLM blocks / SGLang requests' full tokens of one request
  double pool_tokens = 0;       // tokens the pool holds ("GPU KV cache size")
  double max_concurrency = 0;   // requests of seq tokens the pools hold at once
  double max_model_len = 0;     // vLLM: the longest request the pool holds
  double outside = 0;   // on the GPU but outside the budget
  double capacity = 0;  // what the verdict compares against
  // llama.cpp / Ollama.
  double per_layer_weights = 0, embedding_weights = 0, output_weights = 0;
  double gpu_layers_here = 0, cpu_layers = 0;
  bool output_here = false, output_on_cpu = false, host_here = false;
  double weights_gpu = 0, weights_cpu = 0;
  double kv_layer = 0;      // one full-attention layer's cache (n_ctx cells)
  double kv_avg_layer = 0;  // the cache of an average layer: full, sliding and recurrent layers together
  double kv_gpu = 0, kv_cpu = 0;
  double attn_phase = 0, ffn_phase = 0, out_phase = 0, mask = 0;
  double compute_gpu = 0, compute_cpu = 0, output_buffer = 0;
  double copies = 1;
};

namespace detail {

inline double CeilDiv(double a, double b) { return std::ceil(a / b); }

// Layer split of llama.cpp's GPU layers over the pipeline's GPUs: even, the first ones
// taking the remainder's extra layer (as Derived splits pipeline stages).
inline double GpuLayersOnStage(double gpu_layers, const Derived& d) {
  if (d.pp <= 1) return gpu_layers;
  // Unlike GPUs: llama.cpp's default --tensor-split is each device's memory, layer il going
  // to the device whose cumulative share first exceeds il / n (llama-model.cpp).
  const std::vector<const Gpu*> set = GpuSet(d.c);
  if (static_cast<double>(set.size()) == d.pp) {
    double total = 0, before = 0;
    for (const Gpu* g : set) total += g->UsableBytes();
    for (int i = 0; i < d.stage; ++i) before += set[static_cast<size_t>(i)]->UsableBytes();
    const double here = set[static_cast<size_t>(d.stage)]->UsableBytes();
    return std::round(gpu_layers * (before + here) / total) - std::round(gpu_layers * before / total);
  }
  const double per = std::ceil(gpu_layers / d.pp);
  const double before = per * d.stage;
  return std::max(0.0, std::min(per, gpu_layers - before));
}

}  // namespace detail

inline ServingPlan PlanServing(const Derived& d) {
  const Config& c = d.c;
  const ModelSpec& m = c.model;
  ServingPlan p;
  p.set = ResolveServing(c);
  p.total = ServingTotalBytes(c, d.stage);
  p.set.total_bytes = p.total;
  p.context = c.cuda_context_gb * kGB;
  p.capacity = p.total;
  if (!d.has_arch || m.arch != Arch::kDecoder) return p;
  const double e = c.dtype == Dtype::kFp32 ? 4.0 : 2.0;

  if (IsPagedServer(c.runtime)) {
    p.weights = detail::WeightsByGroup(d, c.dtype).total;
    p.kv_token_layer = KvTokenLayerBytes(d, c.kv_dtype, KvDtypeV(c));
    // Only softmax-attention layers hold KV pages (linear-attention layers keep a state instead).
    p.layers_here = d.L > 0 ? d.stage_layers * static_cast<double>(m.CacheLayers()) / d.L : 0;
    p.kinds = LayerKindsHere(d, p.kv_token_layer);
    const double mbt = static_cast<double>(p.set.batched_tokens);
    // vLLM's layers keep one more h-wide tensor beside the MLP's gate_up and activation than
    // the generic prefill workspace (fused_add_rms_norm's residual and output, and the layer's
    // input): issue #10517's two logs give 110.6 KB per token for Llama-3.1-8B (2.07 GiB at
    // 20000 tokens, 2.99 at 29000), 3h + 3f 16-bit values.
    p.workspace = PrefillWorkspace(d, mbt).total + (c.runtime == Runtime::kVllm ? e * mbt * d.h : 0);
    const double graph_pool =
        2.0 * kMiB;  // each captured graph's private outputs (logs: 6-28 MiB per size on 8B-class models)
    p.graphs = p.set.cuda_graphs ? PrefillWorkspace(d, static_cast<double>(p.set.graph_max_tokens)).total +
                                       static_cast<double>(p.set.graph_sizes) * graph_pool
                                 : 0;
    if (c.runtime == Runtime::kVllm) {
      // determine_available_memory: requested = utilisation x total; KV = requested - (weights
      // + torch peak increase + non-torch increase). The dummy sampler run keeps, per request,
      // the logits, their fp32 copy and the top-k/top-p sort (fp32 values, int64 indices).
      p.budget = p.set.mem_fraction * p.total;
      if (d.last_stage) {
        const double requests = std::min(static_cast<double>(p.set.max_num_seqs), mbt);
        p.sampler = requests * (d.V * (e + 4 + 4 + 8) + d.h * e);
      }
      p.activation = std::max(p.workspace, p.sampler);
      p.non_torch = kVllmNonTorchBytes;
      p.kv_available =
          p.budget - p.weights - p.activation - p.non_torch - c.comm_buffer_gb * kGB - c.measured_residual_gb * kGB;
      // get_num_blocks: available // page // group_size, a block being a page of every layer
      // of a KV cache group; a request takes its blocks from every group (serving_pools.h).
      p.vllm = PlanVllmLayout(p.kinds, e, m.linear_ssm_fp32 ? 4.0 : e);
      const double page = p.vllm.page;
      p.block_bytes = p.vllm.BlockBytes();
      p.pool_units = p.kv_available > 0 && page > 0 && p.vllm.group_size > 0
                         ? std::floor(std::floor(p.kv_available / page) / p.vllm.group_size)
                         : 0;
      p.pool_bytes = p.pool_units * p.block_bytes;
      p.per_request = VllmBlocksPerRequest(p.vllm, p.kinds, d.s_local, mbt);
      p.needed_units = d.b * p.per_request;
      p.needed_bytes = p.needed_units * p.block_bytes;
      // GPU KV cache size: the blocks shared out over the groups; maximum concurrency: blocks
      // over one request's (get_max_concurrency_for_kv_cache_config).
      const double groups = std::max(1.0, p.vllm.Groups());
      p.pool_tokens = std::floor(p.pool_units / groups) * p.vllm.block_tokens;
      p.max_concurrency = p.per_request > 0 ? p.pool_units / p.per_request : 0;
      p.max_model_len = VllmMaxModelLen(p.vllm, p.kinds, p.pool_units, mbt);
      p.outside = p.context + p.graphs;
    } else {
      // profile_max_num_token: rest = available after loading - total x (1 - fraction), the
      // totals being the free memory before loading (the CUDA context already taken).
      const double free_before = std::max(0.0, p.total - p.context - c.comm_buffer_gb * kGB);
      p.budget = p.set.mem_fraction * free_before;
      p.activation = p.workspace;
      p.kv_available = p.budget - p.weights - c.measured_residual_gb * kGB;
      p.sglang = PlanSglangPools(p.kinds, p.kv_available, e);
      p.block_bytes = p.sglang.cell;
      p.pool_units = p.sglang.full_tokens;
      const double row = p.kinds.token_row, full_row = p.kinds.full_row;
      p.pool_bytes = p.sglang.full_tokens * full_row * p.kinds.full + p.sglang.swa_tokens * row * p.kinds.sliding +
                     p.sglang.states * p.sglang.state_bytes;
      const double swa_tokens = SglangSwaTokensPerRequest(p.kinds, d.s_local, mbt);
      p.per_request = d.s_local;
      p.needed_units = d.b * d.s_local;
      p.needed_bytes = d.b * (d.s_local * full_row * p.kinds.full + swa_tokens * row * p.kinds.sliding +
                              (p.kinds.linear > 0 ? p.sglang.state_bytes : 0));
      p.pool_tokens = p.pool_units;
      // Requests at once: the full pool over seq tokens, the SWA pool over a request's window,
      // and with linear layers max_running_requests <= max_mamba_cache_size // 3 (init_memory).
      double at_once = p.kinds.full > 0 && d.s_local > 0 ? p.sglang.full_tokens / d.s_local : 0;
      if (p.kinds.sliding > 0 && swa_tokens > 0) {
        const double swa = p.sglang.swa_tokens / swa_tokens;
        at_once = p.kinds.full > 0 ? std::min(at_once, swa) : swa;
      }
      if (p.kinds.linear > 0) at_once = std::min(at_once, std::floor(p.sglang.states / kSglangMambaRequestsRatio));
      p.max_concurrency = at_once;
      p.outside = p.context + p.activation + p.graphs;
    }
    p.capacity = std::min(p.total, std::round(p.budget + p.outside));
    return p;
  }

  if (!IsGgml(c.runtime)) return p;
  // Weights by llama.cpp's layers: the repeating blocks, the input (token embeddings, always
  // on the CPU) and the output layer (final norm and head; a tied head is duplicated there).
  const double L = d.L;
  d.facts.ForEachTensor([&](const TensorShape& t) {
    const double bytes = detail::TensorBytes(t, c.dtype, c.quant, c.model);
    const bool layer = t.group == ParamGroup::kAttention || t.group == ParamGroup::kMlp ||
                       (t.group == ParamGroup::kNorms && t.count > 1);
    if (layer)
      p.per_layer_weights += bytes / L;
    else if (t.group == ParamGroup::kEmbedding)
      p.embedding_weights += bytes;
    else
      p.output_weights += bytes;
  });
  if (m.tied_embeddings) {
    const TensorShape head{ParamGroup::kHead, TensorRole::kHead, m.hidden, m.vocab, 1, false};
    p.output_weights += detail::TensorBytes(head, c.dtype, c.quant, c.model);
  }
  const double n_gpu = static_cast<double>(p.set.gpu_layers);
  const double gpu_layers = std::min(n_gpu, L);
  p.gpu_layers_here = detail::GpuLayersOnStage(gpu_layers, d);
  p.cpu_layers = L - gpu_layers;
  p.output_here = d.last_stage && n_gpu > L;
  p.output_on_cpu = n_gpu <= L;
  p.host_here = d.first_stage;  // host memory is reported once, with the first GPU
  p.layers_here = p.gpu_layers_here;
  p.weights_gpu = p.gpu_layers_here * p.per_layer_weights + (p.output_here ? p.output_weights : 0);
  if (p.host_here) {
    p.weights_cpu = p.embedding_weights + p.cpu_layers * p.per_layer_weights + (p.output_on_cpu ? p.output_weights : 0);
  }
  // KV cells: n_ctx for full-attention layers; sliding-window layers keep, in each slot's own
  // stream (-np N without --kv-unified, as Ollama runs it: "kv_unified = false"), n_swa +
  // n_ubatch cells padded to 256 and at most the slot's n_ctx / slots
  // (llama-kv-cache-iswa.cpp@02c28f533ebba3e4ea944fc4a0719a012b3e7097: size_swa =
  // GGML_PAD(min(size_base, n_swa * (unified ? n_seq_max : 1) + n_ubatch), 256), allocated once
  // per stream; ollama/ollama#16480's gpt-oss-120b log: 2 seqs x 1280 cells, 90.00 MiB).
  const double n_ctx = static_cast<double>(p.set.n_ctx);
  const double row = m.IsMla() ? KvCacheWidth(d) * Info(p.set.k_type).bits / 8.0
                               : d.kv * d.hd * (Info(p.set.k_type).bits + Info(p.set.v_type).bits) / 8.0;
  // Gemma 4's full layers: their own heads and head size (KvCacheWidthFull).
  const double width = KvCacheWidth(d);
  const double full_row = width > 0 ? row * KvCacheWidthFull(d) / width : row;
  p.kv_token_layer = row;
  p.kv_layer = full_row * n_ctx;
  const double attention_share = static_cast<double>(m.CacheLayers()) / L;
  double avg_layer = p.kv_layer * attention_share;
  if (m.sliding_window > 0 && m.CacheSlidingLayers() > 0) {
    const double slots = static_cast<double>(std::max<int64_t>(1, p.set.slots));
    const double per_slot = std::floor(n_ctx / slots);
    const double swa_cells =
        slots * std::ceil(std::min(per_slot, static_cast<double>(m.sliding_window) +
                                                 static_cast<double>(p.set.n_ubatch)) /
                          256.0) *
        256.0;
    const double share = static_cast<double>(m.CacheSlidingLayers()) / L;
    avg_layer = full_row * n_ctx * (attention_share - share) + row * swa_cells * share;
  }
  // Linear-attention layers: llama-memory-recurrent.cpp's r_l and s_l, f32, one per slot.
  avg_layer += static_cast<double>(m.linear_layers) / L * LinearStateElements(m) * 4.0 *
               static_cast<double>(p.set.slots);
  p.kv_avg_layer = avg_layer;
  p.kv_gpu = p.gpu_layers_here * avg_layer;
  if (p.host_here) p.kv_cpu = p.cpu_layers * avg_layer;
  // Compute buffers: ggml-alloc's peak over one ubatch's graph, the largest of the attention,
  // MLP and output phases (f32 tensors; in-place ops share memory). Attention keeps the
  // residual, Q, K, V and their rotated copies, the mask and K^T Q (no flash attention) or
  // the fused kernel's output; the output phase holds n_ubatch rows of logits.
  const double n_tok = static_cast<double>(p.set.n_ubatch);
  const bool fa = c.flash_attn;
  p.mask = n_ctx * std::ceil(n_tok / 64.0) * 64.0 * (fa ? 2.0 : 4.0);
  p.attn_phase = 4 * n_tok * (d.h + (d.a + 2 * d.kv) * d.hd + (d.a + d.kv) * d.hd) + p.mask +
                 (fa ? 4 * n_tok * d.a * d.hd : 4 * n_ctx * n_tok * d.a);
  const double f_width =
      m.IsMoe() ? static_cast<double>(m.experts_per_token * m.moe_ffn + m.shared_experts * m.shared_ffn) : d.f;
  p.ffn_phase = 4 * n_tok * (2 * d.h + (m.mlp == MlpKind::kGated ? 2.0 : 1.0) * f_width);
  p.out_phase = 4 * n_tok * (d.V + d.h);
  // Several GPUs with every layer offloaded: ggml pipelines ubatches, GGML_SCHED_MAX_COPIES buffers.
  p.copies = d.pp > 1 && n_gpu > L ? kGgmlPipelineCopies : 1;
  p.compute_gpu = p.copies * std::max(p.gpu_layers_here > 0 ? std::max(p.attn_phase, p.ffn_phase) : 0.0,
                                      p.output_here ? p.out_phase : 0.0);
  if (p.host_here) {
    p.compute_cpu =
        4 * n_tok * d.h + p.mask +
        std::max(p.cpu_layers > 0 ? std::max(p.attn_phase, p.ffn_phase) : 0.0, p.output_on_cpu ? p.out_phase : 0.0);
    p.output_buffer = d.V * 4 * static_cast<double>(p.set.slots);  // output_reserve(n_seq_max): fp32 logits
  }
  return p;
}

// llama.cpp / Ollama weights: this GPU's layers and the output layer; the rest mapped from
// the GGUF file into system RAM.
template <class Sink>
void AccountGgmlWeights(const Derived& d, const ServingPlan& p, Sink& s) {
  const Config& c = d.c;
  s.Begin("weights", "Weights");
  s.Note([&] {
    return Explanation{std::string(Info(c.dtype).label) + ": " + BitsPerWeightFormula(c.dtype, c.quant) + "; -ngl " +
                           std::to_string(p.set.gpu_layers) + " of " + FormatNumber(d.L, 0) + " layers + output",
                       Info(c.runtime).source};
  });
  s.Leaf("gpu_layers", "Layers on the GPU", Category::kWeights, Live::Both(p.gpu_layers_here * p.per_layer_weights),
         [&] {
           return Explanation{FormatNumber(p.gpu_layers_here, 0) + " layers x " + FormatBytesBoth(p.per_layer_weights) +
                                  (d.pp > 1 ? " (this GPU's share of the " +
                                                  std::to_string(std::min<int64_t>(p.set.gpu_layers, c.model.layers)) +
                                                  " offloaded layers)"
                                            : ""),
                              Info(c.runtime).source, p.per_layer_weights};
         });
  if (p.output_here) {
    s.Leaf("output", "Output layer (norm and head)", Category::kWeights, Live::Both(p.output_weights), [&] {
      return Explanation{"on the GPU because -ngl > n_layer" +
                             std::string(c.model.tied_embeddings ? " (tied: a copy of the embeddings)" : ""),
                         Info(c.runtime).source};
    });
  }
  if (p.host_here) {
    s.Leaf("mapped", "Weights kept in system RAM (mmap)", Category::kWeights,
           Live::Both(p.weights_cpu).On(Device::kCpu), [&] {
             return Explanation{"token embeddings " + FormatBytesBoth(p.embedding_weights) + " (always on the CPU) + " +
                                    FormatNumber(p.cpu_layers, 0) + " layers on the CPU" +
                                    (p.output_on_cpu ? " + the output layer " + FormatBytesBoth(p.output_weights) : ""),
                                Info(c.runtime).source};
           });
  }
  s.End();
}

template <class Sink>
void AccountServing(const Derived& d, Sink& s) {
  const Config& c = d.c;
  if (!d.has_arch || c.model.arch != Arch::kDecoder) return;
  const ServingPlan p = PlanServing(d);
  const char* source = Info(c.runtime).source;
  if (IsPagedServer(c.runtime)) {
    const bool vllm = c.runtime == Runtime::kVllm;
    const std::string unit = vllm ? "blocks" : "tokens";
    s.Leaf("kv_cache", vllm ? "KV cache in use (16-token blocks)" : "KV cache in use (token pool)", Category::kKvCache,
           Live::Both(p.needed_bytes), [&] {
             const LayerKinds& k = p.kinds;
             std::string kinds;
             if (vllm && p.vllm.Groups() > 1) {
               kinds = "; " + FormatNumber(p.vllm.Groups(), 0) + " KV cache groups of " +
                       FormatNumber(p.vllm.group_size, 0) + " layers: full layers keep every block, sliding " +
                       "layers the window's (" + FormatCount(static_cast<int64_t>(k.window)) +
                       " tokens + a batch of new tokens, + 1 block), linear-attention layers one state block";
             } else if (!vllm && (k.sliding > 0 || k.linear > 0)) {
               kinds = k.sliding > 0 ? "; " + FormatNumber(k.sliding, 0) + " sliding layers hold the window + a prefill "
                                              "chunk"
                                     : "";
               if (k.linear > 0)
                 kinds += "; " + FormatNumber(k.linear, 0) + " linear-attention layers: one " +
                          FormatBytesBoth(p.sglang.state_bytes) + " state per request";
             }
             return Explanation{FormatCount(static_cast<int64_t>(d.b)) + " requests x " +
                                    (vllm ? FormatNumber(p.per_request, 0) + " blocks of " +
                                                FormatNumber(p.vllm.block_tokens, 0) + " tokens x " +
                                                FormatBytesBoth(p.block_bytes) + " per block"
                                          : FormatCount(static_cast<int64_t>(d.s_local)) + " tokens x " +
                                                FormatNumber(k.full_row * k.full, 0) +
                                                " B per token in the full layers") +
                                    kinds + "; the pool holds " + FormatCount(static_cast<int64_t>(p.pool_units)) +
                                    " " + unit,
                                source};
           });
    s.Leaf("kv_free", "KV pool, preallocated and free", Category::kKvCache,
           Live::Both(std::max(0.0, p.pool_bytes - p.needed_bytes)), [&] {
             return Explanation{
                 (vllm ? "gpu_memory_utilization " : "mem_fraction_static ") + FormatNumber(p.set.mem_fraction, 3) +
                     " x " + FormatBytesBoth(vllm ? p.total : p.total - p.context) + " = " + FormatBytesBoth(p.budget) +
                     ", less the weights" + (vllm ? ", activation peak and non-torch memory" : "") + ", leaves " +
                     FormatBytesBoth(p.kv_available) + " = " + FormatCount(static_cast<int64_t>(p.pool_units)) + " " +
                     unit + ", allocated at start-up",
                 source};
           });
    s.Leaf("profile_activations", vllm ? "Activation peak (profiling run)" : "Prefill activations (chunk)",
           Category::kActivations, Live::Both(p.activation), [&] {
             return Explanation{"one forward of " + FormatCount(p.set.batched_tokens) +
                                    (vllm ? " tokens (max_num_batched_tokens)" : " tokens (chunked_prefill_size)") +
                                    ": " + FormatBytesBoth(p.workspace) +
                                    (vllm ? "; the sampler's logits for " +
                                                FormatCount(std::min(p.set.max_num_seqs, p.set.batched_tokens)) +
                                                " requests (logits, fp32 copy, sorted values and int64 indices): " +
                                                FormatBytesBoth(p.sampler) + "; the larger counts"
                                          : "; outside mem_fraction_static"),
                                source};
           });
    if (p.graphs > 0) {
      s.Leaf("cuda_graphs", "CUDA graphs", Category::kBuffers, Live::Both(p.graphs), [&] {
        return Explanation{
            FormatCount(p.set.graph_sizes) + " batch sizes up to " + FormatCount(p.set.graph_max_tokens) +
                ": one workspace at the largest + 2 MiB per graph (estimate; vLLM logs 0.13-0.21 GiB for "
                "1B models, 6-28 MiB per size on 8B); outside the memory share",
            source};
      });
    }
    if (c.measured_residual_gb > 0) {
      s.Leaf("measured_residual", "Measured beyond the model (from your run)", Category::kOverheads,
             Live::Both(c.measured_residual_gb * kGB), [&] {
               return Explanation{"as calibrated: " + FormatNumber(c.measured_residual_gb) +
                                      " GB your run held beyond the estimate, inside the memory share: the KV pool "
                                      "is that much smaller",
                                  src::kMeasuredResidual};
             });
    }
    if (p.non_torch > 0) {
      s.Leaf("non_torch", "Non-torch memory (profiled)", Category::kOverheads, Live::Both(p.non_torch), [&] {
        return Explanation{
            "0.16 GiB as vLLM logs it on one GPU (non_torch_increase); NCCL buffers with tp > 1: set "
            "comm_buffer_gb",
            source};
      });
    }
    return;
  }
  if (!IsGgml(c.runtime)) return;
  const std::string kv_types = std::string(Info(p.set.k_type).id) + "/" + Info(p.set.v_type).id;
  s.Leaf("kv_cache", "KV cache of the GPU's layers", Category::kKvCache, Live::Both(p.kv_gpu), [&] {
    return Explanation{FormatNumber(p.gpu_layers_here, 0) + " layers x " + FormatCount(p.set.n_ctx) + " cells (" +
                           FormatCount(p.set.slots) + " slots x " +
                           FormatCount(p.set.n_ctx / std::max<int64_t>(1, p.set.slots)) + ", padded to 256) x " +
                           FormatNumber(p.kv_token_layer, 2) + " B per cell (" + kv_types + ")",
                       source, p.kv_layer};
  });
  if (p.kv_cpu > 0) {
    s.Leaf("kv_cpu", "KV cache of the CPU's layers", Category::kKvCache, Live::Both(p.kv_cpu).On(Device::kCpu), [&] {
      return Explanation{FormatNumber(p.cpu_layers, 0) + " layers' cache stays with them in RAM (offload_kqv)", source};
    });
  }
  s.Leaf("compute_buffer", "Compute buffer (GPU)", Category::kActivations, Live::Both(p.compute_gpu), [&] {
    return Explanation{
        "n_ubatch " + FormatCount(p.set.n_ubatch) + " tokens: max(attention " + FormatBytesBoth(p.attn_phase) +
            (c.flash_attn ? " (flash attention)" : " incl. K^T Q of n_ctx x n_ubatch x heads") + ", MLP " +
            FormatBytesBoth(p.ffn_phase) + (p.output_here ? ", logits " + FormatBytesBoth(p.out_phase) : "") + ")" +
            (p.copies > 1 ? " x " + FormatNumber(p.copies, 0) + " pipeline copies" : ""),
        source};
  });
  if (p.host_here) {
    s.Leaf("host_buffers", "Host compute and output buffers", Category::kActivations,
           Live::Both(p.compute_cpu + p.output_buffer).On(Device::kCpu), [&] {
             return Explanation{"input embeddings and mask " +
                                    FormatBytesBoth(4 * static_cast<double>(p.set.n_ubatch) * d.h + p.mask) +
                                    (p.cpu_layers > 0 || p.output_on_cpu ? " + the CPU's layers/output" : "") +
                                    "; logits output buffer n_vocab x 4 B x " + FormatCount(p.set.slots) + " slots",
                                source};
           });
  }
}

// The peak note of a serving estimate: what the runtime takes, in words.
inline Phrase ServingPeakNote(const Config& c, const Derived& d) {
  const ServingPlan p = PlanServing(d);
  const std::string requests = FormatCount(static_cast<int64_t>(d.b));
  const std::string tokens = FormatCount(static_cast<int64_t>(d.s_local));
  if (c.runtime == Runtime::kVllm) {
    return Say("vLLM: gpu_memory_utilization %s x %s = %s holds the weights, the profiled activation peak, non-torch "
               "memory and a KV pool of %s blocks (%s tokens), all allocated at start-up; the CUDA context and CUDA "
               "graphs sit outside that share. It fits when the pool holds %s request(s) of %s tokens.",
               {FormatNumber(p.set.mem_fraction, 3), FormatBytesBoth(p.total), FormatBytesBoth(p.budget),
                FormatCount(static_cast<int64_t>(p.pool_units)), FormatCount(static_cast<int64_t>(p.pool_tokens)),
                requests, tokens});
  }
  if (c.runtime == Runtime::kSglang) {
    return Say("SGLang: mem_fraction_static %s x the free %s = %s holds the weights and a pool of %s tokens; "
               "activations and CUDA graphs use the rest. It fits when the pool holds %s request(s) of %s tokens.",
               {FormatNumber(p.set.mem_fraction, 3), FormatBytesBoth(p.total - p.context), FormatBytesBoth(p.budget),
                FormatCount(static_cast<int64_t>(p.pool_units)), requests, tokens});
  }
  return Say("%s: -ngl %s puts %s of %s layers%s on the GPU; the rest of the weights stay mapped in system RAM. KV "
             "cells %s (%s slots), compute buffers for n_ubatch %s tokens.",
             {Info(c.runtime).label, std::to_string(p.set.gpu_layers),
              FormatNumber(std::min<double>(static_cast<double>(p.set.gpu_layers), d.L), 0), FormatNumber(d.L, 0),
              p.set.gpu_layers > c.model.layers ? Say(" and the output layer") : Phrase(""), FormatCount(p.set.n_ctx),
              FormatCount(p.set.slots), FormatCount(p.set.n_ubatch)});
}

}  // namespace llmmem::core
