// The rows of config_enums.h: one per enumerator, in enumerator order (static_asserted).
#include "core/config/config_enums.h"

namespace llmmem::core {
namespace {

constexpr ModeInfo kModes[] = {
    {Mode::kInference, "infer", "inference", "inference", "run the model: weights, KV cache, prefill workspace"},
    {Mode::kTraining, "train", "training full", "training",
     "train every weight: gradients, optimizer states, activations"},
    {Mode::kLora, "lora", "", "LoRA", "train low-rank adapters on a frozen 16-bit base"},
    {Mode::kQlora, "qlora", "", "QLoRA", "LoRA on a base stored in 4-bit NF4"},
    {Mode::kRlhf, "rlhf", "", "RLHF", "a trained policy with its reference, critic and reward models"},
};
static_assert(OneRowPerEnumerator(kModes, EnumCount(Mode::kLast)), "one row per Mode, in order");

constexpr ScheduleInfo kSchedules[] = {
    {Schedule::k1F1B, "1f1b", "", "1F1B", "one forward, one backward: at most pp micro-batches in flight"},
    {Schedule::kInterleaved, "interleaved", "interleaved-1f1b vpp", "interleaved 1F1B",
     "virtual stages per rank (vpp): more micro-batches in flight on the first rank"},
    {Schedule::kGpipe, "gpipe", "", "GPipe", "every forward, then every backward: all micro-batches in flight"},
};
static_assert(OneRowPerEnumerator(kSchedules, EnumCount(Schedule::kLast)), "one row per Schedule, in order");

constexpr OffloadInfo kOffloads[] = {
    {Offload::kNone, "none", "0 off", "none", "kept on the GPU"},
    {Offload::kCpu, "cpu", "", "CPU", "ZeRO-Offload: kept in CPU memory"},
    {Offload::kNvme, "nvme", "", "NVMe", "ZeRO-Infinity: kept on NVMe"},
};
static_assert(OneRowPerEnumerator(kOffloads, EnumCount(Offload::kLast)), "one row per Offload, in order");

constexpr RlhfInfo kRlhfs[] = {
    {Rlhf::kPpo, "ppo", "", "PPO", "policy, reference, critic and reward models"},
    {Rlhf::kGrpo, "grpo", "", "GRPO", "policy, reference and reward models; no critic"},
    {Rlhf::kDpo, "dpo", "", "DPO", "policy and reference models on preference pairs"},
};
static_assert(OneRowPerEnumerator(kRlhfs, EnumCount(Rlhf::kLast)), "one row per Rlhf, in order");

constexpr ShardingInfo kShardings[] = {
    {Sharding::kDeepSpeed, "deepspeed", "zero ds", "DeepSpeed ZeRO",
     "fixed-size reduce and all-gather buckets; ZeRO-3 prefetches a bucket of parameters"},
    {Sharding::kFsdp, "fsdp", "torch fsdp1 fsdp2", "PyTorch FSDP",
     "whole units: the running and the next layer gathered, the root (embeddings, head) gathered from forward to "
     "backward. Under mixed precision accelerate >= 0.30 and torchtitan keep fp32 shards of what is trained: set "
     "master weights with fp32 gradients and optimizer states"},
};
static_assert(OneRowPerEnumerator(kShardings, EnumCount(Sharding::kLast)), "one row per Sharding, in order");

constexpr RecomputeInfo kRecomputes[] = {
    {Recompute::kNone, "none", "", "none", "every activation kept for backward"},
    {Recompute::kSelective, "selective", "", "selective (attention)", "the paper's: the attention scores recomputed"},
    {Recompute::kFull, "full", "", "full (per layer)", "each layer's input kept, the layer recomputed in backward"},
    {Recompute::kOpSelective, "op_selective", "op", "op-level (torchtitan)",
     "torchtitan's op-level SAC: matmul and attention outputs kept, the rest recomputed"},
};
static_assert(OneRowPerEnumerator(kRecomputes, EnumCount(Recompute::kLast)), "one row per Recompute, in order");

constexpr LossKernelInfo kLossKernels[] = {
    {LossKernel::kTorch, "torch", "", "PyTorch cross_entropy",
     "log_softmax keeps its output; the backward allocates two more of that size"},
    {LossKernel::kInplace, "inplace", "unsloth fast_loss", "fused, gradient in place",
     "keeps its input and writes the gradient into it (Unsloth's Fast_CrossEntropyLoss, fms-acceleration fast_loss)"},
    {LossKernel::kLossParallel, "loss_parallel", "dtensor", "loss_parallel (vocab-sharded)",
     "torch's loss_parallel over vocab-sharded logits (torchtitan with TP): the log-softmax holds the shifted logits "
     "and their exp, and the backward fuses NLL and log-softmax in four fp32 tensors"},
    {LossKernel::kChunked, "chunked", "torchtune chunked_ce", "chunked (8, torchtune)",
     "torchtune's CEWithChunkedOutputLoss in eager mode: the head's 8 bf16 chunks, each upcast in turn; every "
     "chunk's log-probs are kept for the backward"},
    {LossKernel::kChunkedCompiled, "chunked_compiled", "chunked_ce_compiled compile", "chunked, compiled",
     "torchtune's CEWithChunkedOutputLoss with compile=True: each chunk's upcast and cross-entropy are one compiled "
     "graph that keeps the 16-bit chunk and two fp32 numbers per row, and recomputes the softmax in the backward"},
};
static_assert(OneRowPerEnumerator(kLossKernels, EnumCount(LossKernel::kLast)), "one row per LossKernel, in order");

constexpr LinearKernelsInfo kLinearKernels[] = {
    {LinearKernels::kFused, "fused", "fla kernels", "fused kernels",
     "flash-linear-attention, causal-conv1d and mamba_ssm installed: each kernel keeps its ctx.save_for_backward list"},
    {LinearKernels::kTorch, "torch", "fallback", "torch fallback",
     "none of them installed: transformers' torch_chunk_gated_delta_rule and Mamba-2's torch_forward keep every "
     "chunk's intermediates in fp32"},
};
static_assert(OneRowPerEnumerator(kLinearKernels, EnumCount(LinearKernels::kLast)), "one row per LinearKernels, in order");

constexpr OptimizerInfo kOptimizers[] = {
    // state_tensors, blockwise_8bit, step_counters: torch/optim/sgd.py (momentum_buffer, none without
    // momentum), adamw.py _init_group (exp_avg, exp_avg_sq, step), bitsandbytes optim/optimizer.py
    // Optimizer8bit (state1, state2 in uint8, absmax1/2 per 2048), lion-pytorch (exp_avg).
    {Optimizer::kSgd, "sgd", "", "SGD", "plain SGD: no state", false, true, 0, false, false},
    {Optimizer::kSgdMomentum, "momentum", "sgd_momentum", "SGD + momentum", "one momentum buffer per weight", true,
     true, 1, false, false},
    {Optimizer::kAdamW, "adamw", "adam", "AdamW", "exp_avg and exp_avg_sq per weight", true, true, 2, false, true},
    {Optimizer::kAdam8bit, "adam8bit", "adamw8bit", "Adam 8-bit", "bitsandbytes: both moments in 8 bits", false, true,
     2, true, false},
    {Optimizer::kAdafactor, "adafactor", "", "Adafactor", "factored second moment (row and column sums)", true, false,
     0, false, false},
    {Optimizer::kLion, "lion", "", "Lion", "one momentum buffer per weight", true, true, 1, false, false},
};
static_assert(OneRowPerEnumerator(kOptimizers, EnumCount(Optimizer::kLast)), "one row per Optimizer, in order");

}  // namespace

EnumTable<ModeInfo> TableOf(Mode) { return TableFrom(kModes); }
EnumTable<ScheduleInfo> TableOf(Schedule) { return TableFrom(kSchedules); }
EnumTable<OffloadInfo> TableOf(Offload) { return TableFrom(kOffloads); }
EnumTable<RlhfInfo> TableOf(Rlhf) { return TableFrom(kRlhfs); }
EnumTable<ShardingInfo> TableOf(Sharding) { return TableFrom(kShardings); }
EnumTable<RecomputeInfo> TableOf(Recompute) { return TableFrom(kRecomputes); }
EnumTable<LossKernelInfo> TableOf(LossKernel) { return TableFrom(kLossKernels); }
EnumTable<LinearKernelsInfo> TableOf(LinearKernels) { return TableFrom(kLinearKernels); }
EnumTable<OptimizerInfo> TableOf(Optimizer) { return TableFrom(kOptimizers); }

}  // namespace llmmem::core
