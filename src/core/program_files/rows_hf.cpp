// HF TrainingArguments (JSON from to_json_string, a YAML of them, or a script's flags), TRL's
// SFT/DPO/GRPO configs on top, trainer_state.json, and the FSDP settings accelerate shares.
// Key names: huggingface/transformers src/transformers/training_args.py@v4.57.1 and
// huggingface/trl trl/trainer/{sft,dpo,grpo}_config.py@v0.24.0.
#include "core/parse/text.h"
#include "core/program_files/key_rows.h"

namespace llmmem::core::program_files {
namespace {

void GradientCheckpointing(const SettingsEntry& e, ImportState& s) {
  if (Truthy(e.value)) s.Set(e, "recompute", "full", "gradient_checkpointing: every layer's input is kept, the rest recomputed");
  else if (Falsy(e.value)) s.Set(e, "recompute", "none", "gradient_checkpointing off");
  else s.NotCount(e, "gradient_checkpointing: a value that is not true or false");
}

// TrainingArguments.fsdp: "full_shard auto_wrap offload" (a string or a list of words).
void FsdpWords(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  if (v.empty() || Falsy(v)) {
    s.Ignore(e, "FSDP off");
    return;
  }
  const char* why = "TrainingArguments.fsdp (FSDPOption: full_shard, shard_grad_op, hybrid_shard, no_shard, offload)";
  bool any = false;
  auto has = [&](const char* w) { return v.find(w) != std::string::npos; };
  if (has("full_shard") || has("hybrid_shard")) s.Set(e, "zero", "3", why), any = true;
  else if (has("shard_grad_op")) s.Set(e, "zero", "2", why), any = true;
  else if (has("no_shard")) s.Set(e, "zero", "0", why), any = true;
  if (any) s.Set(e, "sharding", "fsdp", why);
  if (has("hybrid")) s.NotCount(e, "hybrid sharding shards within a node: give --gpus-per-node to count it");
  if (has("offload")) {
    s.Set(e, "offload_params", "cpu", "FSDP CPUOffload(offload_params=True): parameters and gradients on the CPU");
    s.Set(e, "offload_optimizer", "cpu", "FSDP CPUOffload: the optimizer steps on the CPU");
  }
  if (!any && !has("offload") && !has("auto_wrap")) s.NotCount(e, "an FSDP option llmmem does not know");
}

}  // namespace

// fsdp_config's keys, with or without the fsdp_ prefix (accelerate writes fsdp_version,
// TrainingArguments' JSON version): accelerate/utils/dataclasses.py@v1.10.1 FullyShardedDataParallelPlugin.
void FsdpConfigKey(const SettingsEntry& e, ImportState& s) {
  std::string k = e.path.substr(e.path.rfind('.') == std::string::npos ? 0 : e.path.rfind('.') + 1);
  if (k.compare(0, 5, "fsdp_") == 0) k = k.substr(5);
  const std::string v = AsciiLower(e.value);
  const char* why = "accelerate FullyShardedDataParallelPlugin (utils/dataclasses.py@v1.10.1)";
  if (k == "version") {
    if (v == "2") s.Set(e, "fsdp1", "off", "fsdp_version: 2, FSDP2's fully_shard");
    else if (v == "1") s.Set(e, "fsdp1", "on", "fsdp_version: 1, FullyShardedDataParallel");
    else s.NotCount(e, "an FSDP version that is not 1 or 2");
  } else if (k == "sharding_strategy") {
    if (v == "full_shard" || v == "1" || v == "hybrid_shard" || v == "4") s.Set(e, "zero", "3", why);
    else if (v == "shard_grad_op" || v == "2" || v == "_hybrid_shard_zero2" || v == "5") s.Set(e, "zero", "2", why);
    else if (v == "no_shard" || v == "3") s.Set(e, "zero", "0", why);
    else { s.NotCount(e, "a sharding strategy llmmem does not know"); return; }
    s.Set(e, "sharding", "fsdp", why);
    if (v.find("hybrid") != std::string::npos || v == "4" || v == "5")
      s.NotCount(e, "hybrid sharding shards within a node: give --gpus-per-node to count it");
  } else if (k == "reshard_after_forward") {
    if (Truthy(v) || v == "full_shard") s.Set(e, "reshard_after_forward", "on", why);
    else if (Falsy(v) || v == "shard_grad_op") s.Set(e, "reshard_after_forward", "off", why);
    else s.NotCount(e, "a reshard setting llmmem does not know");
  } else if (k == "offload_params") {
    if (Truthy(v)) {
      s.Set(e, "offload_params", "cpu", "FSDP CPUOffload(offload_params=True): parameters and gradients on the CPU");
      s.Set(e, "offload_optimizer", "cpu", "FSDP CPUOffload: the optimizer steps on the CPU");
    } else s.Ignore(e, "FSDP keeps parameters on the GPU");
  } else if (k == "activation_checkpointing") {
    if (Truthy(v)) {
      s.Set(e, "recompute", "full", "FSDP activation checkpointing of each wrapped layer");
      s.Set(e, "reentrant_checkpoint", "off",
            "accelerate wraps with checkpoint_wrapper(CheckpointImpl.NO_REENTRANT) (accelerator.py@v1.10.1)");
    } else s.Ignore(e, "FSDP activation checkpointing off");
  } else if (k == "backward_prefetch" || k == "forward_prefetch" || k == "limit_all_gathers") {
    s.NotCount(e, "how far FSDP gathers ahead: llmmem counts one layer's gathered parameters in flight");
  } else if (k == "cpu_ram_efficient_loading" || k == "sync_module_states" || k == "use_orig_params" ||
             k == "state_dict_type" || k == "auto_wrap_policy" || k == "transformer_layer_cls_to_wrap" ||
             k == "min_num_params" || k == "xla" || k == "xla_fsdp_grad_ckpt" || k == "xla_fsdp_v2" ||
             k == "offload_policy" || k == "cpu_offload" || k == "transformer_cls_names_to_wrap") {
    s.Ignore(e, "how FSDP wraps, loads or saves the model");
  } else {
    s.out().unknown.push_back({e.path, e.value, e.line, ""});
  }
}

// A DeepSpeed config written inline under TrainingArguments' "deepspeed" key.
void DeepSpeedInline(const SettingsEntry& e, ImportState& s) {
  const size_t dot = e.path.find("deepspeed.");
  RunEntry(DeepSpeedRows(), e, dot + 10, s);
  s.Set(e, "sharding", "deepspeed", "a DeepSpeed config: ZeRO shards the model states");
}

const std::vector<KeyRow>& HfArgsRows() {
  static const std::vector<KeyRow> rows = {
      Model("model_name_or_path"),
      Model("model_name"),
      Model("model"),
      Sets("per_device_train_batch_size", "batch", "", "the micro-batch per GPU"),
      Sets("per_gpu_train_batch_size", "batch", "", "the micro-batch per GPU (its old name)"),
      Sets("gradient_accumulation_steps", "grad_accum", "", "micro-batches per optimizer step"),
      Sets("bf16", "dtype", "true=bf16 false=", "bf16 mixed precision (the model is loaded in bf16)"),
      Handled("fp16", [](const SettingsEntry& e, ImportState& s) {
                if (!Truthy(e.value)) return s.Ignore(e, "fp16 off");
                s.Set(e, "autocast", "fp16", "fp16=True: torch.autocast in fp16 with a GradScaler");
              }, "fp16 mixed precision"),
      Handled("gradient_checkpointing", GradientCheckpointing, "activation checkpointing"),
      Sets("gradient_checkpointing_kwargs.use_reentrant", "reentrant_checkpoint", "true=on false=off",
           "torch.utils.checkpoint's use_reentrant"),
      Handled("optim", SetHfOptimizer, "the optimizer"),
      Sets("torch_dtype", "dtype", "bfloat16=bf16 bf16=bf16 float16=fp16 fp16=fp16 float32=fp32 fp32=fp32 auto=",
           "the model's load dtype"),
      Sets("dtype", "dtype", "bfloat16=bf16 bf16=bf16 float16=fp16 fp16=fp16 float32=fp32 fp32=fp32 auto=",
           "the model's load dtype"),
      Handled("fsdp", FsdpWords, "PyTorch FSDP"),
      Handled("fsdp[]", FsdpWords, "PyTorch FSDP"),
      Handled("fsdp_config.*", FsdpConfigKey, "PyTorch FSDP's settings"),
      File("deepspeed", "a DeepSpeed config: give it too (--from ds.json)"),
      Handled("deepspeed.*", DeepSpeedInline, "a DeepSpeed config written inline"),
      Sets("use_liger_kernel", "framework", "true=liger false=", "Liger kernels (fused norm, SwiGLU, RoPE, fused linear cross-entropy)"),
      Sets("attn_implementation", "framework", "eager=hf-eager sdpa=hf-sdpa flash_attention_2=hf-flash2 flash_attention_3=hf-flash2",
           "the attention kernel"),
      Sets("model_init_kwargs.attn_implementation", "framework",
           "eager=hf-eager sdpa=hf-sdpa flash_attention_2=hf-flash2 flash_attention_3=hf-flash2", "the attention kernel"),
      Sets("model_init_kwargs.torch_dtype", "dtype", "bfloat16=bf16 float16=fp16 float32=fp32 auto=", "the model's load dtype"),
      Sets("model_init_kwargs.dtype", "dtype", "bfloat16=bf16 float16=fp16 float32=fp32 auto=", "the model's load dtype"),
      // TRL's configs (SFTConfig, DPOConfig, GRPOConfig).
      Sets("block_size", "seq", "", "run_clm.py's block_size: tokens per row"),
      Sets("max_seq_length", "seq", "", "SFTConfig.max_seq_length: tokens per row"),
      Sets("max_length", "seq", "", "the longest row in tokens (SFTConfig/DPOConfig.max_length)"),
      NotCounted("packing", "packs rows to max_length: llmmem counts every row at full length, which packing fills"),
      NotCounted("padding_free", "no padding: llmmem counts every row at full length"),
      Handled("use_vllm", [](const SettingsEntry& e, ImportState& s) {
                s.Set(e, "rollout_engine", Truthy(e.value) ? "on" : "off", "GRPO generates with vLLM");
              }, "GRPO's generation engine"),
      Handled("vllm_mode", [](const SettingsEntry& e, ImportState& s) {
                if (AsciiLower(e.value) == "server") s.Set(e, "rollout_engine", "off", "vLLM on its own GPUs (trl vllm-serve)");
                else if (AsciiLower(e.value) == "colocate") s.Set(e, "rollout_engine", "on", "vLLM on the training GPUs");
                else s.NotCount(e, "a vllm_mode that is not server or colocate");
              }, "where GRPO's vLLM runs"),
      NotCounted("vllm_gpu_memory_utilization",
                 "the colocated vLLM's share of the GPU: `llmmem plan --jobs` lays it beside training"),
      Handled("num_generations", [](const SettingsEntry& e, ImportState& s) {
                s.Set(e, "mode", "rlhf", "GRPOConfig: group-relative policy optimisation");
                s.Set(e, "rlhf", "grpo", "GRPOConfig.num_generations: completions per prompt");
              }, "GRPO"),
      NotCounted("max_completion_length", "GRPO's completion length: the sequence is max_prompt_length + this"),
      NotCounted("max_prompt_length", "the prompt length: the sequence is prompt + completion"),
      Ignored("beta", "the KL or DPO strength"),
      NotCounted("precompute_ref_log_probs", "DPO without the reference model on the GPU during training"),
      NotCounted("torch_compile", "torch.compile changes what is kept for backward: the eager count is shown"),
      NotCounted("torch_empty_cache_steps", "empty_cache every N steps: the reserved figure drops then"),
      NotCounted("activation_offloading", "activations offloaded to the CPU (TRL): counted on the GPU"),
      // Keys that change no memory.
      Ignored("output_dir", "where checkpoints go"), Ignored("overwrite_output_dir", "output"),
      Ignored("do_train", "what to run"), Ignored("do_eval", "what to run"), Ignored("do_predict", "what to run"),
      Ignored("eval_strategy", "when to evaluate"), Ignored("evaluation_strategy", "when to evaluate"),
      Ignored("prediction_loss_only", "evaluation"), Ignored("per_device_eval_batch_size", "evaluation's batch (not training's)"),
      Ignored("eval_accumulation_steps", "evaluation"), Ignored("eval_delay", "evaluation"), Ignored("eval_steps", "evaluation"),
      Ignored("eval_on_start", "evaluation"), Ignored("eval_do_concat_batches", "evaluation"), Ignored("eval_use_gather_object", "evaluation"),
      Ignored("batch_eval_metrics", "evaluation"), Ignored("include_for_metrics", "evaluation"), Ignored("include_inputs_for_metrics", "evaluation"),
      Ignored("learning_rate", "the optimizer's step size"), Ignored("weight_decay", "the optimizer's decay"),
      Ignored("adam_beta1", "AdamW's beta1"), Ignored("adam_beta2", "AdamW's beta2"), Ignored("adam_epsilon", "AdamW's epsilon"),
      Ignored("max_grad_norm", "gradient clipping (in place)"), Ignored("num_train_epochs", "how long"), Ignored("max_steps", "how long"),
      Ignored("lr_scheduler_type", "the schedule"), Ignored("lr_scheduler_kwargs.*", "the schedule"), Ignored("lr_scheduler_kwargs", "the schedule"),
      Ignored("warmup_ratio", "the schedule"), Ignored("warmup_steps", "the schedule"), Ignored("log_level", "logging"),
      Ignored("log_level_replica", "logging"), Ignored("log_on_each_node", "logging"), Ignored("logging_dir", "logging"),
      Ignored("logging_strategy", "logging"), Ignored("logging_first_step", "logging"), Ignored("logging_steps", "logging"),
      Ignored("logging_nan_inf_filter", "logging"), Ignored("save_strategy", "checkpoints"), Ignored("save_steps", "checkpoints"),
      Ignored("save_total_limit", "checkpoints"), Ignored("save_safetensors", "checkpoints"), Ignored("save_on_each_node", "checkpoints"),
      Ignored("save_only_model", "checkpoints"), Ignored("restore_callback_states_from_checkpoint", "checkpoints"),
      Ignored("no_cuda", "device"), Ignored("use_cpu", "device"), Ignored("use_mps_device", "device"), Ignored("seed", "randomness"),
      Ignored("data_seed", "randomness"), Ignored("jit_mode_eval", "evaluation"), Ignored("use_ipex", "Intel CPUs"),
      Ignored("bf16_full_eval", "evaluation"), Ignored("fp16_full_eval", "evaluation"), Ignored("fp16_opt_level", "apex"),
      Ignored("half_precision_backend", "AMP backend"), Ignored("fp16_backend", "AMP backend"), Ignored("tf32", "TF32 matmuls (no memory)"),
      Ignored("local_rank", "the launcher's rank"), Ignored("ddp_backend", "NCCL or gloo"), Ignored("tpu_num_cores", "TPUs"),
      Ignored("tpu_metrics_debug", "TPUs"), Ignored("debug", "debugging"), Ignored("dataloader_drop_last", "data"),
      Ignored("dataloader_num_workers", "data loading (CPU)"), Ignored("dataloader_prefetch_factor", "data loading (CPU)"),
      Ignored("dataloader_pin_memory", "data loading (pinned host memory)"), Ignored("dataloader_persistent_workers", "data loading"),
      Ignored("past_index", "a model's past state"), Ignored("run_name", "logging"), Ignored("disable_tqdm", "logging"),
      Ignored("remove_unused_columns", "data"), Ignored("label_names", "data"), Ignored("load_best_model_at_end", "checkpoints"),
      Ignored("metric_for_best_model", "checkpoints"), Ignored("greater_is_better", "checkpoints"), Ignored("ignore_data_skip", "resuming"),
      Ignored("accelerator_config.*", "accelerate's dataloader settings"), Ignored("label_smoothing_factor", "the loss"),
      Ignored("adafactor", "deprecated: use optim"), Ignored("group_by_length", "data order"), Ignored("length_column_name", "data"),
      Ignored("report_to", "logging"), Ignored("report_to[]", "logging"), Ignored("ddp_find_unused_parameters", "DDP's graph walk"),
      NotCounted("ddp_bucket_cap_mb", "DDP's gradient buckets: llmmem counts the default 25 MB"),
      Ignored("ddp_broadcast_buffers", "DDP"), Ignored("ddp_timeout", "DDP"), Ignored("skip_memory_metrics", "logging"),
      Ignored("use_legacy_prediction_loop", "evaluation"), Ignored("push_to_hub", "the Hub"), Ignored("resume_from_checkpoint", "resuming"),
      Ignored("hub_model_id", "the Hub"), Ignored("hub_strategy", "the Hub"), Ignored("hub_token", "the Hub"), Ignored("hub_private_repo", "the Hub"),
      Ignored("hub_always_push", "the Hub"), Ignored("hub_revision", "the Hub"), Ignored("include_tokens_per_second", "logging"),
      Ignored("include_num_input_tokens_seen", "logging"), Ignored("neftune_noise_alpha", "embedding noise"),
      Ignored("optim_target_modules", "GaLore's modules"), Ignored("optim_args", "optimizer arguments"), Ignored("ray_scope", "tuning"),
      Ignored("torch_compile_backend", "compile"), Ignored("torch_compile_mode", "compile"), Ignored("dispatch_batches", "data"),
      Ignored("split_batches", "data"), Ignored("full_determinism", "randomness"), Ignored("mp_parameters", "SageMaker"),
      Ignored("auto_find_batch_size", "retries on OOM with half the batch"), Ignored("liger_kernel_config.*", "Liger's kernel switches"),
      Ignored("average_tokens_across_devices", "the loss"), Ignored("use_cache", "generation (off under checkpointing)"),
      Ignored("dataset_text_field", "data"), Ignored("dataset_kwargs.*", "data"), Ignored("dataset_num_proc", "data"),
      Ignored("completion_only_loss", "which tokens the loss counts"), Ignored("assistant_only_loss", "which tokens the loss counts"),
      Ignored("chat_template_path", "data"), Ignored("eos_token", "data"), Ignored("pad_token", "data"),
      Ignored("loss_type", "the loss"), Ignored("temperature", "sampling"), Ignored("top_p", "sampling"), Ignored("top_k", "sampling"),
      Ignored("logging_dir", "logging"), Ignored("print_per_sample", "logging"), Ignored("model_init_kwargs.*", "model loading"),
      Ignored("trust_remote_code", "model loading"),
  };
  return rows;
}

void FinishHfArgs(ImportState& s) {
  const ProgramSetting* autocast = s.Setting("autocast");
  if (autocast != nullptr && autocast->value == "fp16" && s.Setting("dtype") == nullptr)
    s.Assume("dtype", "fp32",
             "fp16=True trains an fp32 model under autocast (a 16-bit model's gradients cannot be unscaled by the "
             "GradScaler)");
}

// trainer_state.json (Trainer.state.save_to_json): what it records of the run.
const std::vector<KeyRow>& TrainerStateRows() {
  static const std::vector<KeyRow> rows = {
      Sets("train_batch_size", "batch", "", "TrainerState.train_batch_size: the micro-batch per process"),
      Ignored("log_history[].*", "the logged losses and rates"), Ignored("best_metric", "evaluation"),
      Ignored("best_model_checkpoint", "checkpoints"), Ignored("best_global_step", "checkpoints"), Ignored("epoch", "progress"),
      Ignored("global_step", "progress"), Ignored("max_steps", "how long"), Ignored("num_train_epochs", "how long"),
      Ignored("num_input_tokens_seen", "progress"), Ignored("logging_steps", "logging"), Ignored("eval_steps", "evaluation"),
      Ignored("save_steps", "checkpoints"), Ignored("total_flos", "progress"), Ignored("trial_name", "tuning"),
      Ignored("trial_params", "tuning"), Ignored("trial_params.*", "tuning"), Ignored("is_hyper_param_search", "tuning"),
      Ignored("is_local_process_zero", "rank"), Ignored("is_world_process_zero", "rank"), Ignored("stateful_callbacks.*", "callbacks"),
  };
  return rows;
}

}  // namespace llmmem::core::program_files
