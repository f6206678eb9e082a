// DeepSpeed's model-states estimators, ported line by line from
//   deepspeedai/DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py @ edaa7221267243c7be7fb49c5d5f5c4fb97b4641
//     estimate_zero2_model_states_mem_needs (its GPU term 2P + int(18P / gpus) since PR #5099,
//     commit f4cb866c2; the docs' memory.rst example still prints the older 4P + 16P / gpus)
//   deepspeedai/DeepSpeed deepspeed/runtime/zero/stage3.py @ edaa7221267243c7be7fb49c5d5f5c4fb97b4641
//     estimate_zero3_model_states_mem_needs
// and the row order of their *_all_cold printers. Python's int() truncations are kept
// (std::trunc); the arithmetic runs in doubles in Python's order, so the bytes match.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/solve/compat.h"
#include "core/config/gpu_count.h"
#include "core/model/model.h"
#include "core/base/units.h"

namespace llmmem::core {
namespace {

double Params(const Config& c) {
  if (c.model.params_override > 0) return static_cast<double>(c.model.params_override);
  return c.model.HasArchitecture() ? static_cast<double>(CountParameters(c.model).total) : 0;
}

// model_to_params: the largest module's own parameters; we take the largest weight
// tensor (for a transformer the embedding or the output head).
double LargestLayer(const Config& c) {
  return c.model.HasArchitecture() ? static_cast<double>(CountParameters(c.model).largest_tensor) : 0;
}

// The estimators take (num_gpus_per_node, num_nodes) and use their product as total_gpus.
struct Hardware {
  double per_node = 1, nodes = 1;
  double Total() const { return nodes * per_node; }
};

Hardware CallHardware(const Config& c, int gpus_per_node) {
  const int64_t gpus = TotalGpus(c);
  const int64_t per_node = std::max<int64_t>(1, std::min<int64_t>(gpus_per_node, gpus));
  return Hardware{static_cast<double>(per_node), static_cast<double>((gpus + per_node - 1) / per_node)};
}

// The call, as Python source a user can paste.
std::string CallText(const char* fn, double P, const Hardware& hw, const std::string& extra) {
  return std::string(fn) + "(total_params=" + std::to_string(static_cast<int64_t>(P)) + extra +
         ", num_gpus_per_node=" + std::to_string(static_cast<int64_t>(hw.per_node)) +
         ", num_nodes=" + std::to_string(static_cast<int64_t>(hw.nodes)) + ")";
}

constexpr double kBuffer = 1.5;  // additional_buffer_factor's default

// estimate_zero2_model_states_mem_needs: returns int(cpu_mem), int(gpu_mem).
CompatLine Zero2Row(double P, const Hardware& hw, bool cpu_offload) {
  CompatLine l;
  const double total_gpus = hw.Total();
  if (cpu_offload) {
    l.label = "offload_optimizer=cpu";
    l.gpu_bytes = std::trunc(2 * P);
    l.cpu_bytes = std::trunc(P * std::max(4 * total_gpus, 16.0) * kBuffer);
    l.formula = "GPU 2P; CPU P x max(4 x total_gpus, 16) x 1.5";
  } else {
    // "2 = params_16bit, 18 = 2_grads_16bit + 4_grads_32bit + 4_params_32bit + 8_optimizer_states_32bit"
    l.label = "offload_optimizer=none";
    l.gpu_bytes = std::trunc(2 * P + std::trunc(18 * P / total_gpus));
    l.cpu_bytes = std::trunc(P * 4 * hw.per_node * kBuffer);
    l.formula = "GPU 2P + int(18P / total_gpus); CPU 4P x num_gpus_per_node x 1.5";
  }
  return l;
}

// estimate_zero3_model_states_mem_needs: returns int(cpu_mem), int(gpu_mem).
CompatLine Zero3Row(double P, double LL, const Hardware& hw, bool cpu_offload, bool cpu_offload_params,
                    bool zero_init) {
  CompatLine l;
  const double total_gpus = hw.Total();
  const double gpus_factor = 1 / hw.nodes;
  const double largest_layer_memory = 4 * LL;
  double gpu = 0, cpu = 0;
  if (cpu_offload) {
    if (cpu_offload_params) {
      gpu = largest_layer_memory;
      cpu = zero_init ? P * 18 * gpus_factor * kBuffer : P * std::max(4 * hw.per_node, 18 * gpus_factor) * kBuffer;
      l.formula = "GPU 4 x largest layer; CPU 18P / num_nodes x 1.5";
    } else {
      gpu = largest_layer_memory + std::trunc(2 * P / total_gpus);
      cpu = zero_init ? P * 16 * gpus_factor * kBuffer : P * std::max(4 * hw.per_node, 16 * gpus_factor) * kBuffer;
      l.formula = "GPU 4 x largest layer + int(2P / total_gpus); CPU 16P / num_nodes x 1.5";
    }
  } else {
    gpu = largest_layer_memory + std::trunc(18 * P / total_gpus);
    cpu = zero_init ? LL * 4 * hw.per_node * kBuffer : P * 4 * hw.per_node * kBuffer;
    l.formula = "GPU 4 x largest layer + int(18P / total_gpus); CPU 4 x (largest layer or P) x num_gpus_per_node x 1.5";
  }
  if (!zero_init && cpu_offload) l.formula += ", or 4P x num_gpus_per_node x 1.5 if larger";
  l.gpu_bytes = std::trunc(gpu);
  l.cpu_bytes = std::trunc(cpu);
  l.label = std::string("offload_param=") + (cpu_offload_params ? "cpu" : "none") +
            ", offload_optimizer=" + (cpu_offload ? "cpu" : "none") + ", zero_init=" + (zero_init ? "1" : "0");
  return l;
}

}  // namespace

CompatEstimate DeepSpeedEstimate(const Config& c, int gpus_per_node) {
  CompatEstimate r;
  const double P = Params(c);
  if (P <= 0) {
    r.error = "the model has no parameter count";
    return r;
  }
  r.ok = true;
  const Hardware hw = CallHardware(c, gpus_per_node);
  const bool offload_opt = c.offload_optimizer != Offload::kNone;  // NVMe: the offload row too
  if (c.zero <= 2) {
    r.tool = "DeepSpeed estimate_zero2_model_states_mem_needs";
    r.scope = CallText("estimate_zero2_model_states_mem_needs_all_cold", P, hw, "");
    for (bool cpu_offload : {true, false}) r.lines.push_back(Zero2Row(P, hw, cpu_offload));
    const CompatLine& mine = r.lines[offload_opt ? 0 : 1];
    r.gpu_bytes = mine.gpu_bytes;
    r.cpu_bytes = mine.cpu_bytes;
    r.departures = {
        "the 16-bit weights (2P) stay whole on every GPU; 16-bit and fp32 gradients, fp32 master weights, m and v "
        "(18P) are divided over all GPUs, even at ZeRO-1 (the estimator is ZeRO-2's)",
        "CPU memory includes a 1.5x additional_buffer_factor and a per-GPU 4P staging copy",
        "no activations, buckets, CUDA context or fragmentation",
    };
  } else {
    r.tool = "DeepSpeed estimate_zero3_model_states_mem_needs";
    const double LL = LargestLayer(c);
    r.scope = CallText("estimate_zero3_model_states_mem_needs_all_cold", P, hw,
                       ", largest_layer_params=" + std::to_string(static_cast<int64_t>(LL)));
    const bool off_param = c.offload_params != Offload::kNone;
    bool matched = false;
    // The printer's loops: cpu_offload in [True, False], cpu_offload_params in [True, False]
    // (skipped without cpu_offload), zero_init in [True, False].
    for (bool cpu_offload : {true, false}) {
      for (bool cpu_offload_params : {true, false}) {
        if (!cpu_offload && cpu_offload_params) continue;
        for (bool zero_init : {true, false}) {
          r.lines.push_back(Zero3Row(P, LL, hw, cpu_offload, cpu_offload_params, zero_init));
          if (cpu_offload == offload_opt && cpu_offload_params == off_param && zero_init) {
            r.gpu_bytes = r.lines.back().gpu_bytes;
            r.cpu_bytes = r.lines.back().cpu_bytes;
            matched = true;
          }
        }
      }
    }
    if (!matched) {  // offload_param without offload_optimizer: DeepSpeed prints no such row
      r.gpu_bytes = r.lines[4].gpu_bytes;
      r.cpu_bytes = r.lines[4].cpu_bytes;
      r.departures.push_back(
          "DeepSpeed prints no row for offload_param without offload_optimizer; "
          "the figure is the offload_param=none, offload_optimizer=none, zero_init=1 row");
    }
    r.departures.insert(r.departures.end(), {
                                                "18 bytes/param divided over all GPUs (the paper's ZeRO-3 counts 16)",
                                                "a 4 x largest-layer term for the gathered parameters of the biggest "
                                                "module (here the largest weight tensor)",
                                                "CPU memory with a 1.5x additional_buffer_factor",
                                                "no activations, buckets, CUDA context or fragmentation",
                                            });
  }
  const int64_t gpus = TotalGpus(c);
  r.departures.push_back(
      "every one of the dp x tp x pp x cp GPUs is a ZeRO shard of the whole model: the "
      "estimator knows no tensor, pipeline or context parallelism");
  if (hw.Total() != static_cast<double>(gpus)) {
    r.departures.push_back(
        "total_gpus is num_nodes x num_gpus_per_node = " + FormatCount(static_cast<int64_t>(hw.Total())) +
        ", not the config's " + FormatCount(gpus) + " GPUs");
  }
  r.departures.push_back("DeepSpeed prints GiB (2^30 bytes) labelled GB");
  return r;
}

}  // namespace llmmem::core
