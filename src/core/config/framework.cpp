#include "core/config/framework.h"

#include "core/base/sources.h"

namespace llmmem::core {
namespace {

constexpr FrameworkInfo kFrameworks[] = {
    {Framework::kHfEager, "hf-eager", "", "HF eager",
     "attn_implementation=\"eager\": fp32 softmax and its 16-bit copy (s x s per head), K/V expanded by repeat_kv",
     src::kHfModeling,
     /*hf_modeling, eager_attention, always_flash, liger_kernels, splits_query_groups*/ true, true, false, false, false},
    {Framework::kHfSdpa, "hf-sdpa", "", "HF SDPA (default)",
     "attn_implementation=\"sdpa\", transformers' default: on CUDA the flash/memory-efficient kernels keep q, k, v, "
     "output and logsumexp, never s x s; FlashAttention off = SDPA's math path",
     src::kHfModeling,
     /*hf_modeling, eager_attention, always_flash, liger_kernels, splits_query_groups*/ true, false, false, false, false},
    {Framework::kHfFlash2, "hf-flash2", "", "HF FlashAttention-2",
     "attn_implementation=\"flash_attention_2\": flash_attn keeps q, k, v (KV heads only), output and logsumexp",
     src::kHfModeling,
     /*hf_modeling, eager_attention, always_flash, liger_kernels, splits_query_groups*/ true, false, true, false, false},
    {Framework::kMegatron, "megatron", "", "Megatron (paper)",
     "Megatron-Core with Transformer Engine's fused kernels: Korthikanti et al. 2022's itemised accounting",
     src::kKorthikantiLayer,
     /*hf_modeling, eager_attention, always_flash, liger_kernels, splits_query_groups*/ false, false, false, false, true},
    {Framework::kLiger, "liger", "", "HF + Liger",
     "Liger kernels on HF models: fused RMSNorm, SwiGLU and RoPE, fused linear cross-entropy (no logits kept)",
     src::kLiger,
     /*hf_modeling, eager_attention, always_flash, liger_kernels, splits_query_groups*/ true, false, false, true, false},
};
static_assert(OneRowPerEnumerator(kFrameworks, EnumCount(Framework::kLast)), "one row per Framework, in order");

}  // namespace

EnumTable<FrameworkInfo> TableOf(Framework) { return TableFrom(kFrameworks); }

}  // namespace llmmem::core
