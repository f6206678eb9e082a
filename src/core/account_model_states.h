// Model states: weights, gradients, fp32 master weights, optimizer states and the
// optimizer step's temporaries, for one GPU: its pipeline stage's tensors, split by
// tensor and expert parallelism, then sharded by ZeRO/FSDP, possibly offloaded.
// Sources: ZeRO §3.1 and §5 (Pos, Pos+g, Pos+g+p), ZeRO-Offload (Ren et al. 2021),
// seeds 000/002/004, the optimizer papers in sources.h.
#pragma once

#include <cmath>
#include <string>

#include "core/derived.h"
#include "core/optimizer_impl.h"
#include "core/sinks.h"
#include "core/sources.h"
#include "core/units.h"

namespace llmmem::core {

namespace detail {

inline std::string PerParam(double bytes_per_param, double params, const char* what) {
  return FormatNumber(bytes_per_param, 4) + " B x " + FormatCount(static_cast<int64_t>(std::llround(params))) + " " +
         what;
}

inline Device OffloadDevice(Offload o) {
  return o == Offload::kCpu ? Device::kCpu : o == Offload::kNvme ? Device::kNvme : Device::kGpu;
}

// " / 8 (ZeRO-3, FSDP FULL_SHARD)" when a state is sharded, for the formulas: the stage
// configured, whichever state it is (gradients under ZeRO-3 are split by ZeRO-3).
inline std::string ShardNote(double shards, int64_t zero) {
  if (shards <= 1) return "";
  const char* fsdp = zero == 3 ? ", FSDP FULL_SHARD" : zero == 2 ? ", FSDP SHARD_GRAD_OP" : "";
  return " / " + FormatNumber(shards) + " (ZeRO-" + std::to_string(zero) + fsdp + ")";
}

// Bytes of one weight tensor family stored in `format`. fp32/fp16/bf16 store every tensor
// so. Quantised checkpoints quantise the decoder layers' Linear weights and keep the
// embeddings, the LM head, norms, biases and routers in 16 bits (llm-compressor and
// AutoFP8 recipes ignore lm_head, as in neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8's
// quantization_config; GPTQ/AWQ and bitsandbytes skip lm_head and never touch the
// embedding); GGUF quantises every matrix and keeps vectors in fp32.
inline double TensorBytes(const TensorShape& t, Dtype format, const QuantOptions& q) {
  const double n = static_cast<double>(t.rows) * static_cast<double>(t.cols) * static_cast<double>(t.count);
  if (format <= Dtype::kBf16) return n * Info(format).bits / 8.0;
  const bool gguf = format >= Dtype::kQ8_0;
  const bool matrix = t.cols > 1;
  const bool layer_linear = t.role == TensorRole::kQ || t.role == TensorRole::kK || t.role == TensorRole::kV ||
                            t.role == TensorRole::kO || t.role == TensorRole::kGate || t.role == TensorRole::kUp ||
                            t.role == TensorRole::kDown;
  if (gguf) {
    if (!matrix) return n * 4.0;
    // llama.cpp stores output.weight in Q6_K whatever lower block type the file uses
    // (src/llama-quant.cpp llama_tensor_get_type: `else if (new_type != GGML_TYPE_Q8_0)
    // new_type = GGML_TYPE_Q6_K` for the output tensor); the file recipes' averages include it.
    const bool block_type = format < Dtype::kQ6_K_File;
    if (block_type && t.role == TensorRole::kHead && format > Dtype::kQ6_K) return n * BitsPerWeight(Dtype::kQ6_K, q) / 8.0;
    return n * BitsPerWeight(format, q) / 8.0;
  }
  return layer_linear ? n * BitsPerWeight(format, q) / 8.0 : n * 2.0;
}

// A given parameter total is exact (7e9 x 2 B = 14e9 B): its whole bytes are shared out over
// the architecture's groups by largest remainder, so the groups add up to it, not to their
// rounded-up parts.
inline void ShareOutWholeBytes(double (&parts)[5], double whole) {
  double fraction[5];
  double left = whole;
  for (int i = 0; i < 5; ++i) {
    const double down = std::floor(parts[i]);
    fraction[i] = parts[i] - down;
    parts[i] = down;
    left -= down;
  }
  for (int given = 0; given < 5 && left >= 1; ++given, left -= 1) {
    int largest = 0;
    for (int i = 1; i < 5; ++i) {
      if (fraction[i] > fraction[largest]) largest = i;
    }
    parts[largest] += 1;
    fraction[largest] = -1;
  }
}

struct WeightBytes {
  double group[5] = {0, 0, 0, 0, 0};  // by ParamGroup
  double params[5] = {0, 0, 0, 0, 0};
  double total = 0;
};

inline WeightBytes WeightsByGroup(const Derived& d, Dtype format) {
  WeightBytes w;
  ForEachTensor(d.c.model, [&](const TensorShape& t) {
    const double share = d.Share(t);
    const double bytes = TensorBytes(t, format, d.c.quant) * share;
    const int g = static_cast<int>(t.group);
    w.group[g] += bytes;
    w.params[g] += static_cast<double>(t.rows) * static_cast<double>(t.cols) * static_cast<double>(t.count) * share;
    w.total += bytes;
  });
  if (d.c.model.params_override > 0 && d.counts.total > 0) {
    const double k = d.P / static_cast<double>(d.counts.total);
    for (int g = 0; g < 5; ++g) {
      w.group[g] *= k;
      w.params[g] *= k;
    }
    w.total = WholeBytes(w.total * k);
    ShareOutWholeBytes(w.group, w.total);
  }
  return w;
}

// auto: what each framework's optimizer runs by default.
inline OptimizerImpl ResolvedImpl(const Config& c) {
  if (c.optimizer_impl != OptimizerImpl::kAuto) return c.optimizer_impl;
  return IsHuggingFace(c.framework) ? OptimizerImpl::kForeach : OptimizerImpl::kFused;
}

}  // namespace detail

// The optimizer step's own allocations beside the states: torch's foreach Adam(W) takes
// the square root of every second moment at once (one state-sized list), the for-loop
// path one tensor's worth, in-backward steps one tensor's worth while backward runs;
// fused kernels update in place. Other optimizers' steps allocate nothing of note.
template <class Sink>
void AccountStepTemporaries(const Derived& d, Sink& s, double T, OptimizerImpl impl, Device device) {
  const Config& c = d.c;
  // Offloaded, the step runs in DeepSpeed's CPU Adam, which updates in place.
  if (c.optimizer != Optimizer::kAdamW || impl == OptimizerImpl::kFused || device != Device::kGpu) return;
  const double obpp = Info(c.optimizer_dtype).bits / 8.0;
  const double o_shards = d.OptimizerShards();
  const double largest = std::fmin(d.largest_trainable > 0 ? d.largest_trainable : T, T);
  const double elements = impl == OptimizerImpl::kForeach ? T / o_shards : largest;
  const Live live = impl == OptimizerImpl::kInBackward ? Live::ForwardOnly(elements * obpp) : Live::StepOnly(elements * obpp);
  s.Leaf("step_temporaries", impl == OptimizerImpl::kForeach ? "Step temporaries (sqrt of v, all at once)" : "Step temporaries (one tensor)",
         Category::kOptimizerStates, live.On(device), [&] {
           return Explanation{detail::PerParam(obpp, elements,
                                               impl == OptimizerImpl::kForeach ? "state elements: _foreach_sqrt(exp_avg_sq)"
                                                                               : "elements of the largest tensor") +
                                  "; " + Info(impl).help,
                              Info(impl).source};
         });
}

// The stored weights of one model on this GPU: the whole model (inference, training),
// the frozen base (LoRA, QLoRA), or a named RLHF role (`id`, `name`, `format`).
template <class Sink>
void AccountWeights(const Derived& d, Sink& s, const char* id = "weights", const char* name = nullptr,
                    Dtype format_override = Dtype::kCount, double scale = 1.0) {
  const Config& c = d.c;
  const Dtype format = format_override != Dtype::kCount ? format_override
                       : c.mode == Mode::kQlora        ? Dtype::kNf4
                                                       : c.dtype;
  if (name == nullptr) name = d.adapters ? "Frozen base weights" : "Weights";
  const double shards = d.WeightShards();
  const Device device = detail::OffloadDevice(c.offload_params);
  const char* where = device == Device::kCpu ? " (offloaded to CPU)" : device == Device::kNvme ? " (offloaded to NVMe)" : "";
  if (!d.has_arch) {
    const double bpp = BitsPerWeight(format, c.quant) / 8.0;
    const double bytes = d.P_gpu * scale * bpp / shards;
    s.Leaf(id, name, Category::kWeights, Live::Both(bytes).On(device), [&] {
      return Explanation{detail::PerParam(bpp, d.P_gpu * scale, "parameters") + detail::ShardNote(shards, c.zero) +
                             " (" + Info(format).label + ", " + BitsPerWeightFormula(format, c.quant) + ")" + where,
                         src::kWeights};
    });
    return;
  }
  const detail::WeightBytes w = detail::WeightsByGroup(d, format);
  s.Begin(id, name);
  s.Note([&] {
    std::string note = std::string(Info(format).label) + ": " + BitsPerWeightFormula(format, c.quant);
    if (format > Dtype::kBf16 && format < Dtype::kQ8_0) note += "; embeddings, head and norms stay 16-bit";
    if (d.t > 1 || d.pp > 1 || d.ep > 1) {
      note += "; this GPU: stage " + std::to_string(d.stage + 1) + " of " + FormatNumber(d.pp) + ", matrices / t=" +
              FormatNumber(d.t) + (d.ep > 1 ? ", experts / ep=" + FormatNumber(d.ep) : "");
    }
    note += detail::ShardNote(shards, c.zero) + where;
    return Explanation{note, format == Dtype::kNf4 ? src::kQlora : src::kWeights};
  });
  struct Row { ParamGroup g; const char* id; const char* label; };
  const Row rows[] = {
      {ParamGroup::kEmbedding, "embedding", "Embeddings"},
      {ParamGroup::kAttention, "attention", "Attention"},
      {ParamGroup::kMlp, "mlp", c.model.IsMoe() ? "MLP and experts" : "MLP"},
      {ParamGroup::kNorms, "norms", "Norms"},
      {ParamGroup::kHead, "head", "Output head"},
  };
  for (const Row& r : rows) {
    const int g = static_cast<int>(r.g);
    const double params = w.params[g] * scale;
    if (params == 0) continue;
    const double bytes = w.group[g] * scale / shards;
    s.Leaf(r.id, r.label, Category::kWeights, Live::Both(bytes).On(device), [&] {
      // Bytes per parameter as the arithmetic has them (quantised groups: their average).
      return Explanation{detail::PerParam(w.group[g] / w.params[g], params, "params on this GPU") +
                             detail::ShardNote(shards, c.zero) + " = " + FormatBytesBoth(bytes),
                         src::kWeights};
    });
  }
  s.End();
}

// Gradients, master weights and optimizer states of this GPU's trainable parameters.
// `trainable` overrides T_gpu (RLHF roles); ids get `prefix` to keep them unique.
template <class Sink>
void AccountTrainingStates(const Derived& d, Sink& s, double trainable = -1) {
  const Config& c = d.c;
  const double T = trainable >= 0 ? trainable : d.T_gpu;
  const char* what = d.adapters ? "adapter params" : (d.t > 1 || d.pp > 1 || d.ep > 1) ? "params on this GPU" : "params";
  const double g_shards = d.GradShards();
  const double o_shards = d.OptimizerShards();
  const Device opt_device = detail::OffloadDevice(c.offload_optimizer);
  const char* opt_where = opt_device == Device::kCpu    ? " (offloaded to CPU)"
                          : opt_device == Device::kNvme ? " (offloaded to NVMe)"
                                                        : "";
  // bitsandbytes paged states live in CUDA unified memory, outside PyTorch's allocator:
  // on the GPU while it has room, evicted to CPU RAM under pressure, never an OOM.
  const bool paged = c.paged_optimizer && opt_device == Device::kGpu;
  const Device state_device = paged ? Device::kCpu : opt_device;
  const char* state_where = paged ? " (paged: unified memory, evicted to CPU under pressure)" : opt_where;

  if (d.adapters) {
    const double bpp = Info(AdapterDtype(c)).bits / 8.0;
    s.Leaf("adapters", "LoRA adapter weights", Category::kWeights, Live::Both(T * bpp / d.WeightShards()), [&] {
      return Explanation{"r(d_in + d_out) per adapted matrix, r=" + std::to_string(c.lora_rank) + ", targets " +
                             LoraTargetsId(c.lora_targets) + ": " + detail::PerParam(bpp, T, what) +
                             detail::ShardNote(d.WeightShards(), c.zero),
                         src::kLora};
    });
  }

  // A gradient has its parameter's dtype; 16-bit adapters' may be accumulated in grad_dtype.
  const Dtype grad_dtype = d.adapters && AdapterDtype(c) == Dtype::kFp32 ? Dtype::kFp32 : c.grad_dtype;
  const double gbpp = Info(grad_dtype).bits / 8.0;
  const OptimizerImpl impl = detail::ResolvedImpl(c);
  if (impl == OptimizerImpl::kInBackward && d.largest_trainable > 0) {
    // Each parameter steps in its gradient hook and drops the gradient: at most one whole
    // gradient (the largest tensor's) is alive.
    const double largest = std::fmin(d.largest_trainable, T);
    s.Leaf("gradients", "Gradients (one tensor at a time: optimizer in backward)", Category::kGradients,
           Live::Both(largest * gbpp), [&] {
             return Explanation{detail::PerParam(gbpp, largest, "elements of the largest trainable tensor"),
                                Info(impl).source};
           });
  } else {
    // FSDP's CPUOffload(offload_params=True) keeps the sharded gradients on the CPU too
    // (the optimizer steps there); DeepSpeed's offload_param likewise with the optimizer.
    // The gradients go where the optimizer steps: the CPU, or NVMe with ZeRO-Infinity.
    const Device grad_device = c.offload_params == Offload::kNone ? Device::kGpu
                               : c.offload_optimizer == Offload::kNone ? Device::kCpu
                                                                        : opt_device;
    const char* grad_where = grad_device == Device::kGpu ? "" : grad_device == Device::kCpu ? " (offloaded to CPU with the parameters)" : " (offloaded to NVMe with the parameters)";
    // PyTorch frees .grad at zero_grad(set_to_none=True), its default since 2.0, so under the
    // HF profiles the gradients are created during backward: at its start only the output
    // head's (the first computed) exists beside the activations. Megatron's and DeepSpeed's
    // gradient buffers, and any gradient accumulated over micro-batches, persist.
    const double grads = T * gbpp / g_shards;
    const bool transient = IsHuggingFace(c.framework) && c.grad_accum <= 1 && grad_device == Device::kGpu;
    const double head = transient && !d.adapters && d.last_stage
                            ? std::fmin(grads, static_cast<double>(d.counts.head > 0 ? d.counts.head : d.counts.embedding) / d.t * gbpp / g_shards)
                            : 0;
    const Live live = transient ? Live{head, grads, grads} : Live::Both(grads);
    s.Leaf("gradients", "Gradients", Category::kGradients, live.On(grad_device), [&] {
      return Explanation{detail::PerParam(gbpp, T, what) + detail::ShardNote(g_shards, c.zero) + " (" +
                             Info(grad_dtype).label + ")" + grad_where +
                             (transient ? "; created in backward (zero_grad sets them to None): at its start only the "
                                          "output head's, " + FormatBytesBoth(head)
                                        : ""),
                         grad_device != Device::kGpu ? src::kOffload
                         : c.grad_dtype == Dtype::kFp32 && HasMasterCopy(c.dtype) ? src::kMainGrads
                                                                                 : src::kZeroModelStates};
    });
  }

  const double fp32 = Info(Dtype::kFp32).bits / 8.0;
  if (c.master_weights && HasMasterCopy(d.adapters ? AdapterDtype(c) : c.dtype)) {
    s.Leaf("master_weights", "FP32 master weights", Category::kMasterWeights,
           Live::Both(T * fp32 / o_shards).On(opt_device), [&] {
             return Explanation{detail::PerParam(fp32, T, what) + detail::ShardNote(o_shards, c.zero) + opt_where,
                                src::kZeroModelStates};
           });
  }

  if (c.grad_accum > 1 && c.grad_accum_fp32 && c.grad_dtype != Dtype::kFp32) {
    s.Leaf("grad_accum_buffer", "FP32 gradient-accumulation buffer", Category::kGradients,
           Live::Both(T * fp32 / g_shards), [&] {
             return Explanation{detail::PerParam(fp32, T, what) + detail::ShardNote(g_shards, c.zero) +
                                    ", summed over " + std::to_string(c.grad_accum) + " micro-batches",
                                src::kMainGrads};
           });
  }

  const double obpp = Info(c.optimizer_dtype).bits / 8.0;
  // Text is built only inside the explain callbacks: the fast path allocates nothing.
  const auto state_note = [&] {
    return std::string(" (") + Info(c.optimizer_dtype).label + ")" + detail::ShardNote(o_shards, c.zero) + state_where;
  };
  const Live state_live = Live::Both(T * obpp / o_shards).On(state_device);
  switch (c.optimizer) {
    case Optimizer::kSgd:
      break;
    case Optimizer::kSgdMomentum:
      s.Leaf("momentum", "SGD momentum buffer", Category::kOptimizerStates, state_live, [&] {
        return Explanation{detail::PerParam(obpp, T, what) + state_note(), src::kSeed002Optimizers};
      });
      break;
    case Optimizer::kAdamW:
      s.Begin("optimizer", "Adam(W) states");
      s.Leaf("adam_m", "First moment m", Category::kOptimizerStates, state_live, [&] {
        return Explanation{detail::PerParam(obpp, T, what) + state_note(), src::kZeroModelStates};
      });
      s.Leaf("adam_v", "Second moment v", Category::kOptimizerStates, state_live, [&] {
        return Explanation{detail::PerParam(obpp, T, what) + state_note(), src::kZeroModelStates};
      });
      if (IsHuggingFace(c.framework)) {
        // torch.optim.Adam(W) keeps state["step"] as an fp32 scalar tensor per parameter
        // tensor; Megatron's and DeepSpeed's fused Adam keep one counter.
        const double tensors = d.adapters ? 2 * d.lora_matrices : static_cast<double>(d.counts.tensors);
        s.Leaf("adam_step", "Step counters (fp32, one per tensor)", Category::kOptimizerStates,
               Live::Both(4 * tensors).On(opt_device), [&] {
                 return Explanation{"4 B x " + FormatCount(static_cast<int64_t>(tensors)) + " parameter tensors",
                                    src::kTorchAdamStep};
               });
      }
      s.End();
      break;
    case Optimizer::kAdam8bit: {
      const double blocks = std::ceil(T / 2048.0);
      const double each = (T * 1.0 + blocks * 4.0) / o_shards;
      const auto explain = [&] {
        return Explanation{"(1 B x " + FormatCount(static_cast<int64_t>(std::llround(T))) + " + 4 B x " +
                               FormatCount(static_cast<int64_t>(blocks)) + " blocks of 2048)" +
                               detail::ShardNote(o_shards, c.zero) + state_where,
                           src::kAdam8bit};
      };
      s.Begin("optimizer", "8-bit Adam states");
      s.Leaf("adam_m", "First moment m (8-bit)", Category::kOptimizerStates, Live::Both(each).On(state_device), explain);
      s.Leaf("adam_v", "Second moment v (8-bit)", Category::kOptimizerStates, Live::Both(each).On(state_device), explain);
      s.End();
      break;
    }
    case Optimizer::kAdafactor: {
      // Without an architecture the matrices' shapes are unknown: count one fp32 value
      // per parameter (the unfactored upper bound) and say so in the formula.
      const double elems = d.adapters ? d.lora_factored : d.has_arch ? d.full_factored * (T / (d.P_gpu > 0 ? d.P_gpu : 1)) : T;
      s.Leaf("adafactor_v", "Adafactor factored second moment", Category::kOptimizerStates,
             Live::Both(elems * 4 / o_shards).On(opt_device), [&] {
               return Explanation{(d.has_arch ? "4 B x (rows + cols) per matrix, 4 B per vector element: " +
                                                    FormatCount(static_cast<int64_t>(std::llround(elems))) + " fp32 values"
                                              : "4 B x " + FormatCount(static_cast<int64_t>(std::llround(elems))) +
                                                    " (no architecture: unfactored upper bound)") +
                                      detail::ShardNote(o_shards, c.zero) + opt_where,
                                  src::kAdafactor};
             });
      break;
    }
    case Optimizer::kLion:
      s.Leaf("lion_m", "Lion momentum", Category::kOptimizerStates, state_live, [&] {
        return Explanation{detail::PerParam(obpp, T, what) + state_note(), src::kLion};
      });
      break;
  }

  AccountStepTemporaries(d, s, T, impl, state_device);

  if (c.optimizer_grad_copy) {
    s.Leaf("fp32_grad_copy", "FP32 gradient copy at the step", Category::kGradients,
           Live::StepOnly(T * fp32 / o_shards).On(opt_device), [&] {
             return Explanation{detail::PerParam(fp32, T, what) + detail::ShardNote(o_shards, c.zero) +
                                    ", alive during the optimizer step only" + opt_where,
                                src::kDeepSpeedGradCopy};
           });
  }
}

// Communication buffers the data-parallel strategy allocates beside the model states.
template <class Sink>
void AccountParallelBuffers(const Derived& d, Sink& s) {
  const Config& c = d.c;
  if (!d.training || (d.dp <= 1 && c.zero < 3)) return;
  const double gbpp = Info(c.grad_dtype).bits / 8.0;
  const double wbpp = Info(c.mode == Mode::kQlora ? Dtype::kBf16 : c.dtype).bits / 8.0;
  s.Begin("buffers", "Data-parallel buffers");
  if (c.zero == 0) {
    if (!c.ddp_bucket_view && d.dp > 1) {
      const double bytes = d.T_gpu * gbpp;
      s.Leaf("ddp_buckets", "DDP gradient buckets (a copy of the gradients)", Category::kBuffers, Live::Both(bytes),
             [&] {
               return Explanation{"PyTorch DDP with gradient_as_bucket_view=False keeps flat buckets as large as the "
                                  "gradients: " + FormatBytesBoth(bytes),
                                  src::kDdpBuckets};
             });
    }
  } else {
    const double reduce = std::fmin(c.reduce_bucket, d.T_gpu) * gbpp;
    s.Leaf("reduce_bucket", "Gradient reduce bucket", Category::kBuffers, Live::Both(reduce), [&] {
      return Explanation{"reduce_bucket_size " + FormatNumber(c.reduce_bucket, 0) + " elements x " +
                             FormatNumber(gbpp) + " B (at most the gradients)",
                         src::kDeepSpeedBuckets};
    });
    if (c.zero <= 2) {
      const double gather = std::fmin(c.allgather_bucket, d.T_gpu) * wbpp;  // only trained partitions are re-gathered
      s.Leaf("allgather_bucket", "Parameter all-gather bucket", Category::kBuffers, Live::Both(gather), [&] {
        return Explanation{"allgather_bucket_size " + FormatNumber(c.allgather_bucket, 0) + " elements x " +
                               FormatNumber(wbpp) + " B (at most the trained parameters, which are re-gathered)",
                           src::kDeepSpeedBuckets};
      });
    } else if (!c.reshard_after_forward) {
      // FSDP2 reshard_after_forward=False (torchtitan's default under pipeline parallelism,
      // torchtitan/distributed/fsdp.py get_fsdp_reshard_after_forward_policy): every layer's
      // parameters stay gathered from its forward to its backward.
      const double gathered = d.P_gpu * wbpp;
      s.Leaf("gathered_params", "Parameters kept gathered after forward", Category::kBuffers, Live::Both(gathered), [&] {
        return Explanation{FormatCount(static_cast<int64_t>(std::llround(d.P_gpu))) + " params on this GPU x " +
                               FormatNumber(wbpp) + " B, unsharded (reshard_after_forward=False)",
                           src::kZero3Gather};
      });
    } else {
      const double layer = d.layer_params_gpu * wbpp;
      const double prefetch = std::fmin(c.prefetch_bucket, d.layer_params_gpu) * wbpp;
      s.Leaf("gathered_layer", "Gathered parameters of the running layer", Category::kBuffers, Live::Both(layer), [&] {
        return Explanation{"one layer's " + FormatCount(static_cast<int64_t>(std::llround(d.layer_params_gpu))) +
                               " params on this GPU x " + FormatNumber(wbpp) + " B, all-gathered from the shards",
                           src::kZero3Gather};
      });
      s.Leaf("prefetch_bucket", "ZeRO-3 prefetch bucket", Category::kBuffers, Live::Both(prefetch), [&] {
        return Explanation{"stage3_prefetch_bucket_size " + FormatNumber(c.prefetch_bucket, 0) +
                               " elements (at most one layer) x " + FormatNumber(wbpp) + " B",
                           src::kZero3Gather};
      });
    }
  }
  s.End();
}

}  // namespace llmmem::core
