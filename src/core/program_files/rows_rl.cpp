// RL programs: verl's ppo_trainer YAML or its Hydra overrides (volcengine/verl
// verl/trainer/config/ppo_trainer.yaml and actor/rollout/*.yaml@v0.7.0) and OpenRLHF's flags
// (OpenRLHF/OpenRLHF openrlhf/cli/train_{ppo_ray,sft,dpo}.py@v0.11.0; both the flat names of
// earlier releases and v0.11's dotted ones).
#include "core/parse/text.h"
#include "core/program_files/key_rows.h"

namespace llmmem::core::program_files {
namespace {

void VerlAdvantage(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  s.Set(e, "mode", "rlhf", "verl's PPO trainer");
  if (v == "gae") s.Set(e, "rlhf", "ppo", "adv_estimator gae: a critic beside the actor");
  else s.Set(e, "rlhf", "grpo", "adv_estimator " + v + ": no critic (GRPO's shape)");
}

void VerlStrategy(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  if (v == "fsdp") s.Set(e, "fsdp1", "on", "strategy fsdp: FullyShardedDataParallel");
  else if (v == "fsdp2") s.Set(e, "fsdp1", "off", "strategy fsdp2: fully_shard");
  else if (v == "megatron") s.Set(e, "framework", "megatron", "strategy megatron");
  else s.NotCount(e, "a strategy llmmem does not know");
}

void VerlSequence(ImportState& s) {
  const SettingsEntry* prompt = s.Find("data.max_prompt_length");
  const SettingsEntry* response = s.Find("data.max_response_length");
  if (prompt == nullptr || response == nullptr || !IsCount(prompt->value) || !IsCount(response->value)) return;
  const long total = std::stol(prompt->value) + std::stol(response->value);
  s.Set(*prompt, "seq", std::to_string(total), "max_prompt_length + max_response_length: the longest sequence trained");
}

void OpenRlhfAdvantage(const SettingsEntry& e, ImportState& s) {
  const std::string v = AsciiLower(e.value);
  if (v == "gae") s.Set(e, "rlhf", "ppo", "advantage_estimator gae: a critic");
  else s.Set(e, "rlhf", "grpo", "advantage_estimator " + v + ": no critic (GRPO's shape)");
}

void OpenRlhfSequence(ImportState& s) {
  const SettingsEntry* prompt = s.Find("prompt_max_len");
  const SettingsEntry* gen = s.Find("generate_max_len");
  if (prompt == nullptr) prompt = s.Find("data.max_prompt_len");
  if (gen == nullptr) gen = s.Find("rollout.max_new_tokens");
  if (prompt == nullptr || gen == nullptr || !IsCount(prompt->value) || !IsCount(gen->value)) return;
  s.Set(*prompt, "seq", std::to_string(std::stol(prompt->value) + std::stol(gen->value)),
        "prompt_max_len + generate_max_len: the longest sequence trained");
}

}  // namespace

const std::vector<KeyRow>& VerlRows() {
  static const std::vector<KeyRow> rows = {
      Model("actor_rollout_ref.model.path"),
      Sets("actor_rollout_ref.model.enable_gradient_checkpointing", "recompute", "true=full false=none", "activation checkpointing"),
      Sets("actor_rollout_ref.model.enable_activation_offload", "offload_activations", "true=on false=off", "activations on the CPU"),
      NotCounted("actor_rollout_ref.model.lora_rank", "LoRA on the actor: the RL count is of a full actor"),
      Ignored("actor_rollout_ref.model.use_remove_padding", "no padding (rows at their lengths)"),
      Ignored("actor_rollout_ref.model.*", "the model's loading options"),
      Handled("actor_rollout_ref.actor.strategy", VerlStrategy, "the actor's sharding"),
      Sets("actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu", "batch", "", "rows per GPU per step"),
      Sets("actor_rollout_ref.actor.fsdp_config.param_offload", "offload_params", "true=cpu false=none", "the actor's parameters on the CPU"),
      Sets("actor_rollout_ref.actor.fsdp_config.optimizer_offload", "offload_optimizer", "true=cpu false=none", "the optimizer on the CPU"),
      NotCounted("actor_rollout_ref.actor.use_dynamic_bsz", "rows packed up to ppo_max_token_len_per_gpu tokens"),
      NotCounted("actor_rollout_ref.actor.ppo_max_token_len_per_gpu", "tokens per GPU with dynamic batches"),
      Ignored("actor_rollout_ref.actor.ppo_mini_batch_size", "rows per optimizer step over all GPUs"),
      Ignored("actor_rollout_ref.actor.*", "the actor's loss and optimiser settings"),
      Sets("actor_rollout_ref.rollout.name", "rollout_engine", "vllm=on sglang=on hf=off", "the rollout engine, colocated"),
      NotCounted("actor_rollout_ref.rollout.gpu_memory_utilization",
                 "the engine's share of the GPU: `llmmem plan --jobs` lays it beside training"),
      NotCounted("actor_rollout_ref.rollout.tensor_model_parallel_size", "the engine's tensor parallelism"),
      Ignored("actor_rollout_ref.rollout.*", "the rollout's sampling options"),
      Ignored("actor_rollout_ref.ref.*", "the reference model's options"),
      Ignored("actor_rollout_ref.*", "the hybrid engine's options"),
      Ignored("data.max_prompt_length", "the prompt (with max_response_length: the sequence)"),
      Ignored("data.max_response_length", "the response (with max_prompt_length: the sequence)"),
      Ignored("data.*", "data"),
      Handled("algorithm.adv_estimator", VerlAdvantage, "the advantage estimator"),
      Ignored("algorithm.*", "the algorithm's options"),
      Sets("reward_model.enable", "reward_model", "true=on false=off", "a reward model"),
      Ignored("reward_model.*", "the reward model's options"),
      Ignored("critic.*", "the critic (with gae)"),
      GpusPerNode("trainer.n_gpus_per_node", "trainer.nnodes", "n_gpus_per_node"), Ignored("trainer.nnodes", "nodes (counted with n_gpus_per_node)"),
      Ignored("trainer.*", "logging and checkpoints"), Ignored("ray_init.*", "Ray"), Ignored("ray_kwargs.*", "Ray"),
      Ignored("custom_reward_function.*", "rewards"), Ignored("global_profiler.*", "profiling"), Ignored("hydra.*", "Hydra"),
  };
  return rows;
}

void FinishVerl(ImportState& s) {
  VerlSequence(s);
  s.Assume("mode", "rlhf", "verl's PPO trainer (main_ppo)");
  s.Assume("zero", "3", "verl's FSDP workers shard fully (fsdp_config: FULL_SHARD, verl/workers/fsdp_workers.py@v0.7.0)");
  s.Assume("rlhf", "ppo", "adv_estimator defaults to gae (verl/trainer/config/algorithm: a critic)");
}

const std::vector<KeyRow>& OpenRlhfRows() {
  static const std::vector<KeyRow> rows = {
      Model("pretrain"), Model("actor.model_name_or_path"),
      Sets("micro_train_batch_size", "batch", "", "rows per GPU per training step"),
      Sets("train.micro_batch_size", "batch", "", "rows per GPU per training step"),
      Ignored("train_batch_size", "rows per optimizer step over all GPUs"), Ignored("train.batch_size", "rows per step"),
      Sets("max_len", "seq", "", "tokens per row (SFT, DPO)"),
      Ignored("prompt_max_len", "the prompt (with generate_max_len: the sequence)"),
      Ignored("generate_max_len", "the completion (with prompt_max_len: the sequence)"),
      Sets("zero_stage", "zero", "", "the ZeRO stage"), Sets("ds.zero_stage", "zero", "", "the ZeRO stage"),
      Sets("bf16", "dtype", "true=bf16 false=", "bf16"), Sets("ds.bf16", "dtype", "true=bf16 false=", "bf16"),
      Sets("gradient_checkpointing", "recompute", "true=full false=", "activation checkpointing"),
      Sets("actor.gradient_checkpointing_enable", "recompute", "true=full false=", "activation checkpointing"),
      Sets("gradient_checkpointing_use_reentrant", "reentrant_checkpoint", "true=on false=", "reentrant checkpointing"),
      Sets("actor.gradient_checkpointing_reentrant", "reentrant_checkpoint", "true=on false=", "reentrant checkpointing"),
      Sets("flash_attn", "framework", "true=hf-flash2 false=", "FlashAttention-2"),
      Handled("attn_implementation", [](const SettingsEntry& e, ImportState& s) {
                const std::string v = AsciiLower(e.value);
                s.Set(e, "framework", v == "eager" ? "hf-eager" : v == "sdpa" ? "hf-sdpa" : "hf-flash2", "the attention kernel");
              }, "the attention kernel"),
      Sets("adam_offload", "offload_optimizer", "true=cpu false=", "Adam on the CPU"),
      Sets("ds.adam_offload", "offload_optimizer", "true=cpu false=", "Adam on the CPU"),
      Sets("colocate_all_models", "rollout_engine", "true=on false=", "vLLM beside the actor"),
      Sets("train.colocate_all", "rollout_engine", "true=on false=", "vLLM beside the actor"),
      NotCounted("vllm_gpu_memory_utilization", "the engine's share: `llmmem plan --jobs` lays it beside training"),
      NotCounted("vllm.gpu_memory_utilization", "the engine's share: `llmmem plan --jobs` lays it beside training"),
      Handled("advantage_estimator", OpenRlhfAdvantage, "the advantage estimator"),
      Handled("algo.advantage_estimator", OpenRlhfAdvantage, "the advantage estimator"),
      Handled("lora_rank", [](const SettingsEntry& e, ImportState& s) {
                if (e.value == "0") return s.Ignore(e, "no LoRA");
                s.Set(e, "lora_rank", e.value, "LoRA rank");
                s.Set(e, "mode", "lora", "LoRA adapters");
              }, "LoRA"),
      Sets("load_in_4bit", "mode", "true=qlora false=", "a 4-bit base"),
      NotCounted("packing_samples", "rows packed together"), NotCounted("ring_attn_size", "ring attention"),
  };
  return rows;
}

void FinishOpenRlhf(ImportState& s) {
  OpenRlhfSequence(s);
  bool ppo = false, dpo = false;
  for (const std::string& w : s.tree().words) {
    ppo |= w.find("train_ppo") != std::string::npos || w.find("train_grpo") != std::string::npos;
    dpo |= w.find("train_dpo") != std::string::npos || w.find("train_kto") != std::string::npos;
  }
  if (ppo) {
    s.Assume("mode", "rlhf", "openrlhf.cli.train_ppo_ray");
    s.Assume("rlhf", "ppo", "advantage_estimator defaults to gae (a critic)");
  } else if (dpo) {
    s.Assume("mode", "rlhf", "openrlhf.cli.train_dpo");
    s.Assume("rlhf", "dpo", "DPO: the policy beside a reference");
  }
  s.Assume("sharding", "deepspeed", "OpenRLHF trains with DeepSpeed");
}

}  // namespace llmmem::core::program_files
