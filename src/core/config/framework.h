// Implementation profiles (issue 10): which code runs the model decides which tensors
// autograd keeps for backward. One row per profile; the activation accounting
// (activations_hf.h, activations_paper.h) reads the profile, the UI, CLI, URL and JS API
// take their ids, names and help from this table.
#pragma once

#include <cstdint>
#include "core/config/enum_table.h"

namespace llmmem::core {

enum class Framework : uint8_t { kHfEager, kHfSdpa, kHfFlash2, kMegatron, kLiger, kLast = kLiger };

struct FrameworkInfo {
  Framework value;
  const char* id;       // "hf-sdpa": configs, URLs, --framework
  const char* aliases;  // other spellings accepted, space-separated
  const char* label;    // shown in the UI
  const char* help;     // one line: what runs and what it keeps
  const char* source;   // where the saved-tensor list comes from
};

EnumTable<FrameworkInfo> TableOf(Framework);  // Info, Id, ParseId, IdList: enum_table.h

// The Hugging Face profiles run transformers' modeling code (RMSNorm upcasts, repeat_kv,
// the fp32 loss); Liger swaps in its fused kernels on top of them.
inline bool IsHuggingFace(Framework f) { return f != Framework::kMegatron; }

}  // namespace llmmem::core
