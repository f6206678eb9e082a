// memory = model + batch x per-sample (seed 002), from the layer-stack analysis.
#include "core/network/layer_stack_account.h"

#include <cmath>

#include "core/base/units.h"
#include "core/estimate/optimizer_states.h"

namespace llmmem::core {

OptimizerStateBytes NetworkOptimizerState(Optimizer o, double p, int tensors, double elem) {
  OptimizerStateBytes s;
  // The sizes from the optimizer's row, as the LLM accounting takes them (optimizer_states.h).
  const OptimizerInfo& row = Info(o);
  s.gpu = row.state_tensors * StateTensorBytes(row, p, elem);
  if (row.step_counters) s.host = 4.0 * tensors;  // torch's step tensors stay on the CPU (not fused)
  const std::string P = FormatCount(static_cast<int64_t>(p));
  const std::string e = FormatNumber(elem, 0) + " B";
  switch (o) {
    case Optimizer::kSgd:
      s.formula = "plain SGD keeps no state (momentum_buffer is None)";
      break;
    case Optimizer::kSgdMomentum:
      s.formula = "momentum_buffer: " + P + " x " + e;
      break;
    case Optimizer::kAdamW:
      s.formula = "exp_avg + exp_avg_sq: 2 x " + P + " x " + e + " (step: " + std::to_string(tensors) +
                  " fp32 scalars on the CPU)";
      break;
    case Optimizer::kAdam8bit:
      s.formula = "8-bit exp_avg + exp_avg_sq (bitsandbytes): 2 x (" + P + " x 1 B + 4 B x " +
                  FormatCount(static_cast<int64_t>(std::ceil(p / 2048.0))) + " blocks of 2048)";
      break;
    case Optimizer::kLion:
      s.formula = "exp_avg: " + P + " x " + e;
      break;
    case Optimizer::kAdafactor:  // not modelled for layer stacks: its row's layer_stack is false
      break;
  }
  return s;
}

NetworkEstimate EstimateNetwork(const NetworkSpec& spec, const NetworkEstimateInput& in) {
  NetworkEstimate e;
  e.batch = in.batch;
  auto error = [&](const char* field, const std::string& msg) {
    e.diagnostics.push_back({DiagId::kOutOfRange, Severity::kError, field, msg});
  };
  if (in.batch < 1 || in.batch > 1048576) error("batch", "batch must be between 1 and 1048576");
  if (!(in.gpu_memory_bytes > 0) || in.gpu_memory_bytes > 1e14) error("gpu_memory_gb", "GPU memory must be positive");
  if (!(in.cuda_context_gb >= 0 && in.cuda_context_gb <= 100)) error("cuda_context_gb", "between 0 and 100 GB");
  if (!(in.fragmentation_pct >= 0 && in.fragmentation_pct <= 100)) error("fragmentation_pct", "between 0 and 100");
  if (in.settings.training && !Info(in.optimizer).layer_stack) {
    e.diagnostics.push_back({DiagId::kUnsupported, Severity::kError, "optimizer",
                             std::string(Info(in.optimizer).label) +
                                 "'s states are not modelled for layer stacks: use " +
                                 IdList<Optimizer>(" or ", LayerStackOptimizer)});
  }
  if (HasErrors(e.diagnostics)) return e;
  NetworkSettings settings = in.settings;
  settings.batch = in.batch;
  e.analysis = AnalyzeNetwork(spec, settings);
  for (const Diagnostic& d : e.analysis.diagnostics) e.diagnostics.push_back(d);
  if (!e.analysis.ok) return e;
  const NetworkAnalysis& a = e.analysis;
  const double elem = Info(in.settings.dtype).bits / 8.0;
  const double b = static_cast<double>(in.batch);
  const std::string dt = Info(in.settings.dtype).id;
  auto term = [&](const char* id, const std::string& label, double bytes, bool per_sample, const std::string& f) {
    e.terms.push_back({id, label, bytes, per_sample, f});
  };
  double model = 0, per_sample = 0;
  term("weights", "Weights", a.param_bytes, false,
       FormatCount(a.params) + " parameters x " + FormatNumber(elem, 0) + " B (" + dt + ")");
  model += a.param_bytes;
  if (a.buffer_bytes > 0) {
    term("buffers", "Buffers", a.buffer_bytes, false, "BatchNorm running mean and var, counters, index tables");
    model += a.buffer_bytes;
  }
  if (in.settings.training) {
    const double tp = static_cast<double>(a.trainable_params);
    term("gradients", "Gradients", tp * elem, false,
         FormatCount(a.trainable_params) + " trainable x " + FormatNumber(elem, 0) + " B");
    model += tp * elem;
    const OptimizerStateBytes os = NetworkOptimizerState(in.optimizer, tp, a.trainable_tensors, elem);
    term("optimizer", std::string("Optimizer (") + Id(in.optimizer) + ")", os.gpu, false, os.formula);
    model += os.gpu;
    e.host_bytes = os.host;
    const double fixed = a.saved_fixed_bytes + a.loss_fixed_bytes;
    if (fixed > 0) {
      term("saved_fixed", "Kept per step", fixed, false,
           "per-channel statistics: BatchNorm mean and inverse std, FrozenBatchNorm scales");
      model += fixed;
    }
    per_sample = a.saved_bytes + a.loss_bytes + a.output_held_bytes + a.input_held_bytes;
    std::string f = "batch " + std::to_string(in.batch) + " x " + FormatBytes(per_sample, UnitSystem::kDecimal) +
                    " per sample: tensors kept for backward " + FormatBytes(a.saved_bytes, UnitSystem::kDecimal);
    if (a.loss_bytes > 0) f += ", loss " + FormatBytes(a.loss_bytes, UnitSystem::kDecimal);
    if (a.output_held_bytes > 0) f += ", output " + FormatBytes(a.output_held_bytes, UnitSystem::kDecimal);
    if (a.input_held_bytes > 0) f += ", input " + FormatBytes(a.input_held_bytes, UnitSystem::kDecimal);
    term("activations", "Activations (batch x per sample)", b * per_sample, true, f);
  } else {
    per_sample = a.inference_peak_bytes;
    term("activations", "Activations (batch x per sample)", b * per_sample, true,
         "batch " + std::to_string(in.batch) + " x " + FormatBytes(per_sample, UnitSystem::kDecimal) +
             " per sample: the most tensors alive at once in eval() under no_grad, the input included");
  }
  // Whole bytes, as the LLM accounting keeps them (units.h WholeBytes): each term rounds
  // up its fraction, and the totals are the sums of the terms (issue 29).
  const double frac = in.fragmentation_pct / 100.0;
  const double allocated = model + b * per_sample;
  const double fragmentation = WholeBytes(allocated * frac);
  if (frac > 0)
    term("fragmentation", "Allocator fragmentation", fragmentation, false,
         FormatNumber(in.fragmentation_pct, 1) + "% of the allocated bytes");
  const double context = WholeBytes(in.cuda_context_gb * kGB);
  if (context > 0) term("cuda_context", "CUDA context", context, false, "CUDA context and library workspaces");
  e.model_bytes = model + WholeBytes(model * frac) + context;
  e.per_sample_bytes = per_sample;
  e.total_bytes = allocated + fragmentation + context;
  e.gpu_bytes = in.gpu_memory_bytes;
  e.fits = e.total_bytes <= e.gpu_bytes;
  const double room = e.gpu_bytes - e.model_bytes;
  const double per = per_sample * (1 + frac);
  if (room <= 0 || per <= 0) {
    e.max_batch = room > 0 ? 1048576 : 0;
  } else {
    e.max_batch = static_cast<int64_t>(std::min(1048576.0, std::floor(room / per)));
  }
  e.ok = true;
  return e;
}

}  // namespace llmmem::core
