// How the paged servers lay out their caches by layer kind (issue 31): full attention, sliding
// window (chunked local attention counted as one) and linear attention (Gated DeltaNet / Mamba
// state). PlanServing (account_serving.h) sizes the pools with these rules.
//  - vLLM's hybrid KV cache manager (vllm-project/vllm): layers of one kind form KV cache
//    groups of `group_size` layers (v1/core/kv_cache_utils.py@bbf906a8
//    _get_kv_cache_config_uniform_page_size: the fewest layers of any kind; recent versions take
//    the most when it is under 1.5 x the fewest); one pool of blocks, each a page of every layer
//    of a group (get_num_blocks: available // page // group_size). A request takes, per group,
//    the blocks its manager keeps (v1/kv_cache_interface.py@bc8282e6 max_memory_usage_bytes:
//    full cdiv(len, block); sliding cdiv(min(window - 1 + max_num_batched_tokens, len), block)
//    + 1; MambaSpec one page). A mamba page must equal an attention page: the attention block
//    grows to 16 x cdiv(mamba page, 16 x one token's page) tokens and the mamba page is padded
//    to it (platforms/interface.py _align_hybrid_block_size, FlashAttention's MultipleOf(16)).
//  - SGLang (sgl-project/sglang python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
//    @001ccef0): hybrid SWA models split the profiled tokens so the sliding layers hold
//    swa_full_tokens_ratio (0.8) of the full layers' tokens (set_num_tokens_hybrid_swa); linear
//    layers first take mamba_full_memory_ratio / (1 + ratio) (0.9 / 1.9) of the memory as whole
//    per-request states (handle_max_mamba_cache; bf16 conv, mamba_ssm_dtype float32 state), the
//    token pool counting full-attention layers only (profile_max_num_token).
// May include: core headers only.
#pragma once

#include <algorithm>
#include <cmath>

#include "core/estimate/account_inference.h"
#include "core/estimate/derived.h"

