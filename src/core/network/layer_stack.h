// Any network, layer by layer (seed 002, second part): a stack of PyTorch layers with
// blocks whose branches are added, concatenated or multiplied; shapes inferred from the
// input through the stack; per layer its parameters, its output feature map and the
// tensors PyTorch keeps for its backward, de-duplicated by storage as autograd keeps them.
// Pure: standard library only, no I/O; bounded (layers, nesting, sizes); errors as values.
//
// The graph notion, kept small: a layer list runs in order; a block layer (add, concat,
// mul) runs each of its branches from the block's input (an empty branch is the input
// itself) and combines their outputs: a ResNet block is add[main, shortcut], DenseNet's
// dense layer concat[[], body], squeeze-and-excitation mul[[], gate]. Tensor shapes exclude
// the batch dimension; dims given PyTorch-style (flatten, permute, concat) count it. A tap
// block runs its one branch as a side output (an FPN level) and passes its input on.
//
// What each layer keeps was measured (tests/truth/measure_cnn.py, torch 1.13 on the CPU,
// saved-tensor hooks): kLayerKinds names it per kind, and the profile below names where
// PyTorch 2.x on CUDA differs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/diagnostics.h"
#include "core/model/dtype.h"

namespace llmmem::core {

// [SECTION] Layer kinds: one row each in kLayerKinds (layer_stack.cpp)
enum class LayerKind : uint8_t {
  kConv1d,
  kConv2d,
  kConvTranspose2d,
  kLinear,
  kEmbedding,
  kBatchNorm,
  kFrozenBatchNorm,
  kLayerNorm,
  kGroupNorm,
  kReLU,
  kReLU6,
  kLeakyReLU,
  kGELU,
  kSiLU,
  kSigmoid,
  kTanh,
  kHardswish,
  kHardsigmoid,
  kMaxPool2d,
  kAvgPool2d,
  kAdaptiveAvgPool2d,
  kAdaptiveMaxPool2d,
  kDropout,
  kStochasticDepth,
  kFlatten,
  kPermute,
  kUpsample,
  kIdentity,
  kLayerScale,
  kClassToken,
  kPositionEmbedding,
  kSelectToken,
  kAttention,
  kWindowAttention,
  kPatchMerging,
  kAdd,
  kConcat,
  kMul,  // blocks: their branches combined
  kTap,  // a block whose one branch is a side output (FPN levels); the input passes on
  kCount
};

struct LayerKindInfo {
  LayerKind value;
  const char* id;       // in JSON and the UI: "conv2d"
  const char* aliases;  // other spellings accepted (none yet)
  const char* label;    // "Conv2d"
  const char* torch;    // the PyTorch module or function: "nn.Conv2d"
  bool block;           // has branches
  const char* saves;    // what autograd keeps for its backward (the table's tooltip)
};

EnumTable<LayerKindInfo> TableOf(LayerKind);  // Info, Id, ParseId (case-insensitive), IdList: enum_table.h

enum class UpsampleMatch : uint8_t { kNone, kInput, kBlock };  // F.interpolate(size=...) of the network / block input

struct Layer {
  LayerKind kind = LayerKind::kIdentity;
  std::string name;   // the module path: "layer1.0.conv1"
  int64_t in = 0;     // input channels / features (0: taken from the shape)
  int64_t out = 0;    // output channels / features; embedding width
  int64_t vocab = 0;  // embedding rows
  int64_t kernel[2] = {1, 1};
  int64_t stride[2] = {0, 0};  // 0: the default (1 for convolutions, the kernel for pooling)
  int64_t padding[2] = {0, 0};
  bool padding_same = false;  // padding="same"
  int64_t dilation[2] = {1, 1};
  int64_t output_padding[2] = {0, 0};
  int64_t groups = 1;          // convolution groups; GroupNorm groups
  int64_t heads = 0;           // attention heads
  int64_t window[2] = {0, 0};  // Swin window
  int64_t shift[2] = {0, 0};   // Swin shift
  int64_t size[2] = {0, 0};    // adaptive pooling output; upsampling output (0: use scale / match)
  double scale = 0;            // upsampling factor
  UpsampleMatch match = UpsampleMatch::kNone;
  int64_t dims[6] = {0, 0, 0, 0, 0, 0};  // permute, with the batch dimension first
  int ndims = 0;
  int64_t start_dim = 1, end_dim = -1;  // flatten, with the batch dimension
  int64_t dim = 1;                      // concat dimension, with the batch dimension
  double drop_prob = 0;                 // dropout, stochastic depth, attention dropout probability ("p" in JSON)
  bool bias = true;
  bool affine = true;    // norms: weight and bias
  bool inplace = false;  // activations, in-place add (out += identity)
  bool ceil_mode = false;
  bool batch_mode = false;                   // stochastic depth mode "batch" (one draw per batch) instead of "row"
  bool trainable = true;                     // false: frozen parameters (no gradient, no saved input for one)
  std::vector<std::vector<Layer>> branches;  // blocks only
};

// kBackbone: no loss (its outputs feed heads the stack does not hold); every output is held.
enum class NetworkTask : uint8_t { kClassification, kSegmentation, kBackbone, kOther };

struct NetworkSpec {
  std::string key;   // preset key: "resnet50"
  std::string name;  // "ResNet-50"
  std::string family;
  NetworkTask task = NetworkTask::kClassification;
  std::vector<int64_t> input;    // per sample, e.g. {3, 224, 224}; token ids: {sequence}
  int64_t published_params = 0;  // the count the stack must equal (0: none given)
  std::string params_source;
  std::string note;
  std::vector<Layer> layers;
};

// Bounds that keep every count exact in a double and every loop short.
constexpr int kMaxNetworkLayers = 20000;  // layers and blocks, all nesting levels
constexpr int kMaxNetworkDepth = 24;      // nested blocks
constexpr int kMaxBranches = 64;
constexpr int kMaxRank = 5;  // dimensions per sample
constexpr int64_t kMaxDimSize = int64_t{1} << 31;
constexpr double kMaxSampleElements = 1e13;  // elements of one tensor of one sample

// [SECTION] Settings that change what is kept
// Whose PyTorch runs it. kTorch2Cuda: the estimate (PyTorch 2.x on a GPU). kTorch113Cpu:
// what tests/truth measures, each difference named in ProfileDifferences().
enum class TorchProfile : uint8_t { kTorch2Cuda, kTorch113Cpu, kLast = kTorch113Cpu };
// nn.MultiheadAttention(need_weights=False): the math path keeps the softmax (heads x S x S);
// the fused SDPA kernels (flash / memory-efficient, PyTorch 2.x on CUDA) keep q, k, v, the
// output and a logsumexp instead. kAuto: fused under kTorch2Cuda, math under kTorch113Cpu.
enum class AttentionKernel : uint8_t { kAuto, kMath, kFused, kLast = kFused };

EnumTable<EnumInfo<TorchProfile>> TableOf(TorchProfile);  // Info, Id, ParseId, IdList: enum_table.h
EnumTable<EnumInfo<AttentionKernel>> TableOf(AttentionKernel);

struct NetworkSettings {
  Dtype dtype = Dtype::kFp32;  // parameters and activations: fp32, fp16 or bf16 (model.to(dtype))
  bool training = true;        // train(): autograd keeps tensors; eval() under no_grad: only live tensors
  TorchProfile profile = TorchProfile::kTorch2Cuda;
  AttentionKernel attention = AttentionKernel::kAuto;
  bool loss = true;   // cross-entropy on the output (classification and segmentation)
  int64_t batch = 0;  // the batch, where a rule depends on it (0: more than one sample)
};

struct Shape {
  int rank = 0;
  int64_t d[kMaxRank] = {0, 0, 0, 0, 0};
  double Numel() const;
  std::string ToString() const;  // "64x56x56"
  bool operator==(const Shape& o) const;
};

// [SECTION] The analysis: one row per layer and per block, in forward order
struct LayerRow {
  std::string name;
  LayerKind kind = LayerKind::kIdentity;
  int depth = 0;    // nesting: 0 top level
  int branch = -1;  // which branch of its parent block (-1 top level)
  Shape in, out;
  int64_t params = 0;  // this layer's own (blocks: 0)
  int64_t trainable_params = 0;
  int param_tensors = 0;
  double buffer_bytes = 0;       // running statistics, index tables
  double feature_map_bytes = 0;  // the output, per sample, when a new tensor (0: in place or a view)
  double saved_bytes = 0;        // per sample: tensors this layer keeps for backward, de-duplicated
  double saved_fixed_bytes = 0;  // per step, whatever the batch (BatchNorm's per-channel statistics)
  double shared_bytes = 0;       // per sample: kept by this layer, already counted at an earlier one
  double workspace_bytes = 0;    // per sample: inference temporaries inside the layer (attention)
  std::string saved_what;        // "input; int64 indices (output-sized)"
};

struct NetworkAnalysis {
  bool ok = false;
  Diagnostics diagnostics;
  std::vector<LayerRow> rows;
  Shape input, output;
  int64_t params = 0, trainable_params = 0;
  int param_tensors = 0, trainable_tensors = 0;
  double param_bytes = 0, buffer_bytes = 0;
  double input_bytes = 0;        // one sample of input (images in the activation dtype; ids int64)
  double saved_bytes = 0;        // per sample, de-duplicated (training), the input included when kept
  double saved_fixed_bytes = 0;  // per step
  double loss_bytes = 0;         // per sample: cross-entropy's log-probabilities and int64 targets
  double loss_fixed_bytes = 0;
  double feature_map_bytes = 0;  // per sample: seed 002's view, every new output summed
  double output_held_bytes = 0;  // per sample: the outputs the caller holds (tap outputs too), when nothing keeps them
  double input_held_bytes = 0;   // per sample: the input batch, when no layer keeps it
  double inference_peak_bytes = 0;  // per sample: most bytes alive at once in eval (input included)
  std::vector<std::string> notes;   // differences and caveats that apply to this network
};

NetworkAnalysis AnalyzeNetwork(const NetworkSpec& spec, const NetworkSettings& settings);

// Profile differences that apply to a network: "AdaptiveAvgPool2d(1) = mean: torch 1.13's
// MeanBackward1 keeps its input; 2.x keeps none", with the bytes per sample they change.
struct ProfileDifference {
  std::string what;
  double bytes_per_sample = 0;  // kTorch113Cpu minus kTorch2Cuda
  double bytes_per_step = 0;    // the same, for what does not grow with the batch
};
std::vector<ProfileDifference> ProfileDifferences(const NetworkSpec& spec, const NetworkSettings& settings);

// Total layers and blocks at every level (what kMaxNetworkLayers bounds).
int CountLayers(const std::vector<Layer>& layers);

}  // namespace llmmem::core
