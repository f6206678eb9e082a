// Parameter counting over ForEachTensor's shapes.
#include "core/model.h"

namespace llmmem::core {

ParamCounts CountParameters(const ModelSpec& m) {
  ParamCounts c;
  int64_t routed_total = 0;
  int64_t layer_norms = 0;
  ForEachTensor(m, [&](const TensorShape& t) {
    const int64_t each = t.rows * t.cols;
    const int64_t n = each * t.count;
    if (each > c.largest_tensor) c.largest_tensor = each;
    if (t.routed_expert) routed_total += n;
    switch (t.group) {
      case ParamGroup::kEmbedding: c.embedding += n; break;
      case ParamGroup::kAttention: c.attention += n; break;
      case ParamGroup::kMlp: c.mlp += n; break;
      case ParamGroup::kNorms:
        c.norms += n;
        if (t.count == m.layers) layer_norms += n;
        break;
      case ParamGroup::kHead: c.head += n; break;
    }
  });
  c.total = c.embedding + c.attention + c.mlp + c.norms + c.head;
  // Per token only experts_per_token of the routed experts run.
  c.active = m.IsMoe() ? c.total - routed_total + routed_total / m.experts * m.experts_per_token : c.total;
  const int64_t L = m.layers > 0 ? m.layers : 1;
  c.per_layer_attention = c.attention / L;
  c.per_layer_mlp = c.mlp / L;
  c.per_layer_norms = layer_norms / L;
  return c;
}

int64_t TrainableBase(const ModelSpec& m, const ParamCounts& counts) {
  return m.params_override > 0 ? m.params_override : counts.total;
}

const char* RoleName(TensorRole role) {
  switch (role) {
    case TensorRole::kEmbedding: return "token embedding";
    case TensorRole::kPosition: return "position embedding";
    case TensorRole::kTokenType: return "token-type embedding";
    case TensorRole::kNorm: return "norm";
    case TensorRole::kBias: return "bias";
    case TensorRole::kQ: return "q_proj";
    case TensorRole::kK: return "k_proj";
    case TensorRole::kV: return "v_proj";
    case TensorRole::kO: return "o_proj";
    case TensorRole::kGate: return "gate_proj";
    case TensorRole::kUp: return "up_proj";
    case TensorRole::kDown: return "down_proj";
    case TensorRole::kRouter: return "router";
    case TensorRole::kHead: return "lm_head";
    case TensorRole::kPooler: return "pooler";
  }
  return "?";
}

}  // namespace llmmem::core
