// The layer-stack analysis: shapes, parameters, feature maps and saved tensors.
//
// Index
//   [SECTION] Kind table        one row per LayerKind: id, label, PyTorch name, what it keeps
//   [SECTION] Shapes            bounded, overflow-checked shape arithmetic
//   [SECTION] Storages          values alias storages; saved storages counted once
//   [SECTION] Layers            per kind: shape, parameters, what autograd keeps
//   [SECTION] Blocks            branches run from the block input, then combined
//   [SECTION] Entry points      AnalyzeNetwork, ProfileDifferences
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
#include "core/layer_stack.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/text.h"

namespace llmmem::core {

// [SECTION] Kind table
namespace {

const LayerKindInfo kLayerKinds[] = {
    {LayerKind::kConv1d, "conv1d", "Conv1d", "nn.Conv1d", false, "its input (for the weight's gradient)"},
    {LayerKind::kConv2d, "conv2d", "Conv2d", "nn.Conv2d", false, "its input (for the weight's gradient)"},
    {LayerKind::kConvTranspose2d, "conv_transpose2d", "ConvTranspose2d", "nn.ConvTranspose2d", false,
     "its input (for the weight's gradient)"},
    {LayerKind::kLinear, "linear", "Linear", "nn.Linear", false,
     "its input (a contiguous copy when the input is permuted)"},
    {LayerKind::kEmbedding, "embedding", "Embedding", "nn.Embedding", false, "the int64 indices"},
    {LayerKind::kBatchNorm, "batchnorm", "BatchNorm", "nn.BatchNorm1d/2d", false,
     "its input and per-channel mean and inverse std (fp32)"},
    {LayerKind::kFrozenBatchNorm, "frozen_batchnorm", "FrozenBatchNorm2d", "torchvision.ops.FrozenBatchNorm2d",
     false, "nothing (x * scale + shift with buffers)"},
    {LayerKind::kLayerNorm, "layernorm", "LayerNorm", "nn.LayerNorm", false, "its input and mean and rstd per row"},
    {LayerKind::kGroupNorm, "groupnorm", "GroupNorm", "nn.GroupNorm", false,
     "its input and mean and rstd per sample and group"},
    {LayerKind::kReLU, "relu", "ReLU", "nn.ReLU", false, "its output (in place: the input's storage)"},
    {LayerKind::kReLU6, "relu6", "ReLU6", "nn.ReLU6 (hardtanh)", false, "its input (in place: a clone of it)"},
    {LayerKind::kLeakyReLU, "leaky_relu", "LeakyReLU", "nn.LeakyReLU", false,
     "its input (in place: its output, the input's storage)"},
    {LayerKind::kGELU, "gelu", "GELU", "nn.GELU", false, "its input (in place: a clone of it)"},
    {LayerKind::kSiLU, "silu", "SiLU", "nn.SiLU", false, "its input (in place: a clone of it)"},
    {LayerKind::kSigmoid, "sigmoid", "Sigmoid", "nn.Sigmoid", false, "its output"},
    {LayerKind::kTanh, "tanh", "Tanh", "nn.Tanh", false, "its output"},
    {LayerKind::kHardswish, "hardswish", "Hardswish", "nn.Hardswish", false, "its input (in place: a clone of it)"},
    {LayerKind::kHardsigmoid, "hardsigmoid", "Hardsigmoid", "nn.Hardsigmoid", false,
     "its input (in place: a clone of it)"},
    {LayerKind::kMaxPool2d, "maxpool2d", "MaxPool2d", "nn.MaxPool2d", false,
     "its input and int64 indices of the output's size"},
    {LayerKind::kAvgPool2d, "avgpool2d", "AvgPool2d", "nn.AvgPool2d", false, "its input"},
    {LayerKind::kAdaptiveAvgPool2d, "adaptive_avgpool2d", "AdaptiveAvgPool2d", "nn.AdaptiveAvgPool2d", false,
     "its input (to 1x1 it runs mean(): nothing under PyTorch 2.x, the input under 1.13)"},
    {LayerKind::kAdaptiveMaxPool2d, "adaptive_maxpool2d", "AdaptiveMaxPool2d", "nn.AdaptiveMaxPool2d", false,
     "its input and int64 indices"},
    {LayerKind::kDropout, "dropout", "Dropout", "nn.Dropout", false, "a bool mask (CUDA's fused dropout)"},
    {LayerKind::kStochasticDepth, "stochastic_depth", "StochasticDepth", "torchvision.ops.StochasticDepth", false,
     "one noise value per sample"},
    {LayerKind::kFlatten, "flatten", "Flatten", "nn.Flatten / torch.flatten", false, "nothing (a view)"},
    {LayerKind::kPermute, "permute", "Permute", "Tensor.permute", false, "nothing (a view)"},
    {LayerKind::kUpsample, "upsample", "Upsample", "nn.Upsample / F.interpolate", false, "nothing"},
    {LayerKind::kIdentity, "identity", "Identity", "nn.Identity", false, "nothing"},
    {LayerKind::kLayerScale, "layer_scale", "LayerScale", "gamma * x (ConvNeXt)", false, "its input"},
    {LayerKind::kClassToken, "class_token", "ClassToken", "torch.cat([cls, x]) (ViT)", false, "nothing"},
    {LayerKind::kPositionEmbedding, "position_embedding", "PositionEmbedding", "x + pos_embedding (ViT)", false,
     "nothing"},
    {LayerKind::kSelectToken, "select_token", "SelectToken", "x[:, 0] (ViT)", false, "nothing (a view)"},
    {LayerKind::kAttention, "attention", "MultiheadAttention", "nn.MultiheadAttention", false,
     "math path: input copy, q, k, v, softmax (heads x S x S), out-proj input; fused: q, k, v, output, logsumexp"},
    {LayerKind::kWindowAttention, "window_attention", "ShiftedWindowAttention",
     "torchvision ShiftedWindowAttention (Swin)", false,
     "per padded window token: windows copy, q, k, v, out-proj input; softmax heads x window^2"},
    {LayerKind::kPatchMerging, "patch_merging", "PatchMerging", "torchvision PatchMerging (Swin)", false,
     "nothing (the 2x2 neighbours concatenated)"},
    {LayerKind::kAdd, "add", "Add", "a + b (residual)", true, "nothing"},
    {LayerKind::kConcat, "concat", "Concat", "torch.cat", true, "nothing"},
    {LayerKind::kMul, "mul", "Mul", "a * b (squeeze-and-excitation)", true, "both operands"},
    {LayerKind::kTap, "tap", "Tap", "a side output (FPN level)", true, "nothing (its output is held by the caller)"},
};
static_assert(sizeof(kLayerKinds) / sizeof(kLayerKinds[0]) == static_cast<size_t>(LayerKind::kCount),
              "every LayerKind needs a row");

}  // namespace

const LayerKindInfo& Info(LayerKind k) { return kLayerKinds[static_cast<size_t>(k)]; }

bool ParseLayerKind(const std::string& id, LayerKind& out) {
  const std::string s = AsciiLower(id);
  for (const LayerKindInfo& info : kLayerKinds) {
    if (s == info.id) {
      out = info.kind;
      return true;
    }
  }
  return false;
}

std::string LayerKindIdList() {
  std::string s;
  for (const LayerKindInfo& info : kLayerKinds) {
    if (!s.empty()) s += ", ";
    s += info.id;
  }
  return s;
}

const char* TorchProfileId(TorchProfile p) { return p == TorchProfile::kTorch113Cpu ? "torch1.13-cpu" : "torch2-cuda"; }

bool ParseTorchProfile(const std::string& s, TorchProfile& out) {
  const std::string v = AsciiLower(s);
  if (v == "torch2-cuda" || v == "torch2") out = TorchProfile::kTorch2Cuda;
  else if (v == "torch1.13-cpu" || v == "torch1.13") out = TorchProfile::kTorch113Cpu;
  else return false;
  return true;
}

const char* AttentionKernelId(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::kMath: return "math";
    case AttentionKernel::kFused: return "fused";
    default: return "auto";
  }
}

