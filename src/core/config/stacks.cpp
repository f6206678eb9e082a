// The stack table (stacks.h). Each row states only what its program's code decides; a row
// repeats nothing of the row before it of the same program (BuildRows carries those cells
// forward). Cells name settings the estimate already has. Where a program does something the
// row leaves at the core's default, the row's comment says so and why.
#include "core/config/stacks.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "core/config/config_json.h"
#include "core/config/fields.h"
#include "core/catalogue/presets.h"

namespace llmmem::core {
namespace {

constexpr unsigned kQlora = ModeBit(Mode::kQlora);
constexpr unsigned kFullAndLora = kFullModes | ModeBit(Mode::kLora);

// Conditions (StackCell::when) the HF Trainer's cells share.
// No DeepSpeed: the Trainer's own torch optimizer steps the parameters (ZeRO > 0 without FSDP
// is DeepSpeed, whose fp32 partitions are the core's defaults).
constexpr const char* kNoDeepSpeed = "zero=0 or sharding=fsdp";
// accelerate's FSDP under mixed precision (bf16=True / fp16=True: autocast).
constexpr const char* kFsdpAmp = "sharding=fsdp and autocast!=off";
// transformers' GPTBigCode (santacoder, starcoder): learned positions, LayerNorm, multi_query.
#define LLMMEM_GPT_BIGCODE "arch=decoder and norm=layernorm and learned_positions>0 and kv_heads=1 and framework!=megatron"

// The rows as written: each lists what changed from the row before it of the same name.
std::vector<StackRow> WrittenRows() {
  return {
      // transformers' Trainer with accelerate and peft; the version is transformers'.
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
           {"fsdp1", "on", kTrainModes,
            "accelerate's FSDP plugin: fsdp_version defaults to 1, FullyShardedDataParallel (huggingface/accelerate "
            "src/accelerate/utils/dataclasses.py@v1.10.1 lines 1606, 1768)",
            "sharding=fsdp"},
           // Pure 16-bit: the Trainer's torch.optim.AdamW steps the parameters as loaded, no fp32
           // copy, and its states are zeros_like(param).
           {"master_weights", "off", kFullModes,
            "the Trainer's torch optimizer steps the parameters as loaded: no fp32 copy",
            kNoDeepSpeed},
           {"optimizer_dtype", "bf16", kFullModes,
            "AdamW's states are zeros_like(param) (pytorch/pytorch torch/optim/adamw.py@002d2f0)",
            "dtype=bf16 and zero=0 or dtype=bf16 and sharding=fsdp"},
           {"optimizer_dtype", "fp16", kFullModes, "AdamW's states are zeros_like(param) (adamw.py@002d2f0)",
            "dtype=fp16 and zero=0 or dtype=fp16 and sharding=fsdp"},
           {"grad_dtype", "fp32", kFullModes, "a parameter's .grad has its dtype",
            "dtype=fp32"},
           {"grad_dtype", "fp16", kFullModes, "a parameter's .grad has its dtype", "dtype=fp16 and zero=0 or dtype=fp16 and sharding=fsdp"},
           {"adapter_dtype", "fp32", kPeftModes,
            "get_peft_model(autocast_adapter_dtype=True) upcasts the adapters (huggingface/peft src/peft/mapping.py"
            "@v0.13.2 line 143, tuners/tuners_utils.py _cast_adapter_dtype)"},
           // The QLoRA recipe's prepare_model_for_kbit_training: the norms in fp32 (the core
           // models them under AMP); the embeddings and head it also casts, and TRL casts back.
           {"norms_fp32", "on", kQlora,
            "prepare_model_for_kbit_training casts the 16-bit parameters to fp32 (huggingface/peft "
            "src/peft/utils/other.py@v0.13.2 lines 127-132); TRL skips it under FSDP or ZeRO-3 "
            "(trl/trainer/sft_trainer.py@v0.13.0 lines 182-193)",
            "autocast!=off and sharding!=fsdp and zero!=3 and framework!=megatron"},
           // transformers' GPTBigCode at v4.48.1 (modeling_gpt_bigcode.py), read there; its
           // later versions were not read.
           {"train_use_cache", "on", kTrainModes,
            "GPTBigCodeModel.forward keeps the config's use_cache under checkpointing (transformers "
            "src/transformers/models/gpt_bigcode/modeling_gpt_bigcode.py@v4.48.1)",
            "recompute=full and " LLMMEM_GPT_BIGCODE},
           {"loss_logits_fp32", "off", kTrainModes,
            "GPTBigCodeForCausalLM's own loss: CrossEntropyLoss on the 16-bit logits (modeling_gpt_bigcode.py@v4.48.1)",
            LLMMEM_GPT_BIGCODE},
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
      // accelerate 0.30.0 (2024-05-03) upcasts FSDP's flat parameters under mixed precision;
      // the row assumes the accelerate of its time (transformers v4.41.0: 2024-05-17).
      {"hf-trainer",
       "4.41",
       "HF Trainer (transformers + accelerate + peft)",
       {
           {"master_weights", "on", kFullModes,
            "under mixed precision accelerate upcasts FSDP's trainable flat parameters to fp32 "
            "(huggingface/accelerate src/accelerate/accelerator.py@v0.30.0 lines 1486-1525)",
            kFsdpAmp},
           {"grad_dtype", "fp32", kFullModes, "the upcast parameters' gradients",
            kFsdpAmp},
           {"optimizer_dtype", "fp32", kFullModes, "AdamW's states follow the upcast parameters", kFsdpAmp},
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
       },
       "hf-trainer@4.36"},
      // TRL 0.9 (v0.9.6: 2024-07-08) on the transformers and accelerate of its time.
      {"trl", "0.9", "TRL (SFTTrainer and friends, on the HF Trainer)", {}, "hf-trainer@4.41"},
      {"trl",
       "0.15",
       "TRL (SFTTrainer and friends, on the HF Trainer)",
       {
           {"loss_shift_copy", "off", kTrainModes,
            "from 0.15 (transformers>=4.46) the transformers version is not fixed: the latest hf-trainer row's"},
       },
       "hf-trainer"},
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
       },
       "hf-trainer"},

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
       },
       "hf-trainer"},

      // ms-swift on the HF Trainer (its Megatron path is the megatron stack).
      {"ms-swift",
       "4.5",
       "ms-swift (ModelScope SWIFT, on the HF Trainer)",
       {
           {"recompute", "full", kTrainModes,
            "gradient_checkpointing: bool = True (modelscope/ms-swift swift/trainers/arguments.py@v4.5.2 line 134)"},
       },
       "hf-trainer"},

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
           {"loss_kernel", "loss_parallel", kTrainModes,
            "loss_parallel_enabled = tp > 1 and not disable_loss_parallel (torchtitan/parallelisms/"
            "parallel_dims.py@9dec370 line 120)",
            "tp>1"},
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

