// The bytes of one optimizer state tensor, from the optimizer's row (config_enums.h): the one
// formula the LLM accounting (account_model_states.h) and the layer stacks
// (network/layer_stack_account.cpp) both use, so the two cannot answer differently.
// May include: core headers only.
#pragma once

#include <cmath>

#include "core/config/config_enums.h"

namespace llmmem::core {

// One state tensor over n trainable parameters whose states are `elem` bytes each
// (optimizer_dtype): n x elem, or for bitsandbytes' 8-bit states 1 B per element plus one fp32
// absmax per block of 2048 (Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization §2).
inline double StateTensorBytes(const OptimizerInfo& o, double n, double elem) {
  return o.blockwise_8bit ? n * 1.0 + std::ceil(n / 2048.0) * 4.0 : n * elem;
}

}  // namespace llmmem::core
