// Model states: weights, gradients, fp32 master weights, optimizer states and the
// optimizer step's temporaries. Live at both moments unless noted.
// Sources: ZeRO §3.1 (16 bytes/param for mixed-precision Adam), seeds 000/002/004,
// the optimizer papers in sources.h.
#pragma once

#include <cmath>
#include <string>

#include "core/derived.h"
#include "core/sinks.h"
#include "core/sources.h"
#include "core/units.h"

namespace llmmem::core {

namespace detail {

inline std::string PerParam(double bytes_per_param, double params, const char* what) {
  return FormatNumber(bytes_per_param, 4) + " B x " + FormatCount(static_cast<int64_t>(params)) + " " + what;
}

// Bytes of one weight tensor family stored in `format` (quantised formats keep
// norms, biases and embeddings in 16 bits, except GGUF which quantises every matrix
// and keeps vectors in fp32).
inline double TensorBytes(const TensorShape& t, Dtype format, const QuantOptions& q) {
  const double n = static_cast<double>(t.rows) * static_cast<double>(t.cols) * static_cast<double>(t.count);
  if (format <= Dtype::kInt4) return n * Info(format).bits / 8.0;  // plain formats: every tensor
  const bool gguf = format >= Dtype::kQ8_0;
  const bool matrix = t.cols > 1;
  const bool layer_linear = t.role == TensorRole::kQ || t.role == TensorRole::kK || t.role == TensorRole::kV ||
                            t.role == TensorRole::kO || t.role == TensorRole::kGate || t.role == TensorRole::kUp ||
                            t.role == TensorRole::kDown;
  if (gguf) return matrix ? n * BitsPerWeight(format, q) / 8.0 : n * 4.0;
  return layer_linear ? n * BitsPerWeight(format, q) / 8.0 : n * 2.0;
}

struct WeightBytes {
  double group[5] = {0, 0, 0, 0, 0};  // by ParamGroup
  double total = 0;
};

inline WeightBytes WeightsByGroup(const ModelSpec& m, Dtype format, const QuantOptions& q, double tp) {
  WeightBytes w;
  ForEachTensor(m, [&](const TensorShape& t) {
    const double bytes = TensorBytes(t, format, q);
    // Tensor parallelism splits every matrix (vocab-parallel embeddings too); vectors are replicated.
    const double share = t.cols > 1 ? bytes / tp : bytes;
    w.group[static_cast<int>(t.group)] += share;
    w.total += share;
  });
  return w;
}

}  // namespace detail

// The stored weights: the whole model (inference, training) or the frozen base (LoRA,
// QLoRA, where the adapters follow as their own line).
template <class Sink>
void AccountWeights(const Derived& d, Sink& s) {
  const Config& c = d.c;
  const Dtype format = c.mode == Mode::kQlora ? Dtype::kNf4 : c.dtype;
  const char* name = d.adapters ? "Frozen base weights" : "Weights";
  if (!d.has_arch || c.model.params_override > 0) {
    const double bpp = BitsPerWeight(format, c.quant) / 8.0;
    s.Leaf("weights", name, Category::kWeights, Live::Both(d.P * bpp / d.t), [&] {
      return Explanation{detail::PerParam(bpp, d.P, "parameters") + " (" + Info(format).label + ", " +
                             BitsPerWeightFormula(format, c.quant) + ")",
                         src::kWeights};
    });
    return;
  }
  const detail::WeightBytes w = detail::WeightsByGroup(c.model, format, c.quant, d.t);
  s.Begin("weights", name);
  s.Note([&] {
    return Explanation{std::string(Info(format).label) + ": " + BitsPerWeightFormula(format, c.quant) +
                           (Info(format).trainable ? "" : "; embeddings, head and norms stay 16-bit"),
                       format == Dtype::kNf4 ? src::kQlora : src::kWeights};
  });
  struct Row { ParamGroup g; const char* id; const char* label; int64_t n; };
  const Row rows[] = {
      {ParamGroup::kEmbedding, "embedding", "Embeddings", d.counts.embedding},
      {ParamGroup::kAttention, "attention", "Attention (all layers)", d.counts.attention},
      {ParamGroup::kMlp, "mlp", d.c.model.IsMoe() ? "MLP and experts (all layers)" : "MLP (all layers)", d.counts.mlp},
      {ParamGroup::kNorms, "norms", "Norms", d.counts.norms},
      {ParamGroup::kHead, "head", "Output head", d.counts.head},
  };
  for (const Row& r : rows) {
    const double bytes = w.group[static_cast<int>(r.g)];
    if (r.n == 0) continue;
    s.Leaf(r.id, r.label, Category::kWeights, Live::Both(bytes), [&] {
      return Explanation{FormatCount(r.n) + " params" + (d.t > 1 ? ", matrices split over t=" + FormatNumber(d.t) : "") +
                             ": " + FormatBytesBoth(bytes),
                         src::kWeights};
    });
  }
  s.End();
}

// Gradients, master weights and optimizer states of the T trainable parameters.
template <class Sink>
void AccountTrainingStates(const Derived& d, Sink& s) {
  const Config& c = d.c;
  const double T = d.T_gpu;  // per GPU: TP splits the matrices
  const char* what = d.adapters ? "adapter params" : d.t > 1 ? "params on this GPU" : "params";

  if (d.adapters) {
    const double bpp = Info(c.dtype).bits / 8.0;
    s.Leaf("adapters", "LoRA adapter weights", Category::kWeights, Live::Both(T * bpp), [&] {
      return Explanation{"r(d_in + d_out) per adapted matrix, r=" + std::to_string(c.lora_rank) + ", targets " +
                             LoraTargetsId(c.lora_targets) + ": " + FormatCount(static_cast<int64_t>(T)) +
                             " params x " + FormatNumber(bpp) + " B",
                         src::kLora};
    });
  }

  const double gbpp = Info(c.grad_dtype).bits / 8.0;
  s.Leaf("gradients", "Gradients", Category::kGradients, Live::Both(T * gbpp), [&] {
    return Explanation{detail::PerParam(gbpp, T, what) + " (" + Info(c.grad_dtype).label + ")",
                       c.grad_dtype == Dtype::kFp32 && HasMasterCopy(c.dtype) ? src::kMainGrads : src::kZeroModelStates};
  });

  if (c.master_weights && HasMasterCopy(c.dtype)) {
    s.Leaf("master_weights", "FP32 master weights", Category::kMasterWeights, Live::Both(T * 4), [&] {
      return Explanation{detail::PerParam(4, T, what), src::kZeroModelStates};
    });
  }

  if (c.grad_accum > 1 && c.grad_accum_fp32 && c.grad_dtype != Dtype::kFp32) {
    s.Leaf("grad_accum_buffer", "FP32 gradient-accumulation buffer", Category::kGradients, Live::Both(T * 4), [&] {
      return Explanation{detail::PerParam(4, T, what) + ", summed over " + std::to_string(c.grad_accum) +
                             " micro-batches",
                         src::kMainGrads};
    });
  }

  const double obpp = Info(c.optimizer_dtype).bits / 8.0;
  const char* state_label = Info(c.optimizer_dtype).label;
  switch (c.optimizer) {
    case Optimizer::kSgd:
      break;
    case Optimizer::kSgdMomentum:
      s.Leaf("momentum", "SGD momentum buffer", Category::kOptimizerStates, Live::Both(T * obpp), [&] {
        return Explanation{detail::PerParam(obpp, T, what) + " (" + state_label + ")", src::kSeed002Optimizers};
      });
      break;
    case Optimizer::kAdamW:
      s.Begin("optimizer", "Adam(W) states");
      s.Leaf("adam_m", "First moment m", Category::kOptimizerStates, Live::Both(T * obpp), [&] {
        return Explanation{detail::PerParam(obpp, T, what) + " (" + state_label + ")", src::kZeroModelStates};
      });
      s.Leaf("adam_v", "Second moment v", Category::kOptimizerStates, Live::Both(T * obpp), [&] {
        return Explanation{detail::PerParam(obpp, T, what) + " (" + state_label + ")", src::kZeroModelStates};
      });
      s.End();
      break;
    case Optimizer::kAdam8bit: {
      const double blocks = std::ceil(T / 2048.0);
      const double each = T * 1.0 + blocks * 4.0;
      s.Begin("optimizer", "8-bit Adam states");
      s.Leaf("adam_m", "First moment m (8-bit)", Category::kOptimizerStates, Live::Both(each), [&] {
        return Explanation{"1 B x " + FormatCount(static_cast<int64_t>(T)) + " + 4 B x " +
                               FormatCount(static_cast<int64_t>(blocks)) + " blocks of 2048",
                           src::kAdam8bit};
      });
      s.Leaf("adam_v", "Second moment v (8-bit)", Category::kOptimizerStates, Live::Both(each), [&] {
        return Explanation{"1 B x " + FormatCount(static_cast<int64_t>(T)) + " + 4 B x " +
                               FormatCount(static_cast<int64_t>(blocks)) + " blocks of 2048",
                           src::kAdam8bit};
      });
      s.End();
      break;
    }
    case Optimizer::kAdafactor: {
      // Without an architecture the matrices' shapes are unknown: count one fp32 value
      // per parameter (the unfactored upper bound) and say so in the formula.
      const double elems = d.adapters ? d.lora_factored : d.has_arch ? d.full_factored : T;
      s.Leaf("adafactor_v", "Adafactor factored second moment", Category::kOptimizerStates, Live::Both(elems * 4),
             [&] {
               return Explanation{d.has_arch ? "4 B x (rows + cols) per matrix, 4 B per vector element: " +
                                                   FormatCount(static_cast<int64_t>(elems)) + " fp32 values"
                                             : "4 B x " + FormatCount(static_cast<int64_t>(elems)) +
                                                   " (no architecture: unfactored upper bound)",
                                  src::kAdafactor};
             });
      break;
    }
    case Optimizer::kLion:
      s.Leaf("lion_m", "Lion momentum", Category::kOptimizerStates, Live::Both(T * obpp), [&] {
        return Explanation{detail::PerParam(obpp, T, what) + " (" + state_label + ")", src::kLion};
      });
      break;
  }

  if (c.optimizer_grad_copy) {
    s.Leaf("fp32_grad_copy", "FP32 gradient copy at the step", Category::kGradients, Live::StepOnly(T * 4), [&] {
      return Explanation{detail::PerParam(4, T, what) + ", alive during the optimizer step only",
                         src::kDeepSpeedGradCopy};
    });
  }
}

}  // namespace llmmem::core
