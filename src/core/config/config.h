// Everything the estimate depends on: the model, the workload, the precision scheme,
// the optimizer and the overheads. A plain struct with defaults (a Llama-2-7B-shaped
// model, bf16 mixed-precision AdamW training of one 4096-token sequence); field names
// are the same in JSON, the URL, the CLI (--snake-case) and the JS API.
#pragma once

#include <cstdint>
#include <string>

#include "core/config/config_enums.h"
#include "core/model/dtype.h"
#include "core/config/framework.h"
#include "core/config/optimizer_impl.h"
#include "core/config/runtime.h"
#include "core/model/model.h"

namespace llmmem::core {

// LoRA target modules, as a bit set over the projection roles.
enum LoraTarget : uint32_t {
  kLoraQ = 1u << 0,
  kLoraK = 1u << 1,
  kLoraV = 1u << 2,
  kLoraO = 1u << 3,
  kLoraGate = 1u << 4,
  kLoraUp = 1u << 5,
  kLoraDown = 1u << 6,
  kLoraAttention = kLoraQ | kLoraK | kLoraV | kLoraO,
  kLoraAllLinear = kLoraAttention | kLoraGate | kLoraUp | kLoraDown,
};

struct Config {
  ModelSpec model;
  Mode mode = Mode::kTraining;
  // The training program and version ("hf-trainer", "torchtune@0.3"): its defaults (stacks.h)
  // are where the mechanism settings below start; what the user sets overrides them.
  std::string stack = "hf-trainer";

  // Workload.
  int64_t batch = 1;       // micro-batch: sequences per forward pass (inference: concurrent sequences)
  int64_t seq = 4096;      // tokens per sequence (inference: prompt + generated, the KV cache length)
  int64_t grad_accum = 1;  // micro-batches per optimizer step

  // Parallelism: GPUs = dp x tp x pp x cp; the estimate is for the most loaded GPU.
  int64_t tp = 1;          // tensor-parallel size t (Megatron): splits layer matrices and activations
  bool sp = false;         // sequence parallelism with TP: splits the norm/dropout activations too
  int64_t dp = 1;          // data-parallel replicas
  int64_t zero = 0;        // 0 DDP; 1 optimizer states (Megatron distributed optimizer); 2 + gradients
                           // (FSDP SHARD_GRAD_OP); 3 + parameters (FSDP FULL_SHARD)
  int64_t zero_group = 0;  // GPUs one ZeRO/FSDP shard spans (HYBRID_SHARD: GPUs per node); 0: all of dp
  Sharding sharding = Sharding::kDeepSpeed;  // whose buffers: DeepSpeed's buckets or FSDP's units
  int64_t pp = 1;                            // pipeline stages
  Schedule schedule = Schedule::k1F1B;
  int64_t vpp = 2;                             // virtual stages per rank for the interleaved schedule
  int64_t cp = 1;                              // context parallelism: the sequence split over cp GPUs
  int64_t ep = 1;                              // expert parallelism: routed experts split over ep GPUs
  Offload offload_optimizer = Offload::kNone;  // master weights and optimizer states
  Offload offload_params = Offload::kNone;     // 16-bit weights (ZeRO-3 / FSDP only)
  bool offload_activations = false;            // checkpointed layer inputs to CPU (full recompute)
  double reduce_bucket = 5e8;                  // elements: DeepSpeed reduce_bucket_size (ZeRO 1-3)
  double allgather_bucket = 5e8;               // elements: DeepSpeed allgather_bucket_size (ZeRO 1-2)
  double prefetch_bucket = 5e7;                // elements: DeepSpeed stage3_prefetch_bucket_size (ZeRO-3)
  bool ddp_bucket_view = false;       // PyTorch DDP gradient_as_bucket_view (false: buckets copy the gradients)
  bool reshard_after_forward = true;  // FSDP/ZeRO-3 frees gathered parameters after each layer's forward
  bool fsdp1 = false;                 // PyTorch FSDP as FullyShardedDataParallel (FSDP1), not FSDP2's fully_shard

