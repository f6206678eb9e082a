// How the optimizer step is carried out, one row each: PyTorch's three Adam(W) code paths
// (foreach, fused, for-loop) and torchtune's optimizer-in-backward. It decides the step's
// temporaries and, in-backward, how many gradients are ever alive (issue 11).
#pragma once

#include <cstdint>
#include "core/base/enum_table.h"

namespace llmmem::core {

enum class OptimizerImpl : uint8_t { kAuto, kForeach, kFused, kForLoop, kInBackward, kLast = kInBackward };

struct OptimizerImplInfo {
  OptimizerImpl value;
  const char* id;
  const char* aliases;
  const char* label;
  const char* help;
  const char* source;
};

EnumTable<OptimizerImplInfo> TableOf(OptimizerImpl);  // Info, Id, ParseId, IdList: enum_table.h

}  // namespace llmmem::core
