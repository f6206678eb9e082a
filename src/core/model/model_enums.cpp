// The rows of model_enums.h: one per enumerator, in enumerator order (static_asserted).
#include "core/model/model_enums.h"

namespace llmmem::core {
namespace {

constexpr MlpKindInfo kMlpKinds[] = {
    {MlpKind::kPlain, "plain", "", "plain (2 matrices)", "up and down projections with GeLU/ReLU between"},
    {MlpKind::kGated, "gated", "swiglu geglu", "gated (SwiGLU, 3)", "gate, up and down projections (SwiGLU/GeGLU)"},
};
static_assert(OneRowPerEnumerator(kMlpKinds, EnumCount(MlpKind::kLast)), "one row per MlpKind, in order");

constexpr NormKindInfo kNormKinds[] = {
    {NormKind::kLayerNorm, "layernorm", "layer_norm", "LayerNorm", "weight and bias per norm"},
    {NormKind::kRmsNorm, "rmsnorm", "rms_norm", "RMSNorm", "weight only"},
};
static_assert(OneRowPerEnumerator(kNormKinds, EnumCount(NormKind::kLast)), "one row per NormKind, in order");

constexpr QkNormInfo kQkNorms[] = {
    {QkNorm::kNone, "none", "", "none", "no norm on queries and keys"},
    {QkNorm::kPerHead, "per_head", "", "per head (Qwen3, Gemma 3)", "an RMSNorm over each head's head_dim"},
    {QkNorm::kFull, "full", "", "whole projection (OLMo 2)", "an RMSNorm over the whole Q and K projections"},
};
static_assert(OneRowPerEnumerator(kQkNorms, EnumCount(QkNorm::kLast)), "one row per QkNorm, in order");

constexpr ArchInfo kArchs[] = {
    {Arch::kDecoder, "decoder", "", "decoder", "decoder-only: causal LM head, KV cache"},
    {Arch::kEncoder, "encoder", "", "encoder", "encoder-only (BERT): no LM head, no KV cache"},
};
static_assert(OneRowPerEnumerator(kArchs, EnumCount(Arch::kLast)), "one row per Arch, in order");

constexpr VisionKindInfo kVisionKinds[] = {
    {VisionKind::kSiglip, "siglip", "", "SigLIP (Gemma 3)", "SigLIP tower with Gemma 3's projector"},
    {VisionKind::kQwen25Vl, "qwen2_5_vl", "", "Qwen2.5-VL", "Qwen2.5-VL's window-attention tower and patch merger"},
    {VisionKind::kQwen3Vl, "qwen3_vl", "", "Qwen3-VL", "Qwen3-VL's tower, patch merger and DeepStack mergers"},
    {VisionKind::kLlama4, "llama4", "", "Llama 4", "Llama 4's tower, pixel-shuffle adapter and projector"},
    {VisionKind::kPixtral, "pixtral", "", "Pixtral (Mistral 3)", "Pixtral tower with Mistral 3's patch merger"},
    {VisionKind::kGemma4, "gemma4", "", "Gemma 4", "Gemma 4's vision tower and its projector"},
};
static_assert(OneRowPerEnumerator(kVisionKinds, EnumCount(VisionKind::kLast)), "one row per VisionKind, in order");

constexpr LinearKindInfo kLinearKinds[] = {
    {LinearKind::kGatedDeltaNet, "gated_deltanet", "", "Gated DeltaNet", "Qwen3-Next's linear attention"},
    {LinearKind::kMamba2, "mamba2", "mamba", "Mamba-2", "a Mamba-2 mixer (Nemotron-H, Granite 4.0-H, Falcon-H1)"},
    {LinearKind::kKda, "kda", "", "Kimi Delta Attention", "Kimi-Linear's KDA layers"},
};
static_assert(OneRowPerEnumerator(kLinearKinds, EnumCount(LinearKind::kLast)), "one row per LinearKind, in order");

}  // namespace

EnumTable<MlpKindInfo> TableOf(MlpKind) { return TableFrom(kMlpKinds); }
EnumTable<NormKindInfo> TableOf(NormKind) { return TableFrom(kNormKinds); }
EnumTable<QkNormInfo> TableOf(QkNorm) { return TableFrom(kQkNorms); }
EnumTable<ArchInfo> TableOf(Arch) { return TableFrom(kArchs); }
EnumTable<VisionKindInfo> TableOf(VisionKind) { return TableFrom(kVisionKinds); }
EnumTable<LinearKindInfo> TableOf(LinearKind) { return TableFrom(kLinearKinds); }

}  // namespace llmmem::core
