// Field definitions. Each numeric value is parsed strictly (the whole text must be a
// finite number; integers must be whole); its range is checked later by Validate, so an
// out-of-range value is kept and flagged rather than silently clamped.
#include "core/fields.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/activation_fn.h"
#include "core/gpus.h"
#include "core/json.h"
#include "core/limits.h"
#include "core/safe_text.h"

namespace llmmem::core {
namespace {

// Only plain decimal numbers (JSON's grammar, as --help documents them): no hex ("0x10"),
// hex floats ("0x1p10"), surrounding spaces, "inf", "nan" or a leading '+', which strtod
// alone would take.
std::string ParseNumber(const std::string& text, double& out) {
  if (text.empty()) return "a number is required";
  if (!IsDecimalNumber(text)) return "\"" + text + "\" is not a number (write it in decimal, like 8, 0.5 or 1e9)";
  const double v = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(v)) return "\"" + text + "\" is not a finite number";
  out = v;
  return {};
}

std::string ParseInt(const std::string& text, int64_t& out) {
  double v = 0;
  std::string err = ParseNumber(text, v);
  if (!err.empty()) return err;
  if (v != std::floor(v)) return "\"" + text + "\" is not a whole number";
  if (std::fabs(v) > 9e15) return "\"" + text + "\" is far too large";
  out = static_cast<int64_t>(v);
  return {};
}

std::string ParseBool(const std::string& text, bool& out) {
  if (text == "1" || text == "true" || text == "on" || text == "yes") { out = true; return {}; }
  if (text == "0" || text == "false" || text == "off" || text == "no") { out = false; return {}; }
  return "\"" + text + "\" is not true/false (1/0, on/off)";
}

std::string Num(double v) { return FormatJsonNumber(v); }
std::string Int(int64_t v) { return std::to_string(v); }
std::string Bool(bool v) { return v ? "1" : "0"; }

#define INT_FIELD(NAME, PATH, MODEL, HELP)                                                              \
  FieldDef {                                                                                             \
    NAME, FieldKind::kInt, MODEL, HELP, [](const Config& c) { return Int(c.PATH); },                    \
        [](Config& c, const std::string& t) { int64_t v = 0; auto e = ParseInt(t, v); if (e.empty()) c.PATH = v; return e; } \
  }
#define NUM_FIELD(NAME, PATH, HELP)                                                                     \
  FieldDef {                                                                                             \
    NAME, FieldKind::kNumber, false, HELP, [](const Config& c) { return Num(c.PATH); },                 \
        [](Config& c, const std::string& t) { double v = 0; auto e = ParseNumber(t, v); if (e.empty()) c.PATH = v; return e; } \
  }
#define BOOL_FIELD(NAME, PATH, MODEL, HELP)                                                             \
  FieldDef {                                                                                             \
    NAME, FieldKind::kBool, MODEL, HELP, [](const Config& c) { return Bool(c.PATH); },                  \
        [](Config& c, const std::string& t) { bool v = false; auto e = ParseBool(t, v); if (e.empty()) c.PATH = v; return e; } \
  }
#define DTYPE_FIELD(NAME, PATH, HELP)                                                                   \
  FieldDef {                                                                                             \
    NAME, FieldKind::kDtype, false, HELP, [](const Config& c) { return std::string(Info(c.PATH).id); }, \
        [](Config& c, const std::string& t) {                                                           \
          Dtype d;                                                                                      \
          if (!ParseDtype(t, d)) return "\"" + t + "\" is not a format; one of: " + DtypeIdList();     \
          c.PATH = d;                                                                                   \
          return std::string();                                                                        \
        }                                                                                               \
  }

std::vector<FieldDef> Build() {
  return {
      // Model.
      FieldDef{"name", FieldKind::kText, true, "display name of the model", [](const Config& c) { return c.model.name; },
               [](Config& c, const std::string& t) { c.model.name = CutUtf8(t, 200); return std::string(); }},
      FieldDef{"arch", FieldKind::kArch, true, "decoder or encoder",
               [](const Config& c) { return std::string(c.model.arch == Arch::kEncoder ? "encoder" : "decoder"); },
               [](Config& c, const std::string& t) {
                 if (t == "decoder") c.model.arch = Arch::kDecoder;
                 else if (t == "encoder") c.model.arch = Arch::kEncoder;
                 else return "\"" + t + "\" is not decoder or encoder";
                 return std::string();
               }},
      INT_FIELD("vocab", model.vocab, true, "vocabulary size V"),
      INT_FIELD("hidden", model.hidden, true, "hidden size h"),
      INT_FIELD("layers", model.layers, true, "transformer layers L"),
      INT_FIELD("heads", model.heads, true, "attention heads a"),
      INT_FIELD("kv_heads", model.kv_heads, true, "key/value heads (GQA)"),
      INT_FIELD("head_dim", model.head_dim, true, "dimension of one head (follows hidden / heads unless given)"),
      INT_FIELD("ffn", model.ffn, true, "MLP intermediate size f"),
      FieldDef{"mlp", FieldKind::kMlp, true, "gated (SwiGLU/GeGLU, 3 matrices) or plain (GeLU/ReLU, 2)",
               [](const Config& c) { return std::string(c.model.mlp == MlpKind::kGated ? "gated" : "plain"); },
               [](Config& c, const std::string& t) {
                 if (t == "gated") c.model.mlp = MlpKind::kGated;
                 else if (t == "plain") c.model.mlp = MlpKind::kPlain;
                 else return "\"" + t + "\" is not gated or plain";
                 return std::string();
               }},
      FieldDef{"act", FieldKind::kText, true, "MLP activation function (transformers ACT2FN name)",
               [](const Config& c) { return std::string(ActivationFnId(c.model.act)); },
               [](Config& c, const std::string& t) {
                 ActivationFn v;
                 if (!ParseActivationFn(t, v)) return "\"" + t + "\" is not an activation; one of: " + ActivationFnIdList();
                 c.model.act = v;
                 return std::string();
               }},
      FieldDef{"norm", FieldKind::kNorm, true, "rmsnorm or layernorm",
               [](const Config& c) { return std::string(c.model.norm == NormKind::kRmsNorm ? "rmsnorm" : "layernorm"); },
               [](Config& c, const std::string& t) {
                 if (t == "rmsnorm") c.model.norm = NormKind::kRmsNorm;
                 else if (t == "layernorm") c.model.norm = NormKind::kLayerNorm;
                 else return "\"" + t + "\" is not rmsnorm or layernorm";
                 return std::string();
               }},
      FieldDef{"qk_norm", FieldKind::kQkNorm, true, "none, per_head (Qwen3, Gemma 3) or full (OLMo 2)",
               [](const Config& c) {
                 return std::string(c.model.qk_norm == QkNorm::kNone ? "none" : c.model.qk_norm == QkNorm::kPerHead ? "per_head" : "full");
               },
               [](Config& c, const std::string& t) {
                 if (t == "none") c.model.qk_norm = QkNorm::kNone;
                 else if (t == "per_head") c.model.qk_norm = QkNorm::kPerHead;
                 else if (t == "full") c.model.qk_norm = QkNorm::kFull;
                 else return "\"" + t + "\" is not none, per_head or full";
                 return std::string();
               }},
      BOOL_FIELD("qkv_bias", model.qkv_bias, true, "biases on Q, K, V"),
      BOOL_FIELD("attn_out_bias", model.attn_out_bias, true, "bias on the attention output"),
      BOOL_FIELD("mlp_bias", model.mlp_bias, true, "biases in the MLP"),
      BOOL_FIELD("tied_embeddings", model.tied_embeddings, true, "output head shares the embedding matrix"),
      BOOL_FIELD("final_norm", model.final_norm, true, "a norm after the last layer"),
      INT_FIELD("learned_positions", model.learned_positions, true, "learned position-embedding rows"),
      INT_FIELD("type_vocab", model.type_vocab, true, "token-type embeddings"),
      BOOL_FIELD("embedding_norm", model.embedding_norm, true, "norm after the embeddings"),
      BOOL_FIELD("pooler", model.pooler, true, "BERT pooler"),
      INT_FIELD("norms_per_layer", model.norms_per_layer, true, "norms per layer"),
      INT_FIELD("experts", model.experts, true, "routed experts (0: dense)"),
      INT_FIELD("experts_per_token", model.experts_per_token, true, "top-k experts per token"),
      INT_FIELD("moe_ffn", model.moe_ffn, true, "intermediate size of one expert"),
      INT_FIELD("shared_experts", model.shared_experts, true, "shared experts"),
      INT_FIELD("shared_ffn", model.shared_ffn, true, "intermediate size of one shared expert"),
      INT_FIELD("dense_layers", model.dense_layers, true, "first layers with a dense MLP"),
      BOOL_FIELD("shared_expert_gate", model.shared_expert_gate, true, "Qwen2-MoE shared-expert gate"),
      BOOL_FIELD("router_bias", model.router_bias, true, "DeepSeek-V3 router score bias"),
      INT_FIELD("q_lora_rank", model.q_lora_rank, true, "MLA query bottleneck rank (0: none)"),
      INT_FIELD("kv_lora_rank", model.kv_lora_rank, true, "MLA KV latent rank (0: not MLA)"),
      INT_FIELD("qk_nope_dim", model.qk_nope_dim, true, "MLA per-head non-rotary Q/K width"),
      INT_FIELD("qk_rope_dim", model.qk_rope_dim, true, "MLA rotary key width"),
      INT_FIELD("v_head_dim", model.v_head_dim, true, "MLA per-head V width"),
      INT_FIELD("sliding_window", model.sliding_window, true, "sliding-window size in tokens (0: none)"),
      INT_FIELD("sliding_layers", model.sliding_layers, true, "layers that use the sliding window"),
      INT_FIELD("max_positions", model.max_positions, true, "the context length the model was trained for (0: unknown)"),
      INT_FIELD("params_override", model.params_override, true, "given parameter total (0: count)"),
      // Workload.
      FieldDef{"mode", FieldKind::kMode, false, "infer, train, lora, qlora or rlhf",
               [](const Config& c) { return std::string(ModeId(c.mode)); },
               [](Config& c, const std::string& t) {
                 Mode m;
                 if (!ParseMode(t, m)) return "\"" + t + "\" is not a mode; one of: infer, train, lora, qlora, rlhf";
                 c.mode = m;
                 return std::string();
               }},
      INT_FIELD("batch", batch, false, "micro-batch size"),
      INT_FIELD("seq", seq, false, "sequence length"),
      INT_FIELD("grad_accum", grad_accum, false, "gradient-accumulation steps"),
      INT_FIELD("tp", tp, false, "tensor-parallel size"),
      BOOL_FIELD("sp", sp, false, "sequence parallelism"),
      INT_FIELD("dp", dp, false, "data-parallel replicas"),
      INT_FIELD("zero", zero, false, "ZeRO stage 0-3 (FSDP: 2 SHARD_GRAD_OP, 3 FULL_SHARD)"),
      INT_FIELD("zero_group", zero_group, false, "GPUs per ZeRO/FSDP shard group (HYBRID_SHARD); 0: all"),
      INT_FIELD("pp", pp, false, "pipeline stages"),
      FieldDef{"schedule", FieldKind::kText, false, "pipeline schedule: 1f1b, interleaved or gpipe",
               [](const Config& c) { return std::string(ScheduleId(c.schedule)); },
               [](Config& c, const std::string& t) {
                 Schedule v;
                 if (!ParseSchedule(t, v)) return "\"" + t + "\" is not 1f1b, interleaved or gpipe";
                 c.schedule = v;
                 return std::string();
               }},
      INT_FIELD("vpp", vpp, false, "virtual stages per rank (interleaved)"),
      INT_FIELD("cp", cp, false, "context-parallel size"),
      INT_FIELD("ep", ep, false, "expert-parallel size"),
      FieldDef{"offload_optimizer", FieldKind::kText, false, "master weights and optimizer states to none, cpu or nvme",
               [](const Config& c) { return std::string(OffloadId(c.offload_optimizer)); },
               [](Config& c, const std::string& t) {
                 Offload v;
                 if (!ParseOffload(t, v)) return "\"" + t + "\" is not none, cpu or nvme";
                 c.offload_optimizer = v;
                 return std::string();
               }},
      FieldDef{"offload_params", FieldKind::kText, false, "16-bit weights to none, cpu or nvme (ZeRO-3)",
               [](const Config& c) { return std::string(OffloadId(c.offload_params)); },
               [](Config& c, const std::string& t) {
                 Offload v;
                 if (!ParseOffload(t, v)) return "\"" + t + "\" is not none, cpu or nvme";
                 c.offload_params = v;
                 return std::string();
               }},
      BOOL_FIELD("offload_activations", offload_activations, false, "checkpointed activations to CPU"),
      NUM_FIELD("reduce_bucket", reduce_bucket, "DeepSpeed reduce bucket, elements"),
      NUM_FIELD("allgather_bucket", allgather_bucket, "DeepSpeed all-gather bucket, elements"),
      NUM_FIELD("prefetch_bucket", prefetch_bucket, "ZeRO-3 prefetch bucket, elements"),
      BOOL_FIELD("ddp_bucket_view", ddp_bucket_view, false, "DDP gradient_as_bucket_view"),
      BOOL_FIELD("reshard_after_forward", reshard_after_forward, false,
                 "FSDP reshard_after_forward (off: parameters stay gathered from forward to backward)"),
      FieldDef{"rlhf", FieldKind::kText, false, "RLHF algorithm: ppo, grpo or dpo",
               [](const Config& c) { return std::string(RlhfId(c.rlhf)); },
               [](Config& c, const std::string& t) {
                 Rlhf v;
                 if (!ParseRlhf(t, v)) return "\"" + t + "\" is not ppo, grpo or dpo";
                 c.rlhf = v;
                 return std::string();
               }},
      BOOL_FIELD("reward_model", reward_model, false, "a learned reward model is resident"),
      BOOL_FIELD("rollout_engine", rollout_engine, false, "a colocated generation engine"),
      FieldDef{"recompute", FieldKind::kRecompute, false, "none, selective (the paper's: attention scores), full, or op_selective (torchtitan's op-level SAC)",
               [](const Config& c) { return std::string(RecomputeId(c.recompute)); },
               [](Config& c, const std::string& t) {
                 Recompute r;
                 if (!ParseRecompute(t, r)) return "\"" + t + "\" is not none, selective, full or op_selective";
                 c.recompute = r;
                 return std::string();
               }},
      FieldDef{"framework", FieldKind::kText, false, "implementation profile: which code runs the model (hf-sdpa default)",
               [](const Config& c) { return std::string(FrameworkId(c.framework)); },
               [](Config& c, const std::string& t) {
                 Framework v;
                 if (!ParseFramework(t, v)) return "\"" + t + "\" is not a framework; one of: " + FrameworkIdList();
                 c.framework = v;
                 return std::string();
               }},
      BOOL_FIELD("flash_attn", flash_attn, false, "FlashAttention"),
      BOOL_FIELD("dropout", dropout, false, "dropout active"),
      BOOL_FIELD("loss_logits_fp32", loss_logits_fp32, false, "fp32 logits for the loss"),
      BOOL_FIELD("metrics_logits", metrics_logits, false, "compute_metrics keeps logits"),
      DTYPE_FIELD("dtype", dtype, "weight format"),
      DTYPE_FIELD("grad_dtype", grad_dtype, "gradient format"),
      BOOL_FIELD("master_weights", master_weights, false, "fp32 master weights"),
      BOOL_FIELD("optimizer_grad_copy", optimizer_grad_copy, false, "fp32 gradient copy at the step (DeepSpeed)"),
      BOOL_FIELD("grad_accum_fp32", grad_accum_fp32, false, "separate fp32 accumulation buffer"),
      INT_FIELD("group_size", quant.group_size, false, "GPTQ/AWQ group size"),
      INT_FIELD("gptq_bits", quant.gptq_bits, false, "GPTQ/AWQ bits"),
      BOOL_FIELD("nf4_double_quant", quant.nf4_double_quant, false, "NF4 double quantisation"),
      FieldDef{"optimizer", FieldKind::kOptimizer, false, "sgd, momentum, adamw, adam8bit, adafactor or lion",
               [](const Config& c) { return std::string(OptimizerId(c.optimizer)); },
               [](Config& c, const std::string& t) {
                 Optimizer o;
                 if (!ParseOptimizer(t, o)) return "\"" + t + "\" is not an optimizer; one of: sgd, momentum, adamw, adam8bit, adafactor, lion";
                 c.optimizer = o;
                 return std::string();
               }},
      DTYPE_FIELD("optimizer_dtype", optimizer_dtype, "optimizer state format"),
      FieldDef{"optimizer_impl", FieldKind::kText, false, "how the step runs: auto, foreach, fused, forloop or in_backward",
               [](const Config& c) { return std::string(OptimizerImplId(c.optimizer_impl)); },
               [](Config& c, const std::string& t) {
                 OptimizerImpl v;
                 if (!ParseOptimizerImpl(t, v)) return "\"" + t + "\" is not an optimizer implementation; one of: " + OptimizerImplIdList();
                 c.optimizer_impl = v;
                 return std::string();
               }},
      BOOL_FIELD("paged_optimizer", paged_optimizer, false, "bitsandbytes paged optimizer states (unified memory)"),
      DTYPE_FIELD("kv_dtype", kv_dtype, "KV cache format"),
      BOOL_FIELD("all_logits", all_logits, false, "logits for every prompt position"),
      INT_FIELD("prefill_chunk", prefill_chunk, false, "tokens per prefill forward (chunked prefill); 0: all at once"),
      INT_FIELD("max_cache_len", max_cache_len, false,
                "HF generate: a static KV cache of this many tokens (cache_implementation=\"static\"); 0: the dynamic cache"),
      FieldDef{"runtime", FieldKind::kText, false,
               "serving runtime: hf-generate (default), vllm, sglang, llama.cpp or ollama (how it allocates memory)",
               [](const Config& c) { return std::string(RuntimeId(c.runtime)); },
               [](Config& c, const std::string& t) {
                 Runtime v;
                 if (!ParseRuntime(t, v)) return "\"" + t + "\" is not a runtime; one of: " + RuntimeIdList();
                 c.runtime = v;
                 return std::string();
               }},
      NUM_FIELD("mem_fraction", mem_fraction,
                "vLLM gpu_memory_utilization / SGLang mem_fraction_static; 0: the runtime's default"),
      INT_FIELD("max_num_seqs", max_num_seqs, false, "vLLM max_num_seqs / SGLang cuda_graph_max_bs; 0: default"),
      BOOL_FIELD("cuda_graphs", cuda_graphs, false, "vLLM/SGLang capture CUDA graphs (off: --enforce-eager)"),
      INT_FIELD("gpu_layers", gpu_layers, false, "llama.cpp -ngl: layers on the GPU (layers + 1 adds the output layer); -1: all"),
      FieldDef{"kv_dtype_v", FieldKind::kText, false, "V cache format (llama.cpp -ctv): auto (as kv_dtype) or a format",
               [](const Config& c) { return std::string(c.kv_dtype_v == Dtype::kCount ? "auto" : Info(c.kv_dtype_v).id); },
               [](Config& c, const std::string& t) {
                 Dtype d;
                 if (t == "auto") c.kv_dtype_v = Dtype::kCount;
                 else if (ParseDtype(t, d)) c.kv_dtype_v = d;
                 else return "\"" + t + "\" is not a format; one of: auto, " + DtypeIdList();
                 return std::string();
               }},
      NUM_FIELD("ram_gb", ram_gb, "system RAM for offloaded weights and KV, GB; 0: not checked"),
      FieldDef{"gpu_set", FieldKind::kText, false,
               "llama.cpp over unlike GPUs: catalogue keys separated by commas, one per GPU (sets pp; layers split by memory)",
               [](const Config& c) { return c.gpu_set; },
               [](Config& c, const std::string& t) {
                 if (t.empty()) { c.gpu_set.clear(); return std::string(); }
                 std::string keys;
                 int64_t n = 0;
                 size_t at = 0;
                 const Gpu* first = nullptr;
                 while (at <= t.size()) {
                   const size_t comma = std::min(t.find(',', at), t.size());
                   const std::string key = t.substr(at, comma - at);
                   const Gpu* g = FindGpu(key);
                   if (g == nullptr) return "\"" + key + "\" is not in the GPU catalogue (llmmem --list-gpus)";
                   if (first == nullptr) first = g;
                   keys += (n++ ? "," : "") + g->key;
                   at = comma + 1;
                 }
                 if (n > 64) return std::string("at most 64 GPUs in a set");
                 c.gpu_set = keys;
                 c.pp = n;
                 c.gpu = first->key;
                 c.gpu_memory_gb = first->UsableBytes() / 1e9;
                 return std::string();
               }},
      NUM_FIELD("bw_efficiency", bw_efficiency, "speed: share of the memory bandwidth a decode step reads at"),
      NUM_FIELD("mfu", mfu, "speed: share of the dense peak the matrix units sustain (model FLOPs utilisation)"),
      NUM_FIELD("bandwidth_gbps", bandwidth_gbps, "speed: one GPU's memory bandwidth, GB/s; 0: the catalogue's"),
      NUM_FIELD("tflops", tflops, "speed: one GPU's dense peak, TFLOPS; 0: the catalogue's"),
      NUM_FIELD("ram_bandwidth_gbps", ram_bandwidth_gbps, "speed: system RAM bandwidth for llama.cpp's CPU layers, GB/s"),
      INT_FIELD("lora_rank", lora_rank, false, "LoRA rank"),
      FieldDef{"lora_targets", FieldKind::kLoraTargets, false, "all, attention, or a list like q,v",
               [](const Config& c) { return LoraTargetsId(c.lora_targets); },
               [](Config& c, const std::string& t) {
                 uint32_t bits = 0;
                 if (!ParseLoraTargets(t, bits)) return "\"" + t + "\" is not a target list; use all, attention, or names from q,k,v,o,gate,up,down";
                 c.lora_targets = bits;
                 return std::string();
               }},
      BOOL_FIELD("lora_dropout", lora_dropout, false, "LoRA dropout"),
      FieldDef{"adapter_dtype", FieldKind::kText, false,
               "LoRA adapters' format: auto (fp32 under HF/PEFT, else the training dtype), fp32, bf16 or fp16",
               [](const Config& c) { return std::string(c.adapter_dtype == Dtype::kCount ? "auto" : Info(c.adapter_dtype).id); },
               [](Config& c, const std::string& t) {
                 Dtype d;
                 if (t == "auto") c.adapter_dtype = Dtype::kCount;
                 else if (ParseDtype(t, d) && (d == Dtype::kFp32 || d == Dtype::kBf16 || d == Dtype::kFp16)) c.adapter_dtype = d;
                 else return "\"" + t + "\" is not an adapter format; one of: auto, fp32, bf16, fp16";
                 return std::string();
               }},
      NUM_FIELD("cuda_context_gb", cuda_context_gb, "CUDA context, GB"),
      NUM_FIELD("fragmentation_pct", fragmentation_pct, "fragmentation reserve, %"),
      NUM_FIELD("comm_buffer_gb", comm_buffer_gb, "communication buffers, GB"),
      NUM_FIELD("other_processes_gb", other_processes_gb, "memory already used by other processes on the GPU, GB"),
      FieldDef{"gpu", FieldKind::kText, false, "GPU from the catalogue (llmmem --list-gpus); sets gpu_memory_gb",
               [](const Config& c) { return c.gpu; },
               [](Config& c, const std::string& t) {
                 if (t == "custom") {  // a card of gpu_memory_gb (the UI's, and its links)
                   c.gpu = t;
                   return std::string();
                 }
                 const Gpu* g = FindGpu(t);
                 if (g == nullptr) return "\"" + t + "\" is not in the GPU catalogue (llmmem --list-gpus); set gpu_memory_gb for another card";
                 c.gpu = g->key;
                 c.gpu_memory_gb = g->UsableBytes() / 1e9;
                 return std::string();
               }},
      NUM_FIELD("gpu_memory_gb", gpu_memory_gb, "usable GPU memory, GB"),
  };
}

#undef INT_FIELD
#undef NUM_FIELD
#undef BOOL_FIELD
#undef DTYPE_FIELD

}  // namespace

const std::vector<FieldDef>& Fields() {
  static const std::vector<FieldDef> fields = Build();
  return fields;
}

const FieldDef* FindField(const std::string& name) {
  const std::string key = name.compare(0, 6, "model.") == 0 ? name.substr(6) : name;
  for (const FieldDef& f : Fields()) {
    if (key == f.name) return &f;
  }
  return nullptr;
}

}  // namespace llmmem::core
