// The stack table (stacks.h). Each row states only what its program's code decides; a row
// repeats nothing of the row before it of the same program (BuildRows carries those cells
// forward). Cells name settings the estimate already has. Where a program does something the
// row leaves at the core's default, the row's comment says so and why.
#include "core/config/stacks.h"

#include <cstdlib>

#include "core/config/config_json.h"
#include "core/config/fields.h"

namespace llmmem::core {
namespace {

constexpr unsigned kQlora = ModeBit(Mode::kQlora);
constexpr unsigned kFullAndLora = kFullModes | ModeBit(Mode::kLora);

// The rows as written: each lists what changed from the row before it of the same name.
std::vector<StackRow> WrittenRows() {
  return {
      // transformers' Trainer with accelerate and peft; the version is transformers'.
      // Left at the core's defaults on purpose (issue 30 keeps today's estimates): accelerate's
      // FSDP plugin defaults to FSDP1 (fsdp_version 1), and a model loaded in bf16 trains without
      // an fp32 master copy; peft's prepare_model_for_kbit_training also casts the norms, the
      // embeddings and the head to fp32, which the core models only under AMP (norms_fp32).
      {"hf-trainer",
       "4.0",
       "HF Trainer (transformers + accelerate + peft)",
       {
           {"recompute", "none", kFullAndLora,
            "TrainingArguments.gradient_checkpointing defaults to False (transformers "
            "src/transformers/training_args.py)"},
           {"recompute", "full", kQlora,
            "peft prepare_model_for_kbit_training(use_gradient_checkpointing=True), the QLoRA recipe's call: "
            "huggingface/peft src/peft/utils/other.py@v0.20.0 (gradient_checkpointing_enable() at its end)"},
           {"reentrant_checkpoint", "on", kTrainModes,
            "gradient_checkpointing_enable() passes use_reentrant=True when not told (transformers "
            "modeling_utils.py, since 4.35; the comment in huggingface/trl trl/trainer/sft_trainer.py@v1.9.0 "
            "confirms it for transformers < 5)"},
           {"framework", "hf-eager", kTrainModes,
            "before 4.36 transformers ran attn_implementation=\"eager\" (SDPA became the default in v4.36.0's "
            "release notes)"},
           {"loss_shift_copy", "on", kTrainModes,
            "the model's forward (to 4.45) and loss/loss_utils.py ForCausalLMLoss (4.46-4.48) copy the shifted "
            "logits: logits[..., :-1, :].contiguous()"},
           {"grads_set_to_none", "off", kTrainModes,
            "Trainer calls model.zero_grad(); PyTorch before 2.0 defaulted to set_to_none=False (the row assumes "
            "the PyTorch of its time)"},
       }},
      {"hf-trainer",
       "4.36",
       "HF Trainer (transformers + accelerate + peft)",
       {
           {"framework", "hf-sdpa", kTrainModes,
            "attn_implementation=\"sdpa\" is the default from v4.36.0 (modeling_utils.py _check_and_enable_sdpa)"},
           {"grads_set_to_none", "on", kTrainModes,
            "model.zero_grad() under PyTorch >= 2.0 (set_to_none=True is its default since 2.0)"},
       }},
      {"hf-trainer",
       "4.49",
       "HF Trainer (transformers + accelerate + peft)",
       {
           {"loss_shift_copy", "off", kTrainModes,
            "transformers PR #35646 (2025-01) pads the labels instead of copying the shifted logits; 4.48 was the "
            "last release with the copy"},
       }},

      // TRL's trainers on the HF Trainer; only what TRL itself decides (the rest follows the
      // latest hf-trainer row, as TRL does not fix the transformers version).
      {"trl",
       "0.1",
       "TRL (SFTTrainer and friends, on the HF Trainer)",
       {
           {"recompute", "none", kTrainModes,
            "SFTConfig inherits TrainingArguments.gradient_checkpointing=False, and SFTTrainer calls "
            "prepare_model_for_kbit_training(use_gradient_checkpointing=args.gradient_checkpointing) "
            "(huggingface/trl trl/trainer/sft_trainer.py@v0.7.11, lines 183-194)"},
           {"loss_shift_copy", "on", kTrainModes,
            "TRL before 0.15 ran on transformers <= 4.48 (setup.py@v0.15.0 first asks transformers>=4.46), "
            "whose loss copies the shifted logits (assumed: the transformers of its time)"},
       }},
      {"trl",
       "0.15",
       "TRL (SFTTrainer and friends, on the HF Trainer)",
       {
           {"loss_shift_copy", "off", kTrainModes,
            "from 0.15 (transformers>=4.46) the transformers version is not fixed: the latest hf-trainer row's"},
       }},
      {"trl",
       "0.22",
       "TRL (SFTTrainer and friends, on the HF Trainer)",
       {
           {"recompute", "full", kTrainModes,
            "\"New defaults: gradient_checkpointing=True\" (huggingface/trl PR #3510, first in v0.22.0; "
            "trl/trainer/base_config.py@v1.9.0 line 61)"},
       }},
      {"trl",
       "0.28",
       "TRL (SFTTrainer and friends, on the HF Trainer)",
       {
           {"reentrant_checkpoint", "off", kTrainModes,
            "SFTTrainer sets gradient_checkpointing_kwargs.setdefault(\"use_reentrant\", False) under transformers "
            "< 5 (huggingface/trl trl/trainer/sft_trainer.py@v1.9.0 line 1334; first in v0.28.0, PR #4951)"},
       }},

      // Axolotl on the HF Trainer.
      {"axolotl",
       "0.18",
       "Axolotl (YAML configs on the HF Trainer)",
       {
           {"recompute", "none", kTrainModes,
            "gradient_checkpointing defaults to False (axolotl-ai-cloud/axolotl "
            "src/axolotl/utils/schemas/config.py@v0.18.0 line 600), and QLoRA calls "
            "prepare_model_for_kbit_training(use_gradient_checkpointing=cfg.gradient_checkpointing) "
            "(src/axolotl/loaders/model.py line 1021)"},
           {"reentrant_checkpoint", "on", kTrainModes,
            "when on, gradient_checkpointing_kwargs = {\"use_reentrant\": True} "
            "(src/axolotl/utils/config/__init__.py@v0.18.0 line 383)"},
       }},

      // LLaMA-Factory on the HF Trainer.
      {"llama-factory",
       "0.9.5",
       "LLaMA-Factory (on the HF Trainer)",
       {
           {"recompute", "full", kTrainModes,
            "disable_gradient_checkpointing defaults to False: checkpointing is on (hiyouga/LLaMA-Factory "
            "src/llamafactory/hparams/model_args.py@v0.9.5 line 145)"},
           {"reentrant_checkpoint", "on", kTrainModes,
            "use_reentrant_gc defaults to True (model_args.py@v0.9.5 line 149; "
            "model/model_utils/checkpointing.py passes it on)"},
       }},

      // ms-swift on the HF Trainer (its Megatron path is the megatron stack).
      {"ms-swift",
       "4.5",
       "ms-swift (ModelScope SWIFT, on the HF Trainer)",
       {
           {"recompute", "full", kTrainModes,
            "gradient_checkpointing: bool = True (modelscope/ms-swift swift/trainers/arguments.py@v4.5.2 line 134)"},
       }},

      // Unsloth: peft models through its own get_peft_model.
      {"unsloth",
       "2026.8",
       "Unsloth",
       {
           {"recompute", "full", kPeftModes,
            "get_peft_model(use_gradient_checkpointing=\"unsloth\") (unslothai/unsloth unsloth/models/llama.py@"
            "015bdef line 3079)"},
           {"offload_activations", "on", kPeftModes,
            "\"unsloth\" checkpointing keeps each checkpointed layer input on the CPU "
            "(unsloth_zoo's unsloth_offloaded_gradient_checkpoint, imported by unsloth/models/_utils.py@015bdef)"},
           {"reentrant_checkpoint", "on", kTrainModes,
            "prepare_model_for_kbit_training(use_reentrant=True) (unsloth/models/_utils.py@015bdef line 2482)"},
           {"loss_kernel", "inplace", kTrainModes,
            "Unsloth's Fast_CrossEntropyLoss writes the logits' gradient in place (kernels/cross_entropy_loss.py)"},
       }},

      // torchtune recipes: the model in bf16, no fp32 master copy.
      {"torchtune",
       "0.1",
       "torchtune",
       {
           {"master_weights", "off", kTrainModes,
            "\"When dtype=bf16, all activations, gradients and optimizer states are in bfloat16\" (pytorch/torchtune "
            "recipes/full_finetune_single_device.py@v0.6.1 lines 59-61; the LoRA recipes alike)"},
           {"grad_dtype", "bf16", kTrainModes, "the gradients follow the bf16 parameters (same docstring)"},
           {"optimizer_dtype", "bf16", kTrainModes, "AdamW's states follow the bf16 parameters (same docstring)"},
           {"adapter_dtype", "bf16", kPeftModes, "the LoRA parameters are created in the model's dtype, bf16"},
           {"reentrant_checkpoint", "off", kTrainModes,
            "set_activation_checkpointing calls apply_activation_checkpointing, whose checkpoint_wrapper defaults "
            "to CheckpointImpl.NO_REENTRANT (torchtune/utils/memory.py@v0.1.0 line 20; explicit in "
            "torchtune/training/activations.py@v0.3.0 line 24)"},
           {"fsdp1", "on", kTrainModes,
            "the distributed recipes wrap the model in FullyShardedDataParallel (recipes/full_finetune_distributed.py"
            "@v0.2.0 line 319)"},
           {"sharding", "fsdp", kTrainModes, "the distributed recipes shard with PyTorch FSDP, not DeepSpeed"},
           {"loss_kernel", "torch", kTrainModes,
            "configs use torch.nn.CrossEntropyLoss (recipes/configs/llama3/8B_full.yaml@v0.2.0 line 57)"},
       }},
      {"torchtune",
       "0.3",
       "torchtune",
       {
           {"fsdp1", "off", kTrainModes,
            "training.shard_model applies FSDP2's fully_shard (torchtune/training/_distributed.py@v0.3.0; "
            "recipes/full_finetune_distributed.py@v0.3.0 line 407)"},
           {"loss_kernel", "chunked", kTrainModes,
            "configs use torchtune.modules.loss.CEWithChunkedOutputLoss (recipes/configs/llama3/8B_full.yaml@v0.3.0 "
            "line 58)"},
       }},

      // torchtitan: FSDP2 mixed precision (fp32 sharded parameters, bf16 compute, fp32 reduce).
      {"torchtitan",
       "0",
       "torchtitan",
       {
           {"master_weights", "on", kTrainModes,
            "FSDP2 keeps fp32 sharded parameters and computes in mixed_precision_param = \"bfloat16\" "
            "(pytorch/torchtitan torchtitan/config/configs.py@b5bcd76 line 94)"},
           {"grad_dtype", "fp32", kTrainModes, "mixed_precision_reduce = \"float32\" (configs.py@b5bcd76 line 102)"},
           {"optimizer_dtype", "fp32", kTrainModes, "AdamW's states follow the fp32 sharded parameters"},
           {"fsdp1", "off", kTrainModes, "FSDP2's fully_shard (torchtitan/distributed/fsdp.py@b5bcd76 line 159)"},
           {"sharding", "fsdp", kTrainModes, "data parallelism is FSDP's (fully_shard), not DeepSpeed's"},
           {"reentrant_checkpoint", "off", kTrainModes,
            "ptd_checkpoint_wrapper, PyTorch's non-reentrant default "
            "(torchtitan/distributed/activation_checkpoint.py@b5bcd76 line 176)"},
       }},

      // litgpt on Lightning Fabric; its config_hub recipes train in bf16-true.
      {"litgpt",
       "0.4",
       "LitGPT (Lightning Fabric)",
       {
           {"master_weights", "off", kTrainModes,
            "config_hub/finetune recipes set precision: bf16-true (weights, gradients and AdamW states in bf16); "
            "the bare CLI's default is bf16-mixed (litgpt/utils.py get_default_supported_precision)"},
           {"grad_dtype", "bf16", kTrainModes, "precision bf16-true: the gradients in bf16"},
           {"optimizer_dtype", "bf16", kTrainModes, "precision bf16-true: AdamW's states in bf16"},
           {"adapter_dtype", "bf16", kPeftModes, "precision bf16-true: the adapters in bf16 too"},
           {"sharding", "fsdp", kTrainModes, "multi-GPU recipes shard with Fabric's FSDPStrategy, PyTorch FSDP"},
           {"fsdp1", "on", kTrainModes,
            "Fabric's FSDPStrategy wraps FullyShardedDataParallel (Lightning-AI/litgpt litgpt/finetune/full.py"
            "@v0.4.12 line 100)"},
           {"reentrant_checkpoint", "off", kTrainModes,
            "FSDPStrategy(activation_checkpointing_policy={Block}): PyTorch's non-reentrant checkpoint_wrapper"},
           {"bnb_saves_inputs", "on", kQlora,
            "litgpt pins bitsandbytes==0.42.0 (pyproject.toml@v0.4.12 line 41), whose MatMul4Bit keeps its input"},
           {"quantized_head", "on", kQlora,
            "Lightning's BitsandbytesPrecision converts every nn.Linear, the head too "
            "(fabric/plugins/precision/bitsandbytes.py)"},
       }},

      // Answer.AI's fsdp_qlora train.py.
      {"fsdp-qlora",
       "0",
       "fsdp_qlora (Answer.AI train.py)",
       {
           {"recompute", "full", kTrainModes,
            "use_gradient_checkpointing: bool = True (AnswerDotAI/fsdp_qlora train.py@05ed9f2 line 1048)"},
           {"reentrant_checkpoint", "off", kTrainModes, "reentrant_checkpointing: bool = False (train.py line 1049)"},
           {"fsdp1", "on", kTrainModes, "model = FSDP(...) (train.py line 753)"},
           {"sharding", "fsdp", kTrainModes, "PyTorch FSDP shards the model (train.py line 753)"},
       }},

      // DeepSpeed (its HF integration and DeepSpeed-Chat): ZeRO's fp32 partitions.
      {"deepspeed",
       "0",
       "DeepSpeed (HF integration, DeepSpeed-Chat)",
       {
           {"sharding", "deepspeed", kTrainModes, "DeepSpeed's buckets (reduce_bucket_size, allgather_bucket_size)"},
           {"master_weights", "on", kTrainModes, "ZeRO keeps fp32 master partitions (Rajbhandari et al. 2020, §3)"},
           {"grad_dtype", "fp32", kTrainModes, "DeepSpeed's fp32 gradient partitions (ZeRO §3: 16 bytes per parameter)"},
       }},

      // Megatron-Core, NeMo and Megatron-Bridge.
      {"megatron",
       "0",
       "Megatron-Core (NeMo, Megatron-Bridge)",
       {
           {"framework", "megatron", kTrainModes,
            "Megatron-Core with Transformer Engine's fused kernels (Korthikanti et al. 2022's accounting)"},
           {"grad_dtype", "fp32", kTrainModes,
            "main_grad: fp32 gradient buffers (megatron/core/distributed/param_and_grad_buffer.py, "
            "accumulate_allreduce_grads_in_fp32)"},
           {"master_weights", "on", kTrainModes, "Float16OptimizerWithFloat16Params keeps fp32 main parameters"},
       }},

      // verl: a colocated hybrid engine (FSDP actor and vLLM rollout on the same GPUs).
      {"verl",
       "0.7",
       "verl",
       {
           {"rollout_engine", "on", ModeBit(Mode::kRlhf),
            "the rollout engine is colocated with the actor (hybrid engine); its gpu_memory_utilization is 0.5 "
            "(volcengine/verl verl/trainer/config/rollout/rollout.yaml@v0.7.0 line 32)"},
           {"recompute", "full", kTrainModes,
            "enable_gradient_checkpointing: True (verl/trainer/config/model/hf_model.yaml@v0.7.0 line 34)"},
           {"reentrant_checkpoint", "off", kTrainModes,
            "gradient_checkpointing_enable(gradient_checkpointing_kwargs={\"use_reentrant\": False}) "
            "(verl/workers/fsdp_workers.py@v0.7.0 line 440)"},
           {"fsdp1", "on", kTrainModes, "actor strategy: fsdp (verl/trainer/config/actor/dp_actor.yaml@v0.7.0 line 26)"},
           {"sharding", "fsdp", kTrainModes, "the actor is sharded by PyTorch FSDP (strategy: fsdp)"},
       }},

      // OpenRLHF's Ray PPO: vLLM engines on their own GPUs unless --train.colocate_all.
      {"openrlhf",
       "0.11",
       "OpenRLHF",
       {
           {"rollout_engine", "off", ModeBit(Mode::kRlhf),
            "vLLM engines run on their own GPUs unless --train.colocate_all (OpenRLHF/OpenRLHF "
            "openrlhf/cli/train_ppo_ray.py@v0.11.0 line 224)"},
           {"recompute", "none", kTrainModes,
            "--actor.gradient_checkpointing_enable defaults to False (train_ppo_ray.py@v0.11.0 line 309)"},
           {"reentrant_checkpoint", "off", kTrainModes,
            "--actor.gradient_checkpointing_reentrant defaults to False (train_ppo_ray.py@v0.11.0 line 339)"},
       }},
  };
}

// Each row with the cells of the rows before it of the same name carried forward: a later
// cell replaces an earlier one for the modes it names.
std::vector<StackRow> BuildRows() {
  std::vector<StackRow> rows = WrittenRows();
  for (size_t i = 1; i < rows.size(); ++i) {
    if (std::string(rows[i].name) != rows[i - 1].name) continue;
    std::vector<StackCell> cells = rows[i].cells;
    for (StackCell old : rows[i - 1].cells) {
      for (const StackCell& now : rows[i].cells) {
        if (std::string(now.field) == old.field) old.modes &= ~now.modes;
      }
      if (old.modes != 0) cells.push_back(old);
    }
    rows[i].cells = std::move(cells);
  }
  return rows;
}

// "4.48.1" < "4.49": dotted numbers compared part by part; false when not a version.
bool ParseVersion(const std::string& text, std::vector<long>& out) {
  out.clear();
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find('.', i);
    if (j == std::string::npos) j = text.size();
    const std::string part = text.substr(i, j - i);
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos) return false;
    out.push_back(std::strtol(part.c_str(), nullptr, 10));
    i = j + 1;
    if (j == text.size() - 1) return false;  // a trailing dot
  }
  return !out.empty();
}

