// The fine-tuning programs' YAML: axolotl (axolotl-ai-cloud/axolotl
// src/axolotl/utils/schemas/config.py@v0.18.0), LLaMA-Factory (hiyouga/LLaMA-Factory
// src/llamafactory/hparams/{model,finetuning,data}_args.py@v0.9.5) and ms-swift's arguments
// (modelscope/ms-swift swift/llm/argument/*.py@v4.5.2; flags of `swift sft` / `swift rlhf`, or
// the args.json it writes beside its checkpoints).
#include "core/parse/text.h"
#include "core/program_files/key_rows.h"

namespace llmmem::core::program_files {
namespace {

void AxolotlAdapter(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  if (v == "lora") s.Set(e, "mode", "lora", "adapter: lora");
  else if (v == "qlora") s.Set(e, "mode", "qlora", "adapter: qlora (a 4-bit NF4 base)");
  else if (v.empty()) s.Ignore(e, "no adapter: full fine-tuning");
  else s.NotCount(e, "adapter " + e.value + ": counted as LoRA's");
}

void AxolotlRl(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  s.Set(e, "mode", "rlhf", "rl: a preference or RL trainer (TRL's)");
  if (v == "grpo") s.Set(e, "rlhf", "grpo", "rl: grpo");
  else if (v == "dpo" || v == "ipo" || v == "orpo" || v == "kto" || v == "simpo") s.Set(e, "rlhf", "dpo", "rl: " + v + ", a policy beside a reference (DPO's shape)");
  else s.NotCount(e, "rl: " + e.value + " is counted as DPO's policy and reference");
}

void AxolotlCheckpointing(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  if (Truthy(v)) s.Set(e, "recompute", "full", "gradient_checkpointing: true");
  else if (Falsy(v)) s.Set(e, "recompute", "none", "gradient_checkpointing: false");
  else if (v == "offload" || v == "offload_disk") {
    s.Set(e, "recompute", "full", "gradient_checkpointing: offload");
    s.Set(e, "offload_activations", "on", "each checkpointed input kept in CPU memory (axolotl's offload)");
  } else s.NotCount(e, "a gradient_checkpointing value llmmem does not know");
}

void LoadIn4Bit(const SettingsEntry& e, ImportState& s) {
  if (Truthy(e.value)) s.Set(e, "mode", "qlora", "a 4-bit (NF4) base under the adapters");
  else s.Ignore(e, "no 4-bit base");
}
void LoadIn8Bit(const SettingsEntry& e, ImportState& s) {
  if (Truthy(e.value)) s.Set(e, "dtype", "int8", "an 8-bit (LLM.int8) base under the adapters");
  else s.Ignore(e, "no 8-bit base");
}

void DeepSpeedPath(const SettingsEntry& e, ImportState& s) {
  s.NameFile(e, "a DeepSpeed config: give it too (--from it) for its exact settings");
  AssumeDeepSpeedByName(e.value, s, "deepspeed: " + e.value);
}

void LfStage(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  if (v == "sft" || v == "pt" || v == "rm") s.Ignore(e, "stage " + v + ": supervised training");
  else if (v == "dpo" || v == "kto") {
    s.Set(e, "mode", "rlhf", "stage " + v);
    s.Set(e, "rlhf", "dpo", "stage " + v + ": the policy beside a reference");
  } else if (v == "ppo") {
    s.Set(e, "mode", "rlhf", "stage ppo");
    s.Set(e, "rlhf", "ppo", "stage ppo: policy, value head, reference and reward models");
  } else s.NotCount(e, "a stage llmmem does not know");
}

void LfFinetuningType(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  const ProgramSetting* mode = s.Setting("mode");
  if (v == "lora" && mode != nullptr && mode->value == "qlora") s.Ignore(e, "LoRA over the 4-bit base: QLoRA");
  else if (v == "lora") s.Set(e, "mode", "lora", "finetuning_type: lora");
  else if (v == "full") s.Ignore(e, "full fine-tuning");
  else s.NotCount(e, "finetuning_type " + e.value + ": counted as full fine-tuning");
}

// A 4-bit base under LoRA is QLoRA, whichever key comes first.
void LfQuantBits(const SettingsEntry& e, ImportState& s) {
  if (e.value == "4") s.Replace(e, "mode", "qlora", "quantization_bit: 4 (bitsandbytes NF4) under LoRA");
  else if (e.value == "8") s.Set(e, "dtype", "int8", "quantization_bit: 8 (bitsandbytes LLM.int8)");
  else s.NotCount(e, "quantization_bit " + e.value + ": only 4 and 8 are counted");
}

void LfFlashAttn(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  if (v == "fa2" || v == "fa3") s.Set(e, "framework", "hf-flash2", "flash_attn: " + v);
  else if (v == "sdpa" || v == "auto") s.Set(e, "framework", "hf-sdpa", "flash_attn: " + v + " (SDPA)");
  else if (v == "disabled") s.Set(e, "framework", "hf-eager", "flash_attn: disabled (eager attention)");
  else s.NotCount(e, "a flash_attn value llmmem does not know");
}

void SwiftTrainType(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  const ProgramSetting* mode = s.Setting("mode");
  if (mode != nullptr && mode->value == "qlora" && v != "full") s.Ignore(e, "LoRA over the 4-bit base: QLoRA");
  else if (v == "lora" || v == "dora" || v == "lora_ga" || v == "longlora") s.Set(e, "mode", "lora", "train_type: " + v);
  else if (v == "full") s.Ignore(e, "full fine-tuning");
  else s.NotCount(e, "train_type " + e.value + ": counted as " + (s.Setting("mode") ? "set" : "full fine-tuning"));
}

void SwiftRlhfType(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  s.Set(e, "mode", "rlhf", "swift rlhf");
  if (v == "grpo") s.Set(e, "rlhf", "grpo", "rlhf_type: grpo");
  else if (v == "ppo") s.Set(e, "rlhf", "ppo", "rlhf_type: ppo");
  else s.Set(e, "rlhf", "dpo", "rlhf_type: " + v + ", a policy beside a reference (DPO's shape)");
}

void SwiftDeepSpeed(const SettingsEntry& e, ImportState& s) {
  // ms-swift's own names: zero0..zero3 and zero2_offload / zero3_offload
  // (swift/llm/ds_config/*.json; the offload files move the optimizer and, for ZeRO-3, the parameters).
  if (AsciiLower(e.value).find(".json") != std::string::npos) s.NameFile(e, "a DeepSpeed config: give it too");
  if (!AssumeDeepSpeedByName(e.value, s, "deepspeed " + e.value + " (swift/llm/ds_config)"))
    s.NotCount(e, "a DeepSpeed name llmmem does not know");
}

void SwiftQuantBits(const SettingsEntry& e, ImportState& s) {
  const SettingsEntry* method = s.Find("quant_method");
  if (method != nullptr && AsciiLower(method->value) != "bnb")
    return s.NotCount(e, "quant_method " + method->value + ": only bitsandbytes is counted");
  LfQuantBits(e, s);
}

}  // namespace

const std::vector<KeyRow>& AxolotlRows() {
  static const std::vector<KeyRow> rows = {
      Model("base_model"),
      Ignored("base_model_config", "where the config is read"), Ignored("tokenizer_config", "the tokenizer"),
      Ignored("model_type", "the class that loads it"), Ignored("tokenizer_type", "the tokenizer"),
      Ignored("trust_remote_code", "loading"), Ignored("revision_of_model", "loading"),
      Handled("adapter", AxolotlAdapter, "the adapter"),
      Handled("load_in_4bit", LoadIn4Bit, "a 4-bit base"),
      Handled("load_in_8bit", LoadIn8Bit, "an 8-bit base"),
      Sets("lora_r", "lora_rank", "", "the LoRA rank"),
      Handled("lora_dropout", SetDropout, "LoRA's dropout (a mask per adapted input when > 0)"),
      Ignored("lora_alpha", "LoRA's scale"), Ignored("lora_target_linear", "adapters on every linear layer (what llmmem counts)"),
      NotCounted("lora_target_modules", "adapters on these modules only: llmmem counts every linear layer's"),
      NotCounted("lora_target_modules[]", "adapters on these modules only: llmmem counts every linear layer's"),
      NotCounted("lora_modules_to_save[]", "full trainable copies of these modules (embeddings, head)"),
      Ignored("lora_fan_in_fan_out", "a layout"), Ignored("peft_use_dora", "DoRA"), Ignored("peft_use_rslora", "a scale"),
      Ignored("lora_model_dir", "an adapter to resume"),
      Sets("sequence_len", "seq", "", "tokens per row"),
      Sets("micro_batch_size", "batch", "", "rows per GPU per step"),
      Sets("gradient_accumulation_steps", "grad_accum", "", "micro-batches per optimizer step"),
      Ignored("eval_batch_size", "evaluation"),
      Sets("bf16", "dtype", "true=bf16 auto=bf16 full=bf16 false=", "bf16 (auto: on a card that has it)"),
      Handled("fp16", [](const SettingsEntry& e, ImportState& s) {
                if (Truthy(e.value)) s.Set(e, "autocast", "fp16", "fp16 mixed precision");
                else s.Ignore(e, "fp16 off");
              }, "fp16"),
      Ignored("tf32", "TF32 matmuls (no memory)"),
      Handled("gradient_checkpointing", AxolotlCheckpointing, "activation checkpointing"),
      Sets("gradient_checkpointing_kwargs.use_reentrant", "reentrant_checkpoint", "true=on false=off", "the checkpoint's reentrancy"),
      Sets("activation_offloading", "offload_activations", "true=on false=off legacy=on disk=on", "activations kept on the CPU"),
      Sets("flash_attention", "framework", "true=hf-flash2 false=", "FlashAttention-2"),
      Sets("sdp_attention", "framework", "true=hf-sdpa false=", "SDPA"),
      Sets("eager_attention", "framework", "true=hf-eager false=", "eager attention"),
      NotCounted("xformers_attention", "xformers' attention: counted as SDPA's memory-efficient kernel"),
      NotCounted("flex_attention", "flex attention"),
      Handled("optimizer", SetHfOptimizer, "the optimizer (TrainingArguments.optim's names)"),
      Handled("deepspeed", DeepSpeedPath, "a DeepSpeed config"),
      Handled("fsdp", [](const SettingsEntry& e, ImportState& s) { s.Ignore(e, "FSDP's options"); }, "FSDP"),
      Handled("fsdp[]", [](const SettingsEntry& e, ImportState& s) {
                const std::string v = AsciiLower(e.value);
                if (v == "full_shard") s.Set(e, "zero", "3", "fsdp: full_shard"), s.Set(e, "sharding", "fsdp", "PyTorch FSDP");
                else if (v == "shard_grad_op") s.Set(e, "zero", "2", "fsdp: shard_grad_op"), s.Set(e, "sharding", "fsdp", "PyTorch FSDP");
                else if (v == "offload") {
                  s.Set(e, "offload_params", "cpu", "FSDP CPUOffload: parameters and gradients on the CPU");
                  s.Set(e, "offload_optimizer", "cpu", "FSDP CPUOffload: the step on the CPU");
                } else s.Ignore(e, "how FSDP wraps");
              }, "FSDP"),
      Handled("fsdp_config.*", FsdpConfigKey, "FSDP's settings"),
      Handled("fsdp_version", [](const SettingsEntry& e, ImportState& s) { FsdpConfigKey(e, s); }, "FSDP's version"),
      Sets("cut_cross_entropy", "loss_kernel", "true=chunked false=", "Apple's Cut Cross-Entropy: no full logits (counted as chunked)"),
      Sets("chunked_cross_entropy", "loss_kernel", "true=chunked false=", "chunked cross-entropy"),
      Sets("liger_fused_linear_cross_entropy", "framework", "true=liger false=", "Liger's fused linear cross-entropy"),
      Ignored("liger_rms_norm", "Liger's norm (with its fused loss)"), Ignored("liger_glu_activation", "Liger's SwiGLU"),
      Ignored("liger_rope", "Liger's RoPE"), Ignored("liger_layer_norm", "Liger's norm"), Ignored("plugins[]", "integrations"),
      NotCounted("sample_packing", "packs rows to sequence_len: llmmem counts every row at sequence_len, which packing fills"),
      Ignored("pad_to_sequence_len", "rows padded to sequence_len (what llmmem counts)"),
      NotCounted("torch_compile", "torch.compile changes what is kept for backward: the eager count is shown"),
      NotCounted("unsloth_lora_mlp", "Unsloth's LoRA kernels"), NotCounted("unsloth_lora_qkv", "Unsloth's LoRA kernels"),
      NotCounted("unsloth_lora_o", "Unsloth's LoRA kernels"), NotCounted("lora_mlp_kernel", "axolotl's LoRA kernels"),
      NotCounted("lora_qkv_kernel", "axolotl's LoRA kernels"), NotCounted("lora_o_kernel", "axolotl's LoRA kernels"),
      Handled("rl", AxolotlRl, "a preference or RL trainer"),
      Handled("trl.use_vllm", [](const SettingsEntry& e, ImportState& s) {
                s.Set(e, "rollout_engine", Truthy(e.value) ? "on" : "off", "GRPO generates with vLLM");
              }, "GRPO's vLLM"),
      Handled("trl.vllm_mode", [](const SettingsEntry& e, ImportState& s) {
                s.Set(e, "rollout_engine", AsciiLower(e.value) == "colocate" ? "on" : "off", "where GRPO's vLLM runs");
              }, "where GRPO's vLLM runs"),
      NotCounted("trl.vllm_gpu_memory_utilization", "the colocated vLLM's share: `llmmem plan --jobs` lays it beside training"),
      Ignored("trl.*", "TRL's trainer settings"), Ignored("vllm.*", "the separate vLLM server"),
      Ignored("datasets[].*", "data"), Ignored("test_datasets[].*", "data"), Ignored("dataset_prepared_path", "data"),
      Ignored("val_set_size", "evaluation"), Ignored("output_dir", "output"), Ignored("chat_template", "data"),
      Ignored("special_tokens.*", "tokens"), Ignored("tokens[]", "tokens"), Ignored("train_on_inputs", "which tokens the loss counts"),
      Ignored("group_by_length", "data order"), Ignored("num_epochs", "how long"), Ignored("max_steps", "how long"),
      Ignored("learning_rate", "the step size"), Ignored("lr_scheduler", "the schedule"), Ignored("warmup_steps", "the schedule"),
      Ignored("warmup_ratio", "the schedule"), Ignored("cosine_min_lr_ratio", "the schedule"), Ignored("weight_decay", "decay"),
      Ignored("max_grad_norm", "clipping"), Ignored("adam_beta1", "AdamW"), Ignored("adam_beta2", "AdamW"), Ignored("adam_epsilon", "AdamW"),
      Ignored("logging_steps", "logging"), Ignored("evals_per_epoch", "evaluation"), Ignored("eval_steps", "evaluation"),
      Ignored("saves_per_epoch", "checkpoints"), Ignored("save_steps", "checkpoints"), Ignored("save_strategy", "checkpoints"),
      Ignored("save_total_limit", "checkpoints"), Ignored("save_safetensors", "checkpoints"), Ignored("save_first_step", "checkpoints"),
      Ignored("early_stopping_patience", "evaluation"), Ignored("resume_from_checkpoint", "resuming"), Ignored("auto_resume_from_checkpoints", "resuming"),
      Ignored("local_rank", "rank"), Ignored("seed", "randomness"), Ignored("strict", "config checks"), Ignored("debug", "debugging"),
      Ignored("wandb_*", "logging"), Ignored("mlflow_*", "logging"), Ignored("comet_*", "logging"), Ignored("use_tensorboard", "logging"),
      Ignored("hub_model_id", "the Hub"), Ignored("hub_strategy", "the Hub"), Ignored("push_dataset_to_hub", "the Hub"),
      Ignored("dataset_processes", "data"), Ignored("shuffle_merged_datasets", "data"), Ignored("eval_sample_packing", "evaluation"),
      Ignored("loss_watchdog_threshold", "a check"), Ignored("loss_watchdog_patience", "a check"), Ignored("xformers_attention", "attention"),
      Ignored("is_llama_derived_model", "loading"), Ignored("is_mistral_derived_model", "loading"), Ignored("is_qwen_derived_model", "loading"),
      Ignored("ddp_timeout", "DDP"), Ignored("ddp_bucket_cap_mb", "DDP"), Ignored("ddp_broadcast_buffers", "DDP"),
      Ignored("dataloader_num_workers", "data"), Ignored("dataloader_pin_memory", "data"), Ignored("dataloader_prefetch_factor", "data"),
      Ignored("eval_max_new_tokens", "evaluation"), Ignored("eval_table_size", "evaluation"), Ignored("do_causal_lm_eval", "evaluation"),
      Ignored("profiler_steps", "profiling"), Ignored("include_tokens_per_second", "logging"), Ignored("gc_steps", "garbage collection"),
  };
  return rows;
}

const std::vector<KeyRow>& LlamaFactoryRows() {
  static const std::vector<KeyRow> rows = {
      Model("model_name_or_path"),
      Handled("stage", LfStage, "the training stage"),
      Ignored("do_train", "what to run"), Ignored("do_eval", "what to run"), Ignored("do_predict", "what to run"),
      Handled("finetuning_type", LfFinetuningType, "full, freeze or lora"),
      Sets("lora_rank", "lora_rank", "", "the LoRA rank"),
      Handled("lora_dropout", SetDropout, "LoRA's dropout"),
      Ignored("lora_alpha", "LoRA's scale"), Ignored("lora_target", "adapters on these modules (all: every linear layer)"),
      NotCounted("additional_target", "full trainable copies of these modules"),
      Ignored("use_dora", "DoRA"), Ignored("use_rslora", "a scale"), Ignored("pissa_init", "initialisation"),
      Handled("quantization_bit", LfQuantBits, "a quantised base"),
      NotCounted("quantization_method", "the quantiser (bitsandbytes is counted)"),
      Sets("double_quantization", "nf4_double_quant", "true=on false=off", "bitsandbytes' double quantisation of the scales"),
      Ignored("quantization_type", "nf4 or fp4 (same size)"),
      Sets("cutoff_len", "seq", "", "tokens per row"),
      Sets("per_device_train_batch_size", "batch", "", "rows per GPU per step"),
      Sets("gradient_accumulation_steps", "grad_accum", "", "micro-batches per optimizer step"),
      Sets("bf16", "dtype", "true=bf16 false=", "bf16"),
      Handled("fp16", [](const SettingsEntry& e, ImportState& s) {
                if (Truthy(e.value)) s.Set(e, "autocast", "fp16", "fp16 mixed precision");
                else s.Ignore(e, "fp16 off");
              }, "fp16"),
      Handled("pure_bf16", [](const SettingsEntry& e, ImportState& s) {
                if (!Truthy(e.value)) return s.Ignore(e, "pure_bf16 off");
                s.Set(e, "dtype", "bf16", "pure_bf16: weights, gradients and states in bf16");
                s.Set(e, "master_weights", "off", "pure_bf16: no fp32 copy");
              }, "pure bf16"),
      Handled("flash_attn", LfFlashAttn, "the attention kernel"),
      Sets("disable_gradient_checkpointing", "recompute", "true=none false=full", "checkpointing (on unless disabled)"),
      Sets("use_reentrant_gc", "reentrant_checkpoint", "true=on false=off", "the checkpoint's reentrancy"),
      Sets("enable_liger_kernel", "framework", "true=liger false=", "Liger kernels"),
      NotCounted("use_unsloth", "Unsloth's kernels (the unsloth program)"), NotCounted("use_unsloth_gc", "Unsloth's offloaded checkpointing"),
      Handled("optim", SetHfOptimizer, "the optimizer"),
      Handled("deepspeed", DeepSpeedPath, "a DeepSpeed config"),
      NotCounted("packing", "packs rows to cutoff_len: llmmem counts every row at cutoff_len"),
      NotCounted("neat_packing", "packs rows to cutoff_len"), NotCounted("use_galore", "GaLore's projected states"),
      NotCounted("use_badam", "BAdam updates one block at a time"), NotCounted("use_apollo", "APOLLO's states"),
      NotCounted("freeze_trainable_layers", "freeze: only some layers trained"), NotCounted("shift_attn", "LongLoRA's shift"),
      NotCounted("rope_scaling", "a longer context by RoPE scaling"),
      Ignored("template", "data"), Ignored("dataset", "data"), Ignored("dataset_dir", "data"), Ignored("eval_dataset", "data"),
      Ignored("overwrite_cache", "data"), Ignored("preprocessing_num_workers", "data"), Ignored("dataloader_num_workers", "data"),
      Ignored("max_samples", "data"), Ignored("val_size", "evaluation"), Ignored("per_device_eval_batch_size", "evaluation"),
      Ignored("eval_strategy", "evaluation"), Ignored("eval_steps", "evaluation"), Ignored("output_dir", "output"),
      Ignored("logging_steps", "logging"), Ignored("save_steps", "checkpoints"), Ignored("plot_loss", "logging"),
      Ignored("overwrite_output_dir", "output"), Ignored("save_only_model", "checkpoints"), Ignored("report_to", "logging"),
      Ignored("learning_rate", "the step size"), Ignored("num_train_epochs", "how long"), Ignored("max_steps", "how long"),
      Ignored("lr_scheduler_type", "the schedule"), Ignored("warmup_ratio", "the schedule"), Ignored("warmup_steps", "the schedule"),
      Ignored("ddp_timeout", "DDP"), Ignored("resume_from_checkpoint", "resuming"), Ignored("trust_remote_code", "loading"),
      Ignored("pref_beta", "DPO's strength"), Ignored("pref_loss", "DPO's loss"), Ignored("pref_ftx", "an SFT term"),
      Ignored("tokenized_path", "data"), Ignored("streaming", "data"), Ignored("mix_strategy", "data"), Ignored("seed", "randomness"),
      Ignored("run_name", "logging"), Ignored("save_strategy", "checkpoints"), Ignored("save_total_limit", "checkpoints"),
      Ignored("weight_decay", "decay"), Ignored("max_grad_norm", "clipping"), Ignored("adapter_name_or_path", "an adapter to resume"),
      Ignored("export_dir", "export"), Ignored("image_max_pixels", "images"), Ignored("video_max_pixels", "videos"),
      Ignored("ref_model", "the reference model (the policy's own by default)"), Ignored("reward_model", "PPO's reward model"),
      Ignored("reward_model_type", "PPO's reward model"),
  };
  return rows;
}

const std::vector<KeyRow>& SwiftRows() {
  static const std::vector<KeyRow> rows = {
      Model("model"), Model("model_id_or_path"),
      Handled("train_type", SwiftTrainType, "full or lora"),
      Handled("rlhf_type", SwiftRlhfType, "the preference or RL algorithm"),
      Sets("lora_rank", "lora_rank", "", "the LoRA rank"),
      Handled("lora_dropout", SetDropout, "LoRA's dropout"),
      Ignored("lora_alpha", "LoRA's scale"), Ignored("target_modules", "adapters (all-linear: every linear layer)"),
      Ignored("target_modules[]", "adapters"), NotCounted("modules_to_save", "full trainable copies of these modules"),
      Handled("quant_bits", SwiftQuantBits, "a quantised base"), Ignored("quant_method", "the quantiser"),
      Sets("bnb_4bit_use_double_quant", "nf4_double_quant", "true=on false=off", "double quantisation"),
      Sets("torch_dtype", "dtype", "bfloat16=bf16 float16=fp16 float32=fp32 auto=", "the model's dtype"),
      Sets("max_length", "seq", "", "tokens per row"),
      Sets("per_device_train_batch_size", "batch", "", "rows per GPU per step"),
      Sets("gradient_accumulation_steps", "grad_accum", "", "micro-batches per optimizer step"),
      Handled("gradient_checkpointing", [](const SettingsEntry& e, ImportState& s) {
                s.Set(e, "recompute", Truthy(e.value) ? "full" : "none", "activation checkpointing");
              }, "activation checkpointing"),
      Sets("attn_impl", "framework", "flash_attn=hf-flash2 flash_attention_2=hf-flash2 sdpa=hf-sdpa eager=hf-eager", "the attention kernel"),
      Handled("deepspeed", SwiftDeepSpeed, "DeepSpeed"),
      Handled("optim", SetHfOptimizer, "the optimizer"),
      Sets("use_liger_kernel", "framework", "true=liger false=", "Liger kernels"),
      Sets("use_vllm", "rollout_engine", "true=on false=off", "GRPO generates with vLLM"),
      Sets("vllm_mode", "rollout_engine", "colocate=on server=off", "where GRPO's vLLM runs"),
      Handled("num_generations", [](const SettingsEntry& e, ImportState& s) { s.Ignore(e, "completions per prompt"); }, "GRPO"),
      NotCounted("vllm_gpu_memory_utilization", "the colocated vLLM's share: `llmmem plan --jobs` lays it beside training"),
      NotCounted("packing", "packs rows to max_length"), NotCounted("padding_free", "no padding"),
      NotCounted("sequence_parallel_size", "Ulysses sequence parallelism"),
      NotCounted("max_completion_length", "GRPO's completion length"),
      Ignored("dataset", "data"), Ignored("dataset[]", "data"), Ignored("val_dataset", "data"), Ignored("num_train_epochs", "how long"),
      Ignored("learning_rate", "the step size"), Ignored("eval_steps", "evaluation"), Ignored("save_steps", "checkpoints"),
      Ignored("save_total_limit", "checkpoints"), Ignored("logging_steps", "logging"), Ignored("output_dir", "output"),
      Ignored("system", "data"), Ignored("warmup_ratio", "the schedule"), Ignored("dataloader_num_workers", "data"),
      Ignored("dataset_num_proc", "data"), Ignored("model_author", "naming"), Ignored("model_name", "naming"),
      Ignored("per_device_eval_batch_size", "evaluation"), Ignored("split_dataset_ratio", "data"), Ignored("report_to", "logging"),
      Ignored("beta", "strength"), Ignored("reward_funcs", "GRPO's rewards"), Ignored("reward_funcs[]", "GRPO's rewards"),
      Ignored("temperature", "sampling"), Ignored("stream", "output"), Ignored("max_new_tokens", "generation"),
      Ignored("seed", "randomness"), Ignored("weight_decay", "decay"), Ignored("lr_scheduler_type", "the schedule"),
      Ignored("add_version", "output"), Ignored("save_only_model", "checkpoints"), Ignored("load_from_cache_file", "data"),
  };
  return rows;
}

void FinishSwift(ImportState& s) {
  // swift sft's default train_type is lora (swift/llm/argument/tuner_args.py@v4.5.2).
  if (s.Setting("mode") == nullptr && s.Find("train_type") == nullptr)
    s.Assume("mode", "lora", "ms-swift's train_type defaults to lora (swift/llm/argument/tuner_args.py@v4.5.2)");
}

}  // namespace llmmem::core::program_files
