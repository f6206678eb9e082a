// What the fast path needs of a model on every estimate but which depends only on its
// dimensions: ForEachTensor's list, the parameter counts, whether the dimensions pass
// validation. The fit map, the solver and the charts estimate one model thousands of
// times a frame; these are computed once per model (a one-entry cache per thread, keyed
// by every field of ModelSpec that is not a name) instead of on each call.
// Includes only the core.
#pragma once

#include <cstdint>

#include "core/model/model.h"

namespace llmmem::core {

struct ModelFacts {
  // ForEachTensor's shapes, in its order (sums over them add in the same order, so the
  // figures are bit-identical to a ForEachTensor pass).
  static constexpr int kMaxTensors = 64;  // an MLA MoE model with an indexer and a vision tower: 46
  TensorShape tensors[kMaxTensors] = {};
  int tensor_count = 0;
  double param_sum = 0;     // parameters summed in double (validation's overflow guard)
  bool dims_valid = false;  // the model's own checks pass (validate.cpp CheckModel)
  bool counted = false;     // counts below are filled (only for valid dimensions: no int64 overflow)
  ParamCounts counts;       // CountParameters, when counted and the model has an architecture
  double P = 0;             // params_override or counts.total (Derived::P)
  double P_active = 0;      // Derived::P_active
  uint64_t generation = 0;  // differs for each model computed (keys caches built on these facts)

  template <class F>
  void ForEachTensor(F&& f) const {
    for (int i = 0; i < tensor_count; ++i) f(tensors[i]);
  }
};

// The facts of `m`; recomputed only when m's dimensions differ from the last call's.
const ModelFacts& FactsOf(const ModelSpec& m);

// Two models with equal fields other than name and preset have equal facts.
bool SameDimensions(const ModelSpec& a, const ModelSpec& b);

}  // namespace llmmem::core
