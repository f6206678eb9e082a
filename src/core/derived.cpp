#include "core/derived.h"

namespace llmmem::core {
namespace {

uint32_t LoraBit(TensorRole role) {
  switch (role) {
    case TensorRole::kQ: return kLoraQ;
    case TensorRole::kK: return kLoraK;
    case TensorRole::kV: return kLoraV;
    case TensorRole::kO: return kLoraO;
    case TensorRole::kGate: return kLoraGate;
    case TensorRole::kUp: return kLoraUp;
    case TensorRole::kDown: return kLoraDown;
    default: return 0;
  }
}

}  // namespace

Derived::Derived(const Config& config) : c(config) {
  const ModelSpec& m = c.model;
  has_arch = m.HasArchitecture();
  if (has_arch) counts = CountParameters(m);
  P = static_cast<double>(m.params_override > 0 ? m.params_override : counts.total);
  training = c.mode != Mode::kInference;
  adapters = c.mode == Mode::kLora || c.mode == Mode::kQlora;
  b = static_cast<double>(c.batch);
  s = static_cast<double>(c.seq);
  h = static_cast<double>(m.hidden);
  a = static_cast<double>(m.heads);
  kv = static_cast<double>(m.kv_heads);
  hd = static_cast<double>(m.head_dim);
  L = static_cast<double>(m.layers);
  V = static_cast<double>(m.vocab);
  f = static_cast<double>(m.ffn);

  const double r = static_cast<double>(c.lora_rank);
  double vector_params = 0;  // norms and biases: replicated under tensor parallelism
  if (has_arch) {
    ForEachTensor(m, [&](const TensorShape& t) {
      const double rows = static_cast<double>(t.rows), cols = static_cast<double>(t.cols);
      const double n = static_cast<double>(t.count);
      full_factored += (t.cols > 1 ? rows + cols : rows) * n;
      if (t.cols == 1) vector_params += rows * n;
      if (adapters && (LoraBit(t.role) & c.lora_targets)) {
        lora_params += r * (rows + cols) * n;
        lora_factored += ((rows + r) + (r + cols)) * n;
        // Activations per layer: a token passes only its top-k routed experts.
        const double active = t.routed_expert && m.experts > 0
                                  ? static_cast<double>(m.experts_per_token) / static_cast<double>(m.experts)
                                  : 1.0;
        const double per_layer = n * active / (L > 0 ? L : 1);
        lora_in_width += rows * per_layer;
        lora_per_layer_mats += per_layer;
      }
    });
  }
  T = !training ? 0 : adapters ? lora_params : P;
  t = static_cast<double>(c.tp);
  const double replicated = m.params_override > 0 ? 0 : vector_params;
  P_gpu = (P - replicated) / t + replicated;
  T_gpu = !training ? 0 : adapters ? lora_params / t : P_gpu;
}

}  // namespace llmmem::core
