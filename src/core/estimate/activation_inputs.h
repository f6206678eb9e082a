// What decides whether a layer's matmuls keep their inputs under the HF profiles: the model
// family, PEFT's adapter casts, autocast's copies, bitsandbytes' 4-bit saves. Shared by the
// attention and MLP rows (activations_hf.h) and the linear mixers' (activations_linear.h).
#pragma once

#include <cstdint>

#include "core/config/framework.h"
#include "core/estimate/activations_paper.h"
#include "core/estimate/derived.h"

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

}  // namespace llmmem::core
