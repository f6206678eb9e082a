// The workload's rows of the field table (fields.h), part one: mode, batch and sequence,
// parallelism, memory savers, RLHF, precision and the optimizer, in the order JSON, links
// and --help list them. Part two (serving, speed, LoRA, overheads, the GPU):
// fields_serving.cpp.
#include <string>

#include "core/config/field_rows.h"
#include "core/config/stacks.h"

namespace llmmem::core::field_rows {

void AddWorkloadRows(std::vector<FieldDef>& out) {
  using G = FieldGroup;
  const FieldDef rows[] = {
      LLMMEM_ENUM("mode", mode, G::kWorkload, "Mode", "", "a mode"),
      // The training program (stacks.h): assemblers apply its defaults before the user's fields
      // (SetFollowingStack); the setter itself only checks and stores the name.
      TextRow("stack", FieldKind::kText, false, G::kWorkload, "Training program",
              Lasting("the training program and version whose defaults the mechanism settings start from "
                      "(NAME or NAME@VERSION; a version between rows takes the earlier row, none the latest): " +
                      StackNames()),
              [](const Config& c) { return c.stack; },
              [](Config& c, const std::string& t) {
                std::string error;
                if (FindStack(t, &error) == nullptr) return error;
                c.stack = t;
                return std::string();
              }),
      LLMMEM_INT("batch", batch, G::kWorkload, "Micro-batch", "", 1, 1'048'576, 1, 8,
                 "micro-batch (inference: concurrent sequences)"),
      LLMMEM_INT("seq", seq, G::kWorkload, "Sequence length", "", 1, 16'777'216, 512, 4096,
                 "sequence length in tokens"),
      LLMMEM_INT("grad_accum", grad_accum, G::kWorkload, "Grad accumulation", "", 1, 1'048'576, 1, 8,
                 "gradient-accumulation steps: micro-batches per optimizer step"),
      LLMMEM_INT("tp", tp, G::kParallelism, "Tensor parallel", "", 1, 1024, 1, 0, "tensor-parallel size"),
      LLMMEM_BOOL("sp", sp, G::kParallelism, "Sequence parallel", "sequence parallelism"),
      LLMMEM_INT("dp", dp, G::kParallelism, "Data parallel", "", 1, 1'048'576, 1, 8, "data-parallel replicas"),
      LLMMEM_INT("zero", zero, G::kParallelism, "ZeRO stage", "", 0, 3, 1, 1,
                 "ZeRO stage / FSDP sharding: 0 none, 1 optimizer, 2 + gradients (FSDP SHARD_GRAD_OP), "
                 "3 + parameters (FULL_SHARD)"),
      LLMMEM_INT("zero_group", zero_group, G::kParallelism, "ZeRO group", "", 0, 1'048'576, 1, 0,
                 "GPUs one ZeRO/FSDP shard group spans (HYBRID_SHARD; 0: all data-parallel GPUs)"),
      LLMMEM_ENUM("sharding", sharding, G::kParallelism, "Sharding",
                  "who shards the model states, which decides the buffers beside them: ", "a sharding implementation"),
      LLMMEM_INT("pp", pp, G::kParallelism, "Pipeline stages", "", 1, 1024, 1, 0, "pipeline stages"),
      LLMMEM_ENUM("schedule", schedule, G::kParallelism, "Schedule", "pipeline schedule: ", "a pipeline schedule"),
      LLMMEM_INT("vpp", vpp, G::kParallelism, "Virtual stages", "", 1, 128, 1, 0,
                 "virtual stages per pipeline rank (interleaved schedule)"),
      LLMMEM_INT("cp", cp, G::kParallelism, "Context parallel", "", 1, 1024, 1, 0, "context-parallel size"),
      LLMMEM_INT("ep", ep, G::kParallelism, "Expert parallel", "", 1, 16'384, 1, 0, "expert-parallel size"),
      LLMMEM_ENUM("offload_optimizer", offload_optimizer, G::kParallelism, "Offload optimizer",
                  "master weights and optimizer states to ", "an offload target"),
      LLMMEM_ENUM("offload_params", offload_params, G::kParallelism, "Offload params", "16-bit weights (ZeRO-3) to ",
                  "an offload target"),
      LLMMEM_BOOL("offload_activations", offload_activations, G::kMemorySavers, "Offload checkpoints to CPU",
                  "checkpointed activations to CPU"),
      LLMMEM_NUM("reduce_bucket", reduce_bucket, G::kParallelism, "Reduce bucket", "elements", 0, 1e11, 0, "%.0f",
                 "DeepSpeed reduce_bucket_size"),
      LLMMEM_NUM("allgather_bucket", allgather_bucket, G::kParallelism, "All-gather bucket", "elements", 0, 1e11, 0,
                 "%.0f", "DeepSpeed allgather_bucket_size"),
      LLMMEM_NUM("prefetch_bucket", prefetch_bucket, G::kParallelism, "Prefetch bucket", "elements", 0, 1e11, 0, "%.0f",
                 "ZeRO-3 prefetch bucket (DeepSpeed stage3_prefetch_bucket_size)"),
      LLMMEM_BOOL("ddp_bucket_view", ddp_bucket_view, G::kParallelism, "DDP bucket view",
                  "DDP gradient_as_bucket_view"),
      LLMMEM_BOOL("reshard_after_forward", reshard_after_forward, G::kParallelism, "Reshard after forward",
                  "FSDP reshard_after_forward (off: parameters stay gathered from forward to backward)"),
      LLMMEM_BOOL("fsdp1", fsdp1, G::kParallelism, "FSDP1 (FullyShardedDataParallel)",
                  "PyTorch FSDP as FullyShardedDataParallel (accelerate's fsdp_version 1) rather than FSDP2's "
                  "fully_shard"),
      LLMMEM_ENUM("rlhf", rlhf, G::kRlhf, "Algorithm", "RLHF algorithm: ", "an RLHF algorithm"),
      LLMMEM_BOOL("reward_model", reward_model, G::kRlhf, "Reward model", "a learned reward model is resident"),
      LLMMEM_BOOL("rollout_engine", rollout_engine, G::kRlhf, "Rollout engine", "a colocated generation engine"),
      LLMMEM_ENUM("recompute", recompute, G::kMemorySavers, "Recompute",
                  "activation recomputation (selective: the paper's, attention scores; op_selective: torchtitan's "
                  "op-level SAC): ",
                  "a recompute mode"),
      LLMMEM_ENUM("framework", framework, G::kMemorySavers, "Framework",
                  "implementation profile, which code runs the model (hf-sdpa default): ", "a framework"),
      LLMMEM_BOOL("flash_attn", flash_attn, G::kMemorySavers, "FlashAttention", "FlashAttention"),
      LLMMEM_ENUM("linear_kernels", linear_kernels, G::kMemorySavers, "Linear-attention kernels",
                  "what runs Gated DeltaNet and Mamba-2 layers in training (fused: flash-linear-attention, "
                  "causal-conv1d, mamba_ssm; torch: transformers' fallback without them): ",
                  "a linear-attention implementation"),
      LLMMEM_BOOL("reentrant_checkpoint", reentrant_checkpoint, G::kMemorySavers, "Reentrant checkpointing",
                  "torch.utils.checkpoint(use_reentrant=True), transformers' gradient_checkpointing default (off: "
                  "non-reentrant, as torchtune, torchtitan and accelerate's FSDP activation_checkpointing run it)"),
      LLMMEM_BOOL("train_use_cache", train_use_cache, G::kMemorySavers, "Model keeps its KV cache (use_cache)",
                  "transformers' GPTBigCode (SantaCoder, StarCoder) leaves use_cache on under gradient "
                  "checkpointing: each layer's cache, a view of its whole fused QKV projection output, stays alive "
                  "until the loss has run"),
      LLMMEM_BOOL("dropout", dropout, G::kMemorySavers, "Dropout", "dropout active"),
      LLMMEM_BOOL("loss_logits_fp32", loss_logits_fp32, G::kOptimizer, "fp32 logits in the loss",
                  "fp32 logits for the loss"),
      LLMMEM_BOOL("loss_shift_copy", loss_shift_copy, G::kOptimizer, "Loss copies shifted logits",
                  "transformers 4.46-4.48 (and models with their own loss before): logits[..., :-1, :].contiguous() "
                  "copies the shifted logits while the model still holds its own"),
      LLMMEM_ENUM("loss_kernel", loss_kernel, G::kOptimizer, "Loss kernel",
                  "the cross-entropy's implementation (inplace: Unsloth's Fast_CrossEntropyLoss, fms-acceleration "
                  "fast_loss; loss_parallel: torch's loss over vocab-sharded logits, torchtitan with TP; chunked: "
                  "torchtune's CEWithChunkedOutputLoss; chunked_compiled: the same with torchtune's compile=True): ",
                  "a loss kernel"),
      LLMMEM_BOOL("metrics_logits", metrics_logits, G::kOptimizer, "Metrics keep logits",
                  "compute_metrics keeps logits"),
      LLMMEM_DTYPE("dtype", dtype, G::kPrecision, "Weights", "weight format"),
      LLMMEM_DTYPE("grad_dtype", grad_dtype, G::kPrecision, "Gradients", "gradient format"),
      LLMMEM_BOOL("master_weights", master_weights, G::kPrecision, "fp32 master weights", "fp32 master weights"),
      LLMMEM_BOOL("optimizer_grad_copy", optimizer_grad_copy, G::kOptimizer, "fp32 gradient copy at the step",
                  "fp32 gradient copy at the step (DeepSpeed)"),
      LLMMEM_BOOL("grads_set_to_none", grads_set_to_none, G::kOptimizer, "zero_grad frees gradients",
                  "zero_grad(set_to_none=True), PyTorch 2.0's default (off: the gradients stay allocated, zeroed, "
                  "through the next forward: PyTorch 1.x's default)"),
      LLMMEM_BOOL("grad_accum_fp32", grad_accum_fp32, G::kPrecision, "fp32 grad accumulation buffer",
                  "separate fp32 accumulation buffer"),
      TextRow(
          "autocast", FieldKind::kText, false, G::kPrecision, "Autocast (AMP)",
          Lasting("PyTorch AMP: off, " + IdList<Dtype>(" or ", IsAutocastFormatRow) +
                  " (matmuls in that format, weights kept in dtype; HF Trainer bf16=True)"),
          [](const Config& c) { return std::string(c.autocast == Dtype::kCount ? "off" : Info(c.autocast).id); },
          [](Config& c, const std::string& t) {
            Dtype d = Dtype::kCount;
            if (t != "off" && !(ParseId(t, d) && IsAutocastFormat(d)))
              return "\"" + t + "\" is not an autocast format; one of: off, " +
                     IdList<Dtype>(", ", IsAutocastFormatRow);
            c.autocast = d;
            return std::string();
          }),
      LLMMEM_BOOL("base_fp32_shards", base_fp32_shards, G::kPrecision, "fp32 base shards (FSDP LoRA)",
                  "LoRA under FSDP mixed precision over a model loaded in fp32: the frozen base stays fp32 in its "
                  "shards and is gathered in 16 bits (peft's FSDP guide)"),
      LLMMEM_BOOL("norms_fp32", norms_fp32, G::kPrecision, "fp32 norms (QLoRA)",
                  "QLoRA's norm weights in fp32 (peft prepare_model_for_kbit_training): under autocast the "
                  "residual stream and the MLP's intermediates become fp32"),
      LLMMEM_NESTED_INT("group_size", quant.group_size, G::kPrecision, "Group size", "", 1, 1'048'576, 32, 128,
                        "GPTQ/AWQ group size: weights per scale"),
      LLMMEM_NESTED_INT("gptq_bits", quant.gptq_bits, G::kPrecision, "Quant bits", "", 2, 8, 1, 1,
                        "GPTQ/AWQ bits per weight"),
      LLMMEM_BOOL("nf4_double_quant", quant.nf4_double_quant, G::kPrecision, "Double quantisation",
                  "NF4 double quantisation"),
      LLMMEM_ENUM("optimizer", optimizer, G::kOptimizer, "Optimizer", "", "an optimizer"),
      LLMMEM_DTYPE("optimizer_dtype", optimizer_dtype, G::kOptimizer, "State dtype", "optimizer state format"),
      LLMMEM_ENUM("optimizer_impl", optimizer_impl, G::kOptimizer, "Step implementation",
                  "how the step runs: ", "an optimizer implementation"),
      LLMMEM_BOOL("paged_optimizer", paged_optimizer, G::kOptimizer, "Paged optimizer",
                  "bitsandbytes paged optimizer states (unified memory)"),
      LLMMEM_DTYPE("kv_dtype", kv_dtype, G::kPrecision, "KV cache", "KV cache format"),
      LLMMEM_BOOL("all_logits", all_logits, G::kPrecision, "Logits for every position",
                  "logits for every prompt position"),
  };
  out.insert(out.end(), std::begin(rows), std::end(rows));
}

}  // namespace llmmem::core::field_rows