  // RLHF (mode rlhf): which models are resident and which are trained.
  Rlhf rlhf = Rlhf::kPpo;
  bool reward_model = true;    // a learned reward model (PPO, GRPO); off: rule-based rewards
  bool rollout_engine = true;  // a colocated generation engine (vLLM/SGLang) with its own weights and KV cache
  Recompute recompute = Recompute::kNone;
  Framework framework = Framework::kHfSdpa;  // whose code runs the model: decides the saved tensors
  bool flash_attn = true;                    // FlashAttention / SDPA memory-efficient kernels: no s x s tensors kept
  LinearKernels linear_kernels = LinearKernels::kFused;  // hybrid models' linear layers: fused kernels or torch
  bool reentrant_checkpoint = true;          // torch.utils.checkpoint(use_reentrant=True): transformers' default
  bool train_use_cache = false;              // the model returns its KV cache in training (transformers' GPTBigCode)
  bool dropout = false;                      // dropout layers active (Korthikanti's masks); off in most LLM fine-tunes
  bool loss_logits_fp32 = true;              // the cross-entropy upcasts logits to fp32 (b*s*V*4 bytes)
  bool loss_shift_copy = false;              // transformers <= 4.48: the loss copies the shifted logits
  LossKernel loss_kernel = LossKernel::kTorch;
  bool metrics_logits = false;  // a compute_metrics hook keeps another b*s*V fp32 copy (seed 002)

  // Precision scheme.
  Dtype dtype = Dtype::kBf16;        // weights (inference: any format; training: fp32/bf16/fp16)
  Dtype grad_dtype = Dtype::kBf16;   // gradients; fp32 = Megatron/DeepSpeed main gradients
  bool master_weights = true;        // fp32 copy of 16-bit weights for the update
  bool optimizer_grad_copy = false;  // DeepSpeed: an fp32 copy of the gradients at the optimizer step
  bool grad_accum_fp32 = false;      // accumulate 16-bit gradients into a separate fp32 buffer
  bool grads_set_to_none = true;     // zero_grad(set_to_none=True), PyTorch 2.0's default: .grad freed between steps
  // PyTorch AMP (torch.autocast, the HF Trainer's bf16=True / fp16=True): matmuls run in this
  // 16-bit format while the weights stay in `dtype`; kCount = off (activations_paper.h).
  Dtype autocast = Dtype::kCount;
  bool base_fp32_shards = false;  // LoRA under FSDP mixed precision over an fp32-loaded model: fp32 base shards
  bool norms_fp32 = false;  // QLoRA's norm weights in fp32 (peft prepare_model_for_kbit_training, as trl calls it)
  QuantOptions quant;

  // Optimizer.
  Optimizer optimizer = Optimizer::kAdamW;
  Dtype optimizer_dtype = Dtype::kFp32;                 // state precision for SGD momentum, Adam(W), Lion
  OptimizerImpl optimizer_impl = OptimizerImpl::kAuto;  // foreach / fused / for-loop / in backward
  bool paged_optimizer = false;  // bitsandbytes paged states: unified memory, evicted to CPU under pressure

  // Inference.
  Dtype kv_dtype = Dtype::kBf16;
  bool all_logits = false;    // keep logits for every prompt position (HF forward), not only the last
  int64_t prefill_chunk = 0;  // tokens per prefill forward (vLLM max_num_batched_tokens); 0: all prompts at once
  int64_t max_cache_len = 0;  // HF generate: a static cache preallocated for this many tokens; 0: the dynamic cache
  // Serving (issue 16, runtime.h): which program allocates the memory, and its settings; 0 / -1
  // take the runtime's default. batch is the concurrent requests (llama.cpp: -np slots), seq the
  // tokens of each (vLLM max_model_len; llama.cpp: n_ctx per slot); prefill_chunk is vLLM's
  // max_num_batched_tokens, SGLang's chunked_prefill_size, llama.cpp's n_ubatch (0: default).
  Runtime runtime = Runtime::kHfGenerate;
  double mem_fraction = 0;           // vLLM gpu_memory_utilization / SGLang mem_fraction_static; 0: default
  int64_t max_num_seqs = 0;          // vLLM max_num_seqs / SGLang cuda_graph_max_bs; 0: default
  bool cuda_graphs = true;           // vLLM/SGLang capture CUDA graphs (off: --enforce-eager / --disable-cuda-graph)
  int64_t gpu_layers = -1;           // llama.cpp -ngl: layers on the GPU (layers + 1: the output layer too); -1: all
  Dtype kv_dtype_v = Dtype::kCount;  // llama.cpp -ctv (V cache); kCount: as kv_dtype (-ctk)
  double ram_gb = 0;                 // system RAM for what stays off the GPU (mmapped weights, CPU KV); 0: not checked
  std::string
      gpu_set;  // llama.cpp over unlike GPUs: catalogue keys, one per pipeline stage ("RTX-4090-24GB,RTX-3090-24GB")