bool ParseAttentionKernel(const std::string& s, AttentionKernel& out) {
  const std::string v = AsciiLower(s);
  if (v == "auto") out = AttentionKernel::kAuto;
  else if (v == "math") out = AttentionKernel::kMath;
  else if (v == "fused") out = AttentionKernel::kFused;
  else return false;
  return true;
}

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

namespace {

// The rules a profile switches (each one a named difference).
struct Rules {
  bool mean_keeps_input = false;     // torch 1.13's MeanBackward1 keeps its input
  bool attention_math = false;       // MultiheadAttention on the math path (not SDPA fused)
  bool norm_stats_in_dtype = false;  // CPU BatchNorm/LayerNorm keep their statistics in the input dtype
};

Rules RulesFor(const NetworkSettings& s) {
  Rules r;
  const bool old = s.profile == TorchProfile::kTorch113Cpu;
  r.mean_keeps_input = old;
  r.norm_stats_in_dtype = old;
  r.attention_math = s.attention == AttentionKernel::kMath || (s.attention == AttentionKernel::kAuto && old);
  return r;
}

// [SECTION] Storages
struct Value {
  Shape shape;
  int storage = -1;
  bool contiguous = true;
  bool requires_grad = false;
  double elem = 4;  // bytes per element
  double Bytes() const { return shape.Numel() * elem; }
};

struct Storage {
  double bytes = 0;        // per sample
  double fixed = 0;        // per step
  bool saved = false;
  int first_saver = -1;    // row
  int created = 0;         // step
  int last_use = 0;        // step
};

class Analyzer {
 public:
  Analyzer(const NetworkSettings& s, const Rules& rules, NetworkAnalysis& a)
      : s_(s), rules_(rules), a_(a), elem_(Info(s.dtype).bits / 8.0) {}

  bool Run(const NetworkSpec& spec);

 private:
  // --- errors
  void Error(const std::string& where, const std::string& message, DiagId id = DiagId::kInconsistent) {
    if (failed_) return;  // the first error explains; later ones follow from it
    failed_ = true;
    a_.diagnostics.push_back({id, Severity::kError, "network", where.empty() ? message : where + ": " + message});
  }

  // --- storages
  int NewStorage(double bytes, double fixed = 0) {
    Storage st;
    st.bytes = bytes;
    st.fixed = fixed;
    st.created = step_;
    st.last_use = step_;
    storages_.push_back(st);
    return static_cast<int>(storages_.size()) - 1;
  }
  Value NewValue(const Shape& shape, bool requires_grad, double elem = -1) {
    Value v;
    v.shape = shape;
    v.elem = elem > 0 ? elem : elem_;
    v.requires_grad = requires_grad;
    v.storage = NewStorage(v.Bytes());
    return v;
  }
  void Use(const Value& v) {
    if (v.storage >= 0) storages_[v.storage].last_use = std::max(storages_[v.storage].last_use, step_);
  }
  // This row keeps the storage behind v for backward.
  void Save(const Value& v, LayerRow& row, const char* what) { SaveStorage(v.storage, row, what); }
  void SaveStorage(int id, LayerRow& row, const char* what) {
    if (!s_.training || id < 0) return;
    Storage& st = storages_[id];
    AppendWhat(row, what);
    if (st.saved) {
      row.shared_bytes += st.bytes;
      return;
    }
    st.saved = true;
    st.first_saver = static_cast<int>(&row - a_.rows.data());
    row.saved_bytes += st.bytes;
    row.saved_fixed_bytes += st.fixed;
  }
  // A new tensor made only to be kept (indices, masks, clones, statistics).
  void SaveNew(double bytes, double fixed, LayerRow& row, const char* what) {
    if (!s_.training) return;
    SaveStorage(NewStorage(bytes, fixed), row, what);
  }
  static void AppendWhat(LayerRow& row, const char* what) {
    if (!row.saved_what.empty()) row.saved_what += "; ";
    row.saved_what += what;
  }

  // --- shapes
  bool CheckShape(const Shape& sh, const std::string& where) {
    for (int i = 0; i < sh.rank; ++i) {
      if (sh.d[i] < 1) {
        Error(where, "the output would have a dimension of " + std::to_string(sh.d[i]) + " (" + sh.ToString() +
                         "): the input is too small for this layer", DiagId::kOutOfRange);
        return false;
      }
      if (sh.d[i] > kMaxDimSize) {
        Error(where, "a dimension of " + std::to_string(sh.d[i]) + " is over the limit of 2^31", DiagId::kOutOfRange);
        return false;
      }
    }
    if (sh.Numel() > kMaxSampleElements) {
      Error(where, "one sample's tensor would hold more than 1e13 elements", DiagId::kOutOfRange);
      return false;
    }
    return true;
  }
  bool AddParams(LayerRow& row, const Layer& l, double count, int tensors) {
    if (count < 0 || count > 1e14) {
      Error(row.name, "more than 1e14 parameters", DiagId::kOutOfRange);
      return false;
    }
    const int64_t n = static_cast<int64_t>(count);
    row.params += n;
    row.param_tensors += tensors;
    if (l.trainable) row.trainable_params += n;
    return true;
  }

