// A Hub model from its config, weight headers and API totals; see hub_model.h.
// Quantisation config keys: transformers' utils/quantization_config.py (quant_method
// "gptq", "awq", "bitsandbytes" with load_in_4bit / bnb_4bit_quant_type / load_in_8bit,
// "fp8"). The architecture: hf_config.h's one import (its generic reader included).
#include "core/hub/hub_model.h"

#include <cctype>

#include "core/import/hf_config.h"
#include "core/base/safe_text.h"
#include "core/base/units.h"

namespace llmmem::core {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void Note(HubModelBuild& b, Severity s, const char* field, const std::string& message) {
  b.diagnostics.push_back({s == Severity::kError ? DiagId::kParse : DiagId::kIgnoredSetting, s, field, message});
}

}  // namespace

bool DtypeFromSafetensors(const std::string& dtype, Dtype* out) {
  const std::string d = Lower(dtype);
  if (d == "bf16") return ParseId("bf16", *out);
  if (d == "f16") return ParseId("fp16", *out);
  if (d == "f32") return ParseId("fp32", *out);
  if (d == "f8_e4m3" || d == "f8_e5m2" || d == "f8_e4m3fn") return ParseId("fp8", *out);
  if (d == "i8" || d == "u8") return ParseId("int8", *out);
  return false;
}

bool DtypeFromGgufName(const std::string& file, Dtype* out) {
  const std::string name =
      Lower(file.substr(file.find_last_of('/') == std::string::npos ? 0 : file.find_last_of('/') + 1));
  size_t best = 0;
  for (int i = 0; i < static_cast<int>(Dtype::kCount); ++i) {
    const DtypeInfo& info = Info(static_cast<Dtype>(i));
    const std::string id = info.id;
    if (id.size() <= best || (id[0] != 'q' && id.compare(0, 2, "iq") != 0) || id.find("_file") != std::string::npos)
      continue;
    const size_t at = name.find(id);
    if (at == std::string::npos) continue;
    const size_t end = at + id.size();
    // Whole tokens only: "q4_k" must not match inside "q4_k_m".
    if (end < name.size() && (std::isalnum(static_cast<unsigned char>(name[end])) || name[end] == '_')) continue;
    *out = info.value;
    best = id.size();
  }
  if (best == 0 && name.find("f16") != std::string::npos)
    return ParseId(name.find("bf16") != std::string::npos ? "bf16" : "fp16", *out);
  return best > 0;
}