// The row of `rows` that "NAME[@VERSION]" picks (stacks.h), or null; `error` says why.
const StackRow* PickRow(const std::vector<StackRow>& rows, const std::string& text, std::string* error);

// `cells` followed by those of `older` that `cells` do not replace: a later cell replaces an
// earlier one of its field and condition for the modes it names. The first cell that holds
// decides (CellFor), so a later unconditional cell shadows every earlier one of its field.
std::vector<StackCell> Over(std::vector<StackCell> cells, const std::vector<StackCell>& older) {
  const size_t own = cells.size();
  for (StackCell old : older) {
    for (size_t i = 0; i < own; ++i) {
      if (std::string(cells[i].field) == old.field && std::string(cells[i].when) == old.when)
        old.modes &= ~cells[i].modes;
    }
    if (old.modes != 0) cells.push_back(old);
  }
  return cells;
}

// Each row with the cells of the rows before it of the same name carried forward, then those
// of the row it runs on (StackRow::on) for what it does not name.
std::vector<StackRow> BuildRows() {
  std::vector<StackRow> rows = WrittenRows();
  for (size_t i = 1; i < rows.size(); ++i) {
    if (std::string(rows[i].name) != rows[i - 1].name) continue;
    rows[i].cells = Over(rows[i].cells, rows[i - 1].cells);
    if (*rows[i].on == '\0') rows[i].on = rows[i - 1].on;
  }
  for (StackRow& r : rows) {
    if (*r.on == '\0') continue;
    const StackRow* base = PickRow(rows, r.on, nullptr);
    if (base != nullptr && base != &r) r.cells = Over(r.cells, base->cells);
  }
  return rows;
}

std::string VersionsOf(const std::vector<StackRow>& rows, const std::string& name) {
  std::string out;
  for (const StackRow& r : rows) {
    if (name != r.name) continue;
    out += (out.empty() ? "" : ", ") + name + "@" + r.version;
  }
  return out;
}

