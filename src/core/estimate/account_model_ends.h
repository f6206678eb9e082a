// Activations outside the transformer layers, on the first stage (token ids, position
// tables, embedding dropout) and the last (final norm, head input, the loss), by profile:
// Korthikanti et al. 2022 §4.3 for megatron; transformers' LlamaModel / GPT2Model and
// ForCausalLMLoss (logits.float(), then cross_entropy) for the HF profiles; Liger's
// fused linear cross-entropy, which never materialises the logits.
// Included at the end of account_activations.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "core/estimate/loss_paths.h"

namespace llmmem::core {

// How a model-end tensor divides over tensor-parallel GPUs, for its formula's "/t".
enum class EndSplit : uint8_t { kNone, kSp, kTp };

// One tensor of the model's ends. Plain pointers: the numeric path allocates nothing.
struct EndTensor {
  const char* id;
  const char* name;
  double elem_bytes;
  const char* dims;  // "sbh"
  EndSplit split;
  double elements;  // on this GPU
  const char* node;
  const char* vs_paper;
  const char* source;
  bool outlives_loss = false;  // the last stage's tensors die in the loss's backward unless this is set
};

namespace detail {

inline bool SplitShown(const Derived& d, EndSplit split) {
  return d.t > 1 && (split == EndSplit::kTp || (split == EndSplit::kSp && d.c.sp));
}

// Liger's fused linear cross-entropy works on chunks of next_pow2(ceil(BT / ceil(V / H)))
// rows (liger_kernel/ops/fused_linear_cross_entropy.py).
inline double LigerChunkRows(double tokens, double V, double h) {
  const double inc = std::ceil(V / std::max(1.0, h));
  const double rows = std::ceil(tokens / std::max(1.0, inc));
  return std::min(tokens, std::pow(2.0, std::ceil(std::log2(std::max(1.0, rows)))));
}

template <class F>
void ForEachFirstStageTensor(const Derived& d, F&& f) {
  const Config& c = d.c;
  const ModelSpec& m = c.model;
  const double sb = d.s_local * d.b;
  const double sp_share = c.sp ? 1.0 / d.t : 1.0;
  const bool hf = IsHuggingFace(c.framework);
  const bool gpt2 = IsGpt2Family(m);
  if (hf && !d.adapters) {
    f(EndTensor{"input_ids", "Token ids (int64)", 8, "sb", EndSplit::kNone, sb, "EmbeddingBackward0 (indices)",
                "not in the paper: the embedding keeps its int64 indices for the weight's gradient", src::kHfModeling});
    if (m.learned_positions > 0) {
      f(EndTensor{"position_ids", "Position ids (int64)", 8, "s", EndSplit::kNone, d.s_local,
                  "EmbeddingBackward0 (indices)", "", src::kHfModeling});
    }
  }
  if (c.dropout && (!hf || gpt2)) {
    f(EndTensor{"embedding_dropout_mask", "Embedding dropout mask", 1, "sbh", EndSplit::kSp, sb * d.h * sp_share,
                hf ? "NativeDropoutBackward0 (mask)" : "Megatron-Core", "", src::kKorthikantiOutput});
  }
}

template <class F>
void ForEachEveryStageTensor(const Derived& d, F&& f) {
  const Config& c = d.c;
  const ModelSpec& m = c.model;
  if (!IsHuggingFace(c.framework)) return;
  const bool rotary = m.learned_positions == 0;
  if (rotary) {
    // LlamaRotaryEmbedding returns cos and sin once per forward, shaped by position_ids
    // (1 x s x d_head: one row for the whole batch); every layer's apply_rotary_pos_emb
    // multiplies by them, so one pair is kept for all layers.
    const double rope = m.IsMla() ? static_cast<double>(m.qk_rope_dim) : d.hd;
    const char* node = Info(c.framework).liger_kernels ? "LigerRopeFunction (cos, sin)"
                                                        : "MulBackward0 (other) in apply_rotary_pos_emb";
    // cos and sin come back in the embedding output's format (fp32 under AMP over fp32 weights).
    f(EndTensor{"rope_cos_sin", "Rotary cos and sin (shared by all layers)", EmbeddingOutputBytes(c), "2s*d_head",
                EndSplit::kNone, 2 * d.s_local * rope, node, "not in the paper: one cos/sin pair per forward",
                src::kHfModeling});
  }
  if (c.recompute != Recompute::kFull) return;
  // Gradient checkpointing keeps each layer's call arguments: besides the hidden states,
  // the eager path's 4-D causal mask (SDPA and flash_attention_2 get none without
  // padding) and the position ids, shared by all layers.
  if (Info(c.framework).eager_attention) {
    f(EndTensor{"checkpoint_mask", "Causal mask kept by the checkpointed layers", EmbeddingOutputBytes(c), "bs^2",
                EndSplit::kNone, d.b * d.s_local * d.s, "CheckpointFunction (layer arguments)",
                "not in the paper: eager attention's 4-D float mask", src::kHfModeling});
  }
  if (rotary) {
    f(EndTensor{"checkpoint_position_ids", "Position ids kept by the checkpointed layers (int64)", 8, "s",
                EndSplit::kNone, d.s_local, "CheckpointFunction (layer arguments)", "", src::kHfModeling});
  }
}

// transformers' GPTBigCodeModel.forward keeps use_cache (config default true) under gradient
// checkpointing, unlike Llama's or GPT-2's: each checkpointed block returns present = key_value,
// a view of c_attn's whole output (the split keeps the queries' part in the same storage), and
// the model's outputs hold every layer's until the caller drops them after the loss. The
// projection's format: a 4-bit base (bitsandbytes' Linear4bit) returns the norm's, else the
// activations'. Validate allows it only with full recompute: without recomputation the cache
// is a view of the output the layer keeps for its backward anyway.
inline EndTensor TrainingCacheTensor(const Derived& d) {
  const Config& c = d.c;
  const LayerWidths w = Widths(d);
  return EndTensor{"training_cache",
                   "KV cache kept in training (use_cache)",
                   c.mode == Mode::kQlora ? NormOutputBytes(c) : ActivationBytes(c),
                   "L*sb(h+2kv)",
                   EndSplit::kTp,
                   d.stage_layers * w.sb * (w.q + 2 * w.kv) / d.t,
                   "GPTBigCodeModel.forward (presents: views of each layer's c_attn output)",
                   "not in the paper: the model's outputs keep its cache until the loss has run",
                   src::kGptBigCodeTrainingCache};
}

template <class F>
void ForEachLastStageTensor(const Derived& d, F&& f) {
  const Config& c = d.c;
  const ModelSpec& m = c.model;
  if (m.arch != Arch::kDecoder) return;
  const double e = ActivationBytes(c);
  const double sb = d.s_local * d.b;
  const double sp_share = c.sp ? 1.0 / d.t : 1.0;
  const bool hf = IsHuggingFace(c.framework);
  const bool liger = Info(c.framework).liger_kernels;
  const double vocab = d.V / d.t;  // vocab-parallel head and loss split V
  if (m.final_norm) {
    if (!hf) {
      f(EndTensor{"final_norm_input", "Final norm input", e, "sbh", EndSplit::kSp, sb * d.h * sp_share, "Megatron-Core",
                  "", src::kKorthikantiOutput});
    } else if (m.norm == NormKind::kLayerNorm || liger) {
      f(EndTensor{"final_norm_input", "Final norm input", !liger && Autocast(c) ? 4.0 : e, "sbh", EndSplit::kSp,
                  sb * d.h * sp_share, liger ? "LigerRMSNormFunction (X)" : "NativeLayerNormBackward0 (input)", "",
                  src::kHfModeling});
      f(EndTensor{"final_norm_stats", liger ? "Final norm rstd (fp32)" : "Final norm mean and rstd (fp32)",
                  liger ? 4.0 : 8.0, "sb", EndSplit::kSp, sb * sp_share,
                  liger ? "LigerRMSNormFunction (RSTD)" : "NativeLayerNormBackward0 (mean, rstd)", "",
                  src::kHfModeling});
    } else {
      f(EndTensor{"final_norm_input", "Final norm: fp32 upcast of the input", 4, "sbh", EndSplit::kSp,
                  sb * d.h * sp_share, "PowBackward0 (self), MulBackward0 (self)", "the paper keeps the 16-bit input",
                  src::kHfModeling});
      f(EndTensor{"final_norm_stats", "Final norm: rsqrt per token (fp32)", 4, "sb", EndSplit::kSp, sb * sp_share,
                  "RsqrtBackward0 (result)", "", src::kHfModeling});
      if (!d.adapters) {
        f(EndTensor{"final_norm_normalised", "Final norm: normalised, cast back", StreamBytes(c), "sbh", EndSplit::kSp,
                    sb * d.h * sp_share, "MulBackward0 (other)", "", src::kHfModeling});
      }
    }
  }
  if (liger) {
    // LigerFusedLinearCrossEntropyFunction computes the loss and its gradients chunk by
    // chunk in the forward and keeps only the gradients.
    f(EndTensor{"flce_grad_input", "Loss gradient w.r.t. the head input", e, "sbh", EndSplit::kNone, sb * d.h,
                "LigerFusedLinearCrossEntropyFunction (grad_input)",
                "no logits kept: the fused linear cross-entropy computes gradients in the forward", src::kLiger});
    if (!d.adapters && !m.tied_embeddings) {
      f(EndTensor{"flce_grad_weight", "Head weight gradient, computed in the forward", e, "Vh", EndSplit::kTp,
                  vocab * d.h, "LigerFusedLinearCrossEntropyFunction (grad_weight)", "", src::kLiger});
    }
    if (c.train_use_cache) f(TrainingCacheTensor(d));  // alive while the fused loss runs in the forward
    const double rows = LigerChunkRows(sb, d.V, d.h);
    f(EndTensor{"flce_chunk", "One chunk's logits (transient)", e, "cV", EndSplit::kTp, rows * vocab,
                "fused_linear_cross_entropy_forward (logits_chunk)", "", src::kLiger});
  } else {
    const bool nf4_head = c.quantized_head && c.mode == Mode::kQlora;
    if (!hf || !d.adapters || (nf4_head && BnbKeepsInputs(c))) {
      f(EndTensor{"head_input", "Output projection input", e, "sbh", EndSplit::kSp, sb * d.h * sp_share,
                  !hf                      ? "Megatron-Core"
                  : nf4_head && d.adapters ? "MatMul4Bit (A) of lm_head"
                                           : "MmBackward0 (self) of lm_head",
                  "", hf ? src::kHfModeling : src::kKorthikantiOutput});
    }
    if (nf4_head) {
      // MatMul4Bit.backward dequantises the weight (fp16: Lightning quantised it from .half())
      // and casts it to the gradient's bf16: two V x h copies while the head's backward runs,
      // after every chunk's loss backward (bitsandbytes@0.42.0 autograd/_functions.py:546,
      // functional.py:1026).
      f(EndTensor{"head_dequantised", "4-bit head dequantised in its backward (fp16 + bf16 copy)", 4, "Vh",
                  EndSplit::kTp, vocab * d.h, "MatMul4Bit.backward (dequantize_4bit)",
                  "not in the paper: a 4-bit head is dequantised to compute its input's gradient", src::kBnb042});
    }
    if (CastsWeights(c)) {
      f(EndTensor{"head_weight_cast", "Autocast's 16-bit copy of the output head", e, "Vh", EndSplit::kTp, vocab * d.h,
                  "MmBackward0 (mat2) of lm_head, autocast's cast cache",
                  "not in the paper: under AMP the head reads a 16-bit copy of its fp32 weight", src::kAutocast});
    }
    const double logit_bytes = c.loss_logits_fp32 ? 4.0 : e;
    if (!hf) {
      f(EndTensor{"logits", c.loss_logits_fp32 ? "Logits for the loss (fp32)" : "Logits for the loss", logit_bytes,
                  "sbV", EndSplit::kTp, sb * vocab, "Megatron-Core vocab-parallel cross-entropy", "",
                  src::kKorthikantiOutput});
    } else {
      const HfLossWidths w = HfLoss(c, e);
      const HfLossText text = HfLossTexts(c);
      f(EndTensor{"logits", text.kept, w.kept, "sbV", EndSplit::kTp, sb * vocab, text.kept_node, text.kept_note,
                  text.kept_source});
      f(EndTensor{"loss_targets", text.targets, text.targets_bytes, "sb", EndSplit::kNone, sb, text.targets_node,
                  "not in the paper: the int64 targets", src::kHfLoss});
      // Not kept, but alive at the loss: the most of what its forward holds (beside the training
      // cache the model's outputs still hold), accelerate's fp32 copy of the returned logits
      // (beside that cache too), and its backward.
      const double logits = sb * vocab;
      const EndTensor cache = c.train_use_cache ? TrainingCacheTensor(d) : EndTensor{};  // {}: no bytes
      const double cache_bytes = cache.elem_bytes * cache.elements;
      const double in_forward = w.forward * logits + cache_bytes;
      const double converting = w.converted > 0 ? w.converted * logits + cache_bytes : 0.0;
      const double in_backward = w.backward * logits;
      const int at = in_backward >= std::max(in_forward, converting) ? 2 : converting > in_forward ? 1 : 0;
      if (at < 2 && cache_bytes > 0) f(cache);
      const double width = at == 0 ? w.forward : at == 1 ? w.converted : w.backward;
      f(EndTensor{"loss_transient",
                  at == 0   ? "Logit copies while the loss runs (transient)"
                  : at == 1 ? "Logits converted to fp32 by accelerate (transient)"
                            : "Loss gradients at their peak (transient)",
                  width - w.kept, "sbV", EndSplit::kTp, logits,
                  at == 0   ? text.forward
                  : at == 1 ? "the model's 16-bit logits and accelerate's fp32 copy of them (ConvertOutputsToFp32)"
                            : text.backward,
                  at == 0   ? "not in the paper: the caller still holds its logits while the loss copies them"
                  : at == 1 ? "not in the paper: under AMP accelerate returns the model's outputs in fp32"
                            : "not in the paper: the backward of the loss holds more logit-sized tensors",
                  at == 1 ? src::kAccelerateConvertOutputs : text.source});
    }
  }
  if (c.metrics_logits) {
    f(EndTensor{"metrics_logits", "Logits kept by compute_metrics (fp32)", 4, "sbV", EndSplit::kTp, sb * vocab,
                "the Trainer's compute_metrics", "", src::kMetricsLogits, /*outlives_loss=*/true});
  }
}

}  // namespace detail

// What the caching allocator holds reserved at the loss beyond its tensors: where the backward
// needs an fp32 gradient and the only freed block is the 16-bit logits', it cudaMallocs a new
// segment and the logits' stays cached (e bytes per logit for today's HF loss and torchtitan's;
// none with the <= 4.48 shifted copy, whose freed fp32 blocks fit). It counts towards
// max_memory_reserved and nvidia-smi, not towards the fit: on a failed cudaMalloc the allocator
// frees its unsplit cached blocks and retries (CUDACachingAllocator.cpp, header comment).
inline double LossCachedBytes(const Derived& d) {
  const Config& c = d.c;
  if (!d.training || !d.last_stage || c.model.arch != Arch::kDecoder || !IsHuggingFace(c.framework) ||
      Info(c.framework).liger_kernels)
    return 0;
  return detail::LossCachedPerLogit(c, ActivationBytes(c)) * d.s_local * d.b * d.V / d.t;
}

template <class Sink>
void AccountModelEnds(const Derived& d, Sink& s) {
  s.Begin("outputs", "Embedding and output layer");
  // First-stage tensors are held once per micro-batch in flight. The last stage's are
  // freed by the backward of the loss and the head, which runs before any layer's
  // (compute_metrics' logits excepted: the Trainer keeps those).
  auto leaf = [&](const EndTensor& t, double copies, bool output_side) {
    const double bytes = t.elem_bytes * t.elements * copies;
    const Live live = output_side && !t.outlives_loss ? Live::LossOnly(bytes) : Live::ForwardOnly(bytes);
    s.Leaf(t.id, t.name, Category::kActivations, live, [&] {
      std::string f = FormatNumber(t.elem_bytes) + t.dims + (detail::SplitShown(d, t.split) ? "/t" : "") + " = " +
                      FormatBytesBoth(t.elem_bytes * t.elements);
      if (copies != 1) f += " x " + FormatNumber(copies, 3) + " micro-batches in flight";
      f += std::string("; kept by ") + t.node;
      if (*t.vs_paper != '\0') f += std::string("; ") + t.vs_paper;
      return Explanation{f, t.source};
    });
  };
  if (d.first_stage) detail::ForEachFirstStageTensor(d, [&](const EndTensor& t) { leaf(t, d.in_flight, false); });
  detail::ForEachEveryStageTensor(d, [&](const EndTensor& t) { leaf(t, d.in_flight, false); });
  if (d.last_stage) detail::ForEachLastStageTensor(d, [&](const EndTensor& t) { leaf(t, 1, true); });
  s.End();
}

}  // namespace llmmem::core
