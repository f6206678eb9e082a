// The layer-stack analyzer's internals, shared by its files (not an API: layer_stack.h is).
//   layer_stack.cpp            kinds, shapes, entry points (AnalyzeNetwork, ProfileDifferences)
//   layer_stack_layers.cpp     per kind: shape, parameters, what autograd keeps (conv, pooling,
//                              attention, activations)
//   layer_stack_run_layer.cpp  one layer of any kind: the dispatch and its bookkeeping
//   layer_stack_blocks.cpp     blocks (branches run from the block input, then combined), the run
// May include: core only.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/network/layer_stack.h"

namespace llmmem::core::stack_internal {

// The rules a profile switches (each one a named difference).
struct Rules {
  bool mean_keeps_input = false;     // torch 1.13's MeanBackward1 keeps its input
  bool attention_math = false;       // MultiheadAttention on the math path (not SDPA fused)
  bool norm_stats_in_dtype = false;  // CPU BatchNorm/LayerNorm keep their statistics in the input dtype
};

inline Rules RulesFor(const NetworkSettings& s) {
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
  double bytes = 0;  // per sample
  double fixed = 0;  // per step
  bool saved = false;
  int first_saver = -1;  // row
  int created = 0;       // step
  int last_use = 0;      // step
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
        Error(where,
              "the output would have a dimension of " + std::to_string(sh.d[i]) + " (" + sh.ToString() +
                  "): the input is too small for this layer",
              DiagId::kOutOfRange);
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

}  // namespace llmmem::core::stack_internal
