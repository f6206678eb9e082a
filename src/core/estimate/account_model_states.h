// Model states: gradients, fp32 master weights, optimizer states and the optimizer step's
// temporaries, for one GPU's trainable parameters, sharded by ZeRO/FSDP, possibly
// offloaded. The weights are account_weights.h's. Sources: ZeRO §3.1 and §5 (Pos, Pos+g,
// Pos+g+p), ZeRO-Offload (Ren et al. 2021), seeds 000/002/004, the optimizer papers and
// torch.optim code paths cited in sources.h and optimizer_impl.cpp.
#pragma once

#include <cmath>
#include <string>

#include "core/estimate/account_weights.h"
#include "core/config/optimizer_impl.h"
#include "core/estimate/optimizer_states.h"

namespace llmmem::core {

namespace detail {

// auto: what each framework's optimizer runs by default.
inline OptimizerImpl ResolvedImpl(const Config& c) {
  if (c.optimizer_impl != OptimizerImpl::kAuto) return c.optimizer_impl;
  return IsHuggingFace(c.framework) ? OptimizerImpl::kForeach : OptimizerImpl::kFused;
}

}  // namespace detail

// The optimizer step's own allocations beside the states: torch's foreach Adam(W) takes
// the square root of every second moment at once (one state-sized list), the for-loop
// path two of the largest tensor (sqrt(v), then its quotient, before add_(eps) runs in
// place), in-backward steps one tensor's worth while backward runs (a one-tensor foreach);
// fused kernels update in place. Other optimizers' steps allocate nothing of note.
// Measured on an H200 with torch 2.11 (tests/truth/GPU.md): foreach 1.00x the states of one
// moment, for-loop 2x the largest tensor, fused 0.
template <class Sink>
void AccountStepTemporaries(const Derived& d, Sink& s, double T, OptimizerImpl impl, Device device) {
  const Config& c = d.c;
  // Offloaded, the step runs in DeepSpeed's CPU Adam, which updates in place.
  if (c.optimizer != Optimizer::kAdamW || impl == OptimizerImpl::kFused || device != Device::kGpu) return;
  const double obpp = Info(c.optimizer_dtype).bits / 8.0;
  const double o_shards = d.OptimizerShards();
  const double largest = std::fmin(d.largest_trainable > 0 ? d.largest_trainable : T, T);
  const double elements = impl == OptimizerImpl::kForeach   ? T / o_shards
                          : impl == OptimizerImpl::kForLoop ? 2 * largest
                                                            : largest;
  const Live live =
      impl == OptimizerImpl::kInBackward ? Live::ForwardOnly(elements * obpp) : Live::StepOnly(elements * obpp);
  s.Leaf("step_temporaries",
         impl == OptimizerImpl::kForeach   ? "Step temporaries (sqrt of v, all at once)"
         : impl == OptimizerImpl::kForLoop ? "Step temporaries (two of the largest tensor)"
                                           : "Step temporaries (one tensor)",
         Category::kOptimizerStates, live.On(device), [&] {
           return Explanation{
               detail::PerParam(obpp, elements,
                                impl == OptimizerImpl::kForeach   ? "state elements: _foreach_sqrt(exp_avg_sq)"
                                : impl == OptimizerImpl::kForLoop ? "elements: two of the largest tensor"
                                                                  : "elements of the largest tensor") +
                   "; " + Info(impl).help,
               Info(impl).source};
         });
}

// Gradients, master weights and optimizer states of this GPU's trainable parameters.
// `trainable` overrides T_gpu (RLHF roles); ids get `prefix` to keep them unique.
template <class Sink>
void AccountTrainingStates(const Derived& d, Sink& s, double trainable = -1) {
  const Config& c = d.c;
  const double T = trainable >= 0 ? trainable : d.T_gpu;
  const char* what = d.adapters                          ? "adapter params"
                     : (d.t > 1 || d.pp > 1 || d.ep > 1) ? "params on this GPU"
                                                         : "params";
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
    const Device grad_device = c.offload_params == Offload::kNone      ? Device::kGpu
                               : c.offload_optimizer == Offload::kNone ? Device::kCpu
                                                                       : opt_device;
    const char* grad_where = grad_device == Device::kGpu   ? ""
                             : grad_device == Device::kCpu ? " (offloaded to CPU with the parameters)"
                                                           : " (offloaded to NVMe with the parameters)";
    // PyTorch frees .grad at zero_grad(set_to_none=True), its default since 2.0, so under the
    // HF profiles the gradients are created during backward: at its start only the output
    // head's (the first computed) exists beside the activations. Megatron's and DeepSpeed's
    // gradient buffers, any gradient accumulated over micro-batches, and PyTorch 1.x's zeroed
    // ones (set_to_none=False, its default: torch/nn/modules/module.py@v1.13.1 zero_grad) persist.
    const double grads = T * gbpp / g_shards;
    const bool transient =
        IsHuggingFace(c.framework) && c.grad_accum <= 1 && grad_device == Device::kGpu && c.grads_set_to_none;
    const double head =
        transient && !d.adapters && d.last_stage
            ? std::fmin(grads, static_cast<double>(d.counts.head > 0 ? d.counts.head : d.counts.embedding) / d.t *
                                   gbpp / g_shards)
            : 0;
    // The head's gradient is made by its backward, after the loss's: it coexists with the
    // layers' backward, not with the loss's gradients (measured, tests/truth/GPU.md); Liger
    // computes it inside the forward.
    const double head_at_loss = Info(c.framework).liger_kernels ? head : 0;
    // Pipelined FSDP syncs gradients only after the last micro-batch's backward: until then
    // they are unsharded buffers (account_parallel_buffers.h), the sharded ones exist for the step.
    const bool pipelined_fsdp = c.sharding == Sharding::kFsdp && d.pp > 1 && grad_device == Device::kGpu;
    const Live live = pipelined_fsdp ? Live::StepOnly(grads)
                      : transient    ? Live{head_at_loss, grads, grads, head}
                                     : Live::Both(grads);
    s.Leaf("gradients", "Gradients", Category::kGradients, live.On(grad_device), [&] {
      return Explanation{detail::PerParam(gbpp, T, what) + detail::ShardNote(g_shards, c.zero) + " (" +
                             Info(grad_dtype).label + ")" + grad_where +
                             (pipelined_fsdp ? "; reduce-scattered after the last micro-batch's backward, for the step"
                              : transient ? "; created in backward (zero_grad sets them to None): in the last layer's "
                                            "backward only the output head's, " +
                                                FormatBytesBoth(head)
                                          : ""),
                         grad_device != Device::kGpu                              ? src::kOffload
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
  const OptimizerInfo& optimizer = Info(c.optimizer);
  // Text is built only inside the explain callbacks: the fast path allocates nothing.
  const auto state_note = [&] {
    return std::string(" (") + Info(c.optimizer_dtype).label + ")" + detail::ShardNote(o_shards, c.zero) + state_where;
  };
  const Live state_live = Live::Both(StateTensorBytes(optimizer, T, obpp) / o_shards).On(state_device);
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
      if (optimizer.step_counters && IsHuggingFace(c.framework)) {
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
      const double each = StateTensorBytes(optimizer, T, 1) / o_shards;
      const auto explain = [&] {
        return Explanation{"(1 B x " + FormatCount(static_cast<int64_t>(std::llround(T))) + " + 4 B x " +
                               FormatCount(static_cast<int64_t>(blocks)) + " blocks of 2048)" +
                               detail::ShardNote(o_shards, c.zero) + state_where,
                           src::kAdam8bit};
      };
      s.Begin("optimizer", "8-bit Adam states");
      s.Leaf("adam_m", "First moment m (8-bit)", Category::kOptimizerStates, Live::Both(each).On(state_device),
             explain);
      s.Leaf("adam_v", "Second moment v (8-bit)", Category::kOptimizerStates, Live::Both(each).On(state_device),
             explain);
      s.End();
      break;
    }
    case Optimizer::kAdafactor: {
      // Without an architecture the matrices' shapes are unknown: count one fp32 value
      // per parameter (the unfactored upper bound) and say so in the formula.
      const double elems = d.adapters   ? d.lora_factored
                           : d.has_arch ? d.full_factored * (T / (d.P_gpu > 0 ? d.P_gpu : 1))
                                        : T;
      s.Leaf("adafactor_v", "Adafactor factored second moment", Category::kOptimizerStates,
             Live::Both(elems * 4 / o_shards).On(opt_device), [&] {
               return Explanation{
                   (d.has_arch ? "4 B x (rows + cols) per matrix, 4 B per vector element: " +
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

}  // namespace llmmem::core
