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

namespace llmmem::core {

// GPT-2 and BERT: learned positions and LayerNorm (modeling_gpt2.py, modeling_bert.py).
inline bool IsGpt2Family(const ModelSpec& m) { return m.norm == NormKind::kLayerNorm && m.learned_positions > 0; }

// PEFT's adapted Linear casts its input to the adapters' dtype and applies lora_dropout
// before lora_A; either makes lora_A keep its own copy rather than the shared input. Under
// autocast lora_A casts that input once more, to the autocast format.
inline bool AdapterKeepsOwnInput(const Config& c) {
  return c.lora_dropout || Info(AdapterDtype(c)).bits != StreamBytes(c) * 8 || StreamBytes(c) != ActivationBytes(c);
}

// What a norm hands the next matmuls: under autocast layer_norm runs in fp32 and returns
// fp32; HF's RMSNorm casts back to its input's format (the stream's).
inline double NormOutputBytes(const Config& c) {
  return Autocast(c) && c.model.norm == NormKind::kLayerNorm ? 4.0 : StreamBytes(c);
}

// Autocast caches no cast of an activation (only of leaf weights), so when the norm's output
// is not in the autocast format every projection reading it makes and keeps its own copy:
// q, k and v (GPT-2's c_attn: one; MLA's q_a and kv_a: two), gate and up.
inline double CastCopies(const Derived& d, double separate_linears) {
  return NormOutputBytes(d.c) != ActivationBytes(d.c) ? separate_linears : 1.0;
}

// Autocast's 16-bit copy of each weight a matmul reads: cached for the autocast region
// (leaf weights that require grad) and kept by MmBackward0 (mat2) for the input's gradient.
// None when the weights are already in the autocast format (or NF4: bitsandbytes
// dequantises them itself and keeps only the packed weight).
inline bool CastsWeights(const Config& c) {
  return Autocast(c) && c.mode != Mode::kQlora && StreamBytes(c) != ActivationBytes(c);
}

// bitsandbytes 0.42's MatMul4Bit.forward: `if any(ctx.needs_input_grad[:2]): ctx.tensors = (A, B)`
// (bitsandbytes/autograd/_functions.py@0.42.0:522-523), so a frozen 4-bit Linear keeps its
// input whenever that input needs a gradient; later versions keep (None, B).
inline bool BnbKeepsInputs(const Config& c) { return c.bnb_saves_inputs && c.mode == Mode::kQlora; }

// Does a Linear's input stay saved? When its weight trains (full training), or when a
// LoRA adapter on it keeps that very tensor (lora_A with no cast and no dropout).
inline bool LinearKeepsInput(const Derived& d, uint32_t lora_bits) {
  return !d.adapters || ((d.c.lora_targets & lora_bits) != 0 && !AdapterKeepsOwnInput(d.c)) || BnbKeepsInputs(d.c);
}

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

// Linear layers whose saved tensors are counted from their kernels below: Gated DeltaNet, Mamba-2
// and Kimi Delta Attention.
inline bool CountsLinearMixer(const ModelSpec& m) { return m.linear_layers > 0; }

// Shares of the model's layers with softmax attention, with a linear mixer, with an MLP.
inline double AttentionShare(const ModelSpec& m) {
  if (m.layers <= 0) return 1.0;
  const int64_t attention = CountsLinearMixer(m) ? m.AttentionLayers() : m.layers - m.mixer_free_layers;
  return std::max(0.0, static_cast<double>(attention) / static_cast<double>(m.layers));
}
inline double LinearShare(const ModelSpec& m) {
  if (m.layers <= 0 || !CountsLinearMixer(m)) return 0.0;
  return std::min(1.0, static_cast<double>(m.linear_layers) / static_cast<double>(m.layers));
}
inline double MlpShare(const ModelSpec& m) {
  if (m.layers <= 0) return 1.0;
  return std::max(0.0, static_cast<double>(m.MlpLayers()) / static_cast<double>(m.layers));
}

// Calls f for each row with its share multiplied by `share`; none when the share is 0.
template <class F>
auto Shared(double share, F& f) {
  return [share, &f](LayerTensor t) {
    if (share <= 0) return;
    t.share *= share;
    f(t);
  };
}

namespace detail {

// fla's chunked kernels work on chunks of 64 tokens: chunk_local_cumsum(g, chunk_size=64) and the
// WY matrix A = solve_tril(chunk_scaled_dot_kkt_fwd(...)) of shape (b, s, heads, 64)
// (fla ops/gated_delta_rule/chunk.py@92396f2 chunk_gated_delta_rule_fwd).
inline constexpr double kFlaChunk = 64;

// One Gated DeltaNet layer (Qwen3NextGatedDeltaNet.forward, transformers
// modeling_qwen3_next.py@7515843b617551b008901620ca58f1208bbc330d) as it runs with
// flash-linear-attention and causal-conv1d installed, the path users who train these models run
// (is_fast_path_available). Counted: what each autograd node or Function keeps.
//   in_proj_qkvz / in_proj_ba: their input (MmBackward0 self);
//   causal_conv1d_fn: CausalConv1dFn saves x (the cat of q, k, v, channel-last, no copy), weight,
//     bias (causal-conv1d causal_conv1d_interface.py@dedc05ff ctx.save_for_backward);
//   beta = b.sigmoid(): SigmoidBackward0 keeps its result, which the kernel saves too;
//   g = -A_log.float().exp() * softplus(a.float() + dt_bias): SoftplusBackward0 keeps its fp32
//     input, MulBackward0 the fp32 softplus and the fp32 -exp(A_log) per head (ExpBackward0 its result);
//   chunk_gated_delta_rule: ChunkGatedDeltaRuleFunction saves q, q_rstd, k, k_rstd, v, g, beta, A
//     (fla ops/gated_delta_rule/chunk.py@92396f2): q and k l2-normalised (new tensors, per value
//     head after repeat_interleave), one fp32 rstd per token and head each, v made contiguous by
//     @input_guard (a copy: it is a view of the conv's output), g the fp32 chunk-local cumsum, A in
//     k's dtype, 64 per token and head; the rest (w, u, h, v_new) is recomputed in backward;
//   FusedRMSNormGated: LayerNormGatedFunction saves x (the kernel's output o), g (z), weight and an
//     fp32 rstd per row of head_v_dim (fla modules/fused_norm_gate.py@46e7632);
//   out_proj: its input (MmBackward0 self).
// transformers' torch fallback (torch_chunk_gated_delta_rule, nn.Conv1d, Qwen3NextRMSNormGated)
// keeps every intermediate of its chunk loop instead (24x the kernels' bytes in
// tests/truth/measure_linear_layers.py): GatedDeltaNetTorchTensors, with linear_kernels torch.
template <class F>
void GatedDeltaNetTensors(const Derived& d, const LayerWidths& w, F&& f) {
  const ModelSpec& m = d.c.model;
  const double e = ActivationBytes(d.c);
  const double hv = static_cast<double>(m.linear_v_heads), dk = static_cast<double>(m.linear_k_dim);
  const double key = static_cast<double>(m.linear_k_heads) * dk, value = hv * static_cast<double>(m.linear_v_dim);
  auto row = [&](const char* id, const char* name, double bytes, const char* dims, double elements, Split split,
                 const char* node) {
    LayerTensor t{LayerGroup::kLinearMixer, id, name, bytes, dims, elements, split, node, ""};
    t.first_layer_kept = !d.adapters;  // under LoRA nothing in the first layer's mixer needs a gradient
    f(t);
  };
  if (LinearKeepsInput(d, 0))
    row("gdn_in_input", "In projections' input (norm output)", e, "sbh", w.sb * d.h, Split::kSp,
        "MmBackward0 (self) of in_proj_qkvz and in_proj_ba");
  row("gdn_conv_input", "Causal conv input (q, k, v concatenated)", e, "sb(2 k_heads k_dim + v_heads v_dim)",
      w.sb * (2 * key + value), Split::kTp, "CausalConv1dFn (x)");
  row("gdn_beta", "Beta = sigmoid(b)", e, "sb*v_heads", w.sb * hv, Split::kTp,
      "SigmoidBackward0 (result), ChunkGatedDeltaRuleFunction (beta)");
  row("gdn_gate", "Decay gate: softplus input and output (fp32)", 4, "sb(2 v_heads)", 2 * w.sb * hv, Split::kTp,
      "SoftplusBackward0 (self), MulBackward0 (other)");
  row("gdn_qk", "Q and K, l2-normalised, per value head", e, "sb(2 v_heads k_dim)", 2 * w.sb * hv * dk, Split::kTp,
      "ChunkGatedDeltaRuleFunction (q, k)");
  row("gdn_v", "V, made contiguous", e, "sb*v_heads*v_dim", w.sb * value, Split::kTp,
      "ChunkGatedDeltaRuleFunction (v)");
  row("gdn_wy", "WY matrix A, 64 per token and head", e, "sb(64 v_heads)", kFlaChunk * w.sb * hv, Split::kTp,
      "ChunkGatedDeltaRuleFunction (A)");
  row("gdn_stats", "Q/K rstd, cumulated gate, norm rstd (fp32)", 4, "sb(4 v_heads)", 4 * w.sb * hv, Split::kTp,
      "ChunkGatedDeltaRuleFunction (q_rstd, k_rstd, g), LayerNormGatedFunction (rstd)");
  row("gdn_norm", "Gated norm: kernel output and gate z", e, "sb(2 v_heads v_dim)", 2 * w.sb * value, Split::kTp,
      "LayerNormGatedFunction (x, g)");
  if (LinearKeepsInput(d, 0))
    row("gdn_out_input", "Out projection input (gated norm output)", e, "sb*v_heads*v_dim", w.sb * value, Split::kTp,
        "MmBackward0 (self) of out_proj");
  row("gdn_decay", "-exp(A_log) per head (fp32)", 4, "(2 v_heads)", 2 * hv, Split::kTp,
      "ExpBackward0 (result), MulBackward0 (self)");
}

// One Gated DeltaNet layer through transformers' torch fallback (linear_kernels torch: neither
// flash-linear-attention nor causal-conv1d installed): nn.Conv1d + silu, torch_chunk_gated_delta_rule
// (chunk_size 64, use_qk_l2norm_in_kernel) and Qwen3NextRMSNormGated, modeling_qwen3_next.py@7515843b6175
// as replicas_linear.py runs it op for op. Autograd keeps, with n = ceil(s / 64) chunks of C = 64
// and S = n C padded tokens per sequence (all of the rule in fp32):
//   the conv's input and the silu's input (the conv's output, s + conv - 1 columns); beta's sigmoid; the
//   gate's fp32 softplus input and output and -exp(A_log);
//   l2norm: each of q and k (repeat_interleave's copies; without repetition both are views of the
//   conv's output, that one storage) and its rsqrt per row;
//   per padded token and head: the fp32 value, key, beta, query (scaled), k_beta, v_beta, exp(g),
//   k_beta exp(g), each chunk's exp(g_i), k_cumdecay from the second chunk on;
//   per chunk, six C x C fp32 matrices (exp of the decay, k_beta k^T, the decay mask, attn after the
//   eye, q_i k_i^T and its masked product) and the forward substitution's clones, row i and the
//   i x i block for i = 1..63; two C x C bool masks;
//   the chunk loop: the state entering each chunk (dk x dv per head), q_i exp(g_i) from the second
//   chunk on, v_new, exp(g_last), exp(g_last - g_i) and k_i exp(...) per chunk;
//   the gated norm: the fp32 upcast, rsqrt, the normalised tensor cast back (for the weight), the
//   weighted product, the fp32 gate and silu(gate) (in fp32 without repetition the gate is a view of
//   in_proj_qkvz's output, that storage);
//   in_proj's and out_proj's inputs when their weights train.
// torch 1.13 keeps two more (MeanBackward1's x^2, index_select's index): test_linear_layers.cpp adds them.
template <class F>
void GatedDeltaNetTorchTensors(const Derived& d, const LayerWidths& w, F&& f) {
  const ModelSpec& m = d.c.model;
  const double e = ActivationBytes(d.c);
  const double hk = static_cast<double>(m.linear_k_heads), hv = static_cast<double>(m.linear_v_heads);
  const double dk = static_cast<double>(m.linear_k_dim), dv = static_cast<double>(m.linear_v_dim);
  const double key = hk * dk, value = hv * dv, conv_dim = 2 * key + value, T = w.sb, b = d.b;
  const double s = d.s_local, C = kFlaChunk, n = std::ceil(s / C), S = n * C, bh = b * hv;
  const bool repeated = m.linear_v_heads > m.linear_k_heads;
  auto row = [&](const char* id, const char* name, double bytes, const char* dims, double elements, Split split,
                 const char* node) {
    LayerTensor t{LayerGroup::kLinearMixer, id, name, bytes, dims, elements, split, node,
                  "transformers' torch fallback: every chunk's intermediates kept"};
    t.first_layer_kept = !d.adapters;
    f(t);
  };
  const bool trains = LinearKeepsInput(d, 0);
  if (trains)
    row("gdn_in_input", "In projections' input (norm output)", e, "sbh", T * d.h, Split::kSp,
        "MmBackward0 (self) of in_proj_qkvz and in_proj_ba");
  row("gdnt_conv", "Conv1d input and its padded output (silu input)", e, "b(2 k_heads k_dim + v_heads v_dim)(2s + conv - 1)",
      T * conv_dim + b * conv_dim * (s + static_cast<double>(m.linear_conv) - 1), Split::kTp,
      "ConvolutionBackward0 (input), SiluBackward0 (self)");
  row("gdn_beta", "Beta = sigmoid(b)", e, "sb*v_heads", T * hv, Split::kTp, "SigmoidBackward0 (result)");
  row("gdnt_gate", "Decay gate: softplus input and output, -exp(A_log) (fp32)", 4, "2 sb v_heads + 2 v_heads",
      2 * T * hv + 2 * hv, Split::kTp, "SoftplusBackward0 (self), MulBackward0, ExpBackward0 (result)");
  row("gdnt_l2norm", "l2norm: q and k, their rsqrt per row", e,
      repeated ? "sb(2 v_heads k_dim + 2 v_heads)" : "sb(2 k_heads k_dim + v_heads v_dim + 2 v_heads)",
      (repeated ? 2 * T * hv * dk : T * conv_dim) + 2 * T * hv, Split::kTp, "MulBackward0 (self, other), RsqrtBackward0");
  row("gdnt_tokens", "Padded fp32 q, k, v, beta, gates and their products per token", 4,
      "bS*v_heads(2 v_dim + 4 k_dim + 3)", b * S * hv * (2 * dv + 4 * dk + 3 + (n >= 2 ? dk : 0)), Split::kTp,
      "MulBackward0, BmmBackward0, ExpBackward0 of torch_chunk_gated_delta_rule");
  row("gdnt_chunk_matrices", "Six 64 x 64 matrices per chunk and head (fp32)", 4, "6 b v_heads n 64^2",
      6 * bh * n * C * C, Split::kTp, "ExpBackward0, MulBackward0, BmmBackward0 (decay mask, attn, q k^T)");
  row("gdnt_substitution", "Forward substitution's clones, rows and blocks (fp32)", 4,
      "b v_heads n sum(i + i^2), i < 64", bh * n * ((C - 1) * C / 2 + (C - 1) * C * (2 * C - 1) / 6), Split::kTp,
      "MulBackward0 (self, other) of row x sub");
  row("gdnt_masks", "Causal masks (bool, 64 x 64)", 1, "2 x 64^2", 2 * C * C, Split::kTp,
      "MaskedFillBackward0 (mask)");
  row("gdnt_loop", "Chunk loop: states, v_new, decays, decayed keys (fp32)", 4,
      "b v_heads(n k_dim v_dim + (n-1)64 k_dim + n 64(v_dim + k_dim + 1) + n)",
      bh * (n * dk * dv + (n - 1) * C * dk + n * C * (dv + dk + 1) + n), Split::kTp,
      "MulBackward0, BmmBackward0 (mat2) of the recurrence");
  const double gate = e == 4 && !repeated ? T * (2 * key + 2 * value) : T * value;
  row("gdnt_norm_fp32", "Gated norm: fp32 upcast, rsqrt, gate and silu(gate)", 4,
      repeated || e != 4 ? "sb(3 v_heads v_dim + v_heads)" : "sb(2 v_heads v_dim + v_heads + 2 k_heads k_dim + 2 v_heads v_dim)",
      2 * T * value + gate + T * hv, Split::kTp, "MulBackward0, RsqrtBackward0, SiluBackward0 (self)");
  row("gdnt_norm", "Gated norm: weighted product and its normalised input, cast back", e, "sb(2 v_heads v_dim)",
      (trains ? 2 : 1) * T * value, Split::kTp, "MulBackward0 (self, other) of weight x normalised x silu(gate)");
  if (trains)
    row("gdn_out_input", "Out projection input (gated norm output)", e, "sb*v_heads*v_dim", T * value, Split::kTp,
        "MmBackward0 (self) of out_proj");
}

// One Mamba-2 mixer (NemotronHMamba2Mixer, transformers modeling_nemotron_h.py@897753a012bf;
// Bamba / Granite-4.0-H and Falcon-H1 alike) as cuda_kernels_forward trains it with mamba_ssm and
// causal-conv1d installed: in_proj, then mamba_split_conv1d_scan_combined with the gated norm and
// out_proj inside. MambaSplitConv1dScanCombinedFn (state-spaces/mamba
// mamba_ssm/ops/triton/ssd_combined.py@d757aef189a5) saves zxbcdt (in_proj's output: z, x, B, C,
// dt), the scan output out_x before the norm, the norm's fp32 rstd per token and group, A and the
// weights; the conv, the scan's states and out_proj's input are recomputed in backward. A =
// -exp(A_log.float()): ExpBackward0 keeps its fp32 result, the Function A. torch_forward (the
// naive SSD without mamba_ssm) keeps its (chunk x chunk) intermediates instead (11x the kernel's
// bytes in tests/truth/measure_linear_layers.py): Mamba2TorchTensors, with linear_kernels torch.
template <class F>
void Mamba2Tensors(const Derived& d, const LayerWidths& w, F&& f) {
  const ModelSpec& m = d.c.model;
  const double e = ActivationBytes(d.c);
  const double heads = static_cast<double>(m.linear_v_heads), groups = static_cast<double>(m.linear_k_heads);
  const double inner = heads * static_cast<double>(m.linear_v_dim);
  const double bc = groups * static_cast<double>(m.linear_k_dim);  // n_groups x d_state
  auto row = [&](const char* id, const char* name, double bytes, const char* dims, double elements, Split split,
                 const char* node) {
    LayerTensor t{LayerGroup::kLinearMixer, id, name, bytes, dims, elements, split, node, ""};
    t.first_layer_kept = !d.adapters;
    f(t);
  };
  if (LinearKeepsInput(d, 0))
    row("mamba_in_input", "In projection input (norm output)", e, "sbh", w.sb * d.h, Split::kSp,
        "MmBackward0 (self) of in_proj");
  row("mamba_zxbcdt", "In projection output: z, x, B, C, dt", e, "sb(2 d_inner + 2 n_groups d_state + heads)",
      w.sb * (2 * inner + 2 * bc + heads), Split::kTp, "MambaSplitConv1dScanCombinedFn (zxbcdt)");
  row("mamba_out_x", "Scan output before the gated norm", e, "sb*d_inner", w.sb * inner, Split::kTp,
      "MambaSplitConv1dScanCombinedFn (out_x)");
  if (m.linear_norm)
    row("mamba_rstd", "Gated norm rstd per group (fp32)", 4, "sb*n_groups", w.sb * groups, Split::kTp,
        "MambaSplitConv1dScanCombinedFn (rstd)");
  row("mamba_a", "A = -exp(A_log) per head (fp32)", 4, "(2 heads)", 2 * heads, Split::kTp,
      "ExpBackward0 (result), MambaSplitConv1dScanCombinedFn (A)");
}

// One Kimi Delta Attention layer (KimiDeltaAttention.forward in the checkpoint's own
// modeling_kimi.py, moonshotai/Kimi-Linear-48B-A3B-Instruct, which imports flash-linear-attention
// and asks for v0.4.0: fla-org/flash-linear-attention@2e0f6c31f9db50f010cb157c712c048b8a3a89d2) in
// training. Heads H = num_heads, head_dim D, P = H x D for q, k, v and both gates. Counted:
//   q/k/v_proj, f_a_proj, g_a_proj, b_proj: their shared input (MmBackward0 self);
//   q/k/v_conv1d (ShortConvolution, default triton backend): CausalConv1dFunction saves its input x,
//     each projection's (b, t, P) output, weight and bias (fla/modules/convolution.py);
//   f_b_proj and g_b_proj: their D-wide inputs, the f_a / g_a outputs (MmBackward0 self);
//   fused_kda_gate: KDAGateFunction saves g, f_b_proj's output, and A (fla/ops/kda/gate.py); it
//     returns -exp(A) softplus(g + dt_bias) in fp32, one decay per key channel;
//   beta = b_proj(x).float().sigmoid(): SigmoidBackward0 keeps its fp32 result, saved by the kernel too;
//   chunk_kda: ChunkKDAFunction saves q, q_rstd, k, k_rstd, v, g, beta, Aqk, Akk (fla/ops/kda/chunk.py):
//     q and k l2-normalised (new tensors) with one fp32 rstd per token and head, v the conv's output,
//     g the fp32 chunk-local cumsum of the per-channel gate (P per token where Gated DeltaNet keeps one
//     per head), Aqk fp32 and Akk in k's dtype, 64 per token and head each (chunk_kda_fwd_intra
//     output_dtype=torch.float32, solve_tril output_dtype=k.dtype); w, u, h, v_new are recomputed;
//   o_norm (FusedRMSNormGated, sigmoid): LayerNormGatedFunction saves x (the kernel's output), g
//     (g_b_proj's output), weight and an fp32 rstd per token and head (fla/modules/fused_norm_gate.py);
//   o_proj: its input (MmBackward0 self).
// Measured: tests/truth/measure_linear_layers.py (kda_kernels_*), equal to the byte.
template <class F>
void KdaTensors(const Derived& d, const LayerWidths& w, F&& f) {
  const ModelSpec& m = d.c.model;
  const double e = ActivationBytes(d.c);
  const double heads = static_cast<double>(m.linear_v_heads), dim = static_cast<double>(m.linear_v_dim);
  const double p = heads * dim;
  auto row = [&](const char* id, const char* name, double bytes, const char* dims, double elements, Split split,
                 const char* node) {
    LayerTensor t{LayerGroup::kLinearMixer, id, name, bytes, dims, elements, split, node, ""};
    t.first_layer_kept = !d.adapters;  // under LoRA nothing in the first layer's mixer needs a gradient
    f(t);
  };
  const bool trains = LinearKeepsInput(d, 0);
  if (trains)
    row("kda_in_input", "Projections' input (norm output)", e, "sbh", w.sb * d.h, Split::kSp,
        "MmBackward0 (self) of q/k/v_proj, f_a_proj, g_a_proj, b_proj");
  row("kda_conv_inputs", "Short conv inputs (q, k, v projections)", e, "sb(3 heads head_dim)", 3 * w.sb * p,
      Split::kTp, "CausalConv1dFunction (x) of q/k/v_conv1d");
  if (trains)
    row("kda_low_rank", "Gates' low-rank inputs (f_a, g_a outputs)", e, "sb(2 head_dim)", 2 * w.sb * dim, Split::kSp,
        "MmBackward0 (self) of f_b_proj and g_b_proj");
  row("kda_gate_input", "Decay gate input (f_b_proj output)", e, "sb*heads*head_dim", w.sb * p, Split::kTp,
      "KDAGateFunction (g)");
  row("kda_beta", "Beta = sigmoid(b) (fp32)", 4, "sb*heads", w.sb * heads, Split::kTp,
      "SigmoidBackward0 (result), ChunkKDAFunction (beta)");
  row("kda_qk", "Q and K, l2-normalised", e, "sb(2 heads head_dim)", 2 * w.sb * p, Split::kTp,
      "ChunkKDAFunction (q, k)");
  row("kda_v", "V (conv output)", e, "sb*heads*head_dim", w.sb * p, Split::kTp, "ChunkKDAFunction (v)");
  row("kda_g_cumsum", "Per-channel decay, chunk-local cumsum (fp32)", 4, "sb*heads*head_dim", w.sb * p, Split::kTp,
      "ChunkKDAFunction (g)");
  row("kda_aqk", "Intra-chunk Aqk, 64 per token and head (fp32)", 4, "sb(64 heads)", kFlaChunk * w.sb * heads,
      Split::kTp, "ChunkKDAFunction (Aqk)");
  row("kda_akk", "Intra-chunk Akk inverse, 64 per token and head", e, "sb(64 heads)", kFlaChunk * w.sb * heads,
      Split::kTp, "ChunkKDAFunction (Akk)");
  row("kda_stats", "Q/K rstd, norm rstd (fp32)", 4, "sb(3 heads)", 3 * w.sb * heads, Split::kTp,
      "ChunkKDAFunction (q_rstd, k_rstd), LayerNormGatedFunction (rstd)");
  row("kda_norm", "Gated norm: kernel output and gate", e, "sb(2 heads head_dim)", 2 * w.sb * p, Split::kTp,
      "LayerNormGatedFunction (x, g)");
  if (trains)
    row("kda_out_input", "Out projection input (gated norm output)", e, "sb*heads*head_dim", w.sb * p, Split::kTp,
        "MmBackward0 (self) of o_proj");
}

// One Mamba-2 mixer through transformers' torch fallback (linear_kernels torch: no mamba_ssm /
// causal-conv1d): NemotronHMamba2Mixer.torch_forward (modeling_nemotron_h.py@897753a012bf, the naive
// SSD without einsums, Zamba2RMSNormGated) as replicas_linear.py runs it op for op. With chunk
// C = linear_chunk, n = ceil(s / C) chunks and S = n C padded tokens, autograd keeps:
//   the conv's input (a view of in_proj's output: all of it) and the silu's input (the conv's output,
//   s + conv - 1 columns); dt's softplus input, clamp input and the clamped dt; A = -exp(A_log);
//   x (fp32, for x dt; in fp32 a view of the silu's output, that storage), per padded token the
//   D-residual's padded x, x, B and C in chunks, B decayed, the decay of the states and of the output
//   (per head), C times the states summed;
//   per chunk and head three C x C fp32 tensors (L = exp(segsum), G, M); per head (n+1)^2 chunk
//   decays, the (n+1) states and their decayed sum (head_dim x d_state each); four bool masks;
//   the gated norm: y (the padded sum, fp32), the fp32 gate (in fp32 a view of in_proj's output,
//   already counted), silu(gate), the gated product, rsqrt per group, the normalised tensor;
//   in_proj's and out_proj's inputs when their weights train.
// torch 1.13 keeps two more (MeanBackward1's x^2, repeat_interleave's index): test_linear_layers.cpp
// adds them. Without the gated norm (Falcon-H1's mamba_rms_norm off) its rows are left out, unmeasured.
template <class F>
void Mamba2TorchTensors(const Derived& d, const LayerWidths& w, F&& f) {
  const ModelSpec& m = d.c.model;
  const double e = ActivationBytes(d.c);
  const double H = static_cast<double>(m.linear_v_heads), hd = static_cast<double>(m.linear_v_dim);
  const double G = static_cast<double>(m.linear_k_heads), ds = static_cast<double>(m.linear_k_dim);
  const double inner = H * hd, conv_dim = inner + 2 * G * ds, proj = inner + conv_dim + H, T = w.sb, b = d.b;
  const double s = d.s_local, C = static_cast<double>(std::max<int64_t>(1, m.linear_chunk));
  const double n = std::ceil(s / C), S = n * C;
  auto row = [&](const char* id, const char* name, double bytes, const char* dims, double elements, Split split,
                 const char* node) {
    LayerTensor t{LayerGroup::kLinearMixer, id, name, bytes, dims, elements, split, node,
                  "transformers' torch fallback: every chunk's intermediates kept"};
    t.first_layer_kept = !d.adapters;
    f(t);
  };
  const bool trains = LinearKeepsInput(d, 0);
  if (trains)
    row("mamba_in_input", "In projection input (norm output)", e, "sbh", T * d.h, Split::kSp,
        "MmBackward0 (self) of in_proj");
  row("mambat_conv", "Conv1d input (in_proj's output) and its padded output (silu input)", e,
      "sb(2 d_inner + 2 n_groups d_state + heads) + b(d_inner + 2 n_groups d_state)(s + conv - 1)",
      T * proj + b * conv_dim * (s + static_cast<double>(m.linear_conv) - 1), Split::kTp,
      "ConvolutionBackward0 (input), SiluBackward0 (self)");
  row("mambat_dt", "dt: softplus input, clamp input, clamped dt", e, "3 sb heads", 3 * T * H, Split::kTp,
      "SoftplusBackward0, ClampBackward1 (self), MulBackward0 (other)");
  row("mamba_a", "A = -exp(A_log) per head (fp32)", 4, "(2 heads)", 2 * H, Split::kTp,
      "ExpBackward0 (result), MulBackward0 (self)");
  row("mambat_tokens", "x, B, C, their chunks, decays and products per token (fp32)", 4,
      e == 4 ? "sb(d_inner + 2 n_groups d_state) + bS(3 d_inner + 3 heads d_state + 2 heads)"
             : "sb d_inner + bS(3 d_inner + 3 heads d_state + 2 heads)",
      (e == 4 ? T * conv_dim : T * inner) + b * S * (3 * inner + 3 * H * ds + 2 * H), Split::kTp,
      "MulBackward0, ExpBackward0 of the naive SSD");
  row("mambat_chunk_matrices", "L, G and M: three C x C tensors per chunk and head (fp32)", 4, "3 b heads n C^2",
      3 * b * H * n * C * C, Split::kTp, "ExpBackward0 (result), MulBackward0 (self, other)");
  row("mambat_states", "Chunk states, their decays and decayed sums (fp32)", 4,
      "b heads (n+1)(2 head_dim d_state + n + 1)", b * H * (n + 1) * (2 * hd * ds + n + 1), Split::kTp,
      "MulBackward0 (self, other) of decay_chunk x states, C x states");
  row("mambat_masks", "Segment-sum masks (bool)", 1, "2 C^2 + 2 (n+1)^2", 2 * C * C + 2 * (n + 1) * (n + 1),
      Split::kTp, "MaskedFillBackward0 (mask)");
  if (m.linear_norm)
    row("mambat_norm", "Gated norm: y, gate, silu(gate), gated product, rsqrt, normalised (fp32)", 4,
        "bS d_inner + sb(3 d_inner + n_groups) (+ sb d_inner gate)",
        b * S * inner + T * ((e == 4 ? 2 : 3) * inner + G) + (trains ? T * inner : 0), Split::kTp,
        "MulBackward0, SiluBackward0, RsqrtBackward0 of Zamba2RMSNormGated");
  if (trains)
    row("mamba_out_input", "Out projection input", e, "sb*d_inner", T * inner, Split::kTp,
        "MmBackward0 (self) of out_proj");
}

}  // namespace detail

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
