// Parameter counting over ForEachTensor's shapes.
#include "core/model/model.h"

namespace llmmem::core {

ParamCounts CountParameters(const ModelSpec& m) {
  ParamCounts c;
  int64_t routed_total = 0;
  ForEachTensor(m, [&](const TensorShape& t) {
    const int64_t each = t.rows * t.cols;
    const int64_t n = each * t.count;
    if (each > c.largest_tensor) c.largest_tensor = each;
    if (t.routed_expert) routed_total += n;
    switch (t.group) {
      case ParamGroup::kEmbedding:
        c.embedding += n;
        break;
      case ParamGroup::kAttention:
        c.attention += n;
        break;
      case ParamGroup::kMlp:
        c.mlp += n;
        break;
      case ParamGroup::kNorms:
        c.norms += n;
        break;
      case ParamGroup::kHead:
        c.head += n;
        break;
    }
  });
  c.total = c.embedding + c.attention + c.mlp + c.norms + c.head;
  c.tensors = CountParameterTensors(m);
  // Per token only experts_per_token of the routed experts run.
  c.active = m.IsMoe() ? c.total - routed_total + routed_total / m.experts * m.experts_per_token : c.total;
  return c;
}

namespace {

// The vision tower's parameter tensors as its modules register them (ForEachVisionTensor's layouts).
int64_t VisionTensors(const ModelSpec& m) {
  const int64_t VL = m.vision_layers;
  switch (m.vision_kind) {
    case VisionKind::kSiglip:  // patch conv (w, b), positions, 16 per layer, post LayerNorm; projector 2
      return 2 + 1 + 16 * VL + 2 + 2;
    case VisionKind::kQwen25Vl:  // patch conv, 12 per block, merger ln_q and two Linears
      return 1 + 12 * VL + 5;
    case VisionKind::kQwen3Vl:  // patch conv (w, b), pos_embed, 12 per block, 6 per merger
      return 3 + 12 * VL + 6 * (1 + m.vision_deepstack);
    case VisionKind::kLlama4:  // patch, class, positions, two LayerNorms, 16 per layer, adapter 2, projector
      return 7 + 16 * VL + 3;
    case VisionKind::kPixtral:  // patch conv, ln_pre, 9 per layer, projector norm and three Linears
      return 2 + 9 * VL + 4;
    case VisionKind::kGemma4:  // patch, positions, 13 per layer, std_bias/std_scale, projector (bounds are buffers)
      return 2 + 13 * VL + (m.vision_standardize ? 2 : 0) + 1;
  }
  return 0;
}

}  // namespace

int64_t CountParameterTensors(const ModelSpec& m) {
  const int64_t norm = m.norm == NormKind::kLayerNorm ? 2 : 1;                       // weight (+ bias)
  const bool fused_qkv = m.norm == NormKind::kLayerNorm && m.learned_positions > 0;  // GPT-2's c_attn
  int64_t attention = 0;
  if (m.IsMla()) {
    attention = (m.q_lora_rank > 0 ? 2 + norm : 1) + 1 + norm + 1 + 1;  // q (a, norm, b), kv_a, kv norm, kv_b, o
    if (m.index_heads > 0 && m.index_dim > 0) attention += 5;          // wq_b, wk, k_norm (w, b), weights_proj
  } else {
    attention = (fused_qkv ? 1 : 3) + 1;
  }
  if (!m.IsMla()) {
    if (m.qkv_bias) attention += fused_qkv ? 1 : 3;
    if (m.attn_out_bias) attention += 1;
    if (m.qk_norm != QkNorm::kNone) attention += 2 * norm;
    if (m.attn_sinks) attention += 1;
  }
  const int64_t mlp_one = (m.mlp == MlpKind::kGated ? 3 : 2) * (m.mlp_bias ? 2 : 1);
  int64_t mlp = 0;
  const int64_t L = m.layers;
  if (!m.IsMoe()) {
    mlp = mlp_one * m.MlpLayers();
  } else {
    const int64_t moe = m.MoeLayers();
    mlp = mlp_one * (m.MlpLayers() - moe) + moe * (1 + (m.router_bias ? 1 : 0) + (m.router_scale ? 2 : 0) +
                                                   mlp_one * (m.experts + m.shared_experts) +
                                                   (m.shared_expert_gate ? 1 : 0));
  }
  // Gated DeltaNet: in_proj_qkvz, in_proj_ba, conv1d, dt_bias, A_log, norm, out_proj. Mamba-2:
  // in_proj, conv1d, dt_bias, A_log, D, out_proj, with the conv and projection biases and the norm.
  // KDA: q, k, v, f_a, f_b, dt_bias, b_proj, three convs, A_log, g_a, g_b, o_norm, o_proj.
  const int64_t linear = m.linear_kind == LinearKind::kMamba2
                             ? 6 + (m.linear_conv_bias ? 1 : 0) + (m.linear_proj_bias ? 2 : 0) + (m.linear_norm ? 1 : 0)
                         : m.linear_kind == LinearKind::kKda ? 15
                                                             : 7;
  int64_t n = m.AttentionLayers() * attention + m.linear_layers * linear + L * m.norms_per_layer * norm + mlp;
  // Gemma 4: no v_proj on the full layers with attention_k_eq_v (its layer_scalar is a buffer, no
  // parameter; the KV-shared layers' stored k_proj/v_proj/k_norm are counted as the checkpoint has them).
  if (m.global_k_eq_v && !m.IsMla()) n -= m.GlobalLayers();
  if (m.vision_layers > 0) n += VisionTensors(m);
  n += 1;  // token embedding
  if (m.learned_positions > 0) n += 1;
  if (m.type_vocab > 0) n += 1;
  if (m.embedding_norm) n += norm;
  if (m.final_norm) n += norm;
  // Gemma 3n: embed_tokens_per_layer, per_layer_model_projection, per_layer_projection_norm and per
  // layer gate, projection, norm; AltUp's 2 (n - 1) projections and per layer its 5; LAuReL's 3.
  if (m.ple_dim > 0) n += 3 + 3 * L;
  if (m.altup_inputs > 1) n += 2 * (m.altup_inputs - 1) + 5 * L;
  if (m.laurel_rank > 0) n += 3 * L;
  if (!m.tied_embeddings && m.arch == Arch::kDecoder) n += 1;
  if (m.pooler) n += 2;
  return n;
}

int64_t ModelContext(const ModelSpec& m) {
  if (m.learned_positions > 0 && m.max_positions > 0)
    return m.learned_positions < m.max_positions ? m.learned_positions : m.max_positions;
  return m.learned_positions > 0 ? m.learned_positions : m.max_positions;
}

int64_t TrainableBase(const ModelSpec& m, const ParamCounts& counts) {
  return m.params_override > 0 ? m.params_override : counts.total;
}

}  // namespace llmmem::core