namespace llmmem::core {

// Layers of each kind on this GPU, and the widths of their caches.
struct LayerKinds {
  double full = 0, sliding = 0, linear = 0;
  double window = 0;     // sliding_window (attention_chunk_size for chunked layers)
  double token_row = 0;  // one token's K and V in one attention layer, on this GPU
  double full_row = 0;   // the same in a full-attention layer (Gemma 4's own geometry; else token_row)
  double conv = 0, ssm = 0;  // one linear layer's conv and recurrent state elements, on this GPU
};

inline LayerKinds LayerKindsHere(const Derived& d, double token_row) {
  const ModelSpec& m = d.c.model;
  const double share = d.L > 0 ? d.stage_layers / d.L : 0;
  LayerKinds k;
  const double sliding = m.sliding_window > 0 ? static_cast<double>(m.CacheSlidingLayers()) : 0;
  k.sliding = std::round(share * sliding);
  k.full = std::round(share * static_cast<double>(m.CacheLayers())) - k.sliding;
  k.linear = std::round(share * static_cast<double>(m.linear_layers));
  k.window = static_cast<double>(m.sliding_window);
  k.token_row = token_row;
  const double width = KvCacheWidth(d);
  k.full_row = width > 0 ? token_row * KvCacheWidthFull(d) / width : token_row;
  // Gated DeltaNet state shapes split their heads over TP ranks (mamba_utils.py).
  k.conv = LinearConvElements(m) / d.t;
  k.ssm = LinearSsmElements(m) / d.t;
  return k;
}

// vLLM's pool layout.
struct VllmLayout {
  double block_tokens = 16;  // tokens per attention block (grown to fit a mamba page)
  // Tokens per block of the full and the sliding groups: block_tokens, but a kind whose page is
  // smaller (Gemma 4's full layers) takes more tokens per block so every page is one size (vLLM
  // v1/core/kv_cache_utils.py unify_kv_cache_spec_page_size: block_size x max_page // page; index
  // file id 55433019421).
  double full_block_tokens = 16, sliding_block_tokens = 16;
  double page = 0;           // one layer's block: every group's page is this size
  double group_size = 0;     // layers per KV cache group
  double full_groups = 0, sliding_groups = 0, linear_groups = 0;
  double Groups() const { return full_groups + sliding_groups + linear_groups; }
  double BlockBytes() const { return page * group_size; }
};

// The SSM (or delta-rule) state may be held wider than the conv state: ssm_bytes_per_value < 0
// means the same bytes as the conv state.
inline VllmLayout PlanVllmLayout(const LayerKinds& k, double state_bytes_per_value, double ssm_bytes_per_value = -1) {
  VllmLayout v;
  const double ssm_bytes = ssm_bytes_per_value < 0 ? state_bytes_per_value : ssm_bytes_per_value;
  const double mamba_page = k.conv * state_bytes_per_value + k.ssm * ssm_bytes;
  const double full_row = k.full_row > 0 ? k.full_row : k.token_row;
  // The widest row of the kinds present sets the page; the others' blocks grow to fill it.
  const double row = std::max(k.full > 0 ? full_row : 0.0, k.sliding > 0 ? k.token_row : 0.0);
  if (k.full + k.sliding > 0) {
    if (k.linear > 0 && mamba_page > 0 && row > 0) v.block_tokens = 16 * std::ceil(mamba_page / (16 * row));
    v.page = v.block_tokens * row;
    v.full_block_tokens = full_row > 0 ? v.block_tokens * std::round(row / full_row) : v.block_tokens;
    v.sliding_block_tokens = k.token_row > 0 ? v.block_tokens * std::round(row / k.token_row) : v.block_tokens;
  } else {
    v.page = mamba_page;  // an attention-free model: state pages only
  }
  double fewest = 0, most = 0;
  for (double n : {k.full, k.sliding, k.linear}) {
    if (n <= 0) continue;
    fewest = fewest > 0 ? std::min(fewest, n) : n;
    most = std::max(most, n);
  }
  v.group_size = most < 1.5 * fewest ? most : fewest;
  if (v.group_size > 0) {
    v.full_groups = std::ceil(k.full / v.group_size);
    v.sliding_groups = std::ceil(k.sliding / v.group_size);
    v.linear_groups = std::ceil(k.linear / v.group_size);
  }
  return v;
}

// Blocks one request of `len` tokens takes from the pool (max_memory_usage_bytes per group).
inline double VllmBlocksPerRequest(const VllmLayout& v, const LayerKinds& k, double len, double batched_tokens) {
  const double sliding = std::ceil(std::min(k.window - 1 + batched_tokens, len) / v.sliding_block_tokens) + 1;
  return v.full_groups * std::ceil(len / v.full_block_tokens) + v.sliding_groups * sliding + v.linear_groups;
}

// The longest request the pool holds (estimate_max_model_len's binary search, in tokens).
inline double VllmMaxModelLen(const VllmLayout& v, const LayerKinds& k, double pool_blocks, double batched_tokens) {
  if (v.full_groups + v.sliding_groups == 0) return 0;
  double lo = 0, hi = std::max(1.0, pool_blocks) * v.block_tokens;
  while (hi - lo > 0.5) {
    const double mid = std::floor((lo + hi + 1) / 2);
    if (VllmBlocksPerRequest(v, k, mid, batched_tokens) <= pool_blocks)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// SGLang's pools.
struct SglangPools {
  double full_tokens = 0;  // max_total_num_tokens (the full layers' pool)
  double swa_tokens = 0;   // the sliding layers' pool
  double state_bytes = 0;  // mamba_cache_per_req
  double states = 0;       // max_mamba_cache_size
  double cell = 0;         // cell_size: one token over the layers of the token pool
};

constexpr double kSglangSwaFullTokensRatio = 0.8;  // server_args.py swa_full_tokens_ratio
constexpr double kSglangMambaFullMemoryRatio = 0.9;  // server_args.py mamba_full_memory_ratio
constexpr double kSglangMambaRequestsRatio = 3;  // MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO

inline SglangPools PlanSglangPools(const LayerKinds& k, double rest, double model_bytes) {
  SglangPools s;
  s.state_bytes = k.linear * (k.conv * model_bytes + k.ssm * 4.0);
  if (k.linear > 0 && s.state_bytes > 0 && rest > 0) {
    const double ratio = kSglangMambaFullMemoryRatio;
    s.states = std::floor(rest * ratio / (1 + ratio) / s.state_bytes);
    rest -= s.states * s.state_bytes;
  }
  s.cell = k.full_row * k.full + k.token_row * k.sliding;
  const double profiled = rest > 0 && s.cell > 0 ? std::floor(rest / s.cell) : 0;
  if (k.sliding > 0 && k.full > 0 && k.full_row != k.token_row) {
    // Rows of two widths (Gemma 4): the full pool and 0.8 of it in the sliding layers fill the
    // memory, full x full_row x F + 0.8 x full x row x S = rest.
    const double r = kSglangSwaFullTokensRatio;
    const double both = k.full_row * k.full + r * k.token_row * k.sliding;
    s.full_tokens = rest > 0 && both > 0 ? std::floor(rest / both) : 0;
    s.swa_tokens = std::floor(s.full_tokens * r);
  } else if (k.sliding > 0 && k.full > 0) {
    const double r = kSglangSwaFullTokensRatio;
    s.full_tokens = std::floor(profiled * (k.full + k.sliding) / (k.full + r * k.sliding));
    s.swa_tokens = std::floor(s.full_tokens * r);
  } else if (k.sliding > 0) {
    s.swa_tokens = profiled;  // all layers sliding: one pool
    s.full_tokens = profiled;
  } else {
    s.full_tokens = profiled;
  }
  return s;
}

// Sliding-layer tokens one SGLang request holds: the window and the prefill chunk being
// written (tokens leaving the window are freed as the request advances), at most its length.
inline double SglangSwaTokensPerRequest(const LayerKinds& k, double len, double chunk) {
  return std::min(len, k.window + chunk);
}

}  // namespace llmmem::core