const StackRow* PickRow(const std::vector<StackRow>& rows, const std::string& text, std::string* error) {
  const size_t at = text.find('@');
  const std::string name = text.substr(0, at);
  const std::string version = at == std::string::npos ? "" : text.substr(at + 1);
  const StackRow* latest = nullptr;
  for (const StackRow& r : rows) {
    if (name == r.name) latest = &r;
  }
  if (latest == nullptr) {
    if (error) *error = "\"" + name + "\" is not a training program; one of: " + KnownStacks();
    return nullptr;
  }
  if (version.empty() || version == "latest") return latest;
  std::vector<long> wanted;
  if (!ParseVersion(version, wanted)) {
    if (error)
      *error = "\"" + version + "\" is not a version (like 4.46 or 0.3.1); " + name + "'s rows: " + VersionsOf(rows, name);
    return nullptr;
  }
  const StackRow* pick = nullptr;
  for (const StackRow& r : rows) {
    std::vector<long> v;
    if (name == r.name && ParseVersion(r.version, v) && !VersionLess(wanted, v)) pick = &r;
  }
  if (pick == nullptr && error)
    *error = name + "@" + version + " is older than any row of " + name + ": " + VersionsOf(rows, name);
  return pick;
}

// A field's text in the form its getter writes it ("on" -> "1"); empty with `error` set when
// its setter refuses the text.
std::string Canonical(const FieldDef& f, const std::string& text, std::string* error = nullptr) {
  Config probe;
  const std::string refused = f.set(probe, text);
  if (!refused.empty()) {
    if (error) *error = std::string(f.name) + ": " + refused;
    return text;
  }
  return f.get(probe);
}

// One clause of a condition: field=value, field!=value or field>number.
bool ClauseHolds(const std::string& clause, const Config& c, std::string* error) {
  size_t op = clause.find("!=");
  const char kind = op != std::string::npos ? '!' : (op = clause.find('>')) != std::string::npos ? '>' : '=';
  if (kind == '=') op = clause.find('=');
  if (op == std::string::npos || op == 0) {
    if (error) *error = "\"" + clause + "\" is not field=value";
    return false;
  }
  const std::string name = clause.substr(0, op), value = clause.substr(op + (kind == '!' ? 2 : 1));
  const FieldDef* f = FindField(name);
  if (f == nullptr) {
    if (error) *error = name + " is not a field";
    return false;
  }
  if (kind == '>') {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (!f->Numeric() || value.empty() || *end != '\0') {
      if (error) *error = clause + ": not a number";
      return false;
    }
    return f->Number(c) > v;
  }
  const bool equal = f->get(c) == Canonical(*f, value, error);
  return kind == '!' ? !equal : equal;
}

const StackCell* CellFor(const StackRow* row, Mode mode, const std::string& field, const Config& c) {
  if (row == nullptr) return nullptr;
  for (const StackCell& cell : row->cells) {
    if ((cell.modes & ModeBit(mode)) != 0 && field == cell.field && ConditionHolds(cell.when, c)) return &cell;
  }
  return nullptr;
}

// dtype, whose default the model decides where no row does (PresetDtype).
const FieldDef& DtypeField() {
  static const FieldDef* f = FindField("dtype");
  return *f;
}
std::string DtypeFieldValue(const Config& c) { return DtypeField().get(c); }

std::string DefaultOf(const StackRow* row, Mode mode, const FieldDef& f, const Config& c) {
  if (const StackCell* cell = CellFor(row, mode, f.name, c)) return Canonical(f, cell->value);
  static const Config plain;
  if (&f == &DtypeField() && !c.model.preset.empty()) {
    if (const Preset* p = FindPreset(c.model.preset); p != nullptr && p->ok) {
      Config shipped;
      shipped.dtype = PresetDtype(*p, mode);
      return f.get(shipped);
    }
  }
  return f.get(plain);
}

// The fields `row`'s cells name, each once; with `conditional`, only those a condition decides.
std::vector<const FieldDef*> FieldsOf(std::initializer_list<const StackRow*> rows, bool conditional) {
  std::vector<const FieldDef*> fields;
  for (const StackRow* row : rows) {
    if (row == nullptr) continue;
    for (const StackCell& cell : row->cells) {
      if (conditional && *cell.when == '\0') continue;
      const FieldDef* f = FindField(cell.field);
      bool seen = false;
      for (const FieldDef* g : fields) seen = seen || g == f;
      if (f != nullptr && !seen) fields.push_back(f);
    }
  }
  // dtype follows the model (and the mode) whatever the rows say.
  if (!conditional && std::find(fields.begin(), fields.end(), &DtypeField()) == fields.end())
    fields.push_back(&DtypeField());
  return fields;
}

}  // namespace