bool VersionLess(const std::vector<long>& a, const std::vector<long>& b) {
  for (size_t i = 0; i < a.size() || i < b.size(); ++i) {
    const long x = i < a.size() ? a[i] : 0, y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y;
  }
  return false;
}

std::string VersionsOf(const std::string& name) {
  std::string out;
  for (const StackRow& r : StackRows()) {
    if (name != r.name) continue;
    out += (out.empty() ? "" : ", ") + name + "@" + r.version;
  }
  return out;
}

// A field's text in the form its getter writes it ("on" -> "1").
std::string Canonical(const FieldDef& f, const char* text) {
  Config probe;
  if (!f.set(probe, text).empty()) return text;
  return f.get(probe);
}

const StackCell* CellFor(const StackRow* row, Mode mode, const std::string& field) {
  if (row == nullptr) return nullptr;
  for (const StackCell& cell : row->cells) {
    if ((cell.modes & ModeBit(mode)) != 0 && field == cell.field) return &cell;
  }
  return nullptr;
}

std::string DefaultOf(const StackRow* row, Mode mode, const FieldDef& f) {
  if (const StackCell* cell = CellFor(row, mode, f.name)) return Canonical(f, cell->value);
  static const Config plain;
  return f.get(plain);
}

}  // namespace

const std::vector<StackRow>& StackRows() {
  static const std::vector<StackRow> rows = BuildRows();
  return rows;
}

