// Activations saved for backward, after Korthikanti et al. 2022 (§4.1 eq. 1-3, §4.2
// Table 2, §4.3), itemised tensor by tensor so the terms add up to sbh(34 + 5as/h) for
// the paper's model (2-matrix MLP of 4h, MHA, dropout on, no FlashAttention).
// Generalised: any ffn size, gated MLPs, GQA (K and V use kv_heads x head_dim),
// explicit head_dim, FlashAttention (no s x s tensors, fp32 softmax statistics),
// dropout off (no masks, the softmax output feeds P.V directly), MoE (top-k experts per
// token), LoRA adapters, tensor and sequence parallelism.
#pragma once

#include <string>

#include "core/derived.h"
#include "core/sinks.h"
#include "core/sources.h"
#include "core/units.h"

namespace llmmem::core {

// How a per-layer tensor divides under tensor parallelism (Korthikanti §4.2.1-4.2.2):
// kTp tensors are split by TP alone; kSp tensors only with sequence parallelism on.
enum class Split : uint8_t { kTp, kSp };

enum class LayerGroup : uint8_t { kAttention, kMlp, kNorms, kLora };

struct LayerTensor {
  LayerGroup group;
  const char* id;
  const char* name;
  const char* symbolic;  // in units of the paper: "2sbh", "2as^2b"
  double bytes;          // one layer, before parallel splitting
  Split split;
};

// Calls f(const LayerTensor&) for every tensor one transformer layer saves for backward.
// keep_scores: false under selective recompute (the s x s tensors are recomputed).
template <class F>
void ForEachLayerActivation(const Derived& d, bool keep_scores, F&& f) {
  const Config& c = d.c;
  const ModelSpec& m = c.model;
  const double e = c.dtype == Dtype::kFp32 ? 4.0 : 2.0;  // bytes per activation element
  const double sb = d.s_local * d.b;  // tokens this GPU holds (context parallelism splits s)
  const double q_width = d.a * d.hd, kv_width = d.kv * d.hd;
  // MLA: V (and the attention output) are v_head_dim wide per head.
  const double v_width = m.IsMla() ? d.a * static_cast<double>(m.v_head_dim) : kv_width;
  const double out_width = m.IsMla() ? v_width : q_width;

  // Attention block (Korthikanti §4.1: 11sbh + 5as^2b).
  f(LayerTensor{LayerGroup::kAttention, "qkv_input", "Q/K/V projection input (norm output)", "2sbh", e * sb * d.h, Split::kSp});
  f(LayerTensor{LayerGroup::kAttention, "q", "Query Q", "2sb*a*d_head", e * sb * q_width, Split::kTp});
  f(LayerTensor{LayerGroup::kAttention, "k", "Key K", "2sb*kv*d_head", e * sb * kv_width, Split::kTp});
  f(LayerTensor{LayerGroup::kAttention, "v", "Value V", "2sb*kv*d_head", e * sb * v_width, Split::kTp});
  if (m.IsMla()) {
    const double latent = static_cast<double>(m.kv_lora_rank + m.q_lora_rank);
    f(LayerTensor{LayerGroup::kAttention, "mla_latent", "Latent Q/KV (up-projection inputs)", "2sb(r_kv + r_q)", e * sb * latent,
                  Split::kSp});
  }
  if (!c.flash_attn && keep_scores) {
    const double s2 = d.a * d.s_local * d.s * d.b;  // each GPU's queries against all keys
    f(LayerTensor{LayerGroup::kAttention, "softmax", "Softmax output (s x s per head)", "2as^2b", e * s2, Split::kTp});
    if (c.dropout) {
      f(LayerTensor{LayerGroup::kAttention, "attn_dropout_mask", "Attention dropout mask", "as^2b", s2, Split::kTp});
      f(LayerTensor{LayerGroup::kAttention, "attn_dropout_out", "Attention dropout output (P.V input)", "2as^2b", e * s2,
                    Split::kTp});
    }
  }
  if (c.flash_attn) {
    f(LayerTensor{LayerGroup::kAttention, "softmax_stats", "Softmax statistics (logsumexp, fp32)", "4asb", 4 * d.a * sb,
                  Split::kTp});
  }
  f(LayerTensor{LayerGroup::kAttention, "o_input", "Attention output (o_proj input)", "2sb*a*d_head", e * sb * out_width,
                Split::kTp});
  if (c.dropout) f(LayerTensor{LayerGroup::kAttention, "attn_residual_mask", "Residual dropout mask", "sbh", sb * d.h, Split::kSp});

  // MLP block (Korthikanti §4.1: 19sbh for a 4h GeLU MLP). For MoE the ffn terms run on
  // each token's top-k experts plus the shared experts; dense-first layers averaged in.
  double f_width = d.f;
  double router = 0;
  if (m.IsMoe()) {
    const double dense = static_cast<double>(m.dense_layers < m.layers ? m.dense_layers : m.layers);
    const double moe = d.L - dense;
    const double moe_width = static_cast<double>(m.experts_per_token * m.moe_ffn + m.shared_experts * m.shared_ffn);
    f_width = (dense * d.f + moe * moe_width) / d.L;
    router = 4.0 * sb * static_cast<double>(m.experts) * moe / d.L;  // fp32 router probabilities
  }
  f(LayerTensor{LayerGroup::kMlp, "mlp_input", "MLP input (norm output)", "2sbh", e * sb * d.h, Split::kSp});
  if (router > 0) f(LayerTensor{LayerGroup::kMlp, "router_probs", "Router probabilities (fp32)", "4sbE", router, Split::kSp});
  if (m.mlp == MlpKind::kGated) {
    f(LayerTensor{LayerGroup::kMlp, "gate_out", "Gate projection output (activation input)", "2sbf", e * sb * f_width, Split::kTp});
    f(LayerTensor{LayerGroup::kMlp, "up_out", "Up projection output", "2sbf", e * sb * f_width, Split::kTp});
    f(LayerTensor{LayerGroup::kMlp, "act_out", "Activation output (SiLU/GeLU of gate)", "2sbf", e * sb * f_width, Split::kTp});
    f(LayerTensor{LayerGroup::kMlp, "product", "Gate x up product (down_proj input)", "2sbf", e * sb * f_width, Split::kTp});
  } else {
    f(LayerTensor{LayerGroup::kMlp, "act_input", "Activation input (up_proj output)", "2sbf", e * sb * f_width, Split::kTp});
    f(LayerTensor{LayerGroup::kMlp, "act_output", "Activation output (down_proj input)", "2sbf", e * sb * f_width, Split::kTp});
  }
  if (c.dropout) f(LayerTensor{LayerGroup::kMlp, "mlp_residual_mask", "Residual dropout mask", "sbh", sb * d.h, Split::kSp});

  // Norms: each keeps its input (Korthikanti: two LayerNorms, 4sbh).
  f(LayerTensor{LayerGroup::kNorms, "norm_inputs", "Norm inputs", "2sbh per norm", e * sb * d.h * m.norms_per_layer, Split::kSp});
  if (m.qk_norm != QkNorm::kNone) {
    f(LayerTensor{LayerGroup::kNorms, "qk_norm_inputs", "Q/K norm inputs", "2sb(a+kv)d_head", e * sb * (q_width + kv_width),
                  Split::kTp});
  }

  // LoRA adapters (Hu et al. 2021): B's input x.A per adapted matrix, and with
  // lora_dropout the dropped copy of the input plus its mask.
  if (d.adapters) {
    const double r = static_cast<double>(c.lora_rank);
    f(LayerTensor{LayerGroup::kLora, "lora_a_out", "Adapter x.A outputs", "2sbr per adapted matrix",
                  e * sb * r * d.lora_per_layer_mats, Split::kTp});
    if (c.lora_dropout) {
      f(LayerTensor{LayerGroup::kLora, "lora_dropout_copy", "Adapter dropout copies of the input", "3sb*d_in per matrix",
                    (e + 1) * sb * d.lora_in_width, Split::kSp});
    }
  }
}

namespace detail {

inline double SplitShare(const Derived& d, Split split) {
  return (split == Split::kTp || d.c.sp) ? 1.0 / d.t : 1.0;
}

inline double LayerBytes(const Derived& d, bool keep_scores) {
  double sum = 0;
  ForEachLayerActivation(d, keep_scores, [&](const LayerTensor& t) { sum += t.bytes * SplitShare(d, t.split); });
  return sum;
}

inline const char* GroupId(LayerGroup g) {
  switch (g) {
    case LayerGroup::kAttention: return "attention";
    case LayerGroup::kMlp: return "mlp";
    case LayerGroup::kNorms: return "norms";
    case LayerGroup::kLora: return "lora";
  }
  return "?";
}

inline const char* GroupName(LayerGroup g) {
  switch (g) {
    case LayerGroup::kAttention: return "Attention";
    case LayerGroup::kMlp: return "MLP";
    case LayerGroup::kNorms: return "Norms";
    case LayerGroup::kLora: return "LoRA adapters";
  }
  return "?";
}

inline std::string DimsNote(const Derived& d) {
  std::string s = "s=" + FormatCount(static_cast<int64_t>(d.s)) + ", b=" + FormatCount(static_cast<int64_t>(d.b)) +
                  ", h=" + FormatCount(static_cast<int64_t>(d.h)) + ", a=" + FormatCount(static_cast<int64_t>(d.a)) +
                  ", L=" + FormatCount(static_cast<int64_t>(d.L));
  if (d.kv != d.a) s += ", kv=" + FormatCount(static_cast<int64_t>(d.kv));
  if (d.hd * d.a != d.h) s += ", d_head=" + FormatCount(static_cast<int64_t>(d.hd));
  s += ", f=" + FormatCount(static_cast<int64_t>(d.f));
  if (d.t > 1) s += ", t=" + FormatNumber(d.t) + (d.c.sp ? " with SP" : " without SP");
  if (d.cp > 1) s += ", cp=" + FormatNumber(d.cp) + " (s/cp tokens per GPU)";
  if (d.pp > 1) {
    s += ", pp=" + FormatNumber(d.pp) + ": stage " + std::to_string(d.stage + 1) + " holds " +
         FormatNumber(d.stage_layers) + " layers x " + FormatNumber(d.in_flight, 3) + " micro-batches in flight (" +
         ScheduleId(d.c.schedule) + ")";
  }
  return s;
}

}  // namespace detail

template <class Sink>
void AccountActivations(const Derived& d, Sink& s) {
  const Config& c = d.c;
  if (!d.has_arch) return;  // Validate reports kNoArchitecture
  // Layer-activation multiplier: this stage's layers times the micro-batches it holds.
  const double L = d.stage_layers * d.in_flight;
  s.Begin("activations", "Activations");
  s.Note([&] {
    return Explanation{std::string("saved for backward; recompute ") + RecomputeId(c.recompute) + ", FlashAttention " +
                           (c.flash_attn ? "on" : "off") + ", dropout " + (c.dropout ? "on" : "off") + "; " +
                           detail::DimsNote(d),
                       src::kKorthikantiLayer};
  });

  if (c.recompute == Recompute::kFull) {
    const double e = c.dtype == Dtype::kFp32 ? 4.0 : 2.0;
    const double per_layer = e * d.s_local * d.b * d.h / (c.sp ? d.t : 1.0);
    const Device where = c.offload_activations ? Device::kCpu : Device::kGpu;
    s.Leaf("layer_inputs", c.offload_activations ? "Checkpointed layer inputs (offloaded to CPU)" : "Checkpointed layer inputs",
           Category::kActivations, Live::ForwardOnly(per_layer * L).On(where), [&] {
             return Explanation{"2sbh" + std::string(c.sp ? "/t" : "") + " = " + FormatBytesBoth(per_layer) +
                                    " per layer x " + FormatNumber(L, 3) + " (layers x micro-batches in flight)",
                                src::kKorthikantiRecompute, per_layer};
           });
    // The layer whose backward runs is re-created in full; its input is the checkpoint
    // already counted above.
    const double remat = detail::LayerBytes(d, true) - per_layer;
    s.Leaf("rematerialised_layer", "One layer recomputed in backward", Category::kActivations,
           Live::ForwardOnly(remat), [&] {
             return Explanation{"one layer's saved tensors less its checkpointed input, re-created while its "
                                "backward runs: " + FormatBytesBoth(remat),
                                src::kRematerialised, remat};
           });
  } else {
    const bool keep_scores = c.recompute == Recompute::kNone;
    s.Begin("layers", "Transformer layers");
    s.Note([&] {
      return Explanation{"per layer x " + FormatNumber(L, 3) + " (layers on this GPU x micro-batches in flight)" +
                             (keep_scores ? "" : "; selective recompute drops the s x s tensors"),
                         keep_scores ? src::kKorthikantiLayer : src::kKorthikantiRecompute};
    });
    bool open = false;
    LayerGroup open_group = LayerGroup::kAttention;
    ForEachLayerActivation(d, keep_scores, [&](const LayerTensor& t) {
      if (!open || open_group != t.group) {
        if (open) s.End();
        open = true;
        open_group = t.group;
        s.Begin(detail::GroupId(t.group), detail::GroupName(t.group));
      }
      const double per_layer = t.bytes * detail::SplitShare(d, t.split);
      s.Leaf(t.id, t.name, Category::kActivations, Live::ForwardOnly(per_layer * L), [&] {
        const bool split = detail::SplitShare(d, t.split) < 1.0;
        return Explanation{std::string(t.symbolic) + (split ? "/t" : "") + " = " + FormatBytesBoth(per_layer) +
                               " per layer x " + FormatNumber(L, 3),
                           t.group == LayerGroup::kLora ? src::kLora
                           : t.group == LayerGroup::kMlp && c.model.mlp == MlpKind::kGated ? src::kGatedMlp
                           : t.id == std::string("softmax_stats")                          ? src::kFlash
                                                                                           : src::kKorthikantiLayer,
                           per_layer};
      });
    });
    if (open) s.End();
    s.End();
    if (!keep_scores) {
      // Selective recompute re-creates one layer's s x s tensors while its backward runs.
      const double scores = detail::LayerBytes(d, true) - detail::LayerBytes(d, false);
      if (scores > 0) {
        s.Leaf("recomputed_scores", "One layer's attention scores recomputed in backward", Category::kActivations,
               Live::ForwardOnly(scores), [&] {
                 return Explanation{"the s x s tensors of one layer: " + FormatBytesBoth(scores),
                                    src::kKorthikantiRecompute, scores};
               });
      }
    }
  }

  // Embeddings and the output layer (Korthikanti §4.3), on the first and last stages.
  const double e = c.dtype == Dtype::kFp32 ? 4.0 : 2.0;
  const double sb = d.s_local * d.b;
  const double sp_share = c.sp ? 1.0 / d.t : 1.0;
  s.Begin("outputs", "Embedding and output layer");
  if (c.dropout && d.first_stage) {
    s.Leaf("embedding_dropout_mask", "Embedding dropout mask", Category::kActivations,
           Live::ForwardOnly(sb * d.h * sp_share * d.in_flight), [&] {
             return Explanation{"sbh = " + FormatBytesBoth(sb * d.h * sp_share) + " x " + FormatNumber(d.in_flight, 3) +
                                    " micro-batches in flight",
                                src::kKorthikantiOutput};
           });
  }
  if (c.model.arch == Arch::kDecoder && d.last_stage) {
    if (c.model.final_norm) {
      s.Leaf("final_norm_input", "Final norm input", Category::kActivations, Live::ForwardOnly(e * sb * d.h * sp_share),
             [&] { return Explanation{"2sbh = " + FormatBytesBoth(e * sb * d.h * sp_share), src::kKorthikantiOutput}; });
    }
    s.Leaf("head_input", "Output projection input", Category::kActivations, Live::ForwardOnly(e * sb * d.h * sp_share),
           [&] { return Explanation{"2sbh = " + FormatBytesBoth(e * sb * d.h * sp_share), src::kKorthikantiOutput}; });
    const double logit_bytes = c.loss_logits_fp32 ? 4.0 : e;
    const double logits = logit_bytes * sb * d.V / d.t;
    s.Leaf("logits", c.loss_logits_fp32 ? "Logits for the loss (fp32)" : "Logits for the loss", Category::kActivations,
           Live::ForwardOnly(logits), [&] {
             return Explanation{FormatNumber(logit_bytes) + "sbV" + (d.t > 1 ? "/t" : "") + " = " +
                                    FormatBytesBoth(logits),
                                src::kKorthikantiOutput};
           });
    if (c.metrics_logits) {
      const double metrics = 4.0 * sb * d.V / d.t;
      s.Leaf("metrics_logits", "Logits kept by compute_metrics (fp32)", Category::kActivations,
             Live::ForwardOnly(metrics),
             [&] { return Explanation{"4sbV = " + FormatBytesBoth(metrics), src::kMetricsLogits}; });
    }
  }
  s.End();
  s.End();
}

}  // namespace llmmem::core
