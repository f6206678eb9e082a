#include "core/compat.h"

#include <algorithm>
#include <cmath>

#include "core/model.h"
#include "core/units.h"

namespace llmmem::core {

CompatEstimate MegatronEstimate(const Config& c) {
  CompatEstimate r;
  r.tool = "Megatron-LM theoretical_memory_usage.py";
  const ModelSpec& m = c.model;
  if (!m.HasArchitecture()) {
    r.error = "Megatron's report needs the architecture";
    return r;
  }
  r.ok = true;
  const double h = static_cast<double>(m.hidden), L = static_cast<double>(m.layers);
  const double a = static_cast<double>(m.heads), groups = static_cast<double>(m.kv_heads);
  const double kv_channels = static_cast<double>(m.head_dim);
  const double ffn = static_cast<double>(m.IsMoe() ? m.moe_ffn : m.ffn);
  const double experts = m.IsMoe() ? static_cast<double>(m.experts) : 1;
  const double gated = m.mlp == MlpKind::kGated ? 1.5 : 1.0;
  const double V = static_cast<double>(m.vocab);
  const double t = static_cast<double>(c.tp), pp = static_cast<double>(c.pp), dp = static_cast<double>(c.dp);
  const double s = static_cast<double>(c.seq), b = static_cast<double>(c.batch);

  const double q_ratio = kv_channels * a / h;
  const double layers_params = 2 * L * h * h *
                               ((1 + groups / a) * q_ratio + (ffn / h) * experts * gated + 2 / h + 1 / (L * h));
  const double embedding = h * V;
  const bool untied = !m.tied_embeddings;
  double most_loaded = (layers_params / pp + embedding) / t;
  if (untied && pp == 1) most_loaded += embedding / t;
  const bool distributed_optimizer = c.zero >= 1;
  const double bytes_per_param = distributed_optimizer ? 6 + 12 / dp : 18;
  const double weights_optimizer = most_loaded * bytes_per_param;

  // Activations: Korthikanti Table 2 with sequence parallelism and selective recompute.
  double act = s * b * h * (18 + 4 * (ffn / h));
  act *= L / pp * pp;  // first stage: L/pp layers x pp micro-batches in flight
  act += 8 * s * b * pp;          // input to the embedding
  act += s * b * h * pp;          // embedding dropout
  if (c.schedule == Schedule::kInterleaved && pp > 1) {
    act *= 1 + (pp - 1) / (pp * static_cast<double>(c.vpp));
  }
  if (c.schedule != Schedule::kInterleaved && pp > 1) {
    act *= std::min(1.0, static_cast<double>(c.grad_accum) / pp);
  }
  if (pp == 1) act += s * b * h * 4 * (1 + V / h);  // output layer and fp32 cross-entropy
  act /= t;

  r.lines = {
      {"weight and optimizer", weights_optimizer, 0,
       FormatNumber(bytes_per_param, 4) + " B x " + FormatCount(static_cast<int64_t>(most_loaded)) +
           " params on the most loaded shard"},
      {"activation", act, 0, "sbh(18 + 4f/h) per layer x L (SP + selective recompute), embeddings, output layer, / t"},
  };
  r.gpu_bytes = weights_optimizer + act;
  r.departures = {
      "18 bytes/param without the distributed optimizer (fp32 main gradients), 6 + 12/dp with it",
      "activations always assume sequence parallelism and selective recompute, whatever is configured",
      "activations ignore GQA, SwiGLU's extra tensor and FlashAttention (a TODO in Megatron's code)",
      "the first stage is charged the embedding; an untied output head only when pp = 1",
      "no buffers, CUDA context or fragmentation; Megatron prints MB = 2^20 bytes",
  };
  return r;
}

}  // namespace llmmem::core