const StackRow* FindStack(const std::string& text, std::string* error) {
  const size_t at = text.find('@');
  const std::string name = text.substr(0, at);
  const std::string version = at == std::string::npos ? "" : text.substr(at + 1);
  const StackRow* latest = nullptr;
  for (const StackRow& r : StackRows()) {
    if (name == r.name) latest = &r;
  }
  if (latest == nullptr) {
    if (error) *error = "\"" + name + "\" is not a training program; one of: " + KnownStacks();
    return nullptr;
  }
  if (version.empty() || version == "latest") return latest;
  std::vector<long> wanted;
  if (!ParseVersion(version, wanted)) {
    if (error) *error = "\"" + version + "\" is not a version (like 4.46 or 0.3.1); " + name + "'s rows: " + VersionsOf(name);
    return nullptr;
  }
  const StackRow* pick = nullptr;
  for (const StackRow& r : StackRows()) {
    std::vector<long> v;
    if (name == r.name && ParseVersion(r.version, v) && !VersionLess(wanted, v)) pick = &r;
  }
  if (pick == nullptr && error)
    *error = name + "@" + version + " is older than any row of " + name + ": " + VersionsOf(name);
  return pick;
}

std::string StackNames() {
  std::string out;
  const char* last = "";
  for (const StackRow& r : StackRows()) {
    if (std::string(r.name) == last) continue;
    last = r.name;
    out += (out.empty() ? "" : ", ") + std::string(r.name);
  }
  return out;
}