Dtype PresetDtype(const Preset& p, Mode mode) {
  if (mode == Mode::kInference) return p.shipped_dtype;
  // Training keeps 16-bit weights: the checkpoint's when it is 16-bit, else bf16.
  return p.shipped_dtype == Dtype::kFp16 ? Dtype::kFp16 : Dtype::kBf16;
}

bool ConditionHolds(const char* when, const Config& c, std::string* error) {
  if (error) error->clear();
  const std::string text = when;
  if (text.empty()) return true;
  bool any = false, bad = false;
  size_t start = 0;
  while (start <= text.size()) {  // alternatives: " or "
    size_t end = text.find(" or ", start);
    if (end == std::string::npos) end = text.size();
    const std::string alternative = text.substr(start, end - start);
    bool all = true;
    size_t from = 0;
    while (from <= alternative.size()) {  // clauses: " and "
      size_t stop = alternative.find(" and ", from);
      if (stop == std::string::npos) stop = alternative.size();
      std::string why;
      all = ClauseHolds(alternative.substr(from, stop - from), c, error ? &why : nullptr) && all;
      if (!why.empty() && error) {
        *error = why;
        bad = true;
      }
      from = stop + 5;
    }
    any = any || all;
    start = end + 4;
  }
  return any && !bad;
}

const std::vector<StackRow>& StackRows() {
  static const std::vector<StackRow> rows = BuildRows();
  return rows;
}

const StackRow* FindStack(const std::string& text, std::string* error) { return PickRow(StackRows(), text, error); }

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

std::string StackDefault(const std::string& stack, Mode mode, const char* field, const Config* conditions) {
  const FieldDef* f = FindField(field);
  if (f == nullptr) return {};
  if (conditions != nullptr) return DefaultOf(FindStack(stack), mode, *f, *conditions);
  Config c = DefaultConfig();
  c.mode = mode;
  return DefaultOf(FindStack(stack), mode, *f, c);
}

std::string StackDefaultFor(const Config& c, const char* field) {
  const FieldDef* f = FindField(field);
  return f == nullptr ? std::string() : DefaultOf(FindStack(c.stack), c.mode, *f, c);
}

void FollowDefaults(Config& c, const Config& before, const std::vector<std::string>& given) {
  const StackRow* was_row = FindStack(before.stack);
  const StackRow* row = FindStack(c.stack);
  const std::vector<const FieldDef*> fields = FieldsOf({was_row, row}, false);
  // A field that moves may decide another's condition: again, from where the last pass
  // started, until none moves (conditions read settings, so this ends in a pass or two).
  Config from = before;
  const StackRow* from_row = was_row;
  for (int pass = 0; pass < 4; ++pass) {
    const Config now = c;
    bool moved = false;
    for (const FieldDef* f : fields) {
      bool user = false;
      for (const std::string& g : given) user = user || g == f->name;
      if (user) continue;
      const std::string was = DefaultOf(from_row, from.mode, *f, from);
      const std::string will = DefaultOf(row, now.mode, *f, now);
      if (was != will && f->get(c) == was && f->set(c, will).empty()) moved = true;
    }
    if (!moved) return;
    from = now;
    from_row = row;
  }
}

void FollowChanged(Config& c, const Config& before) {
  std::vector<std::string> changed;
  for (const FieldDef* f : FieldsOf({FindStack(before.stack), FindStack(c.stack)}, false))
    if (f->get(c) != f->get(before)) changed.push_back(f->name);
  FollowDefaults(c, before, changed);
}

