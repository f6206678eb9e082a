#include "core/validate.h"

#include <cmath>
#include <cstring>
#include <string>

#include "core/limits.h"
#include "core/model_facts.h"
#include "core/serving.h"
#include "core/units.h"

namespace llmmem::core {

const FieldLimit* FindLimit(const char* field) {
  for (const FieldLimit& l : kFieldLimits) {
    if (std::strcmp(l.field, field) == 0) return &l;
  }
  return nullptr;
}

namespace {

// The in-range test inline (NaN fails it too); messages only on the slow path.
#define RANGE(k, field, value, ...)                                        \
  do {                                                                     \
    static const FieldLimit* const limit = FindLimit(field);              \
    const double range_value = (value);                                    \
    if (!(range_value >= limit->min && range_value <= limit->max)) {       \
      (k).Range(limit, field, range_value, ##__VA_ARGS__);                 \
    }                                                                      \
  } while (0)

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

  // `l` is the field's row of kFieldLimits, looked up once per call site (RANGE below):
  // the fast path validates on every estimate, so no string work happens unless a value is bad.
  void Range(const FieldLimit* l, const char* field, double v, const char* prefix = "") {
    if (!l) return;
    if (std::isfinite(v) && v >= l->min && v <= l->max) return;
    if (!std::isfinite(v)) {
      if (out) {
        Error(DiagId::kNotANumber, std::string(prefix) + field,
              std::string(l->help) + " must be a finite number; allowed " + FormatNumber(l->min, 3) + " to " +
                  FormatNumber(l->max, 3));
      } else {
        ok = false;
      }
      return;
    }
    if (v < l->min || v > l->max) {
      if (out) {
        Error(DiagId::kOutOfRange, std::string(prefix) + field,
              std::string(prefix) + field + " = " + FormatNumber(v, 3) + " is outside the allowed range " +
                  FormatNumber(l->min, 3) + " to " + FormatNumber(l->max, 3) + " (" + l->help + ")");
      } else {
        ok = false;
      }
    }
  }
};

bool TrainableFormat(Dtype d) { return Info(d).trainable; }
bool StateFormat(Dtype d) { return d == Dtype::kFp32 || d == Dtype::kBf16 || d == Dtype::kFp16; }

// The model's own checks: they depend on its dimensions alone, so the fast path takes
// their verdict from the per-model cache (model_facts.h) instead of repeating them.
void CheckModel(const ModelSpec& m, Checker& k) {
  const bool arch = m.layers > 0 || m.hidden > 0;  // params-only models leave both 0
  if (arch) {
    RANGE(k, "vocab", static_cast<double>(m.vocab), "model.");
    RANGE(k, "hidden", static_cast<double>(m.hidden), "model.");
    RANGE(k, "layers", static_cast<double>(m.layers), "model.");
    RANGE(k, "heads", static_cast<double>(m.heads), "model.");
    RANGE(k, "kv_heads", static_cast<double>(m.kv_heads), "model.");
    RANGE(k, "head_dim", static_cast<double>(m.head_dim), "model.");
    RANGE(k, "ffn", static_cast<double>(m.ffn), "model.");
    RANGE(k, "learned_positions", static_cast<double>(m.learned_positions), "model.");
    RANGE(k, "type_vocab", static_cast<double>(m.type_vocab), "model.");
    RANGE(k, "norms_per_layer", static_cast<double>(m.norms_per_layer), "model.");
    RANGE(k, "experts", static_cast<double>(m.experts), "model.");
    RANGE(k, "experts_per_token", static_cast<double>(m.experts_per_token), "model.");
    RANGE(k, "moe_ffn", static_cast<double>(m.moe_ffn), "model.");
    RANGE(k, "shared_experts", static_cast<double>(m.shared_experts), "model.");
    RANGE(k, "shared_ffn", static_cast<double>(m.shared_ffn), "model.");
    RANGE(k, "dense_layers", static_cast<double>(m.dense_layers), "model.");
    RANGE(k, "q_lora_rank", static_cast<double>(m.q_lora_rank), "model.");
    RANGE(k, "kv_lora_rank", static_cast<double>(m.kv_lora_rank), "model.");
    RANGE(k, "qk_nope_dim", static_cast<double>(m.qk_nope_dim), "model.");
    RANGE(k, "qk_rope_dim", static_cast<double>(m.qk_rope_dim), "model.");
    RANGE(k, "v_head_dim", static_cast<double>(m.v_head_dim), "model.");
    RANGE(k, "sliding_window", static_cast<double>(m.sliding_window), "model.");
    RANGE(k, "sliding_layers", static_cast<double>(m.sliding_layers), "model.");
    RANGE(k, "max_positions", static_cast<double>(m.max_positions), "model.");
    if (k.ok && m.sliding_layers > m.layers) {
      k.Error(DiagId::kInconsistent, "model.sliding_layers", "sliding_layers cannot exceed layers");
    }
    if (k.ok && m.kv_lora_rank > 0 && (m.qk_rope_dim < 1 || m.v_head_dim < 1)) {
      k.Error(DiagId::kInconsistent, "model.kv_lora_rank", "an MLA model (kv_lora_rank > 0) needs qk_rope_dim and v_head_dim");
    }
    if (k.ok && m.kv_heads > m.heads) {
      k.Error(DiagId::kInconsistent, "model.kv_heads",
              "kv_heads (" + std::to_string(m.kv_heads) + ") cannot exceed heads (" + std::to_string(m.heads) + ")");
    } else if (k.ok && m.heads % m.kv_heads != 0) {
      k.Error(DiagId::kInconsistent, "model.kv_heads",
              "heads (" + std::to_string(m.heads) + ") must be a multiple of kv_heads (" +
                  std::to_string(m.kv_heads) + ") for grouped-query attention");
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
  RANGE(k, "params_override", static_cast<double>(m.params_override), "model.");
}

// Everything else. `model_checked`: CheckModel has run (or its verdict, ok, is known).
void Check(const Config& c, Checker& k, bool model_checked = false) {
  const ModelSpec& m = c.model;
  const bool arch = m.layers > 0 || m.hidden > 0;
  if (!model_checked) CheckModel(m, k);

  RANGE(k, "batch", static_cast<double>(c.batch));
  RANGE(k, "seq", static_cast<double>(c.seq));
  RANGE(k, "grad_accum", static_cast<double>(c.grad_accum));
  RANGE(k, "tp", static_cast<double>(c.tp));
  RANGE(k, "lora_rank", static_cast<double>(c.lora_rank));
  RANGE(k, "prefill_chunk", static_cast<double>(c.prefill_chunk));
  RANGE(k, "max_cache_len", static_cast<double>(c.max_cache_len));
  RANGE(k, "mem_fraction", c.mem_fraction);
  RANGE(k, "max_num_seqs", static_cast<double>(c.max_num_seqs));
  RANGE(k, "gpu_layers", static_cast<double>(c.gpu_layers));
  RANGE(k, "ram_gb", c.ram_gb);
  RANGE(k, "bw_efficiency", c.bw_efficiency);
  RANGE(k, "mfu", c.mfu);
  RANGE(k, "bandwidth_gbps", c.bandwidth_gbps);
  RANGE(k, "tflops", c.tflops);
  RANGE(k, "ram_bandwidth_gbps", c.ram_bandwidth_gbps);
  RANGE(k, "gptq_bits", static_cast<double>(c.quant.gptq_bits));
  RANGE(k, "group_size", static_cast<double>(c.quant.group_size));
  RANGE(k, "cuda_context_gb", c.cuda_context_gb);
  RANGE(k, "fragmentation_pct", c.fragmentation_pct);
  RANGE(k, "comm_buffer_gb", c.comm_buffer_gb);
  RANGE(k, "other_processes_gb", c.other_processes_gb);
  RANGE(k, "gpu_memory_gb", c.gpu_memory_gb);

  RANGE(k, "dp", static_cast<double>(c.dp));
  RANGE(k, "zero", static_cast<double>(c.zero));
  RANGE(k, "zero_group", static_cast<double>(c.zero_group));
  RANGE(k, "pp", static_cast<double>(c.pp));
  RANGE(k, "vpp", static_cast<double>(c.vpp));
  RANGE(k, "cp", static_cast<double>(c.cp));
  RANGE(k, "ep", static_cast<double>(c.ep));
  RANGE(k, "reduce_bucket", c.reduce_bucket);
  RANGE(k, "allgather_bucket", c.allgather_bucket);
  RANGE(k, "prefetch_bucket", c.prefetch_bucket);
  if (k.ok && static_cast<double>(c.dp) * c.tp * c.pp * c.cp > 1e7) {
    k.Error(DiagId::kOutOfRange, "dp", "dp x tp x pp x cp is more than ten million GPUs");
  }
  if (k.ok && c.zero_group > 0 && c.dp % c.zero_group != 0) {
    k.Error(DiagId::kInconsistent, "zero_group",
            "zero_group (" + std::to_string(c.zero_group) + ") must divide dp (" + std::to_string(c.dp) + ")");
  }
  if (arch && k.ok && c.pp > m.layers) {
    k.Error(DiagId::kInconsistent, "pp",
            "pp (" + std::to_string(c.pp) + ") cannot exceed the model's layers (" + std::to_string(m.layers) + ")");
  }
  if (arch && k.ok && c.ep > 1 && (m.experts == 0 || m.experts % c.ep != 0)) {
    k.Error(DiagId::kInconsistent, "ep",
            m.experts == 0 ? std::string("expert parallelism needs a mixture-of-experts model (experts > 0)")
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

  const bool training = c.mode != Mode::kInference;
  if (training && !TrainableFormat(c.dtype)) {
    k.Error(DiagId::kInconsistent, "dtype",
            std::string("training keeps its weights in fp32, bf16, fp16, fp8 or int8, not ") + Info(c.dtype).id +
                (c.mode == Mode::kQlora ? " (QLoRA stores the frozen base in NF4 by itself; dtype is the adapters' precision)"
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
  if (!CheckRuntime(c, k.out)) k.ok = false;  // the serving runtime's own rules (serving.cpp)
  if (!training && !IsGgml(c.runtime) && !(TrainableFormat(c.kv_dtype) || c.kv_dtype == Dtype::kInt4)) {
    k.Error(DiagId::kInconsistent, "kv_dtype",
            std::string("the KV cache is stored in fp32, bf16, fp16, fp8, int8 or int4, not ") + Info(c.kv_dtype).id);
  }
  if ((c.mode == Mode::kLora || c.mode == Mode::kQlora) && (c.lora_targets & kLoraAllLinear) == 0) {
    k.Error(DiagId::kInconsistent, "lora_targets", "LoRA needs at least one target module (q, k, v, o, gate, up, down)");
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
           "seq = " + FormatCount(c.seq) + " is longer than the " + FormatCount(m.max_positions) +
               "-token context " + m.name + " was trained for (max_position_embeddings); memory is estimated anyway");
  }
  if (training && c.master_weights && c.dtype == Dtype::kFp32) {
    k.Note(DiagId::kIgnoredSetting, Severity::kInfo, "master_weights",
           "the weights are already fp32, so there is no separate master copy");
  }
  if (training && !arch) {
    k.Note(DiagId::kNoArchitecture, Severity::kWarning, "model",
           "activations are not counted: the model is given only as a parameter count; enter its dimensions to count them");
  }
  if (!training && arch && m.arch == Arch::kEncoder) {
    k.Note(DiagId::kIgnoredSetting, Severity::kInfo, "kv_dtype", "an encoder-only model keeps no KV cache");
  }
  if (c.sp && c.tp == 1) {
    k.Note(DiagId::kIgnoredSetting, Severity::kInfo, "sp", "sequence parallelism has no effect without tensor parallelism (tp > 1)");
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
