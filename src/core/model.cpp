// Parameter counting over ForEachTensor's shapes.
#include "core/model.h"

namespace llmmem::core {

ParamCounts CountParameters(const ModelSpec& m) {
  ParamCounts c;
  int64_t routed_total = 0;
  ForEachTensor(m, [&](const TensorShape& t) {
    const int64_t each = t.rows * t.cols;
    const int64_t n = each * t.count;
    if (each > c.largest_tensor) c.largest_tensor = each;
    if (t.routed_expert) routed_total += n;
    switch (t.group) {
      case ParamGroup::kEmbedding: c.embedding += n; break;
      case ParamGroup::kAttention: c.attention += n; break;
      case ParamGroup::kMlp: c.mlp += n; break;
      case ParamGroup::kNorms: c.norms += n; break;
      case ParamGroup::kHead: c.head += n; break;
    }
  });
  c.total = c.embedding + c.attention + c.mlp + c.norms + c.head;
  // Per token only experts_per_token of the routed experts run.
  c.active = m.IsMoe() ? c.total - routed_total + routed_total / m.experts * m.experts_per_token : c.total;
  return c;
}

int64_t ModelContext(const ModelSpec& m) {
  if (m.learned_positions > 0 && m.max_positions > 0) return m.learned_positions < m.max_positions ? m.learned_positions : m.max_positions;
  return m.learned_positions > 0 ? m.learned_positions : m.max_positions;
}

int64_t TrainableBase(const ModelSpec& m, const ParamCounts& counts) {
  return m.params_override > 0 ? m.params_override : counts.total;
}

}  // namespace llmmem::core