namespace {

// Every field any row's condition reads ("sharding=fsdp and autocast!=off" -> sharding, autocast).
const std::vector<const FieldDef*>& ConditionFields() {
  static const std::vector<const FieldDef*> fields = [] {
    std::vector<const FieldDef*> out;
    for (const StackRow& r : StackRows())
      for (const StackCell& cell : r.cells) {
        const std::string when = cell.when;
        size_t i = 0;
        while (i < when.size()) {
          size_t j = i;
          while (j < when.size() && (std::isalnum(static_cast<unsigned char>(when[j])) || when[j] == '_')) ++j;
          const std::string name = when.substr(i, j - i);
          const FieldDef* f = FindField(name);
          if (f != nullptr && std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
          // on to the next clause
          size_t next = std::string::npos;
          for (const char* sep : {" and ", " or "}) {
            const size_t k = when.find(sep, j);
            if (k != std::string::npos && k < next) next = k + std::strlen(sep);
          }
          i = next;
        }
      }
    return out;
  }();
  return fields;
}

}  // namespace

StackFollower::StackFollower(const Config& base) : base_(base) {
  fields_ = FieldsOf({FindStack(base.stack)}, false);
  for (const FieldDef* f : ConditionFields())
    if (std::find(fields_.begin(), fields_.end(), f) == fields_.end()) fields_.push_back(f);
}

void StackFollower::Apply(Config& c) {
  if (c.stack != base_.stack || c.mode != base_.mode || c.model.preset != base_.model.preset)
    return FollowChanged(c, base_);
  std::string key;
  for (const FieldDef* f : fields_) key += f->get(c) + '\x1f';
  for (const Outcome& o : memo_)
    if (o.key == key) {
      for (const auto& [f, value] : o.sets) f->set(c, value);
      return;
    }
  Config followed = c;
  FollowChanged(followed, base_);
  Outcome o{key, {}};
  for (const FieldDef* f : fields_)
    if (f->get(followed) != f->get(c)) o.sets.push_back({f, f->get(followed)});
  c = followed;
  memo_.push_back(std::move(o));
}

void FollowStack(Config& c, const std::string& old_stack, Mode old_mode) {
  Config before = c;
  before.stack = old_stack;
  before.mode = old_mode;
  FollowDefaults(c, before);
}

void TakeStackDefaults(Config& c) {
  const StackRow* row = FindStack(c.stack);
  for (int pass = 0; pass < 2; ++pass) {  // a condition may read a field the row sets
    for (const FieldDef* f : FieldsOf({row}, false)) f->set(c, DefaultOf(row, c.mode, *f, c));
  }
}

bool SetFollowingStack(Config& c, const std::string& key, const std::string& value, Diagnostics& out) {
  const Config before = c;
  const FieldDef* f = FindField(key);
  if (f != nullptr && (std::string(f->name) == "stack" || std::string(f->name) == "mode")) {
    const std::string err = f->set(c, value);
    if (!err.empty()) {
      out.push_back({DiagId::kUnknownValue, Severity::kError, f->name, std::string(f->name) + ": " + err});
      return false;
    }
  } else if (!SetField(c, key, value, out)) {
    return false;
  }
  FollowDefaults(c, before, {f != nullptr ? f->name : key});
  return true;
}

void AddStackNotes(const Config& c, Diagnostics& out) {
  // The default the model decides (PresetDtype), said where it is not the plain bf16.
  static const Config plain;
  if (const Preset* p = c.model.preset.empty() ? nullptr : FindPreset(c.model.preset);
      p != nullptr && p->ok && c.dtype == PresetDtype(*p, c.mode) && c.dtype != plain.dtype) {
    out.push_back({DiagId::kFromStack, Severity::kInfo, "dtype",
                   std::string("dtype = ") + DtypeFieldValue(c) + ": " +
                       (c.mode == Mode::kInference ? "the format " + p->hf_id + "'s checkpoint ships in"
                                                   : "the 16-bit format " + p->hf_id + " ships in, as training keeps it")});
  }
  std::string error;
  const StackRow* row = FindStack(c.stack, &error);
  if (row == nullptr) return;
  const std::string given = c.stack.find('@') == std::string::npos ? std::string(row->name) + "@latest" : c.stack;
  const std::string which = given + (given == std::string(row->name) + "@" + row->version ? "" : std::string(" (row ") + row->version + ")");
  for (const FieldDef& f : Fields()) {
    const StackCell* cell = CellFor(row, c.mode, f.name, c);
    if (cell == nullptr) continue;
    const std::string value = Canonical(f, cell->value);
    if (f.get(c) != value || f.get(plain) == value) continue;
    out.push_back({DiagId::kFromStack, Severity::kInfo, f.name,
                   std::string(f.name) + " = " + cell->value + ": as " + which + " runs it" +
                       (*cell->when ? std::string(" when ") + cell->when : std::string()) + " (" + cell->why + ")"});
  }
}

}  // namespace llmmem::core
