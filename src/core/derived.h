// Quantities every accounting step reads, computed once per estimate from a Config.
// Plain doubles: byte counts are exact integers below 2^53 and fractional where a
// format stores fractions of a byte per weight.
#pragma once

#include "core/config.h"
#include "core/model.h"

namespace llmmem::core {

struct Derived {
  const Config& c;
  ParamCounts counts;
  bool training = false;      // any mode with a backward pass
  bool adapters = false;      // LoRA or QLoRA
  bool has_arch = false;
  double P = 0;               // parameters the model states count (params_override or the count)
  double T = 0;               // trainable parameters: P, adapter parameters, or 0
  double t = 1;               // tensor-parallel size
  double P_gpu = 0;           // parameters held by one GPU: matrices split t ways, norms replicated
  double T_gpu = 0;           // trainable parameters held by one GPU
  double b = 0, s = 0, h = 0, a = 0, kv = 0, hd = 0, L = 0, V = 0, f = 0;
  double lora_params = 0;     // r(d_in + d_out) summed over the adapted matrices
  double lora_factored = 0;   // Adafactor state elements of the adapters
  double full_factored = 0;   // Adafactor state elements of the whole model
  double lora_in_width = 0;   // sum of d_in over adapted matrices of one layer (lora_dropout copies)
  double lora_per_layer_mats = 0;  // adapted matrices per layer

  explicit Derived(const Config& config);
};

// Weights narrower than fp32 are updated through an fp32 master copy when enabled.
inline bool HasMasterCopy(Dtype d) { return d != Dtype::kFp32; }

}  // namespace llmmem::core