  int64_t PoolOut(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) const;
  Value Conv(const Layer& l, const Value& in, LayerRow& row);
  Value Pool(const Layer& l, const Value& in, LayerRow& row);
  Value Attention(const Layer& l, const Value& in, LayerRow& row);
  Value WindowAttention(const Layer& l, const Value& in, LayerRow& row);
  Value Activation(const Layer& l, const Value& in, LayerRow& row);
  Value RunLayer(const Layer& l, const Value& in, int depth, int branch, const Value& block_in,
                 const std::string& path);
  Value RunBlock(const Layer& l, const Value& in, int depth, int branch, const std::string& path);
  Value RunList(const std::vector<Layer>& layers, Value v, int depth, int branch, const Value& block_in,
                const std::string& path);

  const NetworkSettings& s_;
  Rules rules_;
  NetworkAnalysis& a_;
  double elem_;
  std::vector<Storage> storages_;
  std::vector<double> workspace_;  // per step (inference temporaries)
  std::vector<Value> held_;        // side outputs (taps), held by the caller to the end
  Shape net_input_;
  int step_ = 0;
  bool failed_ = false;
};

int64_t Analyzer::PoolOut(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) const {
  // PyTorch's pooling_output_shape (aten/src/ATen/native/Pool.h)
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0 || s <= 0) return 0;
  int64_t out = (span + (ceil ? s - 1 : 0)) / s + 1;
  if (ceil && (out - 1) * s >= in + p) --out;
  return out;
}

// [SECTION] Layers
Value Analyzer::Conv(const Layer& l, const Value& in, LayerRow& row) {
  const bool one_d = l.kind == LayerKind::kConv1d;
  const int need = one_d ? 2 : 3;
  if (in.shape.rank != need) {
    Error(row.name, std::string(Info(l.kind).label) + " needs a (C, " + (one_d ? "L" : "H, W") +
                        ") input per sample; it gets " + in.shape.ToString());
    return in;
  }
  const int64_t c = in.shape.d[0];
  if (l.in && l.in != c) {
    Error(row.name, "expects " + std::to_string(l.in) + " input channels; the input has " + std::to_string(c));
    return in;
  }
  if (l.out < 1 || l.groups < 1 || c % l.groups != 0 || l.out % l.groups != 0) {
    Error(row.name, "channels (" + std::to_string(c) + " in, " + std::to_string(l.out) +
                        " out) must be positive and divisible by groups = " + std::to_string(l.groups));
    return in;
  }
  Shape out;
  out.rank = need;
  out.d[0] = l.out;
  double k_area = 1;
  for (int i = 0; i < need - 1; ++i) {
    const int64_t k = l.kernel[i], st = l.stride[i] ? l.stride[i] : 1, p = l.padding[i], d = l.dilation[i];
    if (k < 1 || st < 1 || p < 0 || d < 1) {
      Error(row.name, "kernel, stride and dilation must be at least 1 and padding at least 0", DiagId::kOutOfRange);
      return in;
    }
    k_area *= static_cast<double>(k);
    const int64_t x = in.shape.d[1 + i];
    if (l.kind == LayerKind::kConvTranspose2d) {
      out.d[1 + i] = (x - 1) * st - 2 * p + d * (k - 1) + l.output_padding[i] + 1;
    } else if (l.padding_same) {
      if (st != 1) {
        Error(row.name, "padding='same' needs stride 1 (as PyTorch)");
        return in;
      }
      out.d[1 + i] = x;
    } else {
      out.d[1 + i] = (x + 2 * p - d * (k - 1) - 1) / st + 1;
      if (x + 2 * p - d * (k - 1) - 1 < 0) out.d[1 + i] = 0;
    }
  }
  if (!CheckShape(out, row.name)) return in;
  const double weight = static_cast<double>(c) / static_cast<double>(l.groups) * static_cast<double>(l.out) * k_area;
  if (!AddParams(row, l, weight + (l.bias ? l.out : 0), l.bias ? 2 : 1)) return in;
  if (l.trainable) Save(in, row, "input");
  return NewValue(out, in.requires_grad || l.trainable);
}

Value Analyzer::Pool(const Layer& l, const Value& in, LayerRow& row) {
  if (in.shape.rank != 3) {
    Error(row.name, std::string(Info(l.kind).label) + " needs a (C, H, W) input per sample; it gets " +
                        in.shape.ToString());
    return in;
  }
  Shape out = in.shape;
  const bool adaptive = l.kind == LayerKind::kAdaptiveAvgPool2d || l.kind == LayerKind::kAdaptiveMaxPool2d;
  for (int i = 0; i < 2; ++i) {
    if (adaptive) {
      out.d[1 + i] = l.size[i];
    } else {
      const int64_t k = l.kernel[i], st = l.stride[i] ? l.stride[i] : k;
      if (k < 1 || st < 1 || l.padding[i] < 0 || l.dilation[i] < 1 || 2 * l.padding[i] > k) {
        Error(row.name, "kernel and stride at least 1, padding at most half the kernel (as PyTorch)",
              DiagId::kOutOfRange);
        return in;
      }
      out.d[1 + i] = PoolOut(in.shape.d[1 + i], k, st, l.padding[i],
                             l.kind == LayerKind::kMaxPool2d ? l.dilation[i] : 1, l.ceil_mode);
    }
  }
  if (!CheckShape(out, row.name)) return in;
  const bool max = l.kind == LayerKind::kMaxPool2d || l.kind == LayerKind::kAdaptiveMaxPool2d;
  if (in.requires_grad) {
    if (l.kind == LayerKind::kAdaptiveAvgPool2d && l.size[0] == 1 && l.size[1] == 1) {
      if (rules_.mean_keeps_input) Save(in, row, "input (torch 1.13's MeanBackward1)");
    } else {
      Save(in, row, "input");
    }
    if (max) SaveNew(out.Numel() * 8, 0, row, "int64 indices");
  }
  return NewValue(out, in.requires_grad);
}

