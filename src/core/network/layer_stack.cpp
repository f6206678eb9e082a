// The layer-stack analysis: shapes, parameters, feature maps and saved tensors.
//
// Index
//   [SECTION] Kind table        one row per LayerKind: id, label, PyTorch name, what it keeps
//   [SECTION] Shapes            bounded, overflow-checked shape arithmetic
//   [SECTION] Entry points      AnalyzeNetwork, ProfileDifferences
// The analyzer itself (storages, layers, blocks) is in layer_stack_analyzer.h and
// layer_stack_layers.cpp, layer_stack_run_layer.cpp, layer_stack_blocks.cpp.
//
// What is kept, per kind (measured by tests/truth/measure_cnn.py on torch 1.13, CPU; the
// autograd formulas are PyTorch's tools/autograd/derivatives.yaml):
//   convolution, linear: the input (for the weight's gradient); a linear on a permuted
//     (non-contiguous) input of rank >= 2 per sample keeps a contiguous copy (matmul's reshape)
//   BatchNorm (train): the input, and save_mean/save_invstd (2 x C fp32, whatever the batch;
//     the input dtype on the CPU for 16-bit models)
//   LayerNorm: the input and mean/rstd per row (fp32 on CUDA; the input dtype on the CPU)
//   GroupNorm: the input and mean/rstd per (sample, group)
//   ReLU, Sigmoid, Tanh: their output (in place: the input's storage, nothing new);
//   GELU, SiLU, ReLU6, Hardswish, Hardsigmoid, LeakyReLU: their input (in place: a clone of
//     it, since the input is overwritten; LeakyReLU in place keeps its output instead)
//   max pooling: the input and int64 indices of the output's size; average pooling the input;
//     AdaptiveAvgPool2d(1) runs mean(): torch 1.13 keeps its input, 2.x keeps nothing
//   dropout (0<p<1): a bool mask (CUDA's fused native_dropout; torch 1.13 on the CPU keeps a
//     noise tensor in the input dtype instead); stochastic depth a noise value per sample
//   x * y (squeeze-and-excitation, layer scale): both operands; add, concat, flatten,
//     permute, upsampling: nothing
//   nn.MultiheadAttention: see AttentionSaved.
#include "core/network/layer_stack.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/parse/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/network/layer_stack_analyzer.h"
#include "core/parse/text.h"