  // Speed (speed.h): a roofline, every assumption adjustable.
  double bw_efficiency = 0.7;      // share of the memory bandwidth a decode step reads at
  double mfu = 0.4;                // share of the dense peak the matrix units sustain
  double bandwidth_gbps = 0;       // memory bandwidth of one GPU, GB/s; 0: the catalogue's
  double tflops = 0;               // dense peak of one GPU, TFLOPS; 0: the catalogue's 16-bit (fp8 for fp8 weights)
  double ram_bandwidth_gbps = 60;  // system RAM bandwidth for llama.cpp's CPU layers, GB/s

  // LoRA / QLoRA.
  int64_t lora_rank = 16;
  uint32_t lora_targets = kLoraAllLinear;
  bool bnb_saves_inputs = false;  // QLoRA under bitsandbytes <= 0.42: each 4-bit Linear keeps its input for backward
  bool quantized_head = false;    // QLoRA quantises the output head too (litgpt: every nn.Linear becomes NF4)
  bool lora_dropout = false;      // PEFT lora_dropout > 0 keeps a dropped copy of each adapted input
  Dtype adapter_dtype = Dtype::kCount;  // the adapters' format; kCount = auto (see AdapterDtype)

  // Overheads, each shown as its own line.
  double cuda_context_gb =
      1.3;  // CUDA context and libraries outside PyTorch's allocator (GB, 1e9 bytes; seed 002: ~1.3 GB)
  double cublas_workspace_mib =
      -1;                         // cuBLAS workspace per thread running matmuls, MiB; -1: PyTorch's default for the GPU
  double fragmentation_pct = 5;   // allocator reserve, % of the allocated peak
  double comm_buffer_gb = 0;      // communication buckets (DDP, NCCL)
  // What a measured run held beyond the estimate's rows (llmmem run --calibrate: measured -
  // estimated, issue 33 part 3), carried as its own line; never folded into another row.
  double measured_residual_gb = 0;
  double other_processes_gb = 0;  // memory other processes already hold on a shared card (GB; read from an OOM message)

  // The card the verdict compares against.
  std::string gpu = "H100-SXM-80GB";
  double gpu_memory_gb = 85.520809984;  // per-GPU memory the device reports, GB (1e9 bytes): 81559 MiB
  // Unified memory (issue 31): the GPU's raised limit in MiB, as macOS's sudo sysctl
  // iogpu.wired_limit_mb=N takes it (Strix Halo: the carve-out plus amdgpu.gttsize); 0: the
  // default share (catalogue/gpu_budget.h). A unified catalogue card's memory follows it.
  double wired_limit_mb = 0;
};

// Inference under a serving runtime other than HF generate: the runtime decides the accounting.
inline bool UsesServingRuntime(const Config& c) {
  return c.mode == Mode::kInference && c.runtime != Runtime::kHfGenerate;
}
// The format the weights are held in on the GPU: dtype, except that transformers (HF generate)
// dequantizes a GGUF checkpoint at load, to fp32 unless torch_dtype is given (sources.h
// kTransformersGguf); choosing dtype bf16/fp16 counts from_pretrained(..., torch_dtype=...).
inline Dtype HeldWeightFormat(const Config& c) {
  return c.mode == Mode::kInference && c.runtime == Runtime::kHfGenerate && IsGguf(c.dtype) ? Dtype::kFp32 : c.dtype;
}
// The V cache's format: kv_dtype_v, or kv_dtype when not set.
inline Dtype KvDtypeV(const Config& c) { return c.kv_dtype_v == Dtype::kCount ? c.kv_dtype : c.kv_dtype_v; }
// "q,v" / "attention" / "all" / "q,k,v,o,gate,up,down" <-> bit set.
bool ParseLoraTargets(const std::string& s, uint32_t& out);
std::string LoraTargetsId(uint32_t targets);
// The LoRA adapters' format. auto: fp32 under the HF profiles (PEFT's get_peft_model
// casts 16-bit adapters to fp32, autocast_adapter_dtype=True), else the training dtype.
inline Dtype AdapterDtype(const Config& c) {
  if (c.adapter_dtype != Dtype::kCount) return c.adapter_dtype;
  return IsHuggingFace(c.framework) ? Dtype::kFp32 : c.dtype;
}

struct Gpu;
// The one way a configuration takes a catalogue GPU (issue 29: six copies did it): its key,
// and the memory software sees of it (gpus.h Gpu::UsableBytes, under c.wired_limit_mb), in GB.
void SelectGpu(Config& c, const Gpu& g);

}  // namespace llmmem::core