// nn.MultiheadAttention(x, x, x, need_weights=False), batch_first, per sample of S tokens
// of width E with H heads:
//  math path (torch 1.13's F.multi_head_attention_forward, measured): in_proj's input as a
//    contiguous copy (batch_first transposes it), q (scaled), k, v contiguous copies, the
//    softmax (H x S x S), out_proj's input copy: 5 S E + H S^2 elements; with dropout p > 0
//    also a bool mask and the dropped copy (H x S x S each).
//  fused (PyTorch 2.x, CUDA, F.scaled_dot_product_attention flash / memory-efficient, per
//    derivatives.yaml: query, key, value, output, logsumexp): the input copy, the packed
//    q/k/v (3 S E, one storage), the output (S E), out_proj's input copy (S E) and an fp32
//    logsumexp of H x S: 6 S E elements + 4 H S bytes. Not measured here (no CUDA).
Value Analyzer::Attention(const Layer& l, const Value& in, LayerRow& row) {
  if (in.shape.rank != 2) {
    Error(row.name, "MultiheadAttention needs an (S, E) input per sample; it gets " + in.shape.ToString());
    return in;
  }
  const int64_t seq = in.shape.d[0], e = in.shape.d[1];
  if ((l.in && l.in != e) || l.heads < 1 || e % l.heads != 0) {
    Error(row.name, "embed dim " + std::to_string(e) + " must equal in and be divisible by heads = " +
                        std::to_string(l.heads));
    return in;
  }
  const double E = static_cast<double>(e), S = static_cast<double>(seq), H = static_cast<double>(l.heads);
  if (!AddParams(row, l, 4 * E * E + (l.bias ? 4 * E : 0), l.bias ? 4 : 2)) return in;
  const double tok = S * E * elem_;
  if (rules_.attention_math) {
    SaveNew(tok, 0, row, "in_proj input (contiguous copy)");
    SaveNew(3 * tok, 0, row, "q, k, v (contiguous copies)");
    SaveNew(H * S * S * elem_, 0, row, "softmax (heads x S x S)");
    if (l.p > 0) {
      SaveNew(H * S * S, 0, row, "dropout bool mask");
      SaveNew(H * S * S * elem_, 0, row, "dropped attention");
    }
    SaveNew(tok, 0, row, "out_proj input (copy)");
  } else {
    SaveNew(tok, 0, row, "in_proj input (contiguous copy)");
    SaveNew(3 * tok, 0, row, "q, k, v (one storage)");
    SaveNew(tok, 0, row, "attention output");
    SaveNew(4 * H * S, 0, row, "logsumexp (fp32)");
    SaveNew(tok, 0, row, "out_proj input (copy)");
  }
  // inference temporaries inside the layer: q, k, v and the scores (math) or just q, k, v
  workspace_[step_] += 3 * tok + (rules_.attention_math || !s_.training ? H * S * S * elem_ : 0);
  return NewValue(in.shape, true);
}

// torchvision's shifted_window_attention on an (H, W, C) map: padded to whole windows,
// rolled, split into windows, then attention inside each window (measured, torch 1.13):
// per padded token the windows' copy (F.linear's input), q (scaled), k and v (copies for the
// batched matmuls), the out-projection's input (C each) and the softmax (heads x window^2).
// With one window in the whole batch (batch 1, a map no larger than the window) k and v
// need no copy: matmul keeps views of the packed qkv output (3C per token) instead.
Value Analyzer::WindowAttention(const Layer& l, const Value& in, LayerRow& row) {
  if (in.shape.rank != 3) {
    Error(row.name, "window attention needs an (H, W, C) input per sample; it gets " + in.shape.ToString());
    return in;
  }
  const int64_t h = in.shape.d[0], w = in.shape.d[1], c = in.shape.d[2];
  if ((l.in && l.in != c) || l.heads < 1 || c % l.heads != 0 || l.window[0] < 1 || l.window[1] < 1) {
    Error(row.name, "channels " + std::to_string(c) + " must equal in and divide by heads; the window must be set");
    return in;
  }
  const double C = static_cast<double>(c), H = static_cast<double>(l.heads);
  const double ph = static_cast<double>((h + l.window[0] - 1) / l.window[0] * l.window[0]);
  const double pw = static_cast<double>((w + l.window[1] - 1) / l.window[1] * l.window[1]);
  const double ws = static_cast<double>(l.window[0] * l.window[1]);
  const double table = static_cast<double>((2 * l.window[0] - 1) * (2 * l.window[1] - 1)) * H;
  if (!AddParams(row, l, 4 * C * C + (l.bias ? 4 * C : 0) + table, l.bias ? 5 : 3)) return in;
  row.buffer_bytes += ws * ws * 8;  // relative_position_index (int64)
  const double tokens = ph * pw;
  const double tok = tokens * C * elem_;
  SaveNew(tok, 0, row, "windows (F.linear input)");
  const bool one_window = s_.batch == 1 && ph == static_cast<double>(l.window[0]) && pw == static_cast<double>(l.window[1]);
  if (one_window) {
    SaveNew(tok, 0, row, "q (scaled)");
    SaveNew(3 * tok, 0, row, "packed qkv (k and v are views of it: one window)");
  } else {
    SaveNew(3 * tok, 0, row, "q (scaled), k, v copies");
  }
  SaveNew(tokens * H * ws * elem_, 0, row, "softmax (heads x window^2 per token)");
  if (l.p > 0) {
    SaveNew(tokens * H * ws, 0, row, "dropout bool mask");
    SaveNew(tokens * H * ws * elem_, 0, row, "dropped attention");
  }
  SaveNew(tok, 0, row, "out-projection input (copy)");
  workspace_[step_] += 5 * tok + tokens * H * ws * elem_;
  return NewValue(in.shape, true);
}