std::string KnownStacks() {
  std::string rows;
  for (const StackRow& r : StackRows()) rows += (rows.empty() ? "" : ", ") + std::string(r.name) + "@" + r.version;
  return StackNames() + " (NAME@VERSION picks the row for that version; rows: " + rows + ")";
}

std::string StackDefault(const std::string& stack, Mode mode, const char* field) {
  const FieldDef* f = FindField(field);
  if (f == nullptr) return {};
  return DefaultOf(FindStack(stack), mode, *f);
}

void FollowStack(Config& c, const std::string& old_stack, Mode old_mode) {
  const StackRow* before = FindStack(old_stack);
  const StackRow* now = FindStack(c.stack);
  // Every field either row names, each once.
  std::vector<const FieldDef*> fields;
  for (const StackRow* row : {before, now}) {
    if (row == nullptr) continue;
    for (const StackCell& cell : row->cells) {
      const FieldDef* f = FindField(cell.field);
      bool seen = false;
      for (const FieldDef* g : fields) seen = seen || g == f;
      if (f != nullptr && !seen) fields.push_back(f);
    }
  }
  for (const FieldDef* f : fields) {
    const std::string was = DefaultOf(before, old_mode, *f);
    const std::string will = DefaultOf(now, c.mode, *f);
    if (was != will && f->get(c) == was) f->set(c, will);
  }
}

