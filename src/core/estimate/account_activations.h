// Activations saved for backward, by implementation profile (core/framework.h): the
// paper's itemised list (activations_paper.h, Korthikanti et al. 2022) for Megatron, what
// eager PyTorch keeps under transformers' modeling code for the HF profiles and Liger
// (activations_hf.h). Then the per-model terms: embeddings, final norm, head and loss.
#pragma once

#include <string>

#include "core/estimate/activation_rows.h"
#include "core/estimate/activations_hf.h"
#include "core/estimate/activations_paper.h"
#include "core/estimate/derived.h"
#include "core/estimate/sinks.h"
#include "core/base/sources.h"
#include "core/base/units.h"

namespace llmmem::core {

// Every tensor one transformer layer saves for backward under the configured profile
// (layer_tensors.cpp). keep_scores: false under selective recompute (the s x s tensors are
// recomputed).
LayerTensorList CollectLayerTensors(const Derived& d, bool keep_scores);

// Calls f(const LayerTensor&) for each of them, in the profile's order.
template <class F>
void ForEachLayerActivation(const Derived& d, bool keep_scores, F&& f) {
  const LayerTensorList list = CollectLayerTensors(d, keep_scores);
  for (const LayerTensor& t : list) f(t);
}

namespace detail {

inline double SplitShare(const Derived& d, Split split) { return (split == Split::kTp || d.c.sp) ? 1.0 / d.t : 1.0; }

// One layer's saved bytes on this GPU.
inline double LayerBytes(const Derived& d, const LayerTensorList& tensors) {
  double sum = 0;
  for (const LayerTensor& t : tensors) sum += t.Bytes() * SplitShare(d, t.split);
  return sum;
}
inline double LayerBytes(const Derived& d, bool keep_scores) { return LayerBytes(d, CollectLayerTensors(d, keep_scores)); }

// One layer re-created while its backward runs, less what is already held: under full
// recompute the checkpoint is the layer's input, so where a saved tensor is that input it is
// not made twice.
inline double RematerialisedBytes(const Derived& d, double checkpoint) {
  const LayerTensorList all = CollectLayerTensors(d, true);
  bool aliased = false;
  for (const LayerTensor& t : all) aliased |= t.layer_input;
  return LayerBytes(d, all) - (aliased ? checkpoint : 0);
}

// "4sbh/t = 1.2 GB per layer x 32; kept by ...; vs the paper: ..."
inline std::string RowFormula(const Derived& d, const LayerTensor& t, double per_layer, double layers) {
  const bool split = SplitShare(d, t.split) < 1.0;
  std::string s = FormatNumber(t.elem_bytes) + t.dims + (split ? "/t" : "") + " = " + FormatBytesBoth(per_layer) +
                  " per layer x " + FormatNumber(layers, 3) + "; kept by " + t.node;
  if (t.share < 1.0)
    s += "; in " + FormatNumber(t.share * static_cast<double>(d.c.model.layers), 0) + " of the model's " +
         FormatCount(d.c.model.layers) + " layers, averaged over them";
  if (*t.vs_paper != '\0') s += std::string("; ") + t.vs_paper;
  return s;
}

inline const char* GroupId(LayerGroup g) {
  switch (g) {
    case LayerGroup::kAttention:
      return "attention";
    case LayerGroup::kLinearMixer:
      return "linear_mixer";
    case LayerGroup::kMlp:
      return "mlp";
    case LayerGroup::kNorms:
      return "norms";
    case LayerGroup::kLora:
      return "lora";
    case LayerGroup::kCasts:
      return "autocast";
  }
  return "?";
}

inline const char* GroupName(LayerGroup g) {
  switch (g) {
    case LayerGroup::kAttention:
      return "Attention";
    case LayerGroup::kLinearMixer:
      return "Linear-attention / SSM mixer";
    case LayerGroup::kMlp:
      return "MLP";
    case LayerGroup::kNorms:
      return "Norms";
    case LayerGroup::kLora:
      return "LoRA adapters";
    case LayerGroup::kCasts:
      return "Autocast copies";
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
         Id(d.c.schedule) + ")";
  }
  return s;
}

// PyTorch FSDP1 reshards a frozen unit (LoRA's base layer: PEFT's wrap policy gives the
// adapters their own units) once every gradient that depends on it exists, through a
// multi-grad hook on the unit's inputs (_register_post_backward_reshard_only_hook), removed only
// in the end-of-backward callback (_finalize_params). Under a reentrant checkpoint the inputs
// are the recompute's detached leaves, and the hook's closure holds their AccumulateGrad nodes,
// which hold the tensors: each layer's input, and the gradient accumulated into it, outlive
// its backward. FSDP2 (fully_shard) registers no such hook; a non-reentrant checkpoint's inputs
// are not leaves.
inline bool Fsdp1HoldsRecomputedInputs(const Derived& d) {
  const Config& c = d.c;
  return d.training && d.adapters && c.recompute == Recompute::kFull && c.reentrant_checkpoint &&
         c.sharding == Sharding::kFsdp && c.fsdp1 && (d.dp > 1 || c.zero > 0);
}

}  // namespace detail

// torchtitan's op-level selective checkpointing (pytorch/torchtitan
// torchtitan/distributed/activation_checkpoint.py@b5bcd76c, SelectiveAC._wrap_block): each
// block is a non-reentrant checkpoint that keeps its input and the outputs of the ops in
// the save list (matmuls, the flash/efficient attention kernels) except every second
// matmul, counted per block in forward order (wq, wk, wv, wo, w1, w3, w2). The rest is
// recomputed in backward, one block at a time.
template <class Sink>
void AccountOpSelective(const Derived& d, Sink& s, double L) {
  const Config& c = d.c;
  const ModelSpec& m = c.model;
  const double e = ActivationBytes(c);
  const LayerWidths w = Widths(d);
  const double sp = c.sp ? 1.0 / d.t : 1.0, tp = 1.0 / d.t;
  // The block's matmuls in forward order with their output widths (TP splits them).
  struct Mm {
    const char* name;
    double width;
  };
  const bool gated = m.mlp == MlpKind::kGated;
  const Mm mms[] = {{"wq", w.q},
                    {"wk", w.kv},
                    {"wv", w.v},
                    {"wo", d.h},
                    {gated ? "w1 (gate)" : "fc1", w.f},
                    {gated ? "w3 (up)" : "fc2", gated ? w.f : d.h},
                    {"w2 (down)", gated ? d.h : 0}};
  double saved_mm = 0;
  for (int i = 0; i < 7; i += 2) {  // the 1st, 3rd, 5th and 7th matmul
    if (mms[i].width > 0) saved_mm += e * w.sb * mms[i].width * (mms[i].width == d.h ? sp : tp);
  }
  const bool fused = !Info(c.framework).eager_attention && c.flash_attn;
  const double attention = fused ? (e * w.sb * w.out + 4 * d.a * w.sb) * tp : 0;
  const double input = e * w.sb * d.h * sp;
  const double per_layer = input + saved_mm + attention;
  s.Leaf("sac_saved", "Block inputs and saved op outputs (op-level SAC)", Category::kActivations,
         Live::ForwardOnly(per_layer * L), [&] {
           std::string names;  // built here only: the numeric path allocates nothing
           for (int i = 0; i < 7; i += 2) {
             if (mms[i].width > 0) names += std::string(names.empty() ? "" : ", ") + mms[i].name;
           }
           return Explanation{FormatNumber(e) + "sbh input + outputs of " + names +
                                  (fused ? " + the attention kernel's output and fp32 logsumexp" : "") + " = " +
                                  FormatBytesBoth(per_layer) + " per layer x " + FormatNumber(L, 3),
                              src::kTorchtitanSac, per_layer};
         });
  const double remat = detail::RematerialisedBytes(d, input);
  s.Leaf("rematerialised_layer", "One layer recomputed in backward", Category::kActivations,
         Live::LayerBackwardOnly(remat), [&] {
           return Explanation{
               "one layer's saved tensors, re-created while its backward runs: " + FormatBytesBoth(remat),
               src::kRematerialised, remat};
         });
}

// The per-model terms on the first and last stages: embeddings, final norm, head and loss.
template <class Sink>
void AccountModelEnds(const Derived& d, Sink& s);

template <class Sink>
void AccountActivations(const Derived& d, Sink& s) {
  const Config& c = d.c;
  if (!d.has_arch) return;  // Validate reports kNoArchitecture
  // Layer-activation multiplier: this stage's layers times the micro-batches it holds.
  const double L = d.stage_layers * d.in_flight;
  const bool hf = IsHuggingFace(c.framework);
  const char* layer_source = hf ? Info(c.framework).source : src::kKorthikantiLayer;
  s.Begin("activations", "Activations");
  s.Note([&] {
    return Explanation{std::string("saved for backward as ") + Info(c.framework).label + "; recompute " +
                           Id(c.recompute) + ", FlashAttention " + (c.flash_attn ? "on" : "off") + ", dropout " +
                           (c.dropout ? "on" : "off") + "; " + detail::DimsNote(d),
                       layer_source};
  });

  if (c.recompute == Recompute::kFull) {
    const double e = StreamBytes(c);  // the checkpoint is the layer's input: the residual stream
    const double per_layer = e * d.s_local * d.b * d.h / (c.sp ? d.t : 1.0);
    const Device where = c.offload_activations ? Device::kCpu : Device::kGpu;
    s.Leaf("layer_inputs",
           c.offload_activations ? "Checkpointed layer inputs (offloaded to CPU)" : "Checkpointed layer inputs",
           Category::kActivations, Live::ForwardOnly(per_layer * L).On(where), [&] {
             return Explanation{FormatNumber(e) + "sbh" + std::string(c.sp ? "/t" : "") + " = " +
                                    FormatBytesBoth(per_layer) + " per layer x " + FormatNumber(L, 3) +
                                    " (layers x micro-batches in flight)" +
                                    (hf ? "; kept by CheckpointFunction (torch.utils.checkpoint)" : ""),
                                src::kKorthikantiRecompute, per_layer};
           });
    // The layer whose backward runs is re-created in full; where one of its saved tensors
    // is its input, that is the checkpoint already counted above.
    const double remat = detail::RematerialisedBytes(d, per_layer);
    s.Leaf("rematerialised_layer", "One layer recomputed in backward", Category::kActivations,
           Live::LayerBackwardOnly(remat), [&] {
             return Explanation{
                 "one layer's saved tensors (less its input where it is one of them), re-created while "
                 "its backward runs: " +
                     FormatBytesBoth(remat),
                 src::kRematerialised, remat};
           });
    if (detail::Fsdp1HoldsRecomputedInputs(d)) {
      // Every layer already through its backward holds its input's gradient (and, when the
      // checkpoints live on the CPU, the input brought back for the recompute): the bottom
      // layer's backward sees all but its own.
      const double held_per_layer = per_layer * (c.offload_activations ? 2 : 1);
      const double layers_through = std::fmax(0.0, d.stage_layers - 1);
      const double held = layers_through * held_per_layer;
      s.Leaf("fsdp1_held_inputs", "Recomputed inputs' gradients held by FSDP1's reshard hooks", Category::kActivations,
             Live::LayerBackwardOnly(held), [&] {
               return Explanation{FormatBytesBoth(held_per_layer) +
                                      (c.offload_activations ? " (the input brought back and its gradient)"
                                                             : " (the input's gradient)") +
                                      " per layer x " + FormatNumber(layers_through, 3) +
                                      " layers through their backward, until FSDP's end-of-backward callback",
                                  src::kFsdp1ReshardHook, held_per_layer};
             });
    }
    if (CastsWeights(c)) {
      // The checkpointed forward saves nothing, but autocast's cache keeps every weight's
      // 16-bit copy until the autocast region (the forward and the loss) exits.
      const double copies = ActivationBytes(c) * d.layer_matmul_params / d.t * d.stage_layers;
      s.Leaf("autocast_cache", "Autocast's cached weight copies (until the forward ends)", Category::kActivations,
             Live::LossOnly(copies), [&] {
               return Explanation{FormatNumber(ActivationBytes(c)) +
                                      " x P_layer/t = " + FormatBytesBoth(copies / std::max(1.0, d.stage_layers)) +
                                      " per layer x " + FormatNumber(d.stage_layers, 3) +
                                      " layers; freed when autocast exits, before backward",
                                  src::kAutocast, copies / std::max(1.0, d.stage_layers)};
             });
    }
  } else if (c.recompute == Recompute::kOpSelective) {
    AccountOpSelective(d, s, L);
  } else {
    const bool keep_scores = c.recompute == Recompute::kNone;
    s.Begin("layers", "Transformer layers");
    s.Note([&] {
      return Explanation{"per layer x " + FormatNumber(L, 3) + " (layers on this GPU x micro-batches in flight)" +
                             (keep_scores ? "" : "; selective recompute drops the s x s tensors"),
                         keep_scores ? layer_source : src::kKorthikantiRecompute};
    });
    bool open = false;
    LayerGroup open_group = LayerGroup::kAttention;
    const LayerTensorList tensors = CollectLayerTensors(d, keep_scores);
    for (const LayerTensor& t : tensors) {
      if (!open || open_group != t.group) {
        if (open) s.End();
        open = true;
        open_group = t.group;
        s.Begin(detail::GroupId(t.group), detail::GroupName(t.group));
      }
      const double per_layer = t.Bytes() * detail::SplitShare(d, t.split);
      // With a frozen embedding (LoRA) nothing flows back into the first layer's input.
      const double layers = !t.first_layer_kept && d.adapters && d.first_stage ? L - d.in_flight : L;
      s.Leaf(t.id, t.name, Category::kActivations, Live::ForwardOnly(per_layer * layers), [&] {
        return Explanation{
            detail::RowFormula(d, t, per_layer, layers) +
                (layers < L ? " (not in the first layer: the frozen embedding needs no gradient)" : ""),
            t.group == LayerGroup::kLinearMixer
                ? (c.model.linear_kind == LinearKind::kMamba2 ? src::kMamba2Kernels
                   : c.model.linear_kind == LinearKind::kKda  ? src::kKdaKernels
                                                              : src::kGatedDeltaNetKernels)
            : t.group == LayerGroup::kLora                                  ? src::kLora
            : t.group == LayerGroup::kCasts                                 ? src::kAutocast
            : hf                                                            ? layer_source
            : t.group == LayerGroup::kMlp && c.model.mlp == MlpKind::kGated ? src::kGatedMlp
            : t.id == std::string("softmax_stats")                          ? src::kFlash
                                                                            : src::kKorthikantiLayer,
            per_layer};
      });
    }
    if (open) s.End();
    s.End();
    if (!keep_scores) {
      // Selective recompute re-creates one layer's s x s tensors while its backward runs.
      const double scores = detail::LayerBytes(d, true) - detail::LayerBytes(d, tensors);
      if (scores > 0) {
        s.Leaf("recomputed_scores", "One layer's attention scores recomputed in backward", Category::kActivations,
               Live::ForwardOnly(scores), [&] {
                 return Explanation{"the s x s tensors of one layer: " + FormatBytesBoth(scores),
                                    src::kKorthikantiRecompute, scores};
               });
      }
    }
  }
  AccountModelEnds(d, s);
  s.End();
}

}  // namespace llmmem::core

#include "core/estimate/account_model_ends.h"
