// The megatron profile: activations saved for backward after Korthikanti et al. 2022
// (§4.1 eq. 1-3, §4.2 Table 2), itemised tensor by tensor so the terms add up to
// sbh(34 + 5as/h) for the paper's model (2-matrix MLP of 4h, MHA, dropout on, no
// FlashAttention). Generalised: any ffn size, gated MLPs, GQA (K and V use kv_heads x
// head_dim), explicit head_dim, FlashAttention (no s x s tensors, fp32 softmax
// statistics), dropout off, MoE (top-k experts per token), MLA, LoRA adapters.
// Megatron-Core with Transformer Engine's fused kernels keeps this list.
#pragma once

#include "core/estimate/activation_rows.h"
#include "core/estimate/derived.h"
#include "core/config/framework.h"

namespace llmmem::core {

// Shared by every profile: per-layer widths (MoE averages its routed and dense layers).
struct LayerWidths {
  double sb, q, kv, v, out, f, router;
};

inline LayerWidths Widths(const Derived& d) {
  const ModelSpec& m = d.c.model;
  LayerWidths w{};
  w.sb = d.s_local * d.b;  // tokens this GPU holds (context parallelism splits s)
  w.q = d.a * d.hd;
  w.kv = d.kv * d.hd;
  // Gemma 4: its full-attention layers have their own head size and K/V heads (global_head_dim,
  // num_global_key_value_heads; Gemma4TextAttention @c308a309e651): Q, K, V and the attention
  // output averaged over the attention layers by kind, as MoE's widths are below, so the
  // per-layer figure times the layers is each kind's sum. (attention_k_eq_v's value = key is
  // still counted as its own V: whether autograd keeps one storage or two is not measured.)
  if (m.HasGlobalGeometry() && m.AttentionLayers() > 0) {
    const double full = static_cast<double>(m.GlobalLayers()) / static_cast<double>(m.AttentionLayers());
    w.q = d.a * ((1 - full) * d.hd + full * static_cast<double>(m.GlobalHeadDim()));
    w.kv = (1 - full) * d.kv * d.hd + full * static_cast<double>(m.GlobalKvHeads() * m.GlobalHeadDim());
  }
  // MLA: V (and the attention output) are v_head_dim wide per head.
  w.v = m.IsMla() ? d.a * static_cast<double>(m.v_head_dim) : w.kv;
  w.out = m.IsMla() ? w.v : w.q;
  // MoE: the ffn terms run on each token's top-k experts plus the shared experts;
  // dense-first layers averaged in.
  w.f = d.f;
  if (m.IsMoe()) {
    const double dense = static_cast<double>(m.dense_layers < m.layers ? m.dense_layers : m.layers);
    const double moe = d.L - dense;
    const double moe_width = static_cast<double>(m.experts_per_token * m.moe_ffn + m.shared_experts * m.shared_ffn);
    w.f = (dense * d.f + moe * moe_width) / d.L;
    w.router = w.sb * static_cast<double>(m.experts) * moe / d.L;  // fp32 router probabilities
  }
  return w;
}

// PyTorch AMP (torch.autocast) on a Hugging Face model: matmuls (Linear, bmm, SDPA) cast
// their inputs to the autocast format and produce it, while the residual stream stays in
// the weights' format and layer_norm runs in fp32 (aten/src/ATen/autocast_mode.cpp: the
// lower-precision and fp32 op lists). Megatron has its own mixed precision (Validate).
inline bool Autocast(const Config& c) { return c.autocast != Dtype::kCount && IsHuggingFace(c.framework); }

// Bytes of a matmul's output: the autocast format under AMP, else the training format.
inline double ActivationBytes(const Config& c) {
  if (Autocast(c)) return Info(c.autocast).bits / 8.0;
  return c.dtype == Dtype::kFp32 ? 4.0 : 2.0;
}

// fp32 norm weights in a QLoRA model under AMP (peft prepare_model_for_kbit_training casts
// every non-quantised parameter to fp32; trl 0.13 casts the embeddings and head back to bf16
// but keeps the norms, trl/trainer/utils.py peft_module_casting_to_bf16): the norms' outputs
// are fp32, bitsandbytes' Linear4bit returns its input's format (out.to(inp_dtype)), so the
// residual stream and the MLP's intermediates are fp32. Validate allows it only there.
// nn.LayerNorm gives fp32 under autocast whatever its weights (layer_norm is on autocast's
// fp32 list), so a LayerNorm model's QLoRA stream turns fp32 the same way (GPTBigCode, GPT-2).
inline bool Fp32NormStream(const Config& c) {
  return (c.norms_fp32 || c.model.norm == NormKind::kLayerNorm) && Autocast(c) && c.mode == Mode::kQlora;
}

// Bytes of the residual stream (the embedding's output and every residual add): under AMP
// the weights' format (fp32 weights make an fp32 stream), else the activations'.
inline double StreamBytes(const Config& c) {
  if (Fp32NormStream(c)) return 4.0;
  if (Autocast(c) && IsPlainFloat(c.dtype)) return Info(c.dtype).bits / 8.0;
  return ActivationBytes(c);
}

// Bytes of the embedding's output, which LlamaModel hands rotary_emb (cos and sin come back
// in its format) and the eager causal mask: the stream's, but bf16 under fp32 norms (trl casts
// the embeddings back to bf16; the stream turns fp32 only after the first norm).
inline double EmbeddingOutputBytes(const Config& c) { return Fp32NormStream(c) ? ActivationBytes(c) : StreamBytes(c); }

// LoRA adapters (Hu et al. 2021): B's input x.A per adapted matrix, and with lora_dropout
// the dropped copy of the input plus its mask. Shared by every profile.
template <class F>
void ForEachLoraTensor(const Derived& d, const LayerWidths& w, F&& f) {
  if (!d.adapters) return;
  const Config& c = d.c;
  const double e = ActivationBytes(c);
  f(LayerTensor{LayerGroup::kLora, "lora_a_out", "Adapter x.A outputs", e, "sbr per adapted matrix",
                w.sb * static_cast<double>(c.lora_rank) * d.lora_per_layer_mats, Split::kTp,
                "MmBackward0 of lora_B (self)", ""});
  if (c.lora_dropout) {
    f(LayerTensor{LayerGroup::kLora, "lora_dropout_copy", "Adapter dropout copies of the input", e + 1,
                  "sb*d_in per matrix", w.sb * d.lora_in_width, Split::kSp,
                  "MmBackward0 of lora_A (self) and NativeDropoutBackward0 (mask)", ""});
  }
}

// Calls f(const LayerTensor&) for every tensor one layer keeps under the paper's list.
// keep_scores: false under selective recompute (the s x s tensors are recomputed).
template <class F>
void ForEachPaperLayerTensor(const Derived& d, bool keep_scores, F&& f) {
  const Config& c = d.c;
  const ModelSpec& m = c.model;
  const double e = ActivationBytes(c);
  const LayerWidths w = Widths(d);
  const char* kMegatron = "Megatron-Core / Transformer Engine";

  // Attention block (Korthikanti §4.1: 11sbh + 5as^2b).
  f(LayerTensor{LayerGroup::kAttention, "qkv_input", "Q/K/V projection input (norm output)", e, "sbh", w.sb * d.h,
                Split::kSp, kMegatron, ""});
  f(LayerTensor{LayerGroup::kAttention, "q", "Query Q", e, "sb*a*d_head", w.sb * w.q, Split::kTp, kMegatron, ""});
  f(LayerTensor{LayerGroup::kAttention, "k", "Key K", e, "sb*kv*d_head", w.sb * w.kv, Split::kTp, kMegatron, ""});
  f(LayerTensor{LayerGroup::kAttention, "v", "Value V", e, "sb*kv*d_head", w.sb * w.v, Split::kTp, kMegatron, ""});
  if (m.IsMla()) {
    const double latent = static_cast<double>(m.kv_lora_rank + m.q_lora_rank);
    f(LayerTensor{LayerGroup::kAttention, "mla_latent", "Latent Q/KV (up-projection inputs)", e, "sb(r_kv + r_q)",
                  w.sb * latent, Split::kSp, kMegatron, ""});
  }
  if (!c.flash_attn && keep_scores) {
    const double s2 = d.a * d.s_local * d.s * d.b;  // each GPU's queries against all keys
    f(LayerTensor{LayerGroup::kAttention, "softmax", "Softmax output (s x s per head)", e, "as^2b", s2, Split::kTp,
                  kMegatron, ""});
    if (c.dropout) {
      f(LayerTensor{LayerGroup::kAttention, "attn_dropout_mask", "Attention dropout mask", 1, "as^2b", s2, Split::kTp,
                    kMegatron, ""});
      f(LayerTensor{LayerGroup::kAttention, "attn_dropout_out", "Attention dropout output (P.V input)", e, "as^2b", s2,
                    Split::kTp, kMegatron, ""});
    }
  }
  if (c.flash_attn) {
    f(LayerTensor{LayerGroup::kAttention, "softmax_stats", "Softmax statistics (logsumexp, fp32)", 4, "asb", d.a * w.sb,
                  Split::kTp, "flash attention kernel", ""});
  }
  f(LayerTensor{LayerGroup::kAttention, "o_input", "Attention output (o_proj input)", e, "sb*a*d_head", w.sb * w.out,
                Split::kTp, kMegatron, ""});
  if (c.dropout) {
    f(LayerTensor{LayerGroup::kAttention, "attn_residual_mask", "Residual dropout mask", 1, "sbh", w.sb * d.h,
                  Split::kSp, kMegatron, ""});
  }

  // MLP block (Korthikanti §4.1: 19sbh for a 4h GeLU MLP).
  f(LayerTensor{LayerGroup::kMlp, "mlp_input", "MLP input (norm output)", e, "sbh", w.sb * d.h, Split::kSp, kMegatron,
                ""});
  if (w.router > 0) {
    f(LayerTensor{LayerGroup::kMlp, "router_probs", "Router probabilities (fp32)", 4, "sbE", w.router, Split::kSp,
                  kMegatron, ""});
  }
  if (m.mlp == MlpKind::kGated) {
    f(LayerTensor{LayerGroup::kMlp, "gate_out", "Gate projection output (activation input)", e, "sbf", w.sb * w.f,
                  Split::kTp, kMegatron, ""});
    f(LayerTensor{LayerGroup::kMlp, "up_out", "Up projection output", e, "sbf", w.sb * w.f, Split::kTp, kMegatron, ""});
    f(LayerTensor{LayerGroup::kMlp, "act_out", "Activation output (SiLU/GeLU of gate)", e, "sbf", w.sb * w.f,
                  Split::kTp, kMegatron, ""});
    f(LayerTensor{LayerGroup::kMlp, "product", "Gate x up product (down_proj input)", e, "sbf", w.sb * w.f, Split::kTp,
                  kMegatron, ""});
  } else {
    f(LayerTensor{LayerGroup::kMlp, "act_input", "Activation input (up_proj output)", e, "sbf", w.sb * w.f, Split::kTp,
                  kMegatron, ""});
    f(LayerTensor{LayerGroup::kMlp, "act_output", "Activation output (down_proj input)", e, "sbf", w.sb * w.f,
                  Split::kTp, kMegatron, ""});
  }
  if (c.dropout) {
    f(LayerTensor{LayerGroup::kMlp, "mlp_residual_mask", "Residual dropout mask", 1, "sbh", w.sb * d.h, Split::kSp,
                  kMegatron, ""});
  }

  // Norms: each keeps its input (Korthikanti: two LayerNorms, 4sbh); the first one's is
  // the layer input itself.
  LayerTensor norms{LayerGroup::kNorms,
                    "norm_inputs",
                    "Norm inputs",
                    e,
                    "sbh per norm",
                    w.sb * d.h * static_cast<double>(m.norms_per_layer),
                    Split::kSp,
                    kMegatron,
                    ""};
  norms.layer_input = true;
  f(norms);
  if (m.qk_norm != QkNorm::kNone) {
    f(LayerTensor{LayerGroup::kNorms, "qk_norm_inputs", "Q/K norm inputs", e, "sb(a+kv)d_head", w.sb * (w.q + w.kv),
                  Split::kTp, kMegatron, ""});
  }
  ForEachLoraTensor(d, w, f);
}

}  // namespace llmmem::core