HubModelBuild BuildHubModel(const HubModelInput& in) {
  HubModelBuild b;
  b.model.name = in.name;
  bool have_arch = false;
  Json config;
  if (in.config_text != nullptr) {
    const JsonParseResult parsed = ParseJson(*in.config_text);
    if (!parsed.ok || !parsed.value.IsObject()) {
      Note(b, Severity::kError, "config",
           "config.json of " + EchoValue(in.name, 200) +
               " is malformed: " + (parsed.ok ? "not a JSON object" : parsed.error));
      return b;
    }
    config = parsed.value;
    if (const Json* t = config.Find("model_type"); t != nullptr && t->IsString()) b.model_type = t->AsString();
    HfImport imported = ImportHfConfig(config, in.name);  // the one import path (hf_config.h)
    if (imported.ok) {
      b.model = imported.model;
      have_arch = true;
      b.approximate = imported.approximate;
      if (imported.approximate) {
        b.provenance.push_back("approximate: architecture " +
                               EchoValue(b.model_type.empty() ? "(no model_type)" : b.model_type, 80) +
                               " read generically (hidden size, layers, heads, KV heads, head dim, intermediate size, "
                               "vocab from config.json, " +
                               in.config_source + ")");
      } else {
        b.provenance.push_back("architecture: " + EchoValue(b.model_type, 80) +
                               ", read by the importer from config.json (" + in.config_source + ")");
      }
      for (const Diagnostic& d : imported.diagnostics) {
        if (!imported.approximate) b.diagnostics.push_back(d);  // approximate: the provenance says it
      }
    } else {
      b.provenance.push_back("config.json (" + in.config_source + ") lacks the architecture: no activations or KV cache");
    }
  }
  // Weights: exact parameters and stored bytes from the headers.
  const WeightHeaderResult* w = in.weights != nullptr && in.weights->ok() ? in.weights : nullptr;
  Dtype dtype;
  const bool quantized = in.config_text != nullptr && DtypeFromQuantConfig(config, &dtype);
  if (quantized) {
    b.dtype = dtype;
    b.dtype_known = true;
  }
  if (w != nullptr && w->format == WeightFormat::kGguf) {
    if (!have_arch && w->gguf.embedding_length > 0 && w->gguf.block_count > 0 && w->gguf.head_count > 0) {
      ModelSpec& m = b.model;
      m.hidden = w->gguf.embedding_length;
      m.layers = w->gguf.block_count;
      m.heads = w->gguf.head_count;
      m.kv_heads = w->gguf.head_count_kv > 0 ? w->gguf.head_count_kv : m.heads;
      m.head_dim = w->gguf.key_length > 0 ? w->gguf.key_length : m.hidden / m.heads;
      if (w->gguf.feed_forward_length > 0) m.ffn = w->gguf.feed_forward_length;
      if (w->gguf.vocab_size > 0) m.vocab = w->gguf.vocab_size;
      if (w->gguf.context_length > 0) m.max_positions = w->gguf.context_length;
      have_arch = true;
      b.approximate = true;
      b.provenance.push_back("approximate: architecture " + EchoValue(w->gguf.architecture, 80) +
                             " read generically from the GGUF header's key/values");
    }
    if (DtypeFromGgufName(in.weights_file, &dtype)) {
      b.dtype = dtype;
      b.dtype_known = true;
    }
  } else if (w != nullptr && !quantized && !w->by_type.empty() &&
             DtypeFromSafetensors(w->by_type.front().type, &dtype)) {
    b.dtype = dtype;
    b.dtype_known = true;
  }
  if (w != nullptr && w->parameters_known) {
    b.stored_bytes = w->weight_bytes;
    std::string types;
    for (const WeightTypeTally& t : w->by_type) {
      types += (types.empty() ? "" : ", ") + t.type + " " + FormatCount(static_cast<int64_t>(t.parameters));
    }
    b.provenance.push_back("weights: " + FormatCount(static_cast<int64_t>(w->parameter_count)) + " parameters (" +
                           types + "), " + FormatCount(static_cast<int64_t>(w->weight_bytes)) +
                           " bytes as stored, from the header of " + in.weights_source);
    // Packed quantised tensors (GPTQ/AWQ int32, bitsandbytes uint8) hold several weights per
    // element: the header's element count is what is stored, not the model's parameters.
    // The header's count replaces the architecture's only where they differ (a repo with
    // extra tensors, or an architecture read generically).
    if (!quantized && (!have_arch || CountParameters(b.model).total != static_cast<int64_t>(w->parameter_count)))
      b.model.params_override = static_cast<int64_t>(w->parameter_count);
    else if (quantized)
      b.provenance.push_back("quantised (" + std::string(Info(b.dtype).id) +
                             "): the header's elements are packed, the parameter count comes from the architecture");
  } else if (in.weights != nullptr && !in.weights->ok()) {
    Note(b, Severity::kWarning, "weights",
         "the weights header of " + EchoValue(in.name, 200) + " could not be read: " + in.weights->message);
  }
  // The Hub's own totals: used when no header was read, cross-checked when one was.
  if (in.info != nullptr && in.info->safetensors_total > 0) {
    const int64_t hub = in.info->safetensors_total;
    if (w != nullptr && w->parameters_known && w->format != WeightFormat::kGguf) {
      if (static_cast<uint64_t>(hub) == w->parameter_count) {
        b.provenance.push_back("Hub API totals (" + in.info_source + "): " + FormatCount(hub) +
                               " parameters, agree with the headers");
      } else {
        Note(b, Severity::kWarning, "weights",
             "the Hub API says " + FormatCount(hub) + " parameters, the headers " +
                 FormatCount(static_cast<int64_t>(w->parameter_count)) + ": the headers are used");
      }
    } else if (w == nullptr && !quantized) {
      b.model.params_override = hub;
      b.provenance.push_back("weights: " + FormatCount(hub) + " parameters from the Hub API's totals (" +
                             in.info_source + "); no header was read");
      if (!in.info->safetensors_parameters.empty() && !b.dtype_known) {
        int64_t most = -1;
        for (const auto& [type, n] : in.info->safetensors_parameters) {
          if (n > most && DtypeFromSafetensors(type, &dtype)) {
            most = n;
            b.dtype = dtype;
            b.dtype_known = true;
          }
        }
      }
    }
  }
  if (!have_arch && b.model.params_override <= 0) {
    Note(b, Severity::kError, "config",
         EchoValue(in.name, 200) + ": neither a readable config.json nor weight headers give the model's size");
    return b;
  }
  if (!have_arch) {
    b.model.hidden = b.model.layers = b.model.heads = 0;  // weights only: no activations, no KV cache
    b.model.kv_heads = b.model.head_dim = b.model.ffn = 0;
  }
  if (b.dtype_known) b.provenance.push_back(std::string("stored format: ") + Info(b.dtype).id);
  b.model.preset.clear();
  b.model.name = in.name;
  b.ok = true;
  return b;
}

bool HubHeaderSum::Add(const WeightHeaderResult& header) {
  if (!error_.empty()) return false;
  WeightHeaderResult next = count_ == 0 ? CombineWeightHeaders({header}) : CombineWeightHeaders({total_, header});
  if (!next.ok()) {
    error_ = "file #" + std::to_string(count_ + 1) + ": " +
             (header.message.empty() ? next.message : header.message);
    return false;
  }
  // One file read alone stays as the reader gave it (its index, its notes).
  total_ = count_ == 0 ? header : std::move(next);
  ++count_;
  return true;
}

}  // namespace llmmem::core