Value Analyzer::Activation(const Layer& l, const Value& in, LayerRow& row) {
  // Which tensor the backward formula needs: the output (relu, sigmoid, tanh; leaky_relu
  // in place) or the input (the others; in place a clone of it, as the input is overwritten).
  const bool keeps_output = l.kind == LayerKind::kReLU || l.kind == LayerKind::kSigmoid ||
                            l.kind == LayerKind::kTanh || (l.kind == LayerKind::kLeakyReLU && l.inplace);
  Value out = in;
  if (!l.inplace) {
    out = NewValue(in.shape, in.requires_grad);
    out.contiguous = true;
  }
  if (!in.requires_grad) return out;
  if (keeps_output) Save(out, row, "output");
  else if (l.inplace) SaveNew(in.Bytes(), 0, row, "clone of the input (in place)");
  else Save(in, row, "input");
  return out;
}

Value Analyzer::RunLayer(const Layer& l, const Value& in, int depth, int branch, const Value& block_in,
                         const std::string& path) {
  if (Info(l.kind).block) return RunBlock(l, in, depth, branch, path);
  a_.rows.emplace_back();
  LayerRow* row = &a_.rows.back();
  row->name = l.name.empty() ? path : l.name;
  row->kind = l.kind;
  row->depth = depth;
  row->branch = branch;
  row->in = in.shape;
  ++step_;
  workspace_.resize(static_cast<size_t>(step_) + 1, 0);
  Use(in);
  const size_t storages_before = storages_.size();
  Value out = in;
  const Shape& sh = in.shape;
  switch (l.kind) {
    case LayerKind::kConv1d:
    case LayerKind::kConv2d:
    case LayerKind::kConvTranspose2d:
      out = Conv(l, in, *row);
      break;
    case LayerKind::kLinear: {
      if (sh.rank < 1) {
        Error(row->name, "Linear needs at least one dimension");
        break;
      }
      const int64_t f = sh.d[sh.rank - 1];
      if ((l.in && l.in != f) || l.out < 1) {
        Error(row->name, "expects " + std::to_string(l.in) + " input features; the input's last dimension is " +
                             std::to_string(f) + " (" + sh.ToString() + ")");
        break;
      }
      Shape o = sh;
      o.d[sh.rank - 1] = l.out;
      if (!CheckShape(o, row->name)) break;
      if (!AddParams(*row, l, static_cast<double>(f) * static_cast<double>(l.out) + (l.bias ? l.out : 0),
                     l.bias ? 2 : 1))
        break;
      if (l.trainable) {
        if (!in.contiguous && sh.rank >= 2) SaveNew(in.Bytes(), 0, *row, "input (contiguous copy)");
        else Save(in, *row, "input");
      }
      out = NewValue(o, in.requires_grad || l.trainable);
      break;
    }
    case LayerKind::kEmbedding: {
      if (l.vocab < 1 || l.out < 1 || sh.rank + 1 > kMaxRank) {
        Error(row->name, "Embedding needs rows (vocab) and a width (out)");
        break;
      }
      Shape o = sh;
      o.d[o.rank++] = l.out;
      if (!CheckShape(o, row->name)) break;
      if (!AddParams(*row, l, static_cast<double>(l.vocab) * static_cast<double>(l.out), 1)) break;
      if (l.trainable) Save(in, *row, "int64 indices");
      out = NewValue(o, l.trainable);
      break;
    }
    case LayerKind::kBatchNorm:
    case LayerKind::kFrozenBatchNorm:
    case LayerKind::kGroupNorm: {
      if (sh.rank < 1 || (l.in && l.in != sh.d[0])) {
        Error(row->name, std::string(Info(l.kind).label) + " over " + std::to_string(l.in) +
                             " channels; the input has " + (sh.rank ? std::to_string(sh.d[0]) : std::string("none")) +
                             " (channels first: " + sh.ToString() + ")");
        break;
      }
      const double c = static_cast<double>(sh.d[0]);
      if (l.kind == LayerKind::kFrozenBatchNorm) {
        // torchvision: x * scale + shift, scale = weight * (running_var + eps).rsqrt() made
        // each forward: x's gradient needs scale (C values per step), nothing else is kept
        row->buffer_bytes += 4 * c * elem_;  // weight, bias, running_mean, running_var (buffers)
        if (in.requires_grad) SaveNew(0, c * elem_, *row, "scale (C values)");
        out = NewValue(sh, in.requires_grad);
        break;
      }
      if (l.kind == LayerKind::kGroupNorm && (l.groups < 1 || sh.d[0] % l.groups != 0)) {
        Error(row->name, "GroupNorm: channels must divide into groups = " + std::to_string(l.groups));
        break;
      }
      const bool trainable_affine = l.affine && l.trainable;
      if (l.affine && !AddParams(*row, l, 2 * c, 2)) break;
      if (l.kind == LayerKind::kBatchNorm) {
        row->buffer_bytes += 2 * c * elem_ + 8;  // running_mean, running_var, num_batches_tracked (int64)
        if (in.requires_grad || trainable_affine) {
          Save(in, *row, "input");
          if (rules_.norm_stats_in_dtype && elem_ < 4)
            SaveNew(0, 2 * c * elem_, *row, "mean and inverse std per channel (input dtype, CPU)");
          else
            SaveNew(0, 2 * c * 4, *row, "mean and inverse std per channel (fp32)");
        }
      } else if (in.requires_grad || trainable_affine) {
        Save(in, *row, "input");
        SaveNew(2 * static_cast<double>(l.groups) * elem_, 0, *row, "mean and rstd per group");
      }
      out = NewValue(sh, in.requires_grad || trainable_affine);
      break;
    }
    case LayerKind::kLayerNorm: {
      if (sh.rank < 1 || (l.in && l.in != sh.d[sh.rank - 1])) {
        Error(row->name, "LayerNorm over " + std::to_string(l.in) + " features; the input's last dimension is " +
                             (sh.rank ? std::to_string(sh.d[sh.rank - 1]) : std::string("missing")) + " (" +
                             sh.ToString() + ")");
        break;
      }
      const double d = static_cast<double>(sh.d[sh.rank - 1]);
      if (l.affine && !AddParams(*row, l, 2 * d, 2)) break;
      const bool trainable_affine = l.affine && l.trainable;
      if (in.requires_grad || trainable_affine) {
        Save(in, *row, "input");
        SaveNew(2 * sh.Numel() / d * (rules_.norm_stats_in_dtype ? elem_ : 4), 0, *row,
                rules_.norm_stats_in_dtype ? "mean and rstd per row (input dtype, CPU)" : "mean and rstd per row (fp32)");
      }
      out = NewValue(sh, in.requires_grad || trainable_affine);
      break;
    }
    case LayerKind::kReLU:
    case LayerKind::kReLU6:
    case LayerKind::kLeakyReLU:
    case LayerKind::kGELU:
    case LayerKind::kSiLU:
    case LayerKind::kSigmoid:
    case LayerKind::kTanh:
    case LayerKind::kHardswish:
    case LayerKind::kHardsigmoid:
      out = Activation(l, in, *row);
      break;
    case LayerKind::kMaxPool2d:
    case LayerKind::kAvgPool2d:
    case LayerKind::kAdaptiveAvgPool2d:
    case LayerKind::kAdaptiveMaxPool2d:
      out = Pool(l, in, *row);
      break;
    case LayerKind::kDropout:
      if (l.p < 0 || l.p > 1) {
        Error(row->name, "dropout probability must be in [0, 1]", DiagId::kOutOfRange);
        break;
      }
      if (s_.training && l.p > 0 && l.p < 1 && in.requires_grad) {
        SaveNew(sh.Numel(), 0, *row, "bool mask");
        out = NewValue(sh, true);
      }
      break;
    case LayerKind::kStochasticDepth:
      if (l.p < 0 || l.p > 1) {
        Error(row->name, "stochastic depth probability must be in [0, 1]", DiagId::kOutOfRange);
        break;
      }
      if (s_.training && l.p > 0 && in.requires_grad) {
        if (l.batch_mode) SaveNew(0, elem_, *row, "noise (one value per batch)");
        else SaveNew(elem_, 0, *row, "noise (one value per sample)");
        out = NewValue(sh, true);
      }
      break;
    case LayerKind::kFlatten: {
      int64_t a = l.start_dim, b = l.end_dim;
      const int64_t full = sh.rank + 1;  // with the batch dimension
      if (a < 0) a += full;
      if (b < 0) b += full;
      if (a < 1 || b >= full || a > b) {
        Error(row->name, "flatten dims " + std::to_string(l.start_dim) + ".." + std::to_string(l.end_dim) +
                             " do not fit a " + std::to_string(full) + "-d input (batch first; the batch stays)");
        break;
      }
      Shape o;
      for (int64_t i = 1; i < a; ++i) o.d[o.rank++] = sh.d[i - 1];
      int64_t merged = 1;
      for (int64_t i = a; i <= b; ++i) merged *= sh.d[i - 1];
      o.d[o.rank++] = merged;
      for (int64_t i = b + 1; i < full; ++i) o.d[o.rank++] = sh.d[i - 1];
      if (!CheckShape(o, row->name)) break;
      out.shape = o;
      if (!in.contiguous && a < b) {  // reshape of a permuted tensor copies
        out = NewValue(o, in.requires_grad);
      }
      break;
    }
    case LayerKind::kPermute: {
      if (l.ndims != sh.rank + 1 || l.dims[0] != 0) {
        Error(row->name, "permute needs " + std::to_string(sh.rank + 1) +
                             " dims with the batch first (0, ...) for a " + sh.ToString() + " input");
        break;
      }
      Shape o = sh;
      bool seen[kMaxRank + 1] = {};
      bool identity = true;
      for (int i = 1; i < l.ndims; ++i) {
        const int64_t d = l.dims[i] < 0 ? l.dims[i] + l.ndims : l.dims[i];
        if (d < 1 || d >= l.ndims || seen[d]) {
          Error(row->name, "permute dims must be a permutation of 0.." + std::to_string(l.ndims - 1));
          break;
        }
        seen[d] = true;
        o.d[i - 1] = sh.d[d - 1];
        identity &= d == i;
      }
      out.shape = o;
      out.contiguous = in.contiguous && identity;
      break;
    }
    case LayerKind::kUpsample: {
      if (sh.rank != 3) {
        Error(row->name, "upsampling needs a (C, H, W) input per sample; it gets " + sh.ToString());
        break;
      }
      Shape o = sh;
      for (int i = 0; i < 2; ++i) {
        if (l.match == UpsampleMatch::kInput) {
          if (net_input_.rank != 3) {
            Error(row->name, "match: input needs a (C, H, W) network input");
            break;
          }
          o.d[1 + i] = net_input_.d[1 + i];
        } else if (l.match == UpsampleMatch::kBlock) {
          if (block_in.shape.rank != 3) {
            Error(row->name, "match: block needs to be inside a block whose input is (C, H, W)");
            break;
          }
          o.d[1 + i] = block_in.shape.d[1 + i];
        } else if (l.size[i] > 0) {
          o.d[1 + i] = l.size[i];
        } else if (l.scale > 0) {
          o.d[1 + i] = static_cast<int64_t>(std::floor(static_cast<double>(sh.d[1 + i]) * l.scale));
        } else {
          Error(row->name, "upsampling needs a size, a scale or match: input / block");
          break;
        }
      }
      if (failed_ || !CheckShape(o, row->name)) break;
      out = NewValue(o, in.requires_grad);
      break;
    }
    case LayerKind::kIdentity:
      break;
    case LayerKind::kLayerScale: {
      if (sh.rank < 1 || (l.in && l.in != sh.d[0])) {
        Error(row->name, "layer scale over " + std::to_string(l.in) + " channels; the input is " + sh.ToString());
        break;
      }
      if (!AddParams(*row, l, static_cast<double>(sh.d[0]), 1)) break;
      if (l.trainable) Save(in, *row, "input (for gamma's gradient)");
      out = NewValue(sh, in.requires_grad || l.trainable);
      break;
    }
    case LayerKind::kClassToken:
    case LayerKind::kPositionEmbedding: {
      if (sh.rank != 2 || (l.in && l.in != sh.d[1])) {
        Error(row->name, std::string(Info(l.kind).label) + " needs an (S, E) token input; it gets " + sh.ToString());
        break;
      }
      Shape o = sh;
      if (l.kind == LayerKind::kClassToken) {
        ++o.d[0];
        if (!AddParams(*row, l, static_cast<double>(sh.d[1]), 1)) break;
      } else if (!AddParams(*row, l, sh.Numel(), 1)) {
        break;
      }
      out = NewValue(o, in.requires_grad || l.trainable);
      break;
    }
    case LayerKind::kSelectToken: {
      if (sh.rank != 2) {
        Error(row->name, "selecting a token needs an (S, E) input; it gets " + sh.ToString());
        break;
      }
      Shape o;
      o.rank = 1;
      o.d[0] = sh.d[1];
      out.shape = o;  // a view: whoever keeps it keeps the whole (S, E) storage
      break;
    }
    case LayerKind::kAttention:
      out = Attention(l, in, *row);
      break;
    case LayerKind::kWindowAttention:
      out = WindowAttention(l, in, *row);
      break;
    case LayerKind::kPatchMerging: {
      if (sh.rank != 3) {
        Error(row->name, "patch merging needs an (H, W, C) input; it gets " + sh.ToString());
        break;
      }
      Shape o = sh;
      o.d[0] = (sh.d[0] + 1) / 2;
      o.d[1] = (sh.d[1] + 1) / 2;
      o.d[2] = sh.d[2] * 4;
      if (!CheckShape(o, row->name)) break;
      out = NewValue(o, in.requires_grad);
      break;
    }
    default:
      Error(row->name, "not a layer kind the stack can run", DiagId::kUnsupported);
      break;
  }
  row = &a_.rows.back();  // (no rows are added above; kept for clarity)
  row->out = out.shape;
  if (out.storage != in.storage && static_cast<size_t>(out.storage) >= storages_before)
    row->feature_map_bytes = out.Bytes();
  row->workspace_bytes = workspace_[step_];
  return out;
}

