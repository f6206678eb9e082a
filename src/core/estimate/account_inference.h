// Inference: the KV cache, the prefill's activation workspace and the logits.
// Weights come from AccountWeights.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "core/estimate/derived.h"
#include "core/estimate/sinks.h"
#include "core/base/sources.h"
#include "core/base/units.h"

namespace llmmem::core {

// KV cache bytes for the whole batch: 2 (K, V) x L x kv_heads x head_dim x bytes x b x s.
// Tensor parallelism splits the KV heads (replicated when kv_heads < t).
// Pipeline stages hold their own layers' cache; context parallelism splits the tokens.
// MLA caches one latent of kv_lora_rank + qk_rope_dim per token and layer (DeepSeek-V2
// §2.1.2, as vLLM and SGLang store it), replicated across TP ranks. Sliding-window layers
// keep at most `sliding_window` tokens (the rolling buffer of Mistral, Gemma's local layers).

// Tokens of cache per sequence on this GPU. HF generate's static cache preallocates K and V
// of [batch, kv_heads, max_cache_len, head_dim] per layer before the first token, whatever
// the sequence's length (transformers cache_utils.py StaticLayer.lazy_initialization;
// generate() passes max_length when max_cache_len is not given, which is seq here). The
// dynamic cache holds the tokens seen so far (DynamicLayer.update: torch.cat per step).
inline double KvCacheTokens(const Derived& d) {
  const bool static_cache =
      d.c.runtime == Runtime::kHfGenerate && d.c.mode == Mode::kInference && d.c.max_cache_len > 0;
  return static_cache ? static_cast<double>(d.c.max_cache_len) / static_cast<double>(d.c.cp) : d.s_local;
}

// Elements of one linear-attention layer's recurrent state for one sequence: the causal conv's
// last (kernel - 1) inputs over q, k and v, and the delta-rule state of v_heads x k_dim x v_dim
// (vLLM mamba_utils.py gated_delta_net_state_shape; llama.cpp's r_l and s_l). transformers'
// Qwen3NextDynamicCache keeps kernel columns, one more. The same whatever the context length.
// A Mamba-2 layer's state has the same two shapes under the mapping of model.h: the conv over
// d_inner + 2 x n_groups x d_state channels and the SSM state of heads x head_dim x d_state
// (vLLM mamba_utils.py mamba2_state_shape; transformers NemotronHHybridDynamicCache, which also
// keeps d_conv columns).
inline double LinearConvElements(const ModelSpec& m) {
  if (m.linear_layers <= 0) return 0;
  const double key = static_cast<double>(m.linear_k_heads * m.linear_k_dim);
  const double value = static_cast<double>(m.linear_v_heads * m.linear_v_dim);
  return (2 * key + value) * static_cast<double>(std::max<int64_t>(0, m.linear_conv - 1));
}
inline double LinearSsmElements(const ModelSpec& m) {
  if (m.linear_layers <= 0) return 0;
  return static_cast<double>(m.linear_v_heads) * static_cast<double>(m.linear_k_dim) *
         static_cast<double>(m.linear_v_dim);
}
inline double LinearStateElements(const ModelSpec& m) { return LinearConvElements(m) + LinearSsmElements(m); }

// Width of one token's cache entry in one attention layer: K and V (split by TP), or MLA's
// latent plus, with DeepSeek sparse attention, the indexer's key (inference/model.py Indexer
// caches index_head_dim per token).
inline double KvCacheWidth(const Derived& d) {
  const ModelSpec& m = d.c.model;
  return m.IsMla() ? static_cast<double>(m.kv_lora_rank + m.qk_rope_dim + (m.index_heads > 0 ? m.index_dim : 0))
                   : 2.0 * (d.kv >= d.t ? d.kv / d.t : 1.0) * d.hd;
}

// Gemma 4's full-attention layers: K and V at their own heads and head size (Gemma4TextAttention
// @c308a309e651: head_dim = global_head_dim on non-sliding layers, num_global_key_value_heads with
// attention_k_eq_v; past_key_values.update stores both key and value states, so K = V still keeps
// two). Other models: the one width above.
inline double KvCacheWidthFull(const Derived& d) {
  const ModelSpec& m = d.c.model;
  if (m.IsMla() || !m.HasGlobalGeometry()) return KvCacheWidth(d);
  const double kv = static_cast<double>(m.GlobalKvHeads());
  return 2.0 * (kv >= d.t ? kv / d.t : 1.0) * static_cast<double>(m.GlobalHeadDim());
}

// Bytes per cached element: K's and V's mean width (llama.cpp -ctk/-ctv may differ), or
// the latent's (MLA, in k's format).
inline double KvElementBytes(const Derived& d, Dtype k, Dtype v) {
  return d.c.model.IsMla() ? Info(k).bits / 8.0 : (Info(k).bits + Info(v).bits) / 16.0;
}
// K and V of one token in one layer on this GPU: the one per-token formula behind the
// inference cache below and the serving runtimes' pools (account_serving.h; issue 29 found
// copies of it).
inline double KvTokenLayerBytes(const Derived& d, Dtype k, Dtype v) {
  return KvCacheWidth(d) * KvElementBytes(d, k, v);  // elements: 2 x heads x head_dim, or the latent
}

inline double KvCacheBytes(const Derived& d) {
  const ModelSpec& m = d.c.model;
  if (m.arch != Arch::kDecoder || !d.has_arch) return 0;
  const double per_token_layer = KvCacheWidth(d);
  // Layers on this stage by kind: softmax attention (full or windowed) and linear attention.
  const double share = d.L > 0 ? d.stage_layers / d.L : 0;
  const double attention = share * static_cast<double>(m.CacheLayers());  // Gemma 3n's shared layers keep none
  const double sliding = m.sliding_window > 0 ? share * static_cast<double>(m.CacheSlidingLayers()) : 0;
  const double tokens = KvCacheTokens(d);
  const double windowed = m.sliding_window > 0 ? std::fmin(tokens, static_cast<double>(m.sliding_window)) : 0;
  // Full layers hold every token, windowed ones the window (each kind at its own width: Gemma 4).
  const double token_elements =
      std::fmax(0.0, attention - sliding) * tokens * KvCacheWidthFull(d) + sliding * windowed * per_token_layer;
  // The recurrent state in the compute precision (vLLM's mamba_ssm_cache_dtype "auto", HF's cache).
  const double state_bytes = d.c.dtype == Dtype::kFp32 ? 4.0 : 2.0;
  const double state = share * static_cast<double>(m.linear_layers) * LinearStateElements(m) * state_bytes;
  const double bytes = KvElementBytes(d, d.c.kv_dtype, KvDtypeV(d.c));  // as KvTokenLayerBytes
  return (token_elements * bytes + state) * d.b;
}

template <class Sink>
void AccountKvCache(const Derived& d, Sink& s, Live (*lifetime)(double)) {
  const Config& c = d.c;
  const double kv = KvCacheBytes(d);
  if (kv > 0) {
    s.Leaf("kv_cache", "KV cache", Category::kKvCache, lifetime(kv), [&] {
      const ModelSpec& m = c.model;
      const double tokens = KvCacheTokens(d);
      const double per_token = kv / (d.b * tokens);
      std::string shape = m.IsMla() ? (m.index_heads > 0 ? "(kv_lora_rank + qk_rope_dim + index_dim) x L"
                                                          : "(kv_lora_rank + qk_rope_dim) x L")
                                    : m.HasGlobalGeometry() ? "2 x L x kv_heads x head_dim (full layers: their own)"
                                                            : "2 x L x kv_heads x head_dim";
      std::string window;
      if (m.sliding_window > 0) {
        window = "; " + FormatCount(m.sliding_layers) + " of " + FormatCount(m.layers) + " layers keep only the last " +
                 FormatCount(m.sliding_window) + " tokens";
      }
      if (m.linear_layers > 0) {
        const bool mamba = m.linear_kind == LinearKind::kMamba2;
        window += "; " + FormatCount(m.linear_layers) + (mamba ? " Mamba-2 layers" : " linear-attention layers") +
                  (m.linear_parallel ? " beside attention also keep" : " keep no KV but") + " a fixed state of " +
                  FormatCount(static_cast<int64_t>(LinearStateElements(m))) + " values per sequence each (conv + " +
                  (mamba ? "SSM" : "delta-rule") + " state, in the compute precision as HF's cache and vLLM's "
                  "mamba_ssm_cache_dtype auto hold it" +
                  (m.linear_ssm_fp32 ? "; vLLM keeps this model's SSM state in float32, its serving estimate too)"
                                     : ")");
      }
      return Explanation{
          shape + " x " + FormatNumber(Info(c.kv_dtype).bits / 8.0) + " B: " + FormatNumber(per_token, 1) +
              " B per token (average) x " + FormatCount(static_cast<int64_t>(tokens)) + " tokens x " +
              FormatCount(static_cast<int64_t>(d.b)) + " sequences (" + Info(c.kv_dtype).label + ")" + window +
              (tokens != d.s_local ? "; a static cache, preallocated for max_cache_len tokens" : ""),
          m.IsMla()             ? src::kMla
          : tokens != d.s_local ? src::kStaticCache
                                : src::kKvCache};
    });
  }
}

// Prefill workspace: the residual stream plus the larger of the attention and MLP
// blocks' live tensors for one layer (no autograd keeps earlier layers'), in the compute
// precision: fp32 for fp32 weights, else 16-bit (quantised weights are dequantised to it).
// Chunked prefill (vLLM, SGLang) runs at most prefill_chunk tokens per forward; each
// chunk's queries attend to the whole context. The serving runtimes' profiling forward
// (account_serving.h) is the same computation at their batched-token budget.
struct PrefillParts {
  double attention = 0, mlp = 0, total = 0;
  bool scores = false;  // s x s scores materialised
};

inline PrefillParts PrefillWorkspace(const Derived& d, double sb) {
  const Config& c = d.c;
  const double e = HeldWeightFormat(c) == Dtype::kFp32 ? 4.0 : 2.0;  // the model's compute dtype
  const double residual = e * sb * d.h;
  const double qkv = e * sb * (d.a + 2 * d.kv) * d.hd / d.t;
  // Materialised s x s scores: the framework's eager attention (as in training), or no
  // fused kernel. HF's eager_attention_forward holds the masked scores, softmax's fp32
  // output and its 16-bit cast at once (softmax(..., dtype=torch.float32).to(query.dtype)
  // before the assignment frees the input); otherwise scores and probabilities.
  const bool eager_hf = Info(c.framework).eager_attention;
  const bool fused = IsHuggingFace(c.framework) ? !eager_hf && c.flash_attn : c.flash_attn;
  const double per_score = eager_hf ? e + 4.0 + (e == 4.0 ? 0.0 : e) : 2.0 * e;
  const double scores = fused ? 0 : per_score * d.a * sb * d.s / d.t;
  PrefillParts p;
  p.scores = !fused;
  p.attention = e * sb * d.h + qkv + scores + e * sb * d.a * d.hd / d.t;
  const double f_width = c.model.IsMoe() ? static_cast<double>(c.model.experts_per_token * c.model.moe_ffn +
                                                               c.model.shared_experts * c.model.shared_ffn)
                                         : d.f;
  p.mlp = e * sb * d.h + e * sb * f_width / d.t * (c.model.mlp == MlpKind::kGated ? 3.0 : 2.0);
  p.total = residual + std::max(p.attention, p.mlp);
  return p;
}

template <class Sink>
void AccountInference(const Derived& d, Sink& s) {
  const Config& c = d.c;
  if (!d.has_arch) return;
  AccountKvCache(d, s, &Live::Both);

  const double e = HeldWeightFormat(c) == Dtype::kFp32 ? 4.0 : 2.0;  // the model's compute dtype
  const double all_tokens = d.s_local * d.b;
  const double chunk = static_cast<double>(c.prefill_chunk);
  const double sb = chunk > 0 ? std::fmin(all_tokens, chunk) : all_tokens;
  const PrefillParts parts = PrefillWorkspace(d, sb);
  const double attention = parts.attention, mlp = parts.mlp, workspace = parts.total;
  const bool attention_scores = parts.scores;
  s.Leaf("prefill_workspace", "Prefill activation workspace", Category::kActivations, Live::Both(workspace), [&] {
    return Explanation{
        "residual " + FormatNumber(e) + "sbh + max(attention " + FormatBytesBoth(attention) +
            (attention_scores ? " incl. s x s scores" : "") + ", MLP " + FormatBytesBoth(mlp) + ") for one layer, " +
            FormatCount(static_cast<int64_t>(sb)) + " tokens per forward" +
            (chunk > 0 && chunk < all_tokens ? " (chunked prefill)" : " (the whole batch's prompts at once)") + ", " +
            FormatNumber(e) + " B activations",
        src::kPrefill};
  });

  if (c.model.arch == Arch::kDecoder && d.last_stage) {
    const double positions = c.all_logits ? d.s : 1.0;
    const double fp32 = Info(Dtype::kFp32).bits / 8.0;
    const double logits = fp32 * d.b * positions * d.V / d.t;
    s.Leaf("logits", c.all_logits ? "Logits, every position (fp32)" : "Logits, last position (fp32)",
           Category::kActivations, Live::Both(logits), [&] {
             return Explanation{FormatNumber(fp32) + " B x b x " + std::string(c.all_logits ? "s" : "1") +
                                    " x V = " + FormatBytesBoth(logits),
                                src::kPrefill};
           });
  }
}

// CUDA context, communication buffers, the allocator's fragmentation reserve and what
// other processes already hold on a shared card, each its own line. Fragmentation is a share of what the allocator
// holds at each moment.
template <class Sink>
void AccountOverheads(const Config& c, Sink& s) {
  const double allocated[kMomentCount] = {s.Moment(0), s.Moment(1), s.Moment(2), s.Moment(3)};
  s.Begin("overheads", "Overheads");
  // Serving runtimes preallocate (vLLM/SGLang pools) or size exact buffers (ggml): their
  // reserve is the share of memory they leave alone, not a caching-allocator margin.
  if (c.fragmentation_pct > 0 && !UsesServingRuntime(c)) {
    const double k = c.fragmentation_pct / 100.0;
    s.Leaf("fragmentation", "Allocator fragmentation reserve", Category::kOverheads,
           Live{allocated[0] * k, allocated[1] * k, allocated[2] * k, allocated[3] * k}, [&] {
             return Explanation{FormatNumber(c.fragmentation_pct) + "% of the allocated peak", src::kFragmentation};
           });
  }
  if (c.comm_buffer_gb > 0) {
    s.Leaf("comm_buffers", "Communication buffers", Category::kOverheads, Live::Both(c.comm_buffer_gb * kGB), [&] {
      return Explanation{"as set: " + FormatNumber(c.comm_buffer_gb) + " GB", src::kCommBuffers};
    });
  }
  if (c.cuda_context_gb > 0) {
    s.Leaf("cuda_context", "CUDA context (outside the allocator)", Category::kOverheads,
           Live::Both(c.cuda_context_gb * kGB), [&] {
             return Explanation{"as set: " + FormatNumber(c.cuda_context_gb) + " GB", src::kCudaContext};
           });
  }
  // vLLM and SGLang hold it inside their memory share (account_serving.h: the KV pool shrinks).
  if (c.measured_residual_gb > 0 && !IsPagedServer(c.runtime)) {
    s.Leaf("measured_residual", "Measured beyond the model (from your run)", Category::kOverheads,
           Live::Both(c.measured_residual_gb * kGB), [&] {
             return Explanation{"as calibrated: " + FormatNumber(c.measured_residual_gb) +
                                    " GB your run held beyond the estimate, held constant",
                                src::kMeasuredResidual};
           });
  }
  if (c.other_processes_gb > 0) {
    s.Leaf("other_processes", "Held by other processes (shared GPU)", Category::kOverheads,
           Live::Both(c.other_processes_gb * kGB), [&] {
             return Explanation{"as set: " + FormatNumber(c.other_processes_gb) + " GB already in use on the card",
                                src::kOtherProcesses};
           });
  }
  s.End();
}

}  // namespace llmmem::core
