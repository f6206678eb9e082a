// The Hugging Face profiles (hf-eager, hf-sdpa, hf-flash2) and Liger: the tensors eager
// PyTorch 2.x keeps for backward while transformers' modeling code runs one decoder
// layer. Each row names the autograd node that keeps it and how it departs from
// Korthikanti's list. Rules (PyTorch tools/autograd/derivatives.yaml and
// gen_variable_type.py): a tensor only needed for the gradient of an input that does not
// require grad is not saved, so a frozen Linear (LoRA's base) does not keep its input;
// storages shared by several nodes are counted once. Measured against faithful replicas
// with saved-tensor hooks (tests/truth/, test_truth.cpp).
// Two code families: Llama-like (RMSNorm, rotary, fp32 softmax in eager, attention
// dropout only) and GPT-2/BERT-like (LayerNorm with learned positions, softmax in the
// activation dtype, residual and embedding dropout).
#pragma once

#include <algorithm>
#include <cmath>

#include "core/model/activation_fn.h"
#include "core/estimate/activations_paper.h"
#include "core/config/framework.h"
#include "core/estimate/activation_inputs.h"
#include "core/estimate/activations_linear.h"

namespace llmmem::core {

// PEFT LoRA (huggingface/peft src/peft/tuners/lora/layer.py, Linear.forward):
// x = self._cast_input_dtype(x, lora_A.weight.dtype); result + lora_B(lora_A(dropout(x))) * scaling.
template <class F>
void ForEachPeftTensor(const Derived& d, const LayerWidths& w, F&& f) {
  if (!d.adapters) return;
  const Config& c = d.c;
  // Under autocast lora_A's matmul re-casts whatever PEFT hands it to the autocast format.
  const double a = Autocast(c) ? ActivationBytes(c) : Info(AdapterDtype(c)).bits / 8.0;
  if (AdapterKeepsOwnInput(c)) {
    const bool cast =
        Autocast(c) ? StreamBytes(c) != a || Info(AdapterDtype(c)).bits != a * 8 : a != ActivationBytes(c);
    f(LayerTensor{
        LayerGroup::kLora, "lora_inputs",
        !cast         ? "Adapter inputs after lora_dropout"
        : Autocast(c) ? "Adapter inputs, cast by autocast"
                      : "Adapter inputs, cast to the adapters' dtype",
        a, "sb*d_in per adapted matrix", w.sb * d.lora_in_width, Split::kSp, "MmBackward0 (self) of lora_A",
        !cast ? ""
        : Autocast(c)
            ? "PEFT casts the input to the adapters' dtype and autocast casts it back: one copy per matrix"
            : "each adapted Linear casts its input (PEFT _cast_input_dtype): one copy per matrix, q/k/v too"});
  }
  if (c.lora_dropout) {
    // A mask is kept for the gradient of the dropout's input: q/k/v's input in the first
    // layer needs none (the frozen embedding).
    LayerTensor qkv{LayerGroup::kLora,
                    "lora_dropout_masks_qkv",
                    "Adapter dropout masks, Q/K/V (bool)",
                    1,
                    "sb*d_in per adapted matrix",
                    w.sb * d.lora_qkv_in_width,
                    Split::kSp,
                    "NativeDropoutBackward0 (mask)",
                    ""};
    qkv.first_layer_kept = false;
    if (d.lora_qkv_in_width > 0) f(qkv);
    f(LayerTensor{LayerGroup::kLora, "lora_dropout_masks", "Adapter dropout masks, other matrices (bool)", 1,
                  "sb*d_in per adapted matrix", w.sb * (d.lora_in_width - d.lora_qkv_in_width), Split::kSp,
                  "NativeDropoutBackward0 (mask)", ""});
  }
  f(LayerTensor{LayerGroup::kLora, "lora_a_out", "Adapter x.A outputs", a, "sbr per adapted matrix",
                w.sb * static_cast<double>(c.lora_rank) * d.lora_per_layer_mats, Split::kTp,
                "MmBackward0 (self) of lora_B", ""});
  if (Autocast(c) && Info(AdapterDtype(c)).bits != a * 8) {
    // Autocast's copies of the adapters' own weights, kept for their inputs' gradients: in the
    // first layer Q/K/V's lora_A reads the frozen embedding's output and keeps none.
    const double r = static_cast<double>(c.lora_rank), per_layer = d.lora_params / std::max(1.0, d.L);
    LayerTensor qkv{LayerGroup::kLora,
                    "lora_weight_casts_qkv_a",
                    "Autocast copies of Q/K/V's lora_A",
                    a,
                    "r*d_in",
                    r * d.lora_qkv_in_width,
                    Split::kTp,
                    "MmBackward0 (mat2) of lora_A",
                    ""};
    qkv.first_layer_kept = false;
    if (d.lora_qkv_in_width > 0) f(qkv);
    f(LayerTensor{LayerGroup::kLora, "lora_weight_casts", "Autocast copies of the other adapter weights", a,
                  "r(d_in + d_out)", per_layer - r * d.lora_qkv_in_width, Split::kTp,
                  "MmBackward0 (mat2) of lora_A and lora_B", ""});
  }
}

namespace detail {

// One norm of the layer. HF RMSNorm (LlamaRMSNorm.forward): x.to(fp32) is kept by pow
// and the product (the fp32 copy, or x itself in fp32), rsqrt keeps its per-token result,
// weight * normalised keeps the normalised tensor when the weight trains. nn.LayerNorm
// keeps its input and fp32 mean and rstd. Liger's fused RMSNorm keeps its input and rstd.
// first: the layer's input norm; otherwise `copies` other norms of the same width.
template <class F>
void HfNorm(const Derived& d, const LayerWidths& w, bool first, double copies, F&& f) {
  const Config& c = d.c;
  const double e = ActivationBytes(c);
  const bool liger = Info(c.framework).liger_kernels;
  // The input norm keeps nothing when no gradient flows into the layer's input.
  auto emit = [&](LayerTensor t) {
    t.first_layer_kept = !first;
    f(t);
  };
  if (c.model.norm == NormKind::kLayerNorm) {
    // Autocast runs layer_norm in fp32: it keeps an fp32 copy of a 16-bit input.
    const double in_bytes = Autocast(c) ? 4.0 : e;
    LayerTensor in{LayerGroup::kNorms,
                   first ? "norm1_input" : "norm2_input",
                   first         ? "Input norm: input"
                   : copies == 1 ? "Post-attention norm: input"
                                 : "Other norms: inputs",
                   in_bytes,
                   "sbh",
                   w.sb * d.h * copies,
                   Split::kSp,
                   "NativeLayerNormBackward0 (input)",
                   in_bytes != e ? "autocast runs layer_norm in fp32" : ""};
    in.layer_input = first && in_bytes == StreamBytes(c);
    emit(in);
    emit(LayerTensor{LayerGroup::kNorms, first ? "norm1_stats" : "norm2_stats",
                     first         ? "Input norm: mean and rstd (fp32)"
                     : copies == 1 ? "Post-attention norm: mean and rstd (fp32)"
                                   : "Other norms: mean and rstd (fp32)",
                     8, "sb", w.sb * copies, Split::kSp, "NativeLayerNormBackward0 (mean, rstd)",
                     "the paper counts the input only; LayerNorm also keeps fp32 mean and rstd per token"});
    return;
  }
  if (liger) {
    LayerTensor in{LayerGroup::kNorms,
                   first ? "norm1_input" : "norm2_input",
                   first         ? "Input norm: input (fused RMSNorm)"
                   : copies == 1 ? "Post-attention norm: input (fused RMSNorm)"
                                 : "Other norms: inputs (fused RMSNorm)",
                   e,
                   "sbh",
                   w.sb * d.h * copies,
                   Split::kSp,
                   "LigerRMSNormFunction (X)",
                   ""};
    in.layer_input = first;
    emit(in);
    emit(LayerTensor{LayerGroup::kNorms, first ? "norm1_rstd" : "norm2_rstd",
                     first         ? "Input norm: rstd (fp32)"
                     : copies == 1 ? "Post-attention norm: rstd (fp32)"
                                   : "Other norms: rstd (fp32)",
                     4, "sb", w.sb * copies, Split::kSp, "LigerRMSNormFunction (RSTD)",
                     "one fp32 value per token beside the paper's input"});
    return;
  }
  LayerTensor in{LayerGroup::kNorms,
                 first ? "norm1_fp32_input" : "norm2_fp32_input",
                 first         ? "Input norm: fp32 upcast of the input"
                 : copies == 1 ? "Post-attention norm: fp32 upcast of the input"
                               : "Other norms: fp32 upcasts of the inputs",
                 4,
                 "sbh",
                 w.sb * d.h * copies,
                 Split::kSp,
                 "PowBackward0 (self), MulBackward0 (self)",
                 "the paper keeps the 16-bit norm input; HF's RMSNorm upcasts to fp32 and keeps the fp32 copy"};
  in.layer_input = first && StreamBytes(c) == 4;  // in an fp32 stream the upcast is the input itself
  emit(in);
  emit(LayerTensor{LayerGroup::kNorms, first ? "norm1_rstd" : "norm2_rstd",
                   first         ? "Input norm: rsqrt per token (fp32)"
                   : copies == 1 ? "Post-attention norm: rsqrt per token (fp32)"
                                 : "Other norms: rsqrt per token (fp32)",
                   4, "sb", w.sb * copies, Split::kSp, "RsqrtBackward0 (result)",
                   "not in the paper: one fp32 value per token"});
  if (c.model.norm_unit_offset) {
    // Qwen3NextRMSNorm (transformers modeling_qwen3_next.py@01cdc6081c75 forward):
    // output = self._norm(x.float()) * (1.0 + self.weight.float()), then output.type_as(x). The
    // product keeps the fp32 normalised tensor for the weight's gradient (MulBackward0 self) and the
    // fp32 (1 + weight) for the input's (MulBackward0 other: h floats, whatever trains).
    if (!d.adapters) {
      emit(LayerTensor{LayerGroup::kNorms, first ? "norm1_normalised" : "norm2_normalised",
                       first         ? "Input norm: normalised input (fp32)"
                       : copies == 1 ? "Post-attention norm: normalised (fp32)"
                                     : "Other norms: normalised inputs (fp32)",
                       4, "sbh", w.sb * d.h * copies, Split::kSp, "MulBackward0 (self) of normalised x (1 + weight)",
                       "not in the paper: the (1 + w) norm scales in fp32 and keeps the fp32 normalised tensor"});
    }
    emit(LayerTensor{LayerGroup::kNorms, first ? "norm1_scale" : "norm2_scale",
                     first         ? "Input norm: 1 + weight (fp32)"
                     : copies == 1 ? "Post-attention norm: 1 + weight (fp32)"
                                   : "Other norms: 1 + weight (fp32)",
                     4, "h", d.h * copies, Split::kSp, "MulBackward0 (other) of normalised x (1 + weight)",
                     "not in the paper: the fp32 1 + weight the product keeps, h floats per norm"});
    return;
  }
  if (!d.adapters) {  // weight * normalised keeps the normalised tensor for the weight's gradient
    emit(LayerTensor{LayerGroup::kNorms, first ? "norm1_normalised" : "norm2_normalised",
                     first         ? "Input norm: normalised input, cast back"
                     : copies == 1 ? "Post-attention norm: normalised, cast back"
                                   : "Other norms: normalised inputs, cast back",
                     StreamBytes(c), "sbh", w.sb * d.h * copies, Split::kSp,
                     "MulBackward0 (other) of weight x normalised",
                     "not in the paper: the normalised tensor before the weight, kept for the weight's gradient"});
  }
}

// The activation function of the MLP on one f-wide input, and what the product or the
// down projection keeps after it.
template <class F>
void HfMlp(const Derived& d, const LayerWidths& w, F&& f) {
  const Config& c = d.c;
  const ModelSpec& m = c.model;
  const double e = ActivationBytes(c);
  // The f-wide tensors: fp32 when bitsandbytes returns gate/up in an fp32 input's format.
  const double mid = Fp32NormStream(c) ? 4.0 : e;
  const ActivationFnInfo& act = Info(m.act);
  const double tf = w.sb * w.f;
  const bool gated = m.mlp == MlpKind::kGated;
  const uint32_t in_bits = gated ? (kLoraGate | kLoraUp) : kLoraUp;
  if (LinearKeepsInput(d, in_bits)) {
    const double copies = CastCopies(d, gated ? 2 : 1);
    f(LayerTensor{LayerGroup::kMlp, "mlp_input",
                  copies > 1 ? "MLP input, cast by autocast per projection" : "MLP input (norm output)", e, "sbh",
                  w.sb * d.h * copies, Split::kSp, "MmBackward0 (self) of gate/up_proj",
                  copies > 1 ? "autocast casts the norm's output once for gate_proj and once for up_proj" : ""});
  }
  if (w.router > 0) {
    f(LayerTensor{LayerGroup::kMlp, "router_probs", "Router probabilities (fp32)", 4, "sbE", w.router, Split::kSp,
                  "SoftmaxBackward0 (result)", ""});
  }
  if (gated && Info(c.framework).liger_kernels) {
    // LigerSiLUMulFunction keeps a and b and recomputes silu(a) in backward.
    f(LayerTensor{LayerGroup::kMlp, "gate_out", "Gate projection output", mid, "sbf", tf, Split::kTp,
                  "LigerSiLUMulFunction (a)", ""});
    f(LayerTensor{LayerGroup::kMlp, "up_out", "Up projection output", mid, "sbf", tf, Split::kTp,
                  "LigerSiLUMulFunction (b)", ""});
  } else if (gated) {
    f(LayerTensor{
        LayerGroup::kMlp, "act_inside",
        act.saved_inside == 1 ? "Gate projection output (activation input)"
                              : "Gate output and tensors inside the activation",
        mid, "sbf", tf * act.saved_inside, Split::kTp, act.saved,
        act.saved_inside == 1 ? "" : "the paper keeps only the activation's input; this function keeps more"});
    f(LayerTensor{LayerGroup::kMlp, "act_out", "Activation output", mid, "sbf", tf, Split::kTp, "MulBackward0 (self)",
                  ""});
    f(LayerTensor{LayerGroup::kMlp, "up_out", "Up projection output", mid, "sbf", tf, Split::kTp,
                  "MulBackward0 (other)", ""});
  } else if (act.saved_inside > 0) {
    f(LayerTensor{
        LayerGroup::kMlp, "act_inside",
        act.saved_inside == 1 ? "Up projection output (activation input)"
                              : "Up output and tensors inside the activation",
        mid, "sbf", tf * act.saved_inside, Split::kTp, act.saved,
        act.saved_inside == 1 ? "" : "the paper keeps only the activation's input; this function keeps more"});
  }
  if (LinearKeepsInput(d, kLoraDown) || act.keeps_output) {
    f(LayerTensor{LayerGroup::kMlp, gated ? "product" : "act_output",
                  gated ? "Gate x up product (down_proj input)" : "Activation output (down_proj input)", mid, "sbf", tf,
                  Split::kTp, act.keeps_output && !gated ? act.saved : "MmBackward0 (self) of down_proj", ""});
  }
  if (c.dropout && IsGpt2Family(m)) {
    f(LayerTensor{LayerGroup::kMlp, "mlp_residual_mask", "Residual dropout mask (bool)", 1, "sbh", w.sb * d.h,
                  Split::kSp, "NativeDropoutBackward0 (mask)", ""});
  }
}

}  // namespace detail

// [SECTION] Hybrid layers: the share of the layers each group of rows is in, and the mixers of
// the linear layers.

// Calls f(const LayerTensor&) for every tensor one layer keeps under an HF profile.
template <class F>
void ForEachHfLayerTensor(const Derived& d, bool keep_scores, F&& f) {
  auto& f_all = f;
  auto f_attention = Shared(AttentionShare(d.c.model), f_all);
  const Config& c = d.c;
  const ModelSpec& m = c.model;
  const double e = ActivationBytes(c);
  const LayerWidths w = Widths(d);
  const bool gpt2 = IsGpt2Family(m);
  // Which attention kernel runs: eager (s x s in Python), SDPA's math path, or a fused
  // flash/memory-efficient kernel that keeps only q, k, v, output and logsumexp.
  const bool eager = Info(c.framework).eager_attention;
  const bool fused = !eager && (c.flash_attn || Info(c.framework).always_flash);
  // K and V: eager and the math path see repeat_kv's copies, one per query head; SDPA's
  // fused kernels (enable_gqa, torch >= 2.5, no padding mask) and flash_attn take the KV heads.
  // One exception, measured (tests/truth/measure.py, llama_block_eager_*_a8_kv1): with one KV
  // head (MQA) at micro-batch 1, repeat_kv's expand(...).reshape(...) and matmul's reshape to
  // (b*a, ...) only merge size-1 dimensions, so both stay views of the unexpanded K and V and
  // no copy is saved; at micro-batch 2 the reshape copies again.
  const bool mqa_view = eager && d.kv == 1 && d.b == 1;
  const bool expanded = !fused && !m.IsMla() && d.kv < d.a && !mqa_view;
  const double kv_width = expanded ? w.q : w.kv;
  const double v_width = expanded ? w.q : w.v;
  const char* repeat_note = expanded ? "the paper counts K and V at kv_heads; repeat_kv expands them to every query "
                                       "head, so GQA saves nothing here"
                                     : "";

  if (LinearKeepsInput(d, kLoraQ | kLoraK | kLoraV)) {
    const double copies = CastCopies(d, gpt2 ? 1 : m.IsMla() ? 2 : 3);
    LayerTensor in{LayerGroup::kAttention,
                   "qkv_input",
                   copies > 1 ? "Q/K/V projection inputs, cast by autocast per projection"
                              : "Q/K/V projection input (norm output)",
                   e,
                   "sbh",
                   w.sb * d.h * copies,
                   Split::kSp,
                   BnbKeepsInputs(c) ? "MatMul4Bit (A) of q/k/v_proj"
                   : gpt2            ? "AddmmBackward0 (mat1) of c_attn"
                                     : "MmBackward0 (self) of q/k/v_proj",
                   copies > 1 ? "autocast casts the norm's output once per projection: a copy for each" : ""};
    // Kept for a 4-bit base's input gradient alone, it is not kept where no gradient flows:
    // the first layer under the frozen embedding.
    in.first_layer_kept =
        !d.adapters || ((c.lora_targets & (kLoraQ | kLoraK | kLoraV)) != 0 && !AdapterKeepsOwnInput(c));
    f_attention(in);
  }
  if (m.IsMla()) {
    f_attention(LayerTensor{LayerGroup::kAttention, "mla_latent", "Latent Q/KV (up-projection inputs)", e,
                            "sb(r_kv + r_q)", w.sb * static_cast<double>(m.kv_lora_rank + m.q_lora_rank), Split::kSp,
                            "MmBackward0 (self)", ""});
  }
  // SDPA's math path (torch >= 2.5, _scaled_dot_product_attention_math) upcasts 16-bit
  // q, k and v to fp32 and keeps the fp32 copies and the fp32 softmax.
  const bool math = !eager && !fused;
  const double qkv_bytes = math ? 4 : e;
  const char* qkv_node = fused ? "the fused attention kernel (query, key, value)" : "BmmBackward0 (self, mat2)";
  const char* math_note = math && e < 4 ? "SDPA's math path keeps fp32 copies of q, k and v (torch >= 2.5)" : "";
  // In the first layer under LoRA only adapted projections carry gradients: scores = q.k^T
  // keeps q for K's gradient and k for Q's; P.V keeps V when the scores need a gradient.
  const uint32_t lt = c.lora_targets;
  const bool q_grad = (lt & kLoraQ) != 0, k_grad = (lt & kLoraK) != 0, v_grad = (lt & kLoraV) != 0;
  auto emit = [&](LayerTensor t, bool first_layer) {
    t.first_layer_kept = first_layer;
    f_attention(t);
  };
  emit(LayerTensor{LayerGroup::kAttention, "q", gpt2 ? "Query Q" : "Query Q (after RoPE)", qkv_bytes, "sb*a*d_head",
                   w.sb * w.q, Split::kTp, qkv_node, math_note},
       k_grad);
  emit(LayerTensor{LayerGroup::kAttention, "k", expanded ? "Key K, repeated per query head" : "Key K", qkv_bytes,
                   expanded ? "sb*a*d_head" : "sb*kv*d_head", w.sb * kv_width, Split::kTp, qkv_node, repeat_note},
       q_grad);
  emit(LayerTensor{LayerGroup::kAttention, "v", expanded ? "Value V, repeated per query head" : "Value V", qkv_bytes,
                   expanded ? "sb*a*d_head" : "sb*kv*d_head", w.sb * v_width, Split::kTp, qkv_node, repeat_note},
       q_grad || k_grad);

  const double s2 = d.a * d.s_local * d.s * d.b;  // each GPU's queries against all keys
  if (!fused && keep_scores && eager && m.attn_sinks && !gpt2) {
    // gpt-oss's eager_attention_forward (transformers modeling_gpt_oss.py@6edf5b31): the sink logit
    // per head is concatenated to the scores, combined_logits.max(dim=-1) subtracted (MaxBackward0
    // keeps its int64 indices), softmax in the scores' own dtype (one tensor of s + 1 columns per
    // query, kept by SoftmaxBackward0 and, the sink column sliced off, a view of it by P.V). A
    // sliding window is only the additive mask: the eager path keeps all s x s scores in those layers
    // too (measured: tests/truth/measure_linear_layers.py, gpt_oss_attention_eager_*_sw16).
    const double s2_sink = d.a * d.s_local * (d.s + 1) * d.b;
    emit(LayerTensor{LayerGroup::kAttention, "softmax", "Softmax output with the sink column (s x (s+1) per head)", e,
                     "as(s+1)b", s2_sink, Split::kTp, "SoftmaxBackward0 (result), MmBackward0 (self) of P.V",
                     "one softmax in the activation dtype, over the keys and the head's sink logit"},
         q_grad || k_grad || (!c.dropout && v_grad));
    emit(LayerTensor{LayerGroup::kAttention, "sink_max_indices", "Max-subtraction indices (int64)", 8, "asb",
                     d.a * w.sb, Split::kTp, "MaxBackward0 (indices)",
                     "not in the paper: combined_logits.max(dim=-1) keeps where each row's maximum was"},
         q_grad || k_grad);
    if (c.dropout) {
      emit(LayerTensor{LayerGroup::kAttention, "attn_dropout_mask", "Attention dropout mask (bool)", 1, "as^2b", s2,
                       Split::kTp, "NativeDropoutBackward0 (mask)", ""},
           q_grad || k_grad);
      emit(LayerTensor{LayerGroup::kAttention, "attn_dropout_out", "Attention dropout output (P.V input)", e, "as^2b",
                       s2, Split::kTp, "BmmBackward0 (self)", ""},
           v_grad);
    }
  } else if (!fused && keep_scores) {
    // Llama-like eager: softmax(dtype=float32) keeps its fp32 result; .to(dtype) makes the
    // copy P.V keeps. GPT-2 eager takes the softmax in the activation dtype (one tensor,
    // kept by both); the math path's is fp32 after its upcast.
    const bool fp32_softmax = (eager && !gpt2) || math;
    const double soft_bytes = fp32_softmax ? 4 : e;
    const bool one_tensor = soft_bytes == e || math;  // the softmax output is P.V's input
    emit(LayerTensor{LayerGroup::kAttention, "softmax",
                     fp32_softmax ? "Softmax output (fp32, s x s per head)" : "Softmax output (s x s per head)",
                     soft_bytes, "as^2b", s2, Split::kTp, "SoftmaxBackward0 (result)",
                     fp32_softmax && e < 4 ? "the paper keeps a 16-bit softmax; this one is computed and kept in fp32"
                                           : ""},
         q_grad || k_grad || (one_tensor && !c.dropout && v_grad));
    if (c.dropout) {
      emit(LayerTensor{LayerGroup::kAttention, "attn_dropout_mask", "Attention dropout mask (bool)", 1, "as^2b", s2,
                       Split::kTp, "NativeDropoutBackward0 (mask)", ""},
           q_grad || k_grad);
      emit(LayerTensor{LayerGroup::kAttention, "attn_dropout_out", "Attention dropout output (P.V input)", math ? 4 : e,
                       "as^2b", s2, Split::kTp, "BmmBackward0 (self)", ""},
           v_grad);
    } else if (!one_tensor) {
      emit(LayerTensor{LayerGroup::kAttention, "softmax_copy", "Softmax cast back (P.V input)", e, "as^2b", s2,
                       Split::kTp, "BmmBackward0 (self)",
                       "not in the paper: the fp32 softmax and its 16-bit copy are both kept"},
           v_grad);
    }
  }
  if (fused) {
    f_attention(LayerTensor{LayerGroup::kAttention, "softmax_stats", "Softmax statistics (logsumexp, fp32)", 4, "asb",
                            d.a * w.sb, Split::kTp, "the fused attention kernel (logsumexp)", ""});
  }
  // Qwen3-Next's output gate (Qwen3NextAttention.forward, transformers
  // modeling_qwen3_next.py@01cdc6081c75): q_proj's output is torch.chunk'ed into query and gate,
  // gate.reshape(...) copies the gate half, attn_output * torch.sigmoid(gate) goes to o_proj.
  // SigmoidBackward0 keeps its result, which MulBackward0 keeps too (other); MulBackward0 keeps the
  // attention output before the gate (self, for the gate's gradient; a fused kernel's own output);
  // o_proj keeps the gated product (below, when its weight trains).
  if (m.attn_output_gate) {
    emit(LayerTensor{LayerGroup::kAttention, "attn_output_pregate", "Attention output before the gate", e,
                     "sb*a*d_head", w.sb * w.out, Split::kTp,
                     fused ? "the fused attention kernel (output), MulBackward0 (self) of x sigmoid(gate)"
                           : "MulBackward0 (self) of x sigmoid(gate)",
                     "not in the paper: the output gate keeps the attention output and its gate's sigmoid"},
         fused || q_grad);
    emit(LayerTensor{LayerGroup::kAttention, "attn_gate_sigmoid", "Output gate: sigmoid(gate)", e, "sb*a*d_head",
                     w.sb * w.out, Split::kTp, "SigmoidBackward0 (result), MulBackward0 (other)", ""},
         q_grad || k_grad || v_grad);
    if (LinearKeepsInput(d, kLoraO)) {
      f_attention(LayerTensor{LayerGroup::kAttention, "o_input", "Gated attention output (o_proj input)", e,
                              "sb*a*d_head", w.sb * w.out, Split::kTp, "MmBackward0 (self) of o_proj", ""});
    }
  }
  // The attention output: a fused kernel keeps it (it is also o_proj's input, one
  // storage); otherwise o_proj keeps the contiguous copy when its weight trains.
  if (!m.attn_output_gate && (fused || LinearKeepsInput(d, kLoraO))) {
    f_attention(LayerTensor{
        LayerGroup::kAttention, "o_input", "Attention output (o_proj input)", e, "sb*a*d_head", w.sb * w.out,
        Split::kTp,
        fused ? "the fused attention kernel (output), MmBackward0 of o_proj" : "MmBackward0 (self) of o_proj", ""});
  }
  if (c.dropout && gpt2) {
    f_attention(LayerTensor{LayerGroup::kAttention, "attn_residual_mask", "Residual dropout mask (bool)", 1, "sbh",
                            w.sb * d.h, Split::kSp, "NativeDropoutBackward0 (mask)", ""});
  }
  // The linear layers' mixers (Gated DeltaNet, Mamba-2, KDA), in their share of the layers.
  auto f_linear = Shared(LinearShare(m), f_all);
  if (LinearShare(m) > 0) {
    if (m.linear_kind == LinearKind::kMamba2 && c.linear_kernels == LinearKernels::kTorch)
      detail::Mamba2TorchTensors(d, w, f_linear);
    else if (m.linear_kind == LinearKind::kMamba2)
      detail::Mamba2Tensors(d, w, f_linear);
    else if (m.linear_kind == LinearKind::kKda)
      detail::KdaTensors(d, w, f_linear);
    else if (c.linear_kernels == LinearKernels::kTorch)
      detail::GatedDeltaNetTorchTensors(d, w, f_linear);
    else
      detail::GatedDeltaNetTensors(d, w, f_linear);
  }
  auto f_mlp = Shared(MlpShare(m), f_all);
  detail::HfMlp(d, w, f_mlp);
  // Rows are grouped (attention, MLP, norms, LoRA) so the breakdown opens each group once.
  detail::HfNorm(d, w, true, 1, f);
  const double other_norms = static_cast<double>(m.norms_per_layer) - 1;  // Falcon/Phi-2: one; Gemma 2/3: four
  if (other_norms > 0) detail::HfNorm(d, w, false, other_norms, f);
  if (m.qk_norm != QkNorm::kNone) {
    // With the output gate in an fp32 activation stream x.float() is q_proj's output itself, a view
    // whose storage holds the gate half too (torch.chunk): the kept storage is twice the query's.
    const double q_in = m.attn_output_gate && e == 4 ? 2 * w.q : w.q;
    f_attention(LayerTensor{LayerGroup::kNorms, "qk_norm_inputs", "Q/K norms: fp32 inputs and rsqrt", 4,
                            "sb((a+kv)d_head + a+kv)", w.sb * (q_in + w.kv + d.a + d.kv), Split::kTp,
                            "PowBackward0, RsqrtBackward0",
                            q_in != w.q ? "in fp32 the query's norm keeps q_proj's output, query and gate, as its input"
                                        : "HF's per-head RMSNorm keeps fp32 copies where the paper keeps 16-bit inputs"});
    if (m.norm_unit_offset) {  // Qwen3NextRMSNorm as q_norm and k_norm: see HfNorm
      if (!d.adapters) {
        f_attention(LayerTensor{LayerGroup::kNorms, "qk_norm_normalised", "Q/K norms: normalised (fp32)", 4,
                                "sb(a+kv)d_head", w.sb * (w.q + w.kv), Split::kTp,
                                "MulBackward0 (self) of normalised x (1 + weight)", ""});
      }
      f_attention(LayerTensor{LayerGroup::kNorms, "qk_norm_scale", "Q/K norms: 1 + weight (fp32)", 4, "2 d_head",
                              2 * static_cast<double>(m.head_dim), Split::kSp,
                              "MulBackward0 (other) of normalised x (1 + weight)", ""});
    } else if (!d.adapters) {
      f_attention(LayerTensor{LayerGroup::kNorms, "qk_norm_normalised", "Q/K norms: normalised, cast back", e,
                              "sb(a+kv)d_head", w.sb * (w.q + w.kv), Split::kTp, "MulBackward0 (other)", ""});
    }
  }
  ForEachPeftTensor(d, w, f);
  if (CastsWeights(c)) {
    f(LayerTensor{LayerGroup::kCasts, "weight_casts", "Autocast's 16-bit copies of the layer's weights", e, "P_layer",
                  d.layer_matmul_params, Split::kTp, "MmBackward0 (mat2), autocast's cast cache",
                  "not in the paper: under AMP every matmul reads a 16-bit copy of its fp32 weight"});
  }
}

}  // namespace llmmem::core