// [SECTION] Blocks
Value Analyzer::RunBlock(const Layer& l, const Value& in, int depth, int branch, const std::string& path) {
  const size_t row_index = a_.rows.size();
  a_.rows.emplace_back();
  {
    LayerRow& row = a_.rows.back();
    row.name = l.name.empty() ? path : l.name;
    row.kind = l.kind;
    row.depth = depth;
    row.branch = branch;
    row.in = in.shape;
  }
  if (depth + 1 > kMaxNetworkDepth) {
    Error(a_.rows[row_index].name, "blocks nest deeper than " + std::to_string(kMaxNetworkDepth), DiagId::kOutOfRange);
    return in;
  }
  if (l.branches.empty() || static_cast<int>(l.branches.size()) > kMaxBranches) {
    Error(a_.rows[row_index].name, "a block needs 1 to " + std::to_string(kMaxBranches) + " branches");
    return in;
  }
  if (l.kind == LayerKind::kTap) {
    if (l.branches.size() != 1) {
      Error(a_.rows[row_index].name, "a tap has one branch (the side output)");
      return in;
    }
    const Value side = RunList(l.branches[0], in, depth + 1, 0, in, a_.rows[row_index].name + ".branch0");
    if (failed_) return in;
    held_.push_back(side);
    a_.rows[row_index].out = side.shape;
    return in;
  }
  std::vector<Value> outs;
  for (size_t b = 0; b < l.branches.size() && !failed_; ++b) {
    outs.push_back(RunList(l.branches[b], in, depth + 1, static_cast<int>(b), in,
                           a_.rows[row_index].name + ".branch" + std::to_string(b)));
  }
  if (failed_) return in;
  // The combining step.
  ++step_;
  workspace_.resize(static_cast<size_t>(step_) + 1, 0);
  for (const Value& v : outs) Use(v);
  LayerRow& row = a_.rows[row_index];
  bool requires_grad = false;
  for (const Value& v : outs) requires_grad |= v.requires_grad;
  Shape o = outs[0].shape;
  if (l.kind == LayerKind::kAdd) {
    for (const Value& v : outs) {
      if (!(v.shape == o)) {
        Error(row.name, "added branches must have the same shape: " + o.ToString() + " and " + v.shape.ToString());
        return in;
      }
    }
  } else if (l.kind == LayerKind::kMul) {
    for (const Value& v : outs) {  // broadcasting: equal ranks, each dim equal or 1
      if (v.shape.rank != o.rank) {
        Error(row.name, "multiplied branches must have the same rank: " + o.ToString() + " and " + v.shape.ToString());
        return in;
      }
      for (int i = 0; i < o.rank; ++i) {
        if (v.shape.d[i] != o.d[i] && v.shape.d[i] != 1 && o.d[i] != 1) {
          Error(row.name, "branches do not broadcast: " + o.ToString() + " and " + v.shape.ToString());
          return in;
        }
        o.d[i] = std::max(o.d[i], v.shape.d[i]);
      }
    }
    // x * y keeps each operand for the other's gradient
    if (requires_grad) {
      for (size_t i = 0; i < outs.size(); ++i) {
        bool other_needs = false;
        for (size_t j = 0; j < outs.size(); ++j) other_needs |= j != i && outs[j].requires_grad;
        if (other_needs) Save(outs[i], row, i == 0 ? "first operand" : "other operand");
      }
    }
  } else {  // concat
    const int64_t full = o.rank + 1;
    int64_t d = l.dim < 0 ? l.dim + full : l.dim;
    if (d < 1 || d >= full) {
      Error(row.name, "concat dim " + std::to_string(l.dim) + " does not fit a " + std::to_string(full) +
                          "-d tensor (batch first)");
      return in;
    }
    o.d[d - 1] = 0;
    for (const Value& v : outs) {
      bool same = v.shape.rank == o.rank;
      for (int i = 0; same && i < o.rank; ++i) same = i == d - 1 || v.shape.d[i] == o.d[i];
      if (!same) {
        Error(row.name, "concatenated branches differ outside the concat dim: " + outs[0].shape.ToString() + " and " +
                            v.shape.ToString());
        return in;
      }
      o.d[d - 1] += v.shape.d[d - 1];
    }
  }
  if (!CheckShape(o, row.name)) return in;
  Value out;
  const size_t before = storages_.size();
  if (l.kind == LayerKind::kAdd && l.inplace && outs[0].storage != in.storage) {
    out = outs[0];  // out += identity: the first branch's output, modified in place
    out.requires_grad = requires_grad;
  } else {
    out = NewValue(o, requires_grad);
  }
  LayerRow& r = a_.rows[row_index];
  r.out = o;
  if (storages_.size() > before) r.feature_map_bytes = out.Bytes();
  return out;
}

