// The enumerations of Config (mode, pipeline schedule, offload target, RLHF algorithm,
// sharding implementation, recomputation, loss kernel, optimizer), one table each (enum_table.h): id, accepted aliases,
// the UI's label and a short help, plus what callers ask of a row (the optimizers a layer stack accepts, the ones whose
// states take optimizer_dtype). Rows: config_enums.cpp. Standard library only (config.h includes it).
#pragma once

#include <cstdint>

#include "core/base/enum_table.h"

namespace llmmem::core {

enum class Mode : uint8_t { kInference, kTraining, kLora, kQlora, kRlhf, kLast = kRlhf };
enum class Schedule : uint8_t { k1F1B, kInterleaved, kGpipe, kLast = kGpipe };  // pipeline schedules
enum class Offload : uint8_t { kNone, kCpu, kNvme, kLast = kNvme };             // ZeRO-Offload / ZeRO-Infinity targets
enum class Rlhf : uint8_t { kPpo, kGrpo, kDpo, kLast = kDpo };
// Who shards the model states (zero >= 1): DeepSpeed's ZeRO with its fixed-size buckets, or
// PyTorch FSDP, which gathers and reduces whole wrapped units (one per layer, and the root).
enum class Sharding : uint8_t { kDeepSpeed, kFsdp, kLast = kFsdp };
// kSelective: Korthikanti et al.'s (the s x s attention tensors); kOpSelective: torchtitan's
// op-level policy (save matmul and attention outputs, every other matmul recomputed).
enum class Recompute : uint8_t { kNone, kSelective, kFull, kOpSelective, kLast = kOpSelective };
// How the cross-entropy is computed: PyTorch's log_softmax + nll_loss, a fused kernel that
// keeps its input and writes the gradient into it (Unsloth's Fast_CrossEntropyLoss, which
// fms-acceleration's fast_loss patches in), torch's loss_parallel, or torchtune's chunked loss,
// eager or compiled.
enum class LossKernel : uint8_t {
  kTorch,
  kInplace,
  kLossParallel,
  kChunked,
  kChunkedCompiled,
  kLast = kChunkedCompiled
};
// What runs a hybrid model's linear-attention layers (Gated DeltaNet, Mamba-2) in training: the
// fused kernels (flash-linear-attention, causal-conv1d, mamba_ssm installed: transformers'
// is_fast_path_available) or transformers' torch fallback without them (torch_chunk_gated_delta_rule,
// Mamba-2's torch_forward), which keeps every chunk's intermediates.
enum class LinearKernels : uint8_t { kFused, kTorch, kLast = kTorch };
enum class Optimizer : uint8_t { kSgd, kSgdMomentum, kAdamW, kAdam8bit, kAdafactor, kLion, kLast = kLion };

using ModeInfo = EnumInfo<Mode>;
using ScheduleInfo = EnumInfo<Schedule>;
using OffloadInfo = EnumInfo<Offload>;
using RlhfInfo = EnumInfo<Rlhf>;
using ShardingInfo = EnumInfo<Sharding>;
using RecomputeInfo = EnumInfo<Recompute>;
using LossKernelInfo = EnumInfo<LossKernel>;
using LinearKernelsInfo = EnumInfo<LinearKernels>;

struct OptimizerInfo {
  Optimizer value;
  const char* id;
  const char* aliases;
  const char* label;
  const char* help;
  bool state_dtype;  // its states are kept in optimizer_dtype (the UI shows that setting)
  bool layer_stack;  // the layer-stack accounting (layer_stack_account.cpp) models it
  // What it keeps per trainable parameter, read by the LLM accounting and the layer stacks
  // alike (estimate/optimizer_states.h StateTensorBytes):
  int state_tensors;    // state tensors of the parameter's size (Adafactor: 0, its factored moment is its own)
  bool blockwise_8bit;  // bitsandbytes: 1 B per element plus an fp32 absmax per block of 2048
  bool step_counters;   // torch.optim's state["step"]: an fp32 scalar tensor per parameter tensor
};

EnumTable<ModeInfo> TableOf(Mode);
EnumTable<ScheduleInfo> TableOf(Schedule);
EnumTable<OffloadInfo> TableOf(Offload);
EnumTable<RlhfInfo> TableOf(Rlhf);
EnumTable<ShardingInfo> TableOf(Sharding);
EnumTable<RecomputeInfo> TableOf(Recompute);
EnumTable<LossKernelInfo> TableOf(LossKernel);
EnumTable<LinearKernelsInfo> TableOf(LinearKernels);
EnumTable<OptimizerInfo> TableOf(Optimizer);

inline bool LayerStackOptimizer(const OptimizerInfo& row) { return row.layer_stack; }

}  // namespace llmmem::core