bool SetFollowingStack(Config& c, const std::string& key, const std::string& value, Diagnostics& out) {
  const std::string old_stack = c.stack;
  const Mode old_mode = c.mode;
  const FieldDef* f = FindField(key);
  if (f == nullptr || (std::string(f->name) != "stack" && std::string(f->name) != "mode")) {
    return SetField(c, key, value, out);
  }
  const std::string err = f->set(c, value);
  if (!err.empty()) {
    out.push_back({DiagId::kUnknownValue, Severity::kError, f->name, std::string(f->name) + ": " + err});
    return false;
  }
  FollowStack(c, old_stack, old_mode);
  return true;
}

void AddStackNotes(const Config& c, Diagnostics& out) {
  std::string error;
  const StackRow* row = FindStack(c.stack, &error);
  if (row == nullptr) return;
  static const Config plain;
  const std::string given = c.stack.find('@') == std::string::npos ? std::string(row->name) + "@latest" : c.stack;
  const std::string which = given + (given == std::string(row->name) + "@" + row->version ? "" : std::string(" (row ") + row->version + ")");
  for (const FieldDef& f : Fields()) {
    const StackCell* cell = CellFor(row, c.mode, f.name);
    if (cell == nullptr) continue;
    const std::string value = Canonical(f, cell->value);
    if (f.get(c) != value || f.get(plain) == value) continue;
    out.push_back({DiagId::kFromStack, Severity::kInfo, f.name,
                   std::string(f.name) + " = " + cell->value + ": as " + which + " runs it (" + cell->why + ")"});
  }
}

}  // namespace llmmem::core
