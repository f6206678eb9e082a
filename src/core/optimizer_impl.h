// How the optimizer step is carried out, one row each: PyTorch's three Adam(W) code paths
// (foreach, fused, for-loop) and torchtune's optimizer-in-backward. It decides the step's
// temporaries and, in-backward, how many gradients are ever alive (issue 11).
#pragma once

#include <cstdint>
#include <string>

namespace llmmem::core {

enum class OptimizerImpl : uint8_t { kAuto, kForeach, kFused, kForLoop, kInBackward };

struct OptimizerImplInfo {
  OptimizerImpl impl;
  const char* id;
  const char* label;
  const char* help;
  const char* source;
};

const OptimizerImplInfo& Info(OptimizerImpl i);
const char* OptimizerImplId(OptimizerImpl i);
bool ParseOptimizerImpl(const std::string& id, OptimizerImpl& out);
std::string OptimizerImplIdList();

}  // namespace llmmem::core
