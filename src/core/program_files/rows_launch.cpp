// DeepSpeed's JSON config, accelerate's config YAML and the launchers (torchrun, accelerate
// launch, deepspeed) with the environment they read.
// Keys: deepspeedai/DeepSpeed deepspeed/runtime/zero/config.py and runtime/config.py@v0.17.6;
// huggingface/accelerate src/accelerate/commands/config/config_args.py and launch.py@v1.10.1.
#include "core/parse/number_text.h"
#include "core/parse/text.h"
#include "core/program_files/key_rows.h"

namespace llmmem::core::program_files {
namespace {

// "auto" is the HF integration's: the Trainer fills it from TrainingArguments.
void DsCount(const SettingsEntry& e, ImportState& s, const char* field, const char* why) {
  if (AsciiLower(e.value) == "auto") return s.Ignore(e, std::string(why) + " (auto: the Trainer's own value)");
  s.Set(e, field, e.value, why);
}

void DsStage(const SettingsEntry& e, ImportState& s) {
  s.Set(e, "zero", e.value, "ZeRO stage: 1 shards the optimizer states, 2 also the gradients, 3 also the parameters");
  s.Set(e, "sharding", "deepspeed", "DeepSpeed's ZeRO");
}

void DsOffload(const SettingsEntry& e, ImportState& s, const char* field) {
  const std::string v = AsciiLower(e.value);
  if (v == "cpu" || v == "nvme") s.Set(e, field, v, "ZeRO-Offload / ZeRO-Infinity");
  else if (v == "none" || v.empty()) s.Ignore(e, "no offload");
  else s.NotCount(e, "an offload device that is not cpu, nvme or none");
}

void DsBucket(const SettingsEntry& e, ImportState& s, const char* field) {
  if (AsciiLower(e.value) == "auto")
    return s.Ignore(e, "auto: the HF integration sets hidden_size x hidden_size (integrations/deepspeed.py)");
  double v = 0;
  if (!ParseNumber(e.value, v).empty() || v < 0) return s.NotCount(e, "a bucket size that is not a number");
  s.Set(e, field, std::to_string(static_cast<int64_t>(v)), "DeepSpeed's communication bucket, in elements");
}

}  // namespace

bool AssumeDeepSpeedByName(const std::string& name, ImportState& s, const std::string& why) {
  const std::string n = AsciiLower(name);
  const char* stage = n.find("zero3") != std::string::npos || n.find("z3") != std::string::npos   ? "3"
                      : n.find("zero2") != std::string::npos || n.find("z2") != std::string::npos ? "2"
                      : n.find("zero1") != std::string::npos || n.find("z1") != std::string::npos ? "1"
                      : n.find("zero0") != std::string::npos                                      ? "0"
                                                                                                  : nullptr;
  if (stage == nullptr) return false;
  s.Assume("zero", stage, why + ": ZeRO-" + stage + ", from the name");
  s.Assume("sharding", "deepspeed", why);
  if (n.find("offload") != std::string::npos) {
    s.Assume("offload_optimizer", "cpu", why + ": the optimizer offloaded to the CPU, from the name");
    if (std::string(stage) == "3" && n.find("params") == std::string::npos && n.find("optim") == std::string::npos)
      s.Assume("offload_params", "cpu", why + ": ZeRO-3 offload files offload the parameters too, from the name");
    if (n.find("params") != std::string::npos || n.find("all") != std::string::npos)
      s.Assume("offload_params", "cpu", why + ": the parameters offloaded to the CPU, from the name");
  }
  return true;
}

const std::vector<KeyRow>& DeepSpeedRows() {
  static const std::vector<KeyRow> rows = {
      Handled("train_micro_batch_size_per_gpu",
              [](const SettingsEntry& e, ImportState& s) { DsCount(e, s, "batch", "the micro-batch per GPU"); },
              "the micro-batch per GPU"),
      Handled("gradient_accumulation_steps",
              [](const SettingsEntry& e, ImportState& s) { DsCount(e, s, "grad_accum", "micro-batches per step"); },
              "micro-batches per step"),
      Ignored("train_batch_size", "the global batch: micro-batch x accumulation x data-parallel GPUs"),
      Handled("zero_optimization.stage", DsStage, "the ZeRO stage"),
      Handled("zero_optimization.offload_optimizer.device",
              [](const SettingsEntry& e, ImportState& s) { DsOffload(e, s, "offload_optimizer"); }, "optimizer offload"),
      Handled("zero_optimization.offload_param.device",
              [](const SettingsEntry& e, ImportState& s) { DsOffload(e, s, "offload_params"); }, "parameter offload"),
      Ignored("zero_optimization.offload_optimizer.*", "the offload's pinning and NVMe path"),
      Ignored("zero_optimization.offload_param.*", "the offload's pinning and NVMe path"),
      Handled("zero_optimization.reduce_bucket_size",
              [](const SettingsEntry& e, ImportState& s) { DsBucket(e, s, "reduce_bucket"); }, "the reduce bucket"),
      Handled("zero_optimization.allgather_bucket_size",
              [](const SettingsEntry& e, ImportState& s) { DsBucket(e, s, "allgather_bucket"); }, "the all-gather bucket"),
      Handled("zero_optimization.stage3_prefetch_bucket_size",
              [](const SettingsEntry& e, ImportState& s) { DsBucket(e, s, "prefetch_bucket"); }, "ZeRO-3's prefetch bucket"),
      NotCounted("zero_optimization.stage3_max_live_parameters", "ZeRO-3's cap on gathered parameters (default 1e9)"),
      NotCounted("zero_optimization.stage3_max_reuse_distance", "ZeRO-3 keeps a gathered parameter this long"),
      NotCounted("zero_optimization.stage3_param_persistence_threshold",
                 "ZeRO-3 keeps parameters smaller than this whole on every GPU"),
      NotCounted("zero_optimization.sub_group_size", "the optimizer steps in groups of this many parameters"),
      NotCounted("zero_optimization.overlap_comm", "overlapping reduction keeps a second bucket in flight"),
      NotCounted("zero_optimization.zero_hpz_partition_size", "ZeRO++'s secondary copy of the parameters per node"),
      NotCounted("zero_optimization.zero_quantized_weights", "ZeRO++'s quantised all-gather"),
      NotCounted("zero_optimization.zero_quantized_gradients", "ZeRO++'s quantised reduce-scatter"),
      Ignored("zero_optimization.contiguous_gradients", "copies gradients into one buffer as they come (counted)"),
      Ignored("zero_optimization.reduce_scatter", "how gradients are reduced"),
      Ignored("zero_optimization.allgather_partitions", "how parameters are gathered"),
      Ignored("zero_optimization.round_robin_gradients", "gradient partition order"),
      Ignored("zero_optimization.stage3_gather_16bit_weights_on_model_save", "saving"),
      Ignored("zero_optimization.stage3_gather_fp16_weights_on_model_save", "saving"),
      Ignored("zero_optimization.load_from_fp32_weights", "loading"), Ignored("zero_optimization.elastic_checkpoint", "saving"),
      Ignored("zero_optimization.ignore_unused_parameters", "the graph walk"),
      Ignored("zero_optimization.memory_efficient_linear", "ZeRO-3's linear wrapper (default on)"),
      Sets("bf16.enabled", "dtype", "true=bf16 false= auto=bf16", "bf16 weights with fp32 master partitions"),
      Sets("fp16.enabled", "dtype", "true=fp16 false= auto=", "fp16 weights with fp32 master partitions and loss scaling"),
      Ignored("fp16.*", "loss scaling"), Ignored("bf16.*", "bf16's options"),
      NotCounted("amp.enabled", "apex AMP"), Ignored("amp.*", "apex AMP"),
      Sets("optimizer.type", "optimizer", "adamw=adamw adam=adamw fusedadam=adamw cpuadam=adamw onebitadam=adamw lamb=adamw "
                                          "adagrad=adamw lion=lion sgd=sgd",
           "DeepSpeed's optimizer (Adam-like states)"),
      Ignored("optimizer.params.*", "the optimizer's hyper-parameters"),
      Ignored("scheduler.*", "the schedule"), Ignored("gradient_clipping", "clipping"), Ignored("steps_per_print", "logging"),
      Ignored("wall_clock_breakdown", "logging"), Ignored("zero_allow_untested_optimizer", "a check"),
      Ignored("zero_force_ds_cpu_optimizer", "a check"), Ignored("prescale_gradients", "numerics"),
      Ignored("gradient_predivide_factor", "numerics"), Ignored("communication_data_type", "the reduction's format"),
      Ignored("seq_parallel_communication_data_type", "the reduction's format"),
      Ignored("flops_profiler.*", "profiling"), Ignored("tensorboard.*", "logging"), Ignored("wandb.*", "logging"),
      Ignored("csv_monitor.*", "logging"), Ignored("comms_logger.*", "logging"), Ignored("monitor_config.*", "logging"),
      NotCounted("activation_checkpointing.partition_activations",
                 "Megatron-DeepSpeed splits each checkpoint across tensor-parallel GPUs"),
      Sets("activation_checkpointing.cpu_checkpointing", "offload_activations", "true=on false=off",
           "checkpointed activations kept in CPU memory"),
      Ignored("activation_checkpointing.*", "Megatron-DeepSpeed's checkpointing options"),
      Sets("data_types.grad_accum_dtype", "grad_accum_fp32", "fp32=on bf16=off fp16=off", "the accumulation buffer's format"),
      NotCounted("hybrid_engine.*", "DeepSpeed-Chat's hybrid engine (generation in the trainer)"),
      NotCounted("compression_training.*", "compression"), Ignored("checkpoint.*", "saving"),
      Ignored("aio.*", "NVMe I/O"), Ignored("elasticity.*", "elastic batch"), Ignored("dump_state", "debugging"),
  };
  return rows;
}

void FinishDeepSpeed(ImportState& s) {
  if (s.Setting("zero") == nullptr) s.Assume("zero", "0", "the config has no zero_optimization.stage: DeepSpeed's default, 0");
  s.Assume("sharding", "deepspeed", "a DeepSpeed config");
}

// accelerate's config YAML (accelerate config / default_config.yaml).
const std::vector<KeyRow>& AccelerateRows() {
  static const std::vector<KeyRow> rows = {
      Handled("distributed_type", [](const SettingsEntry& e, ImportState& s) {
                const std::string v = AsciiLower(e.value);
                if (v == "fsdp") s.Set(e, "sharding", "fsdp", "accelerate with FSDP");
                else if (v == "deepspeed") s.Set(e, "sharding", "deepspeed", "accelerate with DeepSpeed");
                else if (v == "multi_gpu" || v == "no") s.Set(e, "zero", "0", "plain data parallelism (DDP) or one GPU");
                else if (v == "megatron_lm") s.Set(e, "framework", "megatron", "accelerate's Megatron-LM plugin");
                else s.NotCount(e, "a distributed_type llmmem does not count (" + e.value + ")");
              }, "how accelerate spreads the job"),
      Handled("mixed_precision", [](const SettingsEntry& e, ImportState& s) {
                const std::string v = AsciiLower(e.value);
                if (v == "bf16" || v == "fp16") s.Set(e, "autocast", v, "accelerate's autocast");
                else if (v == "no") s.Ignore(e, "no autocast");
                else s.NotCount(e, "mixed_precision " + e.value + " (fp8 is not counted)");
              }, "autocast"),
      Handled("num_processes", [](const SettingsEntry& e, ImportState& s) {
                s.SetGpus(e, e.value, "processes (one per GPU) over all machines");
              }, "GPUs"),
      Ignored("num_machines", "machines (num_processes counts every GPU)"),
      Handled("fsdp_config.*", FsdpConfigKey, "FSDP's settings"),
      Handled("deepspeed_config.zero_stage", DsStage, "the ZeRO stage"),
      Handled("deepspeed_config.offload_optimizer_device",
              [](const SettingsEntry& e, ImportState& s) { DsOffload(e, s, "offload_optimizer"); }, "optimizer offload"),
      Handled("deepspeed_config.offload_param_device",
              [](const SettingsEntry& e, ImportState& s) { DsOffload(e, s, "offload_params"); }, "parameter offload"),
      Sets("deepspeed_config.gradient_accumulation_steps", "grad_accum", "", "micro-batches per step"),
      File("deepspeed_config.deepspeed_config_file", "DeepSpeed's own JSON: give it too (--from ds.json)"),
      Ignored("deepspeed_config.*", "DeepSpeed's launch and saving options"),
      Sets("megatron_lm_config.megatron_lm_tp_degree", "tp", "", "tensor parallelism"),
      Sets("megatron_lm_config.megatron_lm_pp_degree", "pp", "", "pipeline parallelism"),
      Sets("megatron_lm_config.megatron_lm_num_micro_batches", "grad_accum", "", "micro-batches"),
      Sets("megatron_lm_config.megatron_lm_sequence_parallelism", "sp", "true=on false=off", "sequence parallelism"),
      Sets("megatron_lm_config.megatron_lm_recompute_activations", "recompute", "true=selective false=", "recompute"),
      Ignored("megatron_lm_config.*", "Megatron's other options"),
      Ignored("compute_environment", "where it runs"), Ignored("machine_rank", "rank"), Ignored("main_process_ip", "network"),
      Ignored("main_process_port", "network"), Ignored("main_training_function", "entry point"), Ignored("rdzv_backend", "rendezvous"),
      Ignored("same_network", "network"), Ignored("tpu_env", "TPUs"), Ignored("tpu_env[]", "TPUs"), Ignored("tpu_use_cluster", "TPUs"),
      Ignored("tpu_use_sudo", "TPUs"), Ignored("use_cpu", "device"), Ignored("gpu_ids", "which GPUs"), Ignored("debug", "debugging"),
      Ignored("downcast_bf16", "TPUs"), Ignored("enable_cpu_affinity", "CPU affinity"), Ignored("dynamo_config.*", "compile"),
      Ignored("ipex_config.*", "Intel CPUs"), Ignored("mpirun_config.*", "MPI"),
  };
  return rows;
}

void FinishAccelerate(ImportState& s) {
  const ProgramSetting* sharding = s.Setting("sharding");
  if (sharding != nullptr && sharding->value == "fsdp" && s.Setting("zero") == nullptr)
    s.Assume("zero", "3", "fsdp_sharding_strategy defaults to FULL_SHARD (accelerate utils/dataclasses.py@v1.10.1)");
}

// Launchers' own flags (before the script) and the environment they read.
const std::vector<KeyRow>& LauncherRows() {
  static const std::vector<KeyRow> rows = {
      GpusPerNode("torchrun.nproc_per_node", "torchrun.nnodes", "torchrun: processes per node"),
      Ignored("torchrun.nnodes", "nodes (counted with nproc_per_node)"),
      Ignored("torchrun.*", "the launcher's rendezvous"),
      Sets("accelerate.num_processes", "gpus", "", "processes (one per GPU)"),
      File("accelerate.config_file", "accelerate's config YAML: give it too"),
      Handled("accelerate.mixed_precision", [](const SettingsEntry& e, ImportState& s) {
                const std::string v = AsciiLower(e.value);
                if (v == "bf16" || v == "fp16") s.Set(e, "autocast", v, "accelerate's autocast");
                else s.Ignore(e, "no autocast");
              }, "autocast"),
      Sets("accelerate.use_fsdp", "sharding", "true=fsdp", "accelerate with FSDP"),
      Sets("accelerate.use_deepspeed", "sharding", "true=deepspeed", "accelerate with DeepSpeed"),
      Handled("accelerate.fsdp_*", FsdpConfigKey, "FSDP's settings"),
      Handled("accelerate.zero_stage", DsStage, "the ZeRO stage"),
      File("accelerate.deepspeed_config_file", "DeepSpeed's JSON: give it too"),
      Ignored("accelerate.*", "the launcher's own settings"),
      GpusPerNode("deepspeed.num_gpus", "deepspeed.num_nodes", "the deepspeed launcher: GPUs per node"),
      Ignored("deepspeed.*", "the launcher's own settings"),
      GpusPerNode("env.NPROC_PER_NODE", "env.NNODES", "ms-swift / LLaMA-Factory's NPROC_PER_NODE"),
      Handled("env.CUDA_VISIBLE_DEVICES", [](const SettingsEntry& e, ImportState& s) {
                s.Ignore(e, "which GPUs are visible");
                if (s.Find("env.NPROC_PER_NODE") != nullptr || s.Find("torchrun.nproc_per_node") != nullptr ||
                    s.Find("accelerate.num_processes") != nullptr || s.Find("deepspeed.num_gpus") != nullptr)
                  return;
                int64_t n = e.value.empty() ? 0 : 1;
                for (char c : e.value) n += c == ',';
                if (n > 0) s.Assume("gpus", std::to_string(n), "CUDA_VISIBLE_DEVICES=" + e.value + ": that many GPUs");
              }, "visible GPUs"),
      Ignored("env.*", "an environment variable"),
  };
  return rows;
}

}  // namespace llmmem::core::program_files
