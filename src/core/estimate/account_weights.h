// Weights: the stored bytes of one model on this GPU by parameter group, in any format
// (16-bit, quantised checkpoints keeping embeddings/head 16-bit, GGUF), split by tensor,
// pipeline and expert parallelism and sharded by ZeRO-3/FSDP, possibly offloaded. The
// shared helpers of the model-state accounting (per-parameter formulas, shard notes).
// Sources: seed 002 (bytes per parameter), ZeRO §5, the quantisation conventions cited below.
#pragma once

#include <cmath>
#include <string>

#include "core/estimate/derived.h"
#include "core/estimate/sinks.h"
#include "core/base/sources.h"
#include "core/model/gguf_mix.h"
#include "core/base/units.h"

namespace llmmem::core {

namespace detail {

inline std::string PerParam(double bytes_per_param, double params, const char* what) {
  return FormatNumber(bytes_per_param, 4) + " B x " + FormatCount(static_cast<int64_t>(std::llround(params))) + " " +
         what;
}

inline Device OffloadDevice(Offload o) {
  return o == Offload::kCpu ? Device::kCpu : o == Offload::kNvme ? Device::kNvme : Device::kGpu;
}

// " / 8 (ZeRO-3, FSDP FULL_SHARD)" when a state is sharded, for the formulas: the stage
// configured, whichever state it is (gradients under ZeRO-3 are split by ZeRO-3).
inline std::string ShardNote(double shards, int64_t zero) {
  if (shards <= 1) return "";
  const char* fsdp = zero == 3 ? ", FSDP FULL_SHARD" : zero == 2 ? ", FSDP SHARD_GRAD_OP" : "";
  return " / " + FormatNumber(shards) + " (ZeRO-" + std::to_string(zero) + fsdp + ")";
}

// Bytes of one weight tensor family stored in `format`. fp32/fp16/bf16 store every tensor
// so. Quantised checkpoints quantise the decoder layers' Linear weights and keep the
// embeddings, the LM head, norms, biases and routers in 16 bits (llm-compressor and
// AutoFP8 recipes ignore lm_head, as in neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8's
// quantization_config; GPTQ/AWQ and bitsandbytes skip lm_head and never touch the
// embedding); GGUF files give each tensor the block type llama.cpp's rules choose (gguf_mix.h).
inline double TensorBytes(const TensorShape& t, Dtype format, const QuantOptions& q, const ModelSpec& m) {
  const double n = static_cast<double>(t.rows) * static_cast<double>(t.cols) * static_cast<double>(t.count);
  if (format <= Dtype::kBf16) return n * Info(format).bits / 8.0;
  if (format >= Dtype::kQ8_0) return GgufTensorBytes(t, format, m);  // GGUF: llama.cpp's per-tensor rules
  const bool layer_linear = t.role == TensorRole::kQ || t.role == TensorRole::kK || t.role == TensorRole::kV ||
                            t.role == TensorRole::kO || t.role == TensorRole::kGate || t.role == TensorRole::kUp ||
                            t.role == TensorRole::kDown;
  // MXFP4 as gpt-oss ships it: only the experts' matrices (quantization_config's
  // modules_to_not_convert keeps attention, router, embeddings and lm_head in bf16).
  if (format == Dtype::kMxfp4) {
    const bool expert = t.routed_expert && (t.role == TensorRole::kGate || t.role == TensorRole::kUp ||
                                            t.role == TensorRole::kDown);
    return expert ? n * BitsPerWeight(format, q) / 8.0 : n * 2.0;
  }
  return layer_linear ? n * BitsPerWeight(format, q) / 8.0 : n * 2.0;
}

// Bytes of one tensor family as this run stores its own weights: `format` by the convention
// above, except where the run's stack departs from it. norms_fp32: peft's
// prepare_model_for_kbit_training keeps the norms in fp32; quantized_head: litgpt's QLoRA makes
// the head NF4 like every other Linear.
inline double StoredTensorBytes(const TensorShape& t, Dtype format, const Config& c) {
  const double n = static_cast<double>(t.rows) * static_cast<double>(t.cols) * static_cast<double>(t.count);
  if (c.norms_fp32 && t.group == ParamGroup::kNorms) return n * 4;
  if (c.quantized_head && t.role == TensorRole::kHead && format == Dtype::kNf4)
    return n * BitsPerWeight(Dtype::kNf4, c.quant) / 8;
  return TensorBytes(t, format, c.quant, c.model);
}

// A given parameter total is exact (7e9 x 2 B = 14e9 B): its whole bytes are shared out over
// the architecture's groups by largest remainder, so the groups add up to it, not to their
// rounded-up parts.
inline void ShareOutWholeBytes(double (&parts)[5], double whole) {
  double fraction[5];
  double left = whole;
  for (int i = 0; i < 5; ++i) {
    const double down = std::floor(parts[i]);
    fraction[i] = parts[i] - down;
    parts[i] = down;
    left -= down;
  }
  for (int given = 0; given < 5 && left >= 1; ++given, left -= 1) {
    int largest = 0;
    for (int i = 1; i < 5; ++i) {
      if (fraction[i] > fraction[largest]) largest = i;
    }
    parts[largest] += 1;
    fraction[largest] = -1;
  }
}

inline WeightBytes WeightsByGroup(const Derived& d, Dtype format) {
  WeightBytes w;
  if (format == d.own_format && d.has_arch) {
    w = d.own_weights;  // summed in Derived's pass, in the same order
  } else {
    d.facts.ForEachTensor([&](const TensorShape& t) {
      const double share = d.Share(t);
      const double bytes = TensorBytes(t, format, d.c.quant, d.c.model) * share;
      const int g = static_cast<int>(t.group);
      w.group[g] += bytes;
      w.params[g] += static_cast<double>(t.rows) * static_cast<double>(t.cols) * static_cast<double>(t.count) * share;
      w.total += bytes;
    });
  }
  if (d.c.model.params_override > 0 && d.counts.total > 0) {
    const double k = d.P / static_cast<double>(d.counts.total);
    for (int g = 0; g < 5; ++g) {
      w.group[g] *= k;
      w.params[g] *= k;
    }
    w.total = WholeBytes(w.total * k);
    ShareOutWholeBytes(w.group, w.total);
  }
  return w;
}

}  // namespace detail

// The stored weights of one model on this GPU: the whole model (inference, training),
// the frozen base (LoRA, QLoRA), or a named RLHF role (`id`, `name`, `format`).
template <class Sink>
void AccountWeights(const Derived& d, Sink& s, const char* id = "weights", const char* name = nullptr,
                    Dtype format_override = Dtype::kCount, double scale = 1.0) {
  const Config& c = d.c;
  const Dtype format = format_override != Dtype::kCount ? format_override
                       : c.mode == Mode::kQlora         ? Dtype::kNf4
                                                        : HeldWeightFormat(c);
  // transformers dequantizes a GGUF checkpoint as it loads it: the breakdown says so.
  const std::string dequantized =
      format != c.dtype && format_override == Dtype::kCount && c.mode != Mode::kQlora
          ? std::string("; transformers dequantizes the GGUF file (") + Info(c.dtype).id +
                ") at load and holds it in fp32 (from_pretrained's default without torch_dtype; choose dtype bf16 "
                "for torch_dtype=torch.bfloat16)"
          : std::string();
  if (name == nullptr) name = d.adapters ? "Frozen base weights" : "Weights";
  const double shards = d.WeightShards();
  const Device device = detail::OffloadDevice(c.offload_params);
  const char* where = device == Device::kCpu    ? " (offloaded to CPU)"
                      : device == Device::kNvme ? " (offloaded to NVMe)"
                                                : "";
  if (!d.has_arch) {
    const double bpp = BitsPerWeight(format, c.quant) / 8.0;
    const double bytes = d.P_gpu * scale * bpp / shards;
    s.Leaf(id, name, Category::kWeights, Live::Both(bytes).On(device), [&] {
      return Explanation{detail::PerParam(bpp, d.P_gpu * scale, "parameters") + detail::ShardNote(shards, c.zero) +
                             " (" + Info(format).label + ", " + BitsPerWeightFormula(format, c.quant) + ")" + where +
                             dequantized,
                         dequantized.empty() ? src::kWeights : src::kTransformersGguf};
    });
    return;
  }
  const detail::WeightBytes w = detail::WeightsByGroup(d, format);
  // PyTorch FSDP with mixed precision keeps one sharded copy of a trained parameter, the fp32
  // master; its 16-bit copies exist only gathered, unit by unit (the data-parallel buffers).
  const bool master_only = d.training && !d.adapters && c.sharding == Sharding::kFsdp && c.zero == 3 &&
                           c.master_weights && HasMasterCopy(c.dtype) && format_override == Dtype::kCount;
  // FSDP keeps each parameter, trained or frozen, in its shard's format, and MixedPrecision
  // casts to param_dtype as it gathers a unit: a LoRA base loaded in fp32 stays fp32 in its
  // shards (torch fully_sharded_data_parallel.py MixedPrecision: param_dtype is the gathered
  // copy's; peft's FSDP guide loads Llama-2-70B so).
  const bool fp32_shards = c.base_fp32_shards && d.adapters && format_override == Dtype::kCount;
  const double stored = master_only ? 0.0 : fp32_shards ? 32.0 / Info(format).bits : 1.0;
  s.Begin(id, name);
  s.Note([&] {
    std::string note = std::string(Info(format).label) + ": " + BitsPerWeightFormula(format, c.quant);
    if (master_only)
      note += "; FSDP MixedPrecision stores none sharded: the fp32 master is the shard, cast when gathered";
    if (fp32_shards) note += "; FSDP MixedPrecision: sharded in fp32 as loaded, cast when gathered";
    if (format > Dtype::kBf16 && format < Dtype::kQ8_0) note += "; embeddings, head and norms stay 16-bit";
    if (d.t > 1 || d.pp > 1 || d.ep > 1) {
      note += "; this GPU: stage " + std::to_string(d.stage + 1) + " of " + FormatNumber(d.pp) +
              ", matrices / t=" + FormatNumber(d.t) + (d.ep > 1 ? ", experts / ep=" + FormatNumber(d.ep) : "");
    }
    note += detail::ShardNote(shards, c.zero) + where + dequantized;
    return Explanation{note, format == Dtype::kNf4          ? src::kQlora
                             : !dequantized.empty() ? src::kTransformersGguf
                                                    : src::kWeights};
  });
  struct Row {
    ParamGroup g;
    const char* id;
    const char* label;
  };
  const Row rows[] = {
      {ParamGroup::kEmbedding, "embedding", "Embeddings"},
      {ParamGroup::kAttention, "attention", "Attention"},
      {ParamGroup::kMlp, "mlp", c.model.IsMoe() ? "MLP and experts" : "MLP"},
      {ParamGroup::kNorms, "norms", "Norms"},
      {ParamGroup::kHead, "head", "Output head"},
  };
  for (const Row& r : rows) {
    const int g = static_cast<int>(r.g);
    const double params = w.params[g] * scale;
    if (params == 0) continue;
    const double bytes = w.group[g] * scale * stored / shards;
    s.Leaf(r.id, r.label, Category::kWeights, Live::Both(bytes).On(device), [&] {
      // Bytes per parameter as the arithmetic has them (quantised groups: their average).
      return Explanation{
          detail::PerParam(w.group[g] / w.params[g] * (fp32_shards ? stored : 1), params, "params on this GPU") +
              detail::ShardNote(shards, c.zero) + " = " + FormatBytesBoth(bytes),
          src::kWeights};
    });
  }
  s.End();
}

}  // namespace llmmem::core