namespace llmmem::core {

// [SECTION] Kind table
namespace {

constexpr LayerKindInfo kLayerKinds[] = {
    {LayerKind::kConv1d, "conv1d", "", "Conv1d", "nn.Conv1d", false, "its input (for the weight's gradient)"},
    {LayerKind::kConv2d, "conv2d", "", "Conv2d", "nn.Conv2d", false, "its input (for the weight's gradient)"},
    {LayerKind::kConvTranspose2d, "conv_transpose2d", "", "ConvTranspose2d", "nn.ConvTranspose2d", false,
     "its input (for the weight's gradient)"},
    {LayerKind::kLinear, "linear", "", "Linear", "nn.Linear", false,
     "its input (a contiguous copy when the input is permuted)"},
    {LayerKind::kEmbedding, "embedding", "", "Embedding", "nn.Embedding", false, "the int64 indices"},
    {LayerKind::kBatchNorm, "batchnorm", "", "BatchNorm", "nn.BatchNorm1d/2d", false,
     "its input and per-channel mean and inverse std (fp32)"},
    {LayerKind::kFrozenBatchNorm, "frozen_batchnorm", "", "FrozenBatchNorm2d", "torchvision.ops.FrozenBatchNorm2d",
     false, "nothing (x * scale + shift with buffers)"},
    {LayerKind::kLayerNorm, "layernorm", "", "LayerNorm", "nn.LayerNorm", false, "its input and mean and rstd per row"},
    {LayerKind::kGroupNorm, "groupnorm", "", "GroupNorm", "nn.GroupNorm", false,
     "its input and mean and rstd per sample and group"},
    {LayerKind::kReLU, "relu", "", "ReLU", "nn.ReLU", false, "its output (in place: the input's storage)"},
    {LayerKind::kReLU6, "relu6", "", "ReLU6", "nn.ReLU6 (hardtanh)", false, "its input (in place: a clone of it)"},
    {LayerKind::kLeakyReLU, "leaky_relu", "", "LeakyReLU", "nn.LeakyReLU", false,
     "its input (in place: its output, the input's storage)"},
    {LayerKind::kGELU, "gelu", "", "GELU", "nn.GELU", false, "its input (in place: a clone of it)"},
    {LayerKind::kSiLU, "silu", "", "SiLU", "nn.SiLU", false, "its input (in place: a clone of it)"},
    {LayerKind::kSigmoid, "sigmoid", "", "Sigmoid", "nn.Sigmoid", false, "its output"},
    {LayerKind::kTanh, "tanh", "", "Tanh", "nn.Tanh", false, "its output"},
    {LayerKind::kHardswish, "hardswish", "", "Hardswish", "nn.Hardswish", false, "its input (in place: a clone of it)"},
    {LayerKind::kHardsigmoid, "hardsigmoid", "", "Hardsigmoid", "nn.Hardsigmoid", false,
     "its input (in place: a clone of it)"},
    {LayerKind::kMaxPool2d, "maxpool2d", "", "MaxPool2d", "nn.MaxPool2d", false,
     "its input and int64 indices of the output's size"},
    {LayerKind::kAvgPool2d, "avgpool2d", "", "AvgPool2d", "nn.AvgPool2d", false, "its input"},
    {LayerKind::kAdaptiveAvgPool2d, "adaptive_avgpool2d", "", "AdaptiveAvgPool2d", "nn.AdaptiveAvgPool2d", false,
     "its input (to 1x1 it runs mean(): nothing under PyTorch 2.x, the input under 1.13)"},
    {LayerKind::kAdaptiveMaxPool2d, "adaptive_maxpool2d", "", "AdaptiveMaxPool2d", "nn.AdaptiveMaxPool2d", false,
     "its input and int64 indices"},
    {LayerKind::kDropout, "dropout", "", "Dropout", "nn.Dropout", false, "a bool mask (CUDA's fused dropout)"},
    {LayerKind::kStochasticDepth, "stochastic_depth", "", "StochasticDepth", "torchvision.ops.StochasticDepth", false,
     "one noise value per sample"},
    {LayerKind::kFlatten, "flatten", "", "Flatten", "nn.Flatten / torch.flatten", false, "nothing (a view)"},
    {LayerKind::kPermute, "permute", "", "Permute", "Tensor.permute", false, "nothing (a view)"},
    {LayerKind::kUpsample, "upsample", "", "Upsample", "nn.Upsample / F.interpolate", false, "nothing"},
    {LayerKind::kIdentity, "identity", "", "Identity", "nn.Identity", false, "nothing"},
    {LayerKind::kLayerScale, "layer_scale", "", "LayerScale", "gamma * x (ConvNeXt)", false, "its input"},
    {LayerKind::kClassToken, "class_token", "", "ClassToken", "torch.cat([cls, x]) (ViT)", false, "nothing"},
    {LayerKind::kPositionEmbedding, "position_embedding", "", "PositionEmbedding", "x + pos_embedding (ViT)", false,
     "nothing"},
    {LayerKind::kSelectToken, "select_token", "", "SelectToken", "x[:, 0] (ViT)", false, "nothing (a view)"},
    {LayerKind::kAttention, "attention", "", "MultiheadAttention", "nn.MultiheadAttention", false,
     "math path: input copy, q, k, v, softmax (heads x S x S), out-proj input; fused: q, k, v, output, logsumexp"},
    {LayerKind::kWindowAttention, "window_attention", "", "ShiftedWindowAttention",
     "torchvision ShiftedWindowAttention (Swin)", false,
     "per padded window token: windows copy, q, k, v, out-proj input; softmax heads x window^2"},
    {LayerKind::kPatchMerging, "patch_merging", "", "PatchMerging", "torchvision PatchMerging (Swin)", false,
     "nothing (the 2x2 neighbours concatenated)"},
    {LayerKind::kAdd, "add", "", "Add", "a + b (residual)", true, "nothing"},
    {LayerKind::kConcat, "concat", "", "Concat", "torch.cat", true, "nothing"},
    {LayerKind::kMul, "mul", "", "Mul", "a * b (squeeze-and-excitation)", true, "both operands"},
    {LayerKind::kTap, "tap", "", "Tap", "a side output (FPN level)", true,
     "nothing (its output is held by the caller)"},
};
static_assert(OneRowPerEnumerator(kLayerKinds, static_cast<size_t>(LayerKind::kCount)),
              "one row per LayerKind, in order");

}  // namespace

EnumTable<LayerKindInfo> TableOf(LayerKind) { return TableFrom(kLayerKinds); }

namespace {
constexpr EnumInfo<TorchProfile> kTorchProfiles[] = {
    {TorchProfile::kTorch2Cuda, "torch2-cuda", "torch2", "torch2-cuda", "PyTorch 2.x on a GPU (the estimate)"},
    {TorchProfile::kTorch113Cpu, "torch1.13-cpu", "torch1.13", "torch1.13-cpu", "what tests/truth measured"},
};
static_assert(OneRowPerEnumerator(kTorchProfiles, EnumCount(TorchProfile::kLast)),
              "one row per TorchProfile, in order");
constexpr EnumInfo<AttentionKernel> kAttentionKernels[] = {
    {AttentionKernel::kAuto, "auto", "", "auto", "fused under torch2-cuda, math under torch1.13-cpu"},
    {AttentionKernel::kMath, "math", "", "math", "keeps the softmax (heads x S x S)"},
    {AttentionKernel::kFused, "fused", "", "fused",
     "SDPA's flash / memory-efficient kernels: q, k, v, output, logsumexp"},
};
static_assert(OneRowPerEnumerator(kAttentionKernels, EnumCount(AttentionKernel::kLast)),
              "one row per AttentionKernel, in order");
}  // namespace

EnumTable<EnumInfo<TorchProfile>> TableOf(TorchProfile) { return TableFrom(kTorchProfiles); }
EnumTable<EnumInfo<AttentionKernel>> TableOf(AttentionKernel) { return TableFrom(kAttentionKernels); }

// [SECTION] Shapes
double Shape::Numel() const {
  double n = 1;
  for (int i = 0; i < rank; ++i) n *= static_cast<double>(d[i]);
  return n;
}

std::string Shape::ToString() const {
  if (rank == 0) return "scalar";
  std::string s;
  for (int i = 0; i < rank; ++i) {
    if (i) s += "x";
    s += std::to_string(d[i]);
  }
  return s;
}

bool Shape::operator==(const Shape& o) const {
  if (rank != o.rank) return false;
  for (int i = 0; i < rank; ++i)
    if (d[i] != o.d[i]) return false;
  return true;
}

int CountLayers(const std::vector<Layer>& layers) {
  int n = 0;
  for (const Layer& l : layers) {
    ++n;
    for (const auto& br : l.branches) n += CountLayers(br);
    if (n > kMaxNetworkLayers) return n;
  }
  return n;
}

// [SECTION] Entry points
namespace {

using stack_internal::Analyzer;
using stack_internal::Rules;
using stack_internal::RulesFor;

NetworkAnalysis AnalyzeWith(const NetworkSpec& spec, const NetworkSettings& settings, const Rules& rules) {
  NetworkAnalysis a;
  if (!IsPlainFloat(settings.dtype)) {
    a.diagnostics.push_back({DiagId::kUnknownValue, Severity::kError, "dtype",
                             std::string("a layer stack runs in fp32, fp16 or bf16, not ") + Info(settings.dtype).id});
    return a;
  }
  Analyzer an(settings, rules, a);
  a.ok = an.Run(spec);
  if (!a.ok) a.rows.clear();
  return a;
}

}  // namespace

NetworkAnalysis AnalyzeNetwork(const NetworkSpec& spec, const NetworkSettings& settings) {
  return AnalyzeWith(spec, settings, RulesFor(settings));
}

// Each rule of the torch 1.13 / CPU profile flipped alone from the PyTorch 2.x one.
std::vector<ProfileDifference> ProfileDifferences(const NetworkSpec& spec, const NetworkSettings& settings) {
  std::vector<ProfileDifference> out;
  NetworkSettings s = settings;
  s.training = true;
  s.profile = TorchProfile::kTorch2Cuda;
  s.attention = AttentionKernel::kAuto;
  const Rules base = RulesFor(s);
  const NetworkAnalysis a = AnalyzeWith(spec, s, base);
  if (!a.ok) return out;
  struct Flip {
    const char* what;
    bool Rules::*rule;
  };
  const Flip flips[] = {
      {"nn.MultiheadAttention: PyTorch 2.x on CUDA runs fused SDPA (keeps q, k, v, the output, an fp32 "
       "logsumexp); torch 1.13's math path keeps the softmax (heads x S x S) and copies of q, k, v",
       &Rules::attention_math},
      {"AdaptiveAvgPool2d(1) runs mean(): torch 1.13's MeanBackward1 keeps its input; PyTorch 2.x keeps nothing",
       &Rules::mean_keeps_input},
      {"BatchNorm's and LayerNorm's statistics: fp32 on CUDA; the input dtype on the CPU (16-bit models)",
       &Rules::norm_stats_in_dtype},
  };
  for (const Flip& f : flips) {
    Rules r = base;
    r.*(f.rule) = true;
    const NetworkAnalysis b = AnalyzeWith(spec, s, r);
    if (b.ok && (b.saved_bytes != a.saved_bytes || b.saved_fixed_bytes != a.saved_fixed_bytes))
      out.push_back({f.what, b.saved_bytes - a.saved_bytes, b.saved_fixed_bytes - a.saved_fixed_bytes});
  }
  return out;
}

}  // namespace llmmem::core
