// One saved-for-backward tensor of one transformer layer: what the activation profiles
// (activations_paper.h, activations_hf.h) emit and the accounting adds up.
#pragma once

#include <cstdint>

namespace llmmem::core {

// How a per-layer tensor divides under tensor parallelism (Korthikanti §4.2.1-4.2.2):
// kTp tensors are split by TP alone; kSp tensors only with sequence parallelism on.
enum class Split : uint8_t { kTp, kSp };

enum class LayerGroup : uint8_t { kAttention, kLinearMixer, kMlp, kNorms, kLora, kCasts };

struct LayerTensor {
  LayerGroup group;
  const char* id;
  const char* name;
  double elem_bytes;  // bytes per element: the formula reads elem_bytes followed by dims
  const char* dims;   // "sbh", "as^2b", "sb*a*d_head"
  double elements;    // one layer, before parallel splitting
  Split split;
  const char* node;          // the autograd node (or kernel) that keeps it
  const char* vs_paper;      // how it departs from Korthikanti's list; "" for the paper's own term
  bool layer_input = false;  // this storage is the layer's input (what full recompute checkpoints)
  // Kept in the model's first layer too. With LoRA's frozen embedding no gradient flows
  // into that layer's input, so autograd keeps only what the adapters' gradients need there
  // (HF profiles: not the input norm; q only when K is adapted, and so on).
  bool first_layer_kept = true;
  // The share of the layers that hold it: a hybrid model's attention rows are in its attention
  // layers only, its Gated DeltaNet / Mamba-2 rows in its linear layers (Qwen3-Next: 12 and 36 of
  // 48), its MLP rows in the layers with an MLP (Nemotron-H). The per-layer figure is the
  // average over the stage's layers, as MoE's widths are (activations_paper.h Widths).
  double share = 1.0;

  double Bytes() const { return elem_bytes * elements * share; }
};

// One layer's saved tensors in the order the profile emits them, collected once by
// CollectLayerTensors (layer_tensors.cpp). The accounting, the Explain tree and the recompute
// terms all read this list, so the profiles' row builders are compiled once rather than once
// per caller: four copies of ForEachHfLayerTensor cost the page about 29 KB of wasm.
// Fixed capacity: the numeric fast path allocates nothing. The largest list any profile emits
// is tested (test_layer_tensors in tests/test_linear_layers.cpp) to stay well under it.
struct LayerTensorList {
  static constexpr int kCapacity = 96;
  LayerTensor items[kCapacity];
  int size = 0;
  bool overflowed = false;  // a row past kCapacity: never expected, and tested

  void Add(const LayerTensor& t) {
    if (size < kCapacity)
      items[size++] = t;
    else
      overflowed = true;
  }
  const LayerTensor* begin() const { return items; }
  const LayerTensor* end() const { return items + size; }
};

}  // namespace llmmem::core
