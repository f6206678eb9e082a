#include "core/config/validate.h"

#include <cmath>
#include <numeric>
#include <string>

#include "core/catalogue/gpus.h"
#include "core/config/fields.h"
#include "core/config/framework.h"
#include "core/config/limits.h"
#include "core/config/model_facts.h"
#include "core/config/not_counted.h"
#include "core/config/runtime_rules.h"
#include "core/base/units.h"

namespace llmmem::core {

namespace {

struct Checker {
  Diagnostics* out;  // nullptr: only decide validity
  bool ok = true;

  void Error(DiagId id, const std::string& field, const std::string& message) {
    ok = false;
    if (out) out->push_back({id, Severity::kError, field, message});
  }
  void Note(DiagId id, Severity sev, const std::string& field, const std::string& message) {
    if (out) out->push_back({id, sev, field, message});
  }

  // A value outside its row's range (fields.h); messages only on the slow path.
  void Range(const FieldDef& f, double v) {
    ok = false;
    if (!out) return;
    const std::string id = std::string(f.model_field ? "model." : "") + f.name;
    if (!std::isfinite(v)) {
      Error(DiagId::kNotANumber, id, id + " (" + f.help + ") must be a finite number; allowed " + f.RangeText());
    } else {
      Error(DiagId::kOutOfRange, id,
            id + " = " + FormatNumber(v, 3) + " is outside the allowed range " + f.RangeText() + " (" + f.help + ")");
    }
  }
};

bool TrainableFormat(Dtype d) { return Info(d).trainable; }
bool StateFormat(Dtype d) { return d == Dtype::kFp32 || d == Dtype::kBf16 || d == Dtype::kFp16; }

// The model's own checks: they depend on its dimensions alone, so the fast path takes
// their verdict from the per-model cache (model_facts.h) instead of repeating them.
void CheckModel(const ModelSpec& m, Checker& k) {
  static const FieldDef* const params_override = FindField("params_override");
  const bool arch = m.layers > 0 || m.hidden > 0;  // params-only models leave both 0
  if (arch) {
    // Every dimension within its row's range: one loop over the table (fields.h).
    for (const FieldDef* f : ModelRangeFields()) {
      if (f == params_override) continue;  // below: a params-only model has it too
      const double v = f->model_number(m);
      if (!f->InRange(v)) k.Range(*f, v);
    }
    if (k.ok && m.sliding_layers > m.layers) {
      k.Error(DiagId::kInconsistent, "model.sliding_layers", "sliding_layers cannot exceed layers");
    }
    if (k.ok && (m.AttentionLayers() < 0 || m.mlp_free_layers > m.layers)) {
      k.Error(DiagId::kInconsistent, "model.mixer_free_layers",
              "linear_layers (" + std::to_string(m.linear_layers) + "), mixer_free_layers (" +
                  std::to_string(m.mixer_free_layers) + ") and mlp_free_layers (" + std::to_string(m.mlp_free_layers) +
                  ") cannot take more layers than the model has (" + std::to_string(m.layers) + ")");
    }
    if (k.ok && m.kv_shared_layers > m.AttentionLayers()) {
      k.Error(DiagId::kInconsistent, "model.kv_shared_layers", "kv_shared_layers cannot exceed the attention layers");
    }
    if (k.ok && m.sliding_layers > m.AttentionLayers()) {
      k.Error(DiagId::kInconsistent, "model.linear_layers",
              "linear_layers (" + std::to_string(m.linear_layers) + ") and sliding_layers (" +
                  std::to_string(m.sliding_layers) + ") together cannot exceed layers (" + std::to_string(m.layers) +
                  ")");
    }
    if (k.ok && m.vision_layers > 0 && (m.vision_patch < 1 || m.vision_hidden < 1)) {
      k.Error(DiagId::kInconsistent, "model.vision_layers", "a vision tower needs vision_patch and vision_hidden");
    }
    if (k.ok && m.kv_lora_rank > 0 && (m.qk_rope_dim < 1 || m.v_head_dim < 1)) {
      k.Error(DiagId::kInconsistent, "model.kv_lora_rank",
              "an MLA model (kv_lora_rank > 0) needs qk_rope_dim and v_head_dim");
    }
    if (k.ok && m.kv_heads > m.heads) {
      k.Error(DiagId::kInconsistent, "model.kv_heads",
              "kv_heads (" + std::to_string(m.kv_heads) + ") cannot exceed heads (" + std::to_string(m.heads) + ")");
    } else if (k.ok && m.heads % m.kv_heads != 0) {
      k.Error(DiagId::kInconsistent, "model.kv_heads",
              "heads (" + std::to_string(m.heads) + ") must be a multiple of kv_heads (" + std::to_string(m.kv_heads) +
                  ") for grouped-query attention");
    }
    if (k.ok && m.experts > 0 && (m.experts_per_token < 1 || m.experts_per_token > m.experts)) {
      k.Error(DiagId::kInconsistent, "model.experts_per_token",
              "experts_per_token must be between 1 and experts (" + std::to_string(m.experts) + ")");
    }
    if (k.ok && m.experts > 0 && m.moe_ffn < 1) {
      k.Error(DiagId::kInconsistent, "model.moe_ffn", "a mixture-of-experts model needs moe_ffn >= 1");
    }
    if (k.ok) {
      // The count in double first, so int64 arithmetic never sees an overflowing size.
      double total = 0;
      ForEachTensor(m, [&](const TensorShape& t) {
        total += static_cast<double>(t.rows) * static_cast<double>(t.cols) * static_cast<double>(t.count);
      });
      if (total > kMaxParams) {
        k.Error(DiagId::kOutOfRange, "model",
                "these dimensions give " + FormatParams(total) + " parameters; at most " + FormatParams(kMaxParams) +
                    " are supported");
      }
    }
  } else if (m.params_override <= 0) {
    k.Error(DiagId::kMissingField, "model",
            "the model has neither dimensions (hidden, layers, heads) nor a parameter count (params_override)");
  }
  if (!params_override->InRange(params_override->model_number(m)))
    k.Range(*params_override, params_override->model_number(m));
}

// Parallel layouts no framework runs (issue 28), each with the rule that refuses it.
void CheckLayout(const Config& c, Checker& k) {
  const ModelSpec& m = c.model;
  if (!k.ok) return;
  // Load-balanced ring attention cuts each sequence into 2 x cp chunks, two per rank:
  // Megatron-LM core/utils.py get_batch_on_this_cp_rank views the sequence as
  // [2 * cp, seq / (2 * cp)], and TransformerEngine's context-parallel attention asserts
  // "Sequence length per GPU needs to be divisible by 2!".
  if (c.cp > 1 && c.seq % (2 * c.cp) != 0) {
    k.Error(DiagId::kUnrunnableLayout, "seq",
            "context parallelism splits each sequence into 2 x cp = " + std::to_string(2 * c.cp) +
                " load-balanced chunks: seq (" + FormatCount(c.seq) + ") must be a multiple of " +
                std::to_string(2 * c.cp) + " (Megatron-LM, TransformerEngine); try seq " +
                FormatCount((c.seq + 2 * c.cp - 1) / (2 * c.cp) * (2 * c.cp)));
  }
  // Sequence parallelism scatters the sequence dimension over the TP ranks: Megatron-LM
  // core/tensor_parallel/mappings.py _split_along_first_dim asserts "First dimension of the
  // tensor should be divisible by tensor parallel size".
  if (k.ok && c.sp && c.tp > 1 && c.seq % c.tp != 0) {
    k.Error(DiagId::kUnrunnableLayout, "seq",
            "sequence parallelism splits each sequence over the tp = " + std::to_string(c.tp) +
                " ranks: seq (" + FormatCount(c.seq) + ") must be a multiple of tp (Megatron-LM); try seq " +
                FormatCount((c.seq + c.tp - 1) / c.tp * c.tp));
  }
  // Megatron-LM splits the query groups over the TP ranks, never replicating them:
  // core/transformer/transformer_config.py requires num_query_groups % tensor_model_parallel_size == 0.
  // (vLLM and SGLang replicate KV heads instead: derived.h KvShare.)
  if (k.ok && Info(c.framework).splits_query_groups && c.mode != Mode::kInference && c.tp > 1 && m.kv_heads > 0 &&
      m.kv_lora_rank == 0 && m.kv_heads % c.tp != 0) {
    k.Error(DiagId::kUnrunnableLayout, "tp",
            "Megatron-LM splits the KV heads (query groups) over the TP ranks: kv_heads (" +
                std::to_string(m.kv_heads) + ") must be divisible by tp (" + std::to_string(c.tp) + ")");
  }
}

// Everything else. `model_checked`: CheckModel has run (or its verdict, ok, is known).
void Check(const Config& c, Checker& k, bool model_checked = false) {
  const ModelSpec& m = c.model;
  const bool arch = m.layers > 0 || m.hidden > 0;
  if (!model_checked) CheckModel(m, k);

  // Every other numeric setting within its row's range: one loop over the table.
  for (const FieldDef* f : ConfigRangeFields()) {
    const double v = f->ConfigNumber(c);
    if (!f->InRange(v)) k.Range(*f, v);
  }
  if (k.ok && static_cast<double>(c.dp) * c.tp * c.pp * c.cp > 1e7) {
    k.Error(DiagId::kOutOfRange, "dp", "dp x tp x pp x cp is more than ten million GPUs");
  }
  if (k.ok && c.zero_group > 0 && c.dp % c.zero_group != 0) {
    k.Error(DiagId::kInconsistent, "zero_group",
            "zero_group (" + std::to_string(c.zero_group) + ") must divide dp (" + std::to_string(c.dp) + ")");
  }
  if (k.ok && c.sharding == Sharding::kFsdp && c.zero == 1) {
    k.Error(DiagId::kInconsistent, "zero",
            "PyTorch FSDP has no stage that shards only the optimizer states: zero 2 is SHARD_GRAD_OP, 3 FULL_SHARD "
            "(or set sharding to deepspeed)");
  }
  if (arch && k.ok && c.pp > m.layers) {
    k.Error(DiagId::kInconsistent, "pp",
            "pp (" + std::to_string(c.pp) + ") cannot exceed the model's layers (" + std::to_string(m.layers) + ")");
  }
  if (arch && k.ok && c.ep > 1 && (m.experts == 0 || m.experts % c.ep != 0)) {
    k.Error(DiagId::kInconsistent, "ep",
            m.experts == 0
                ? std::string("expert parallelism needs a mixture-of-experts model (experts > 0)")
                : "ep (" + std::to_string(c.ep) + ") must divide the experts (" + std::to_string(m.experts) + ")");
  }
  if (k.ok && c.offload_params != Offload::kNone && c.mode == Mode::kInference) {
    // Counted as ZeRO-3 training counts it, inference would keep no weights on the GPU at all
    // (Llama 3.1 405B "fit" a T4 at 0.98 GB).
    k.Error(DiagId::kInconsistent, "offload_params",
            "parameter offload is a ZeRO-3 training setting (DeepSpeed offload_param, FSDP CPUOffload); inference "
            "with weights streamed from CPU or NVMe (ZeRO-Inference, accelerate's device_map) is not modelled: set "
            "offload_params to none");
  } else if (k.ok && c.offload_params != Offload::kNone && c.zero != 3) {
    k.Error(DiagId::kInconsistent, "offload_params",
            "parameter offload needs ZeRO-3 / FSDP FULL_SHARD (zero = 3): lower stages keep whole weights on the GPU");
  }
  if (k.ok && k.out != nullptr && c.offload_activations && c.recompute != Recompute::kFull) {
    k.Note(DiagId::kIgnoredSetting, Severity::kInfo, "offload_activations",
           "activation offload moves the checkpointed layer inputs: it applies with recompute = full");
  }
  if (arch && k.ok && c.tp > 1 && m.heads % c.tp != 0) {
    k.Error(DiagId::kInconsistent, "tp",
            "tensor parallelism splits the heads: heads (" + std::to_string(m.heads) + ") must be divisible by tp (" +
                std::to_string(c.tp) + ")");
  }
  CheckLayout(c, k);

  const bool training = c.mode != Mode::kInference;
  if (training && !TrainableFormat(c.dtype)) {
    k.Error(DiagId::kInconsistent, "dtype",
            std::string("training keeps its weights in fp32, bf16, fp16, fp8 or int8, not ") + Info(c.dtype).id +
                (c.mode == Mode::kQlora
                     ? " (QLoRA stores the frozen base in NF4 by itself; dtype is the adapters' precision)"
                     : "; for a quantised frozen base choose QLoRA, or inference"));
  }
  if (training && !Info(c.grad_dtype).trainable) {
    k.Error(DiagId::kInconsistent, "grad_dtype",
            std::string("gradients are kept in fp32, bf16, fp16, fp8 or int8, not ") + Info(c.grad_dtype).id);
  }
  if (training && !StateFormat(c.optimizer_dtype)) {
    k.Error(DiagId::kInconsistent, "optimizer_dtype",
            std::string("optimizer states are kept in fp32, bf16 or fp16, not ") + Info(c.optimizer_dtype).id +
                " (use --optimizer adam8bit for 8-bit states)");
  }
  if (c.cublas_workspace_mib < 0 && c.cublas_workspace_mib != -1) {
    k.Error(DiagId::kOutOfRange, "cublas_workspace_mib",
            "cublas_workspace_mib is a size in MiB, or -1 for PyTorch's default for the GPU");
  }
  if (c.norms_fp32 && (c.mode != Mode::kQlora || c.autocast == Dtype::kCount || !IsHuggingFace(c.framework))) {
    k.Error(DiagId::kInconsistent, "norms_fp32",
            "fp32 norms are prepare_model_for_kbit_training's on a QLoRA model under autocast (mode qlora, autocast "
            "bf16 or fp16, a Hugging Face profile); without autocast a 16-bit Linear cannot take their fp32 output");
  }
  if (c.base_fp32_shards && (c.mode != Mode::kLora || c.sharding != Sharding::kFsdp || c.zero != 3 ||
                             (c.dtype != Dtype::kBf16 && c.dtype != Dtype::kFp16))) {
    k.Error(DiagId::kInconsistent, "base_fp32_shards",
            "fp32 base shards are FSDP mixed precision's over a LoRA base loaded in fp32: mode lora, sharding fsdp, "
            "zero 3, and the 16-bit dtype it computes in");
  }
  if (c.fsdp1 && c.sharding != Sharding::kFsdp) {
    k.Error(DiagId::kInconsistent, "fsdp1", "fsdp1 names which PyTorch FSDP runs: it needs sharding fsdp");
  }
  if (c.train_use_cache &&
      (!training || !IsHuggingFace(c.framework) || c.recompute != Recompute::kFull || c.model.arch != Arch::kDecoder)) {
    k.Error(DiagId::kInconsistent, "train_use_cache",
            "train_use_cache is transformers' GPTBigCode (a decoder) under gradient checkpointing: training, a "
            "Hugging Face profile and recompute full; without recomputation the cache is a view of the projection "
            "output the layers keep anyway");
  }
  if (c.loss_kernel == LossKernel::kLossParallel && c.tp < 2) {
    k.Error(DiagId::kInconsistent, "loss_kernel",
            "loss_parallel computes the loss over vocab-sharded logits: it needs tensor parallelism (tp 2 or more)");
  }
  if ((c.loss_kernel == LossKernel::kChunked || c.loss_kernel == LossKernel::kChunkedCompiled) && c.loss_shift_copy) {
    k.Error(DiagId::kInconsistent, "loss_shift_copy",
            "torchtune's chunked loss shifts the labels, not the logits: no shifted copy with loss_kernel chunked or "
            "chunked_compiled");
  }
  if (c.quantized_head && (c.mode != Mode::kQlora || c.model.tied_embeddings)) {
    k.Error(DiagId::kInconsistent, "quantized_head",
            "a 4-bit output head is QLoRA's, on a model whose head is not the embedding (tied_embeddings off)");
  }
  if (c.bnb_saves_inputs && c.mode != Mode::kQlora) {
    k.Error(DiagId::kInconsistent, "bnb_saves_inputs",
            "bnb_saves_inputs describes bitsandbytes' 4-bit layers: it applies to QLoRA only");
  }
  if (c.autocast != Dtype::kCount) {
    if (!training) {
      k.Error(DiagId::kInconsistent, "autocast",
              "autocast (PyTorch AMP) is a training setting; for inference choose the weights' format with dtype");
    } else if (!IsHuggingFace(c.framework)) {
      k.Error(DiagId::kInconsistent, "autocast",
              "autocast is PyTorch AMP around a Hugging Face model; Megatron's mixed precision is dtype bf16 with fp32 "
              "master weights");
    } else if (c.dtype != Dtype::kFp32 && c.dtype != Dtype::kBf16 && c.dtype != Dtype::kFp16) {
      k.Error(DiagId::kInconsistent, "autocast",
              std::string("autocast runs over fp32, bf16 or fp16 weights, not ") + Info(c.dtype).id);
    }
  }
  if (!CheckRuntime(c, k.out)) k.ok = false;  // the serving runtime's own rules (serving.cpp)
  if (!training && !IsGgml(c.runtime) && !(TrainableFormat(c.kv_dtype) || c.kv_dtype == Dtype::kInt4)) {
    k.Error(DiagId::kInconsistent, "kv_dtype",
            std::string("the KV cache is stored in fp32, bf16, fp16, fp8, int8 or int4, not ") + Info(c.kv_dtype).id);
  }
  if ((c.mode == Mode::kLora || c.mode == Mode::kQlora) && (c.lora_targets & kLoraAllLinear) == 0) {
    k.Error(DiagId::kInconsistent, "lora_targets",
            "LoRA needs at least one target module (q, k, v, o, gate, up, down)");
  }
  if ((c.mode == Mode::kLora || c.mode == Mode::kQlora) && !arch) {
    k.Error(DiagId::kNoArchitecture, "model", "LoRA adapters attach to matrices: the model needs its dimensions");
  }

  // On the fast path too: the solver must never propose what the estimate refuses.
  if (arch && m.learned_positions > 0 && c.seq > m.learned_positions) {
    k.Error(DiagId::kOutOfRange, "seq",
            "seq = " + FormatCount(c.seq) + " needs more positions than the model's learned position table has (" +
                FormatCount(m.learned_positions) + " rows): it cannot run sequences longer than that");
  }

  // Notes that do not stop the estimate (skipped on the fast path, which only decides validity).
  if (k.out == nullptr) return;
  if (arch && m.learned_positions > 0 && c.seq > m.learned_positions) {
    // Reported above.
  } else if (arch && m.max_positions > 0 && c.seq > m.max_positions) {
    k.Note(DiagId::kOutOfRange, Severity::kWarning, "seq",
           "seq = " + FormatCount(c.seq) + " is longer than the " + FormatCount(m.max_positions) + "-token context " +
               m.name + " was trained for (max_position_embeddings); memory is estimated anyway");
  }
  if (training && c.master_weights && c.dtype == Dtype::kFp32) {
    k.Note(DiagId::kIgnoredSetting, Severity::kInfo, "master_weights",
           "the weights are already fp32, so there is no separate master copy");
  }
  if (const std::string note = NotCountedNote(c, NotCountedParts(c)); !note.empty())
    k.Note(DiagId::kNotCounted, Severity::kWarning, "model", note + ", so the verdict cannot say it fits");
  if (!training && arch && m.arch == Arch::kEncoder) {
    k.Note(DiagId::kIgnoredSetting, Severity::kInfo, "kv_dtype", "an encoder-only model keeps no KV cache");
  }
  if (c.wired_limit_mb > 0) {  // issue 31: only a unified card's OS limit is raised
    const Gpu* g = FindGpu(c.gpu);
    if (g == nullptr || !g->unified || !BudgetRaisable(g->budget)) {
      k.Note(DiagId::kIgnoredSetting, Severity::kInfo, "wired_limit_mb",
             "wired_limit_mb raises the limit of a unified-memory GPU whose OS sets one (Apple silicon, Strix Halo); " +
                 (g == nullptr ? std::string("the card here is custom, so gpu_memory_gb is its memory")
                               : g->key + " has none to raise"));
    } else if (c.wired_limit_mb * 1048576.0 > g->RamBytes()) {
      k.Note(DiagId::kOutOfRange, Severity::kInfo, "wired_limit_mb",
             "wired_limit_mb = " + FormatNumber(c.wired_limit_mb, 0) + " MiB is more than the " +
                 FormatNumber(g->RamBytes() / 1048576.0, 0) + " MiB of " + g->key + ": the estimate uses all of it");
    }
  }
  if (c.sp && c.tp == 1) {
    k.Note(DiagId::kIgnoredSetting, Severity::kInfo, "sp",
           "sequence parallelism has no effect without tensor parallelism (tp > 1)");
  }
  if (arch && m.params_override > 0) {
    k.Note(DiagId::kIgnoredSetting, Severity::kInfo, "model.params_override",
           "model states use the given " + FormatCount(m.params_override) +
               " parameters, not the architecture's count" +
               (m.IsMoe() ? "; the active parameters keep the architecture's active share of the total" : ""));
  }
}

}  // namespace

Diagnostics Validate(const Config& c) {
  Diagnostics d;
  Checker k{&d};
  Check(c, k);
  return d;
}

int64_t SeqMultiple(const Config& c) {
  int64_t step = c.cp > 1 ? 2 * c.cp : 1;
  if (c.sp && c.tp > 1) step = std::lcm(step, c.tp);
  return step;
}

bool CheckModelDims(const ModelSpec& m) {
  Checker k{nullptr};
  CheckModel(m, k);
  return k.ok;
}

bool IsValid(const Config& c) {
  if (!FactsOf(c.model).dims_valid) return false;
  Checker k{nullptr};
  Check(c, k, /*model_checked=*/true);
  return k.ok;
}

}  // namespace llmmem::core
