// The layer-stack analysis: blocks (branches run from the block input, then combined) and the run.
// The analyzer's internals: layer_stack_analyzer.h; what each kind keeps: layer_stack.cpp's header.
#include "core/network/layer_stack.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/network/layer_stack_analyzer.h"
#include "core/parse/text.h"

namespace llmmem::core::stack_internal {

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
  Use(out);  // the caller (loss) reads the output
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
    a_.notes.push_back(
        "CUDA: cuDNN's BatchNorm (cudnn_batch_norm, training: CUDNN_BATCHNORM_SPATIAL_PERSISTENT) keeps "
        "the input, save_mean and save_var (fp32 per channel) as the CPU does, plus a reserve-space "
        "tensor whose size cuDNN decides (cudnnGetBatchNormalizationTrainingExReserveSpaceSize; "
        "0 bytes for plain BN in the cuDNN versions read): not counted");
  if (kind(LayerKind::kConv1d) || kind(LayerKind::kConv2d) || kind(LayerKind::kConvTranspose2d))
    a_.notes.push_back(
        "CUDA: cuDNN convolutions take a workspace while they run (more with "
        "torch.backends.cudnn.benchmark = True); a transient, in the allocator's reserve, not here");
  if (s_.training && kind(LayerKind::kDropout))
    a_.notes.push_back(
        "Dropout: CUDA's fused kernel keeps a bool mask (1 byte per element, counted); torch 1.13 on "
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

}  // namespace llmmem::core::stack_internal
