// PyTorch-native programs: torchtune's recipe YAML (pytorch/torchtune recipes/configs/*@v0.6.1),
// torchtitan's job TOML (pytorch/torchtitan torchtitan/config/job_config.py@b5bcd76) and
// Answer.AI's fsdp_qlora train.py flags (AnswerDotAI/fsdp_qlora train.py@05ed9f2 fsdp_main's
// arguments).
#include <cctype>

#include "core/parse/text.h"
#include "core/program_files/key_rows.h"

namespace llmmem::core::program_files {
namespace {

// torchtune's model builders (torchtune/models/*/_model_builders.py) -> the catalogue's keys.
struct Builder {
  const char* builder;
  const char* preset;
};
constexpr Builder kTorchtuneBuilders[] = {
    {"llama2_7b", "llama-2-7b"},         {"llama2_13b", "llama-2-13b"},     {"llama2_70b", "llama-2-70b"},
    {"llama3_8b", "llama-3-8b"},         {"llama3_70b", "llama-3-70b"},     {"llama3_1_8b", "llama-3.1-8b"},
    {"llama3_1_70b", "llama-3.1-70b"},   {"llama3_1_405b", "llama-3.1-405b"}, {"llama3_2_1b", "llama-3.2-1b"},
    {"llama3_2_3b", "llama-3.2-3b"},     {"llama3_3_70b", "llama-3.3-70b"}, {"qwen2_5_0_5b", "qwen2.5-0.5b"},
    {"qwen2_5_7b", "qwen2.5-7b"},        {"qwen2_5_14b", "qwen2.5-14b"},    {"qwen2_5_32b", "qwen2.5-32b"},
    {"qwen2_5_72b", "qwen2.5-72b"},      {"qwen3_0_6b", "qwen3-0.6b"},      {"qwen3_8b", "qwen3-8b"},
    {"qwen3_32b", "qwen3-32b"},          {"gemma2_2b", "gemma-2-2b"},       {"gemma2_9b", "gemma-2-9b"},
    {"gemma2_27b", "gemma-2-27b"},       {"mistral_7b", "mistral-7b-v0.1"}, {"phi3_mini", "phi-3-mini-4k"},
    {"phi4_14b", "phi-4"},
};

void TorchtuneModel(const SettingsEntry& e, ImportState& s) {
  std::string b = e.value.substr(e.value.rfind('.') == std::string::npos ? 0 : e.value.rfind('.') + 1);
  std::string mode;
  if (b.compare(0, 6, "qlora_") == 0) b = b.substr(6), mode = "qlora";
  else if (b.compare(0, 5, "lora_") == 0) b = b.substr(5), mode = "lora";
  for (const char* tail : {"_base", "_instruct"})
    if (b.size() > std::string(tail).size() && b.compare(b.size() - std::string(tail).size(), std::string::npos, tail) == 0)
      b.resize(b.size() - std::string(tail).size());
  if (!mode.empty()) s.Set(e, "mode", mode, "torchtune's " + mode + "_ builder");
  for (const Builder& t : kTorchtuneBuilders)
    if (b == t.builder) {
      SettingsEntry m = e;
      m.value = t.preset;
      return s.SetModel(m);
    }
  s.NotCount(e, "a torchtune model builder llmmem has no preset for: give --model or --hf");
}

void TorchtuneOptimizer(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  const char* why = "optimizer._component_";
  if (v.find("paged") != std::string::npos) s.Set(e, "paged_optimizer", "on", why);
  if (v.find("8bit") != std::string::npos) s.Set(e, "optimizer", "adam8bit", why);
  else if (v.find("adamw") != std::string::npos || v.find("adam") != std::string::npos) s.Set(e, "optimizer", "adamw", why);
  else if (v.find("sgd") != std::string::npos) s.Set(e, "optimizer", "sgd", why);
  else s.NotCount(e, "an optimizer llmmem has no row for: AdamW's states are counted");
}

void TorchtuneLoss(const SettingsEntry& e, ImportState& s) {
  const std::string v = e.value;
  if (v.find("CEWithChunkedOutputLoss") != std::string::npos || v.find("LinearCrossEntropyLoss") != std::string::npos)
    s.Set(e, "loss_kernel", "chunked", "torchtune's chunked cross-entropy (torchtune/modules/loss)");
  else if (v.find("CrossEntropyLoss") != std::string::npos)
    s.Set(e, "loss_kernel", "torch", "torch.nn.CrossEntropyLoss over the full logits");
  else s.NotCount(e, "a loss llmmem does not know");
}

// torchtitan's [model] name and flavor -> the catalogue (torchtitan/models/*/__init__.py flavors).
void TorchtitanModel(ImportState& s) {
  const SettingsEntry* name = s.Find("model.name");
  const SettingsEntry* flavor = s.Find("model.flavor");
  if (name == nullptr || flavor == nullptr) return;
  const std::string n = AsciiLower(name->value), f = AsciiLower(flavor->value);
  const char* preset = nullptr;
  if (n == "llama3" && f == "8b") preset = "llama-3.1-8b";
  else if (n == "llama3" && f == "70b") preset = "llama-3.1-70b";
  else if (n == "llama3" && f == "405b") preset = "llama-3.1-405b";
  else if (n == "llama4" && f == "17bx16e") preset = "llama-4-scout";
  else if (n == "llama4" && f == "17bx128e") preset = "llama-4-maverick";
  else if (n == "qwen3" && f == "0.6b") preset = "qwen3-0.6b";
  else if (n == "qwen3" && f == "8b") preset = "qwen3-8b";
  else if (n == "qwen3" && f == "32b") preset = "qwen3-32b";
  else if (n == "deepseek_v3" && f == "671b") preset = "deepseek-r1";
  if (preset == nullptr) {
    s.NotCount(*flavor, "a torchtitan model llmmem has no preset for (" + name->value + " " + flavor->value +
                            "): give --model or --hf");
    return;
  }
  SettingsEntry m = *flavor;
  m.value = preset;
  s.SetModel(m);
}

void TitanCheckpointMode(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  if (v == "full") return s.Set(e, "recompute", "full", "activation_checkpoint.mode: full");
  if (v == "none") return s.Set(e, "recompute", "none", "activation_checkpoint.mode: none");
  if (v != "selective") return s.NotCount(e, "a checkpoint mode llmmem does not know");
  const SettingsEntry* option = s.Find("activation_checkpoint.selective_ac_option");
  const bool op = option == nullptr || AsciiLower(option->value) == "op";  // torchtitan's default is "op"
  s.Set(e, "recompute", op ? "op_selective" : "selective",
        op ? "selective_ac_option op: matmul outputs kept, the rest recomputed" : "every Nth layer checkpointed");
}

void TitanDegree(const SettingsEntry& e, ImportState& s, const char* field) {
  if (e.value == "-1") return s.Ignore(e, "-1: whatever the GPUs leave (give --gpus)");
  s.Set(e, field, e.value, "a parallel degree");
}

void FsdpQloraTrainType(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  if (v == "full") return s.Ignore(e, "full fine-tuning");
  if (v == "lora") return s.Set(e, "mode", "lora", "train_type lora");
  if (v == "qlora" || v == "custom_qlora" || v == "bnb_dora") return s.Set(e, "mode", "qlora", "train_type " + v + " (bitsandbytes NF4)");
  s.NotCount(e, "train_type " + e.value + " (HQQ or Llama-Pro): not counted; QLoRA's NF4 is the nearest");
}

void FsdpQloraPrecision(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  if (v == "bf16") s.Set(e, "dtype", "bf16", "precision bf16: pure bf16");
  else if (v == "fp32") s.Set(e, "dtype", "fp32", "precision fp32");
  else if (v == "mp_bf16_autocast" || v == "bf16_autocast" || v == "bf16_buffers_autocast") {
    s.Set(e, "dtype", "fp32", "precision " + v + ": fp32 weights");
    s.Set(e, "autocast", "bf16", "precision " + v + ": bf16 autocast");
  } else if (v == "mp_fp16_autocast") {
    s.Set(e, "dtype", "fp32", "precision mp_fp16_autocast: fp32 weights");
    s.Set(e, "autocast", "fp16", "fp16 autocast");
  } else s.NotCount(e, "a precision llmmem does not know");
}

}  // namespace

const std::vector<KeyRow>& TorchtuneRows() {
  static const std::vector<KeyRow> rows = {
      Handled("model._component_", TorchtuneModel, "the model builder"),
      Sets("model.lora_rank", "lora_rank", "", "the LoRA rank"),
      Handled("model.lora_dropout", SetDropout, "LoRA's dropout"),
      Ignored("model.lora_alpha", "LoRA's scale"), Ignored("model.use_dora", "DoRA"),
      NotCounted("model.lora_attn_modules[]", "adapters on these projections only: llmmem counts every linear layer's"),
      NotCounted("model.apply_lora_to_mlp", "adapters on the MLP or not"), NotCounted("model.apply_lora_to_output", "an adapter on the head"),
      Ignored("model.*", "the builder's arguments"),
      Sets("batch_size", "batch", "", "rows per GPU per step"),
      Sets("gradient_accumulation_steps", "grad_accum", "", "micro-batches per optimizer step"),
      Sets("tokenizer.max_seq_len", "seq", "", "tokens per row (truncation)"),
      Ignored("tokenizer.*", "the tokenizer"),
      Sets("enable_activation_checkpointing", "recompute", "true=full false=none", "activation checkpointing"),
      Sets("enable_activation_offloading", "offload_activations", "true=on false=off", "activations offloaded to the CPU"),
      Sets("dtype", "dtype", "bf16=bf16 fp32=fp32 fp16=fp16", "the training dtype"),
      Handled("optimizer._component_", TorchtuneOptimizer, "the optimizer"),
      Sets("optimizer.fused", "optimizer_impl", "true=fused false=", "fused AdamW"),
      Ignored("optimizer.*", "the optimizer's hyper-parameters"),
      Sets("optimizer_in_bwd", "optimizer_impl", "true=in_backward false=", "the step inside backward: each gradient freed at once"),
      Handled("loss._component_", TorchtuneLoss, "the loss"),
      NotCounted("compile", "torch.compile changes what is kept for backward: the eager count is shown"),
      Sets("fsdp_cpu_offload", "offload_params", "true=cpu false=none", "FSDP's CPU offload"),
      Sets("fsdp_reshard_after_forward", "reshard_after_forward", "true=on false=off", "FSDP2 resharding"),
      Sets("tensor_parallel_dim", "tp", "", "tensor parallelism"),
      NotCounted("dataset.packed", "packs rows to max_seq_len"),
      Ignored("dataset.*", "data"), Ignored("dataset[].*", "data"), Ignored("seed", "randomness"), Ignored("shuffle", "data"),
      Ignored("epochs", "how long"), Ignored("max_steps_per_epoch", "how long"), Ignored("output_dir", "output"),
      Ignored("checkpointer.*", "checkpoints"), Ignored("resume_from_checkpoint", "resuming"), Ignored("save_adapter_weights_only", "checkpoints"),
      Ignored("metric_logger.*", "logging"), Ignored("log_every_n_steps", "logging"), Ignored("log_peak_memory_stats", "logging"),
      Ignored("log_level", "logging"), Ignored("profiler.*", "profiling"), Ignored("device", "the device"),
      Ignored("lr_scheduler.*", "the schedule"), Ignored("clip_grad_norm", "clipping"), Ignored("custom_sharded_layers[]", "FSDP wrapping"),
      Ignored("base_model_path", "paths"), Ignored("recipe_checkpoint", "checkpoints"), Ignored("cpu_offload_state_dict", "saving"),
      Ignored("run_val_every_n_steps", "evaluation"), Ignored("dataset_val.*", "evaluation"), Ignored("loss.*", "the loss's options"),
  };
  return rows;
}

void FinishTorchtune(ImportState& s) {
  if (s.Setting("seq") == nullptr)
    s.out().diagnostics.push_back({DiagId::kIgnoredSetting, Severity::kWarning, "tokenizer.max_seq_len",
                                   "tokenizer.max_seq_len is not set: rows are as long as the data makes them; "
                                   "give --seq for the longest row"});
}

const std::vector<KeyRow>& TorchtitanRows() {
  static const std::vector<KeyRow> rows = {
      Ignored("model.name", "the model family (with flavor)"), Ignored("model.flavor", "the model size"),
      Ignored("model.*", "the model's paths and converters"),
      Sets("training.local_batch_size", "batch", "", "rows per GPU per step"),
      Sets("training.batch_size", "batch", "", "rows per GPU per step (before local_batch_size)"),
      Ignored("training.global_batch_size", "the global batch (accumulation follows from it)"),
      Sets("training.seq_len", "seq", "", "tokens per row"),
      Sets("training.mixed_precision_param", "dtype", "bfloat16=bf16 float32=fp32", "the compute format of FSDP2's parameters"),
      Sets("training.mixed_precision_reduce", "grad_dtype", "float32=fp32 bfloat16=bf16", "the gradient reduction format"),
      NotCounted("training.compile", "torch.compile changes what is kept for backward"), NotCounted("compile.*", "torch.compile"),
      Ignored("training.*", "steps, data and clipping"),
      Handled("parallelism.data_parallel_shard_degree",
              [](const SettingsEntry& e, ImportState& s) { TitanDegree(e, s, "dp"); }, "FSDP's shard group"),
      NotCounted("parallelism.data_parallel_replicate_degree", "HSDP replicas: the shard group is what is counted"),
      Handled("parallelism.tensor_parallel_degree", [](const SettingsEntry& e, ImportState& s) { TitanDegree(e, s, "tp"); }, "tp"),
      Handled("parallelism.pipeline_parallel_degree", [](const SettingsEntry& e, ImportState& s) { TitanDegree(e, s, "pp"); }, "pp"),
      Handled("parallelism.context_parallel_degree", [](const SettingsEntry& e, ImportState& s) { TitanDegree(e, s, "cp"); }, "cp"),
      Handled("parallelism.expert_parallel_degree", [](const SettingsEntry& e, ImportState& s) { TitanDegree(e, s, "ep"); }, "ep"),
      Sets("parallelism.pipeline_parallel_schedule", "schedule",
           "1f1b=1f1b interleaved1f1b=interleaved gpipe=gpipe", "the pipeline schedule"),
      Sets("parallelism.disable_loss_parallel", "loss_kernel", "true=torch false=", "loss_parallel off"),
      Sets("parallelism.fsdp_reshard_after_forward", "reshard_after_forward", "always=on never=off default=", "FSDP2 resharding"),
      Ignored("parallelism.*", "parallel options"),
      Handled("activation_checkpoint.mode", TitanCheckpointMode, "activation checkpointing"),
      Ignored("activation_checkpoint.*", "checkpointing options"),
      Sets("optimizer.name", "optimizer", "adamw=adamw adam=adamw", "the optimizer"),
      Sets("optimizer.implementation", "optimizer_impl", "fused=fused foreach=foreach for-loop=forloop", "AdamW's kernel"),
      Ignored("optimizer.*", "the optimizer's hyper-parameters"),
      NotCounted("float8.*", "Float8 training"), NotCounted("quantize.*", "quantised training"),
      Ignored("job.*", "the job"), Ignored("profiling.*", "profiling"), Ignored("metrics.*", "logging"), Ignored("lr_scheduler.*", "the schedule"),
      Ignored("checkpoint.*", "checkpoints"), Ignored("comm.*", "communication timeouts"), Ignored("memory_estimation.*", "torchtitan's own estimate"),
      Ignored("experimental.*", "experiments"), Ignored("fault_tolerance.*", "fault tolerance"), Ignored("validation.*", "evaluation"),
      Ignored("debug.*", "debugging"),
  };
  return rows;
}

void FinishTorchtitan(ImportState& s) { TorchtitanModel(s); }

const std::vector<KeyRow>& FsdpQloraRows() {
  static const std::vector<KeyRow> rows = {
      Model("model_name"),
      Handled("train_type", FsdpQloraTrainType, "full, lora or qlora"),
      Sets("batch_size", "batch", "", "rows per GPU per step"),
      Sets("context_length", "seq", "", "tokens per row"),
      Sets("gradient_accumulation_steps", "grad_accum", "", "micro-batches per step"),
      Handled("precision", FsdpQloraPrecision, "precision"),
      Sets("use_gradient_checkpointing", "recompute", "true=full false=none", "activation checkpointing"),
      Sets("reentrant_checkpointing", "reentrant_checkpoint", "true=on false=off", "the checkpoint's reentrancy"),
      Sets("use_activation_cpu_offload", "offload_activations", "true=on false=off", "activations on the CPU"),
      Handled("use_cpu_offload", [](const SettingsEntry& e, ImportState& s) {
                if (!Truthy(e.value)) return s.Ignore(e, "no CPU offload");
                s.Set(e, "offload_params", "cpu", "FSDP CPUOffload(offload_params=True)");
                s.Set(e, "offload_optimizer", "cpu", "FSDP CPUOffload: the step on the CPU");
              }, "FSDP's CPU offload"),
      Sets("sharding_strategy", "zero", "full_shard=3 shard_grad_op=2 ddp=0 hybrid_full_shard=3 hybrid_shard_grad_op=2", "FSDP's sharding"),
      Sets("world_size", "gpus", "", "GPUs"),
      Sets("lora_rank", "lora_rank", "", "the LoRA rank"),
      Handled("lora_dropout", SetDropout, "LoRA's dropout"),
      Ignored("lora_alpha", "LoRA's scale"), NotCounted("lora_target_modules", "default: the attention and MLP projections"),
      Sets("optimizer", "optimizer", "adamw=adamw adam=adamw sgd=sgd", "the optimizer"),
      Ignored("low_memory", "loads the model on rank 0 only (load time)"), Ignored("dataset", "data"), Ignored("dataset_samples", "data"),
      Ignored("num_epochs", "how long"), Ignored("lr", "the step size"), Ignored("lr_scheduler", "the schedule"),
      Ignored("log_to", "logging"), Ignored("master_addr", "network"), Ignored("master_port", "network"), Ignored("seed", "randomness"),
      Ignored("save_model", "saving"), Ignored("output_dir", "output"), Ignored("apply_gradient_clipping", "clipping"),
      Ignored("grad_norm", "clipping"), Ignored("wd", "decay"), Ignored("profile", "profiling"), Ignored("verbose", "logging"),
      Ignored("project_name", "logging"), Ignored("name", "logging"), Ignored("group", "logging"), Ignored("entity", "logging"),
      Ignored("n_bits", "HQQ's bits"), Ignored("use_dora", "DoRA"), Ignored("use_ddp", "DDP"), Ignored("llama_pro_path", "Llama-Pro"),
      Ignored("profiling_output", "profiling"), Ignored("overwrite_profiling_output", "profiling"), Ignored("with_stack", "profiling"),
      Ignored("with_shapes", "profiling"), Ignored("export_trace", "profiling"), Ignored("export_memory_timeline", "profiling"),
      Ignored("wait_steps", "profiling"), Ignored("warmup_steps", "profiling"), Ignored("active_steps", "profiling"),
      Ignored("repeat", "profiling"), Ignored("profiling_frequency", "profiling"), Ignored("max_steps", "how long"),
  };
  return rows;
}

void FinishFsdpQlora(ImportState& s) {
  s.Assume("sharding", "fsdp", "train.py wraps the model in PyTorch FSDP");
  if (s.Setting("zero") == nullptr) s.Assume("zero", "3", "sharding_strategy defaults to full_shard (train.py)");
}

}  // namespace llmmem::core::program_files
