// The layer-stack analysis, per kind: shape, parameters and what autograd keeps.
// The analyzer's internals: layer_stack_analyzer.h; what each kind keeps: layer_stack.cpp's header.
#include "core/network/layer_stack.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/network/layer_stack_analyzer.h"
#include "core/parse/text.h"

namespace llmmem::core::stack_internal {

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
    Error(row.name,
          std::string(Info(l.kind).label) + " needs a (C, H, W) input per sample; it gets " + in.shape.ToString());
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
    Error(row.name,
          "embed dim " + std::to_string(e) + " must equal in and be divisible by heads = " + std::to_string(l.heads));
    return in;
  }
  const double E = static_cast<double>(e), S = static_cast<double>(seq), H = static_cast<double>(l.heads);
  if (!AddParams(row, l, 4 * E * E + (l.bias ? 4 * E : 0), l.bias ? 4 : 2)) return in;
  const double tok = S * E * elem_;
  if (rules_.attention_math) {
    SaveNew(tok, 0, row, "in_proj input (contiguous copy)");
    SaveNew(3 * tok, 0, row, "q, k, v (contiguous copies)");
    SaveNew(H * S * S * elem_, 0, row, "softmax (heads x S x S)");
    if (l.drop_prob > 0) {
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
  const bool one_window =
      s_.batch == 1 && ph == static_cast<double>(l.window[0]) && pw == static_cast<double>(l.window[1]);
  if (one_window) {
    SaveNew(tok, 0, row, "q (scaled)");
    SaveNew(3 * tok, 0, row, "packed qkv (k and v are views of it: one window)");
  } else {
    SaveNew(3 * tok, 0, row, "q (scaled), k, v copies");
  }
  SaveNew(tokens * H * ws * elem_, 0, row, "softmax (heads x window^2 per token)");
  if (l.drop_prob > 0) {
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
  const bool keeps_output = l.kind == LayerKind::kReLU || l.kind == LayerKind::kSigmoid || l.kind == LayerKind::kTanh ||
                            (l.kind == LayerKind::kLeakyReLU && l.inplace);
  Value out = in;
  if (!l.inplace) {
    out = NewValue(in.shape, in.requires_grad);
    out.contiguous = true;
  }
  if (!in.requires_grad) return out;
  if (keeps_output)
    Save(out, row, "output");
  else if (l.inplace)
    SaveNew(in.Bytes(), 0, row, "clone of the input (in place)");
  else
    Save(in, row, "input");
  return out;
}

}  // namespace llmmem::core::stack_internal
