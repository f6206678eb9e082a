// The layer-stack analysis: one layer of any kind (the dispatch and its bookkeeping).
// The analyzer's internals: layer_stack_analyzer.h; what each kind keeps: layer_stack.cpp's header.
#include "core/network/layer_stack.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/network/layer_stack_analyzer.h"
#include "core/parse/text.h"

namespace llmmem::core::stack_internal {

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
        if (!in.contiguous && sh.rank >= 2)
          SaveNew(in.Bytes(), 0, *row, "input (contiguous copy)");
        else
          Save(in, *row, "input");
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
        SaveNew(
            2 * sh.Numel() / d * (rules_.norm_stats_in_dtype ? elem_ : 4), 0, *row,
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
      if (l.drop_prob < 0 || l.drop_prob > 1) {
        Error(row->name, "dropout probability must be in [0, 1]", DiagId::kOutOfRange);
        break;
      }
      if (s_.training && l.drop_prob > 0 && l.drop_prob < 1 && in.requires_grad) {
        SaveNew(sh.Numel(), 0, *row, "bool mask");
        out = NewValue(sh, true);
      }
      break;
    case LayerKind::kStochasticDepth:
      if (l.drop_prob < 0 || l.drop_prob > 1) {
        Error(row->name, "stochastic depth probability must be in [0, 1]", DiagId::kOutOfRange);
        break;
      }
      if (s_.training && l.drop_prob > 0 && in.requires_grad) {
        if (l.batch_mode)
          SaveNew(0, elem_, *row, "noise (one value per batch)");
        else
          SaveNew(elem_, 0, *row, "noise (one value per sample)");
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
        Error(row->name, "permute needs " + std::to_string(sh.rank + 1) + " dims with the batch first (0, ...) for a " +
                             sh.ToString() + " input");
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

}  // namespace llmmem::core::stack_internal
