// Implementation profiles (issue 10): which code runs the model decides which tensors
// autograd keeps for backward. One row per profile; the activation accounting
// (activations_hf.h, activations_paper.h) reads the profile, the UI, CLI, URL and JS API
// take their ids, names and help from this table.
#pragma once

#include <cstdint>
#include "core/base/enum_table.h"

namespace llmmem::core {

enum class Framework : uint8_t { kHfEager, kHfSdpa, kHfFlash2, kMegatron, kLiger, kLast = kLiger };

struct FrameworkInfo {
  Framework value;
  const char* id;       // "hf-sdpa": configs, URLs, --framework
  const char* aliases;  // other spellings accepted, space-separated
  const char* label;    // shown in the UI
  const char* help;     // one line: what runs and what it keeps
  const char* source;   // where the saved-tensor list comes from
  // What the profile's code does, asked by the accounting, validation and the doctor instead
  // of comparing ids (issue 29: a new profile is one row).
  bool hf_modeling;          // transformers' modeling code runs the model (RMSNorm upcasts, repeat_kv, fp32 loss)
  bool eager_attention;      // attn_implementation="eager": softmax(QK^T) materialised, K/V expanded by repeat_kv
  bool always_flash;         // flash_attention_2 whatever the flash_attn switch says
  bool liger_kernels;        // Liger's fused RMSNorm, SwiGLU, RoPE and fused linear cross-entropy
  bool splits_query_groups;  // Megatron-Core: KV heads (query groups) split over the TP ranks, never replicated
};

EnumTable<FrameworkInfo> TableOf(Framework);  // Info, Id, ParseId, IdList: enum_table.h

// The Hugging Face profiles run transformers' modeling code (RMSNorm upcasts, repeat_kv,
// the fp32 loss); Liger swaps in its fused kernels on top of them. The row says it.
inline bool IsHuggingFace(Framework f) { return Info(f).hf_modeling; }

}  // namespace llmmem::core
