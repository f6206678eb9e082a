// The per-model cache of model_facts.h.
#include "core/config/model_facts.h"

#include <cmath>

#include "core/config/validate.h"

namespace llmmem::core {

bool SameDimensions(const ModelSpec& a, const ModelSpec& b) {
  // Every field of ModelSpec but name and preset: a field added there must be added here.
  return a.arch == b.arch && a.vocab == b.vocab && a.hidden == b.hidden && a.layers == b.layers && a.heads == b.heads &&
         a.kv_heads == b.kv_heads && a.head_dim == b.head_dim && a.ffn == b.ffn && a.mlp == b.mlp && a.act == b.act &&
         a.norm == b.norm && a.qkv_bias == b.qkv_bias && a.fused_qkv == b.fused_qkv &&
         a.attn_out_bias == b.attn_out_bias && a.mlp_bias == b.mlp_bias && a.tied_embeddings == b.tied_embeddings &&
         a.final_norm == b.final_norm && a.learned_positions == b.learned_positions && a.type_vocab == b.type_vocab &&
         a.embedding_norm == b.embedding_norm && a.pooler == b.pooler && a.norms_per_layer == b.norms_per_layer &&
         a.qk_norm == b.qk_norm && a.experts == b.experts && a.experts_per_token == b.experts_per_token &&
         a.moe_ffn == b.moe_ffn && a.shared_experts == b.shared_experts && a.shared_ffn == b.shared_ffn &&
         a.dense_layers == b.dense_layers && a.shared_expert_gate == b.shared_expert_gate &&
         a.router_bias == b.router_bias && a.q_lora_rank == b.q_lora_rank && a.kv_lora_rank == b.kv_lora_rank &&
         a.qk_nope_dim == b.qk_nope_dim && a.qk_rope_dim == b.qk_rope_dim && a.v_head_dim == b.v_head_dim &&
         a.sliding_window == b.sliding_window && a.sliding_layers == b.sliding_layers &&
         a.max_positions == b.max_positions && a.params_override == b.params_override &&
         a.attn_sinks == b.attn_sinks && a.attn_output_gate == b.attn_output_gate &&
         a.norm_unit_offset == b.norm_unit_offset &&
         a.moe_layer_step == b.moe_layer_step && a.linear_layers == b.linear_layers &&
         a.linear_k_heads == b.linear_k_heads && a.linear_v_heads == b.linear_v_heads &&
         a.linear_k_dim == b.linear_k_dim && a.linear_v_dim == b.linear_v_dim && a.linear_conv == b.linear_conv &&
         a.linear_kind == b.linear_kind && a.linear_parallel == b.linear_parallel &&
         a.linear_conv_bias == b.linear_conv_bias && a.linear_proj_bias == b.linear_proj_bias &&
         a.linear_norm == b.linear_norm && a.linear_chunk == b.linear_chunk && a.linear_ssm_fp32 == b.linear_ssm_fp32 && a.mixer_free_layers == b.mixer_free_layers &&
         a.mlp_free_layers == b.mlp_free_layers &&
         a.index_heads == b.index_heads && a.index_dim == b.index_dim && a.ple_dim == b.ple_dim &&
         a.ple_vocab == b.ple_vocab && a.altup_inputs == b.altup_inputs && a.laurel_rank == b.laurel_rank &&
         a.kv_shared_layers == b.kv_shared_layers && a.global_head_dim == b.global_head_dim &&
         a.global_kv_heads == b.global_kv_heads && a.global_k_eq_v == b.global_k_eq_v &&
         a.double_wide_mlp == b.double_wide_mlp && a.layer_scalar == b.layer_scalar &&
         a.router_scale == b.router_scale && a.vision_layers == b.vision_layers &&
         a.vision_hidden == b.vision_hidden && a.vision_ffn == b.vision_ffn && a.vision_patch == b.vision_patch &&
         a.vision_image == b.vision_image && a.vision_kind == b.vision_kind && a.vision_merge == b.vision_merge &&
         a.vision_out == b.vision_out && a.vision_deepstack == b.vision_deepstack &&
         a.vision_head_dim == b.vision_head_dim && a.vision_clipped == b.vision_clipped &&
         a.vision_standardize == b.vision_standardize;
}

namespace {

void Compute(const ModelSpec& m, ModelFacts& f) {
  f = ModelFacts{};
  ForEachTensor(m, [&](const TensorShape& t) {
    if (f.tensor_count < ModelFacts::kMaxTensors) f.tensors[f.tensor_count++] = t;
    f.param_sum += static_cast<double>(t.rows) * static_cast<double>(t.cols) * static_cast<double>(t.count);
  });
  f.dims_valid = f.tensor_count < ModelFacts::kMaxTensors && CheckModelDims(m);
  // Counting in int64 is safe once the dimensions passed their ranges and the double sum.
  f.counted = f.dims_valid;
  if (f.counted && m.HasArchitecture()) f.counts = CountParameters(m);
  f.P = static_cast<double>(m.params_override > 0 ? m.params_override : f.counts.total);
  // A given total keeps the architecture's active share (dense: all of it).
  f.P_active = f.counts.total > 0
                   ? std::round(f.P * (static_cast<double>(f.counts.active) / static_cast<double>(f.counts.total)))
                   : f.P;
}

}  // namespace

const ModelFacts& FactsOf(const ModelSpec& m) {
  struct Entry {
    bool filled = false;
    ModelSpec key;
    ModelFacts facts;
  };
  thread_local Entry last;
  thread_local uint64_t computed = 0;
  if (!last.filled || !SameDimensions(last.key, m)) {
    Compute(m, last.facts);
    last.facts.generation = ++computed;
    last.key = m;
    last.filled = true;
  }
  return last.facts;
}

}  // namespace llmmem::core
