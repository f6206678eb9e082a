// Citations shown beside every formula (breakdown tree, tooltips, --json).
#pragma once

namespace llmmem::core::src {

inline constexpr const char* kZeroModelStates =
    "Rajbhandari et al. 2020, ZeRO §3.1 and Fig. 1: mixed-precision Adam keeps 2+2+12 bytes/param; seeds 000, 004";
inline constexpr const char* kSeed002Optimizers = "seed 002: SGD x2, momentum x3, Adam x4 the parameter memory";
inline constexpr const char* kMainGrads =
    "Megatron-LM main_grad (fp32 gradient buffers); DeepSpeed fp32 gradient partitions: 18 bytes/param in all";
inline constexpr const char* kDeepSpeedGradCopy =
    "seed 002: the DeepSpeed optimizer keeps an extra fp32 copy of the gradients (13B: +52 GB)";
inline constexpr const char* kAdam8bit =
    "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization §2: 1 byte per state + fp32 absmax per 2048";
inline constexpr const char* kAdafactor =
    "Shazeer & Stern 2018, Adafactor §3: factored second moment (row + column sums), no first moment (beta1=None)";
inline constexpr const char* kLion =
    "Chen et al. 2023, Lion (Symbolic Discovery of Optimization Algorithms): one momentum";
inline constexpr const char* kWeights = "parameters x bytes per parameter (seed 002: fp32 4, fp16 2, int8 1)";
inline constexpr const char* kTransformersGguf =
    "transformers docs/source/en/gguf.md at 03b68627 (\"dequantized to fp32\") and "
    "src/transformers/modeling_gguf_pytorch_utils.py load_gguf_checkpoint at a2d3a280 (gguf dequantize, "
    "torch.from_numpy): from_pretrained(gguf_file=...) holds every tensor in fp32 unless torch_dtype is given";
inline constexpr const char* kKorthikantiLayer =
    "Korthikanti et al. 2022, Reducing Activation Recomputation, §4.1 eq. 1 (p.4): sbh(34 + 5as/h)";
inline constexpr const char* kKorthikantiRecompute =
    "Korthikanti et al. 2022 §4.2, Table 2 (p.9): selective 34sbh, full 2sbh per layer";
inline constexpr const char* kKorthikantiOutput =
    "Korthikanti et al. 2022 §4.3: embedding dropout sbh, final norm 2sbh, output layer 2sbh, fp32 logits 4sbV";
inline constexpr const char* kGatedMlp =
    "Korthikanti §4.1 method applied to SwiGLU/GeGLU (Shazeer 2020): gate, up, activation and product saved";
inline constexpr const char* kFlash =
    "Dao et al. 2022, FlashAttention §3.1: S and P recomputed in backward; keeps the fp32 softmax statistics";
inline constexpr const char* kRematerialised =
    "Chen et al. 2016, Training Deep Nets with Sublinear Memory Cost: backward re-runs one checkpointed segment";
inline constexpr const char* kMetricsLogits =
    "seed 002, OOM remedy 1: a compute_metrics hook keeps a batch x vocab x seq logits tensor";
inline constexpr const char* kKvCache =
    "KV cache per token = 2 x L x kv_heads x head_dim x bytes (seed 002; REFERENCE I2: Llama-2-7B fp16 4096 tokens = 2 "
    "GiB)";
inline constexpr const char* kStaticCache =
    "transformers cache_utils.py StaticLayer.lazy_initialization: K and V of [batch, kv_heads, max_cache_len, "
    "head_dim] "
    "per layer, allocated before the first token (generate(cache_implementation=\"static\"))";
inline constexpr const char* kPrefill =
    "largest set of tensors alive at once in one layer's prefill (no autograd: earlier layers' are freed)";
inline constexpr const char* kLora =
    "Hu et al. 2021, LoRA §4.1: r(d_in + d_out) parameters per adapted matrix; seeds 000, 002";
inline constexpr const char* kQlora =
    "Dettmers et al. 2023, QLoRA §2-3: NF4 base with double quantisation, 16-bit adapters";
inline constexpr const char* kCudaContext =
    "CUDA context and libraries outside PyTorch's allocator (seed 004: 1-2 GB; seed 002: ~1.3 GB; an H200 with driver "
    "580: 527 MiB after torch.cuda.init() and 161 MiB more after the first cuBLAS call, tests/truth/GPU.md)";
inline constexpr const char* kCublasWorkspace =
    "PyTorch aten/src/ATen/cuda/CublasHandlePool.cpp, parseChosenWorkspaceSize: one workspace per thread and stream "
    "from the caching allocator, :4096:8 (32 MiB) on compute capability 9.0+, :4096:2:16:8 before; measured on an "
    "H200 (tests/truth/GPU.md)";
inline constexpr const char* kFragmentation =
    "PyTorch caching-allocator reserve (seed 000: fragmentation can OOM with >30% free)";
inline constexpr const char* kOtherProcesses =
    "seed 002: Baichuan-7B on a 24 GB A30 failed with 7.48 GiB reserved by PyTorch and ~14.7 GiB held outside it "
    "(another process or a second model copy); read from the OOM message (llmmem oom)";
inline constexpr const char* kMeasuredResidual =
    "your run: the measured figure minus the estimate's at the run's settings (llmmem run FILE --calibrate, "
    "core/run/calibrate.h), held constant";
inline constexpr const char* kCommBuffers =
    "gradient buckets and NCCL buffers (seed 000: 1.5B model, 6 GB fp32 buffer)";
inline constexpr const char* kDdpBuckets =
    "PyTorch DistributedDataParallel: gradient buckets (bucket_cap_mb) are separate copies unless "
    "gradient_as_bucket_view";
inline constexpr const char* kDeepSpeedBuckets =
    "DeepSpeed ZeRO config: reduce_bucket_size / allgather_bucket_size (default 5e8 elements each)";
inline constexpr const char* kZero3Gather =
    "Rajbhandari et al. 2020, ZeRO §5.3 (Pos+g+p gathers each layer's parameters just in time); DeepSpeed "
    "stage3_prefetch_bucket_size";
inline constexpr const char* kFsdpUnits =
    "PyTorch FSDP, one unit per layer plus the root: torch/distributed/fsdp/fully_sharded_data_parallel.py (torch "
    "1.13, forward: the root's parameters are not freed after forward under FULL_SHARD; BACKWARD_PRE prefetches the "
    "next unit; gradients are reduce-scattered from their unsharded form once the unit has them all); FSDP2 "
    "torch/distributed/_composable/fsdp/_fsdp_state.py _lazy_init (the root's post_forward_mesh_info = None)";
inline constexpr const char* kFsdp1ReshardHook =
    "torch v2.4.1 torch/distributed/fsdp/_runtime_utils.py _register_post_backward_reshard_only_hook "
    "(register_multi_grad_hook on a frozen unit's inputs, removed in _finalize_params), torch/autograd/graph.py "
    "register_multi_grad_hook (its hooks' closure keeps grad_fns: a leaf's AccumulateGrad, which keeps the leaf) "
    "and torch/utils/checkpoint.py CheckpointFunction.backward (detached leaf inputs; inp.grad); "
    "tests/truth/measure_fsdp1_hooks.py";
inline constexpr const char* kPipelineFsdp =
    "torch/distributed/pipelining/stage.py PipelineStage.backward_maybe_with_nosync (set_requires_gradient_sync(False) "
    "until the last backward); FSDP2 _fsdp_param.py FSDPParam.to_accumulated_grad_if_needed (the unsharded gradient "
    "upcast to reduce_dtype) and accumulate_unsharded_grad_if_needed";
inline constexpr const char* kPipeline =
    "Narayanan et al. 2021 (Megatron-LM PTD-P) §2.2: 1F1B keeps pp micro-batches in flight on the first stage; "
    "Korthikanti et al. 2022 §4.2.3; Megatron theoretical_memory_usage.py interleaving factor";
inline constexpr const char* kOffload = "Ren et al. 2021, ZeRO-Offload §4; Rajbhandari et al. 2021, ZeRO-Infinity";
inline constexpr const char* kContextParallel =
    "context parallelism (Megatron-LM cp / ring attention, Liu et al. 2023): each GPU keeps s/cp tokens' activations";
inline constexpr const char* kRlhf =
    "seed 002 (verl PPO on 4 x 80 GB: actor, critic, reference, reward resident together); Ouyang et al. 2022; "
    "Shao et al. 2024 (GRPO drops the critic); Rafailov et al. 2023 (DPO: policy and reference)";
inline constexpr const char* kMla =
    "DeepSeek-AI 2024, DeepSeek-V2 §2.1.2: MLA caches (d_c + d_h^R) elements per token and layer";
inline constexpr const char* kAccelerateConvertOutputs =
    "accelerate v1.0.1 src/accelerate/accelerator.py prepare_model (native AMP: model.forward = "
    "convert_outputs_to_fp32(autocast(forward))), src/accelerate/utils/operations.py convert_to_fp32 (.float() of "
    "every fp16/bf16 tensor in the outputs)";
inline constexpr const char* kGptBigCodeTrainingCache =
    "transformers v4.48.1 src/transformers/models/gpt_bigcode/modeling_gpt_bigcode.py: GPTBigCodeModel.forward "
    "takes use_cache from the config and keeps it under gradient checkpointing (presents.append(outputs[1])); "
    "GPTBigCodeAttention: key_value = c_attn(x).split((embed_dim, 2 * kv_dim), dim=2)[1], present = key_value, "
    "a view of the whole projection output; measured in tests/truth/measure_training_cache.py";
inline constexpr const char* kHfModeling =
    "transformers modeling_llama.py / modeling_gpt2.py under PyTorch 2.x's saving rules (derivatives.yaml); "
    "measured in tests/truth";
inline constexpr const char* kBnb042 =
    "bitsandbytes 0.42.0 autograd/_functions.py MatMul4Bit (forward keeps (A, B); backward dequantises B) and "
    "Lightning fabric/plugins/precision/bitsandbytes.py (every nn.Linear NF4), as litgpt pins them";
inline constexpr const char* kAutocast =
    "PyTorch aten/src/ATen/autocast_mode.cpp (cached_cast: casts of leaf weights that require grad are cached until "
    "the autocast region exits; lower-precision ops mm/addmm/linear/bmm/SDPA, fp32 ops layer_norm/log_softmax); "
    "measured on an H200, tests/truth/GPU.md";
inline constexpr const char* kHfLoss =
    "transformers loss/loss_utils.py ForCausalLMLoss: logits.float(), shift, cross_entropy (log_softmax + nll_loss)";
inline constexpr const char* kHfLossShift =
    "transformers 4.46-4.48 loss/loss_utils.py ForCausalLMLoss: logits.float(), then "
    "logits[..., :-1, :].contiguous() while the model's forward still holds its logits (the copy was removed by "
    "transformers PR #35646, opened 2025-01-13); models with their own loss (GPTBigCodeForCausalLM before its "
    "move to loss_function) shift the same way";
inline constexpr const char* kCachingAllocator =
    "PyTorch c10/cuda/CUDACachingAllocator.cpp@001074d (best fit, split and merged within a segment, else a new "
    "cudaMalloc segment)";
inline constexpr const char* kLossParallel =
    "torch/distributed/tensor/parallel/loss.py loss_parallel: _log_softmax (x - max, exp, sum over the vocab shards) "
    "and _nll_loss_and_log_softmax_backward ((zeros with -1 at the targets + exp(log_probs)) * grad)";
inline constexpr const char* kTorchtuneChunkedCe =
    "torchtune modules/loss/ce_chunked_output_loss.py@4fba6cd CEWithChunkedOutputLoss (8 chunks, each upcast and "
    "cross-entropied in turn) and recipes/full_finetune_single_device.py (`del logits` before backward)";
inline constexpr const char* kTorchtuneCompiledCe =
    "torchtune training/_compile.py@1814feb compile_loss (compile=True compiles CEWithChunkedOutputLoss."
    "compute_cross_entropy alone); AOTAutograd's min_cut_rematerialization_partition under Inductor's policy keeps "
    "the 16-bit chunk, the row max and log-sum-exp (tests/truth/measure_compiled_loss.py)";
inline constexpr const char* kUnslothCe =
    "Unsloth kernels/cross_entropy_loss.py Fast_CrossEntropyLoss (saves the logits and logsumexp, writes dlogits "
    "into the logits), as fms-acceleration runs it: plugins/fused-ops-and-kernels/src/fms_acceleration_foak/"
    "kernels/unsloth/cross_entropy_loss.py@24bdadb (FastCrossEntropyLoss, FastForCausalLMLoss)";
inline constexpr const char* kGatedDeltaNetKernels =
    "transformers modeling_qwen3_next.py@7515843 Qwen3NextGatedDeltaNet with flash-linear-attention "
    "(fla ops/gated_delta_rule/chunk.py@92396f2 ChunkGatedDeltaRuleFunction, modules/fused_norm_gate.py@46e7632 "
    "LayerNormGatedFunction) and causal-conv1d (causal_conv1d_interface.py@dedc05f CausalConv1dFn): their "
    "ctx.save_for_backward lists; measured by tests/truth/measure_linear_layers.py";
inline constexpr const char* kMamba2Kernels =
    "transformers modeling_nemotron_h.py@897753a NemotronHMamba2Mixer.cuda_kernels_forward (training) with "
    "mamba_ssm ops/triton/ssd_combined.py@d757aef MambaSplitConv1dScanCombinedFn: its ctx.save_for_backward "
    "list, the out projection recomputed; measured by tests/truth/measure_linear_layers.py";
inline constexpr const char* kKdaKernels =
    "Kimi-Linear's modeling_kimi.py KimiDeltaAttention (moonshotai/Kimi-Linear-48B-A3B-Instruct) with "
    "flash-linear-attention v0.4.0 (@2e0f6c3: ops/kda/chunk.py ChunkKDAFunction, ops/kda/gate.py KDAGateFunction, "
    "modules/convolution.py CausalConv1dFunction, modules/fused_norm_gate.py LayerNormGatedFunction): their "
    "ctx.save_for_backward lists; measured by tests/truth/measure_linear_layers.py";
inline constexpr const char* kLiger =
    "Liger-Kernel (Hsu et al. 2024, arXiv:2410.10989): LigerRMSNormFunction, LigerSiLUMulFunction, LigerRopeFunction, "
    "LigerFusedLinearCrossEntropyFunction";
inline constexpr const char* kTorchAdamStep =
    "torch/optim/adam.py, adamw.py (_init_group): state['step'] is a float32 scalar tensor per parameter (torch >= "
    "1.12)";
inline constexpr const char* kTorchtitanSac =
    "pytorch/torchtitan torchtitan/distributed/activation_checkpoint.py@b5bcd76c (SelectiveAC: save matmul and "
    "attention-kernel outputs, every second matmul recomputed)";
inline constexpr const char* kQuickRule = "seed 002: M = P x (Q/8) x 1.2 (20% overhead, EleutherAI)";

}  // namespace llmmem::core::src