Value Analyzer::RunList(const std::vector<Layer>& layers, Value v, int depth, int branch, const Value& block_in,
                        const std::string& path) {
  for (size_t i = 0; i < layers.size() && !failed_; ++i) {
    v = RunLayer(layers[i], v, depth, branch, block_in, path + "." + std::to_string(i));
  }
  return v;
}

bool Analyzer::Run(const NetworkSpec& spec) {
  if (spec.layers.empty()) {
    Error("", "the network has no layers", DiagId::kMissingField);
    return false;
  }
  const int count = CountLayers(spec.layers);
  if (count > kMaxNetworkLayers) {
    Error("", "more than " + std::to_string(kMaxNetworkLayers) + " layers", DiagId::kOutOfRange);
    return false;
  }
  if (spec.input.empty() || spec.input.size() > static_cast<size_t>(kMaxRank - 1)) {
    Error("", "the input needs 1 to 4 dimensions per sample, e.g. [3, 224, 224]", DiagId::kMissingField);
    return false;
  }
  Shape in;
  for (int64_t d : spec.input) in.d[in.rank++] = d;
  if (!CheckShape(in, "input")) return false;
  net_input_ = in;
  const bool ids = spec.layers.front().kind == LayerKind::kEmbedding;
  workspace_.assign(1, 0);
  Value x = NewValue(in, false, ids ? 8 : elem_);  // images (the input dtype) or int64 token ids
  x.requires_grad = false;
  a_.input = in;
  a_.input_bytes = x.Bytes();
  Value out = RunList(spec.layers, x, 0, -1, x, "layers");
  if (failed_) return false;
  a_.output = out.shape;
  ++step_;
  workspace_.resize(static_cast<size_t>(step_) + 1, 0);
  Use(out);                                  // the caller (loss) reads the output
  storages_[x.storage].created = 0;
  // Totals.
  for (const LayerRow& r : a_.rows) {
    a_.params += r.params;
    a_.trainable_params += r.trainable_params;
    a_.param_tensors += r.param_tensors;
    if (r.trainable_params) a_.trainable_tensors += r.param_tensors;
    a_.buffer_bytes += r.buffer_bytes;
    a_.feature_map_bytes += r.feature_map_bytes;
    a_.saved_fixed_bytes += r.saved_fixed_bytes;
  }
  a_.param_bytes = static_cast<double>(a_.params) * elem_;
  for (const Storage& st : storages_)
    if (st.saved) a_.saved_bytes += st.bytes;
  if (!storages_[out.storage].saved) a_.output_held_bytes = out.Bytes();
  for (const Value& v : held_) {
    Storage& st = storages_[static_cast<size_t>(v.storage)];
    st.last_use = step_;
    if (!st.saved && v.storage != out.storage) a_.output_held_bytes += st.bytes;
  }
  if (!storages_[x.storage].saved) a_.input_held_bytes = x.Bytes();
  storages_[x.storage].last_use = step_;  // the caller holds the input batch throughout
  if (s_.training && s_.loss && spec.task != NetworkTask::kBackbone && out.shape.rank >= 1) {
    // nn.CrossEntropyLoss: log_softmax's result (output-sized) and the int64 targets, one per
    // position (classes along dim 0 of (C, H, W), or the only dim); total_weight (a scalar)
    const double classes = static_cast<double>(out.shape.rank == 1 ? out.shape.d[0] : out.shape.d[0]);
    a_.loss_bytes = out.Bytes() + out.shape.Numel() / classes * 8;
    a_.loss_fixed_bytes = elem_;
  }
  // Inference: most bytes alive at one step (tensors from creation to last use, plus the
  // step's own temporaries).
  std::vector<double> alive(static_cast<size_t>(step_) + 2, 0);
  for (const Storage& st : storages_) {
    if (st.saved && st.bytes == 0) continue;
    for (int t = st.created; t <= st.last_use && t < static_cast<int>(alive.size()); ++t) alive[t] += st.bytes;
  }
  for (size_t t = 0; t < alive.size() && t < workspace_.size(); ++t) alive[t] += workspace_[t];
  a_.inference_peak_bytes = *std::max_element(alive.begin(), alive.end());
  // Where a GPU keeps something the CPU measurement cannot show (named, not counted).
  bool has[static_cast<size_t>(LayerKind::kCount)] = {};
  for (const LayerRow& r : a_.rows) has[static_cast<size_t>(r.kind)] = true;
  auto kind = [&](LayerKind k) { return has[static_cast<size_t>(k)]; };
  if (s_.training && kind(LayerKind::kBatchNorm))
    a_.notes.push_back("CUDA: cuDNN's BatchNorm (cudnn_batch_norm, training: CUDNN_BATCHNORM_SPATIAL_PERSISTENT) keeps "
                       "the input, save_mean and save_var (fp32 per channel) as the CPU does, plus a reserve-space "
                       "tensor whose size cuDNN decides (cudnnGetBatchNormalizationTrainingExReserveSpaceSize; "
                       "0 bytes for plain BN in the cuDNN versions read): not counted");
  if (kind(LayerKind::kConv1d) || kind(LayerKind::kConv2d) || kind(LayerKind::kConvTranspose2d))
    a_.notes.push_back("CUDA: cuDNN convolutions take a workspace while they run (more with "
                       "torch.backends.cudnn.benchmark = True); a transient, in the allocator's reserve, not here");
  if (s_.training && kind(LayerKind::kDropout))
    a_.notes.push_back("Dropout: CUDA's fused kernel keeps a bool mask (1 byte per element, counted); torch 1.13 on "
                       "the CPU keeps a noise tensor in the input's dtype instead (the measurement used CUDA's)");
  // A count that differs is worth a warning, except where the input decides it: a ViT's
  // position embedding has one row per patch (torchvision rebuilds it with image_size).
  if (spec.published_params && spec.published_params != a_.params && !kind(LayerKind::kPositionEmbedding)) {
    a_.diagnostics.push_back({DiagId::kInconsistent, Severity::kWarning, "network",
                              "the stack counts " + std::to_string(a_.params) + " parameters; " +
                                  (spec.params_source.empty() ? std::string("its source") : spec.params_source) +
                                  " gives " + std::to_string(spec.published_params)});
  }
  return true;
}

}  // namespace

// [SECTION] Entry points
namespace {

NetworkAnalysis AnalyzeWith(const NetworkSpec& spec, const NetworkSettings& settings, const Rules& rules) {
  NetworkAnalysis a;
  if (settings.dtype != Dtype::kFp32 && settings.dtype != Dtype::kFp16 && settings.dtype != Dtype::kBf16) {
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
