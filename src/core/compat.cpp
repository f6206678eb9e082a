#include "core/compat.h"

#include <algorithm>
#include <cmath>

#include "core/model.h"
#include "core/units.h"

namespace llmmem::core {
namespace {

double Params(const Config& c) {
  if (c.model.params_override > 0) return static_cast<double>(c.model.params_override);
  return c.model.HasArchitecture() ? static_cast<double>(CountParameters(c.model).total) : 0;
}

// DeepSpeed's "largest layer": the largest single module's parameters (for a transformer,
// the embedding or one big matrix); we take the largest tensor, as its docs' examples do.
double LargestLayer(const Config& c) {
  return c.model.HasArchitecture() ? static_cast<double>(CountParameters(c.model).largest_tensor) : 0;
}

}  // namespace

CompatEstimate DeepSpeedEstimate(const Config& c, int gpus_per_node) {
  CompatEstimate r;
  const double P = Params(c);
  const double total_gpus = static_cast<double>(c.dp * c.tp * c.pp * c.cp);
  const double per_node = std::max(1, gpus_per_node);
  const double nodes = std::max(1.0, std::ceil(total_gpus / per_node));
  const double buffer = 1.5;  // additional_buffer_factor
  if (P <= 0) {
    r.error = "the model has no parameter count";
    return r;
  }
  r.ok = true;
  const bool offload_opt = c.offload_optimizer != Offload::kNone;
  if (c.zero <= 2) {
    r.tool = "DeepSpeed estimate_zero2_model_states_mem_needs";
    CompatLine off{"offload_optimizer=cpu", 2 * P, P * std::max(4 * total_gpus, 16.0) * buffer,
                   "GPU 2P; CPU P x max(4 x gpus, 16) x 1.5"};
    CompatLine on{"offload_optimizer=none", 4 * P + std::floor(16 * P / total_gpus), P * 4 * per_node * buffer,
                  "GPU 4P + 16P/gpus; CPU 4P x gpus_per_node x 1.5"};
    r.lines = {off, on};
    r.gpu_bytes = offload_opt ? off.gpu_bytes : on.gpu_bytes;
    r.cpu_bytes = offload_opt ? off.cpu_bytes : on.cpu_bytes;
    r.departures = {
        "16 bytes/param are sharded even at ZeRO-1 (the estimator is ZeRO-2's): fp32 master, m, v and fp32 gradients",
        "4P stays on each GPU: 16-bit weights and 16-bit gradients, never sharded",
        "CPU memory includes a 1.5x additional_buffer_factor and a per-GPU 4P staging copy",
        "no activations, buckets, CUDA context or fragmentation",
        "DeepSpeed prints GiB labelled GB",
    };
  } else {
    r.tool = "DeepSpeed estimate_zero3_model_states_mem_needs";
    const double LL = LargestLayer(c);
    const double ll_mem = 4 * LL;
    const double gpus_factor = 1 / nodes;
    struct Row { const char* label; bool off_opt, off_param, zero_init; };
    const Row rows[] = {
        {"offload_param=cpu, offload_optimizer=cpu, zero_init=1", true, true, true},
        {"offload_param=cpu, offload_optimizer=cpu, zero_init=0", true, true, false},
        {"offload_param=none, offload_optimizer=cpu, zero_init=1", true, false, true},
        {"offload_param=none, offload_optimizer=cpu, zero_init=0", true, false, false},
        {"offload_param=none, offload_optimizer=none, zero_init=1", false, false, true},
        {"offload_param=none, offload_optimizer=none, zero_init=0", false, false, false},
    };
    const bool off_param = c.offload_params != Offload::kNone;
    for (const Row& row : rows) {
      CompatLine l;
      l.label = row.label;
      if (row.off_opt) {
        if (row.off_param) {
          l.gpu_bytes = ll_mem;
          l.cpu_bytes = row.zero_init ? P * 18 * gpus_factor * buffer : P * std::max(4 * per_node, 18 * gpus_factor) * buffer;
          l.formula = "GPU 4 x largest layer; CPU 18P per node x 1.5";
        } else {
          l.gpu_bytes = ll_mem + std::floor(2 * P / total_gpus);
          l.cpu_bytes = row.zero_init ? P * 16 * gpus_factor * buffer : P * std::max(4 * per_node, 16 * gpus_factor) * buffer;
          l.formula = "GPU 4 x largest layer + 2P/gpus; CPU 16P per node x 1.5";
        }
      } else {
        l.gpu_bytes = ll_mem + std::floor(18 * P / total_gpus);
        l.cpu_bytes = row.zero_init ? LL * 4 * per_node * buffer : P * 4 * per_node * buffer;
        l.formula = "GPU 4 x largest layer + 18P/gpus; CPU 4 x (largest layer or P) x gpus_per_node x 1.5";
      }
      r.lines.push_back(l);
      if (row.off_opt == offload_opt && row.off_param == off_param && row.zero_init) {
        r.gpu_bytes = l.gpu_bytes;
        r.cpu_bytes = l.cpu_bytes;
      }
    }
    r.departures = {
        "18 bytes/param sharded: 16-bit weights, fp32 gradients, fp32 master, m and v (the paper's ZeRO-3 counts 16)",
        "a 4 x largest-layer term for the gathered fp32 parameters of the biggest module",
        "CPU memory with a 1.5x additional_buffer_factor",
        "no activations, buckets, CUDA context or fragmentation; DeepSpeed prints GiB labelled GB",
    };
  }
  return r;
}

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
