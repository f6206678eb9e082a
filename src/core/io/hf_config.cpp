// Family rules, from the modeling_*.py files of Hugging Face transformers:
//  llama/mistral/yi/baichuan: SwiGLU, RMSNorm, no biases, untied by default
//  qwen2(_moe): + q/k/v biases the config does not state; qwen2_moe: shared expert + gate
//  qwen3(_moe): per-head q/k RMSNorm, explicit head_dim
//  gemma: GeGLU, tied; gemma2: four norms per layer; gemma3_text: + per-head q/k norms
//  phi3: fused qkv_proj and gate_up_proj (same count as separate)
//  olmo2: q/k RMSNorm over the whole projection, post-norms only (two per layer)
//  gpt2: learned positions, LayerNorm, biases everywhere, tied; gpt_neox: biases, untied
//  gpt_bigcode: gpt2's layout with one K/V head under multi_query (SantaCoder, StarCoder)
//  falcon: fused qkv, multi-query or new_decoder_architecture groups, LayerNorm, tied
//  bert: post-norm encoder, token types, embedding LayerNorm, pooler
#include "core/io/hf_config.h"

#include <algorithm>
#include <cmath>

#include "core/model/activation_fn.h"
#include "core/io/safe_text.h"

namespace llmmem::core {
namespace {

class Reader {
 public:
  Reader(const Json& j, Diagnostics& d) : j_(j), d_(d) {}

  int64_t Int(const char* key, int64_t fallback, bool required = false) {
    const Json* v = j_.Find(key);
    if (v == nullptr || v->IsNull()) {
      if (required) {
        d_.push_back({DiagId::kMissingField, Severity::kError, key,
                      std::string("config.json has no \"") + key +
                          "\"; add it to the file or enter the model's dimensions by hand"});
      }
      return fallback;
    }
    if (!v->IsNumber() || !std::isfinite(v->AsNumber()) || v->AsNumber() != std::floor(v->AsNumber()) ||
        std::fabs(v->AsNumber()) > 9e15) {
      d_.push_back({DiagId::kWrongType, Severity::kError, key,
                    std::string("\"") + key + "\" in config.json must be a whole number"});
      return fallback;
    }
    return static_cast<int64_t>(v->AsNumber());
  }
  bool Bool(const char* key, bool fallback) {
    const Json* v = j_.Find(key);
    if (v == nullptr || v->IsNull()) return fallback;
    if (!v->IsBool()) {
      d_.push_back({DiagId::kWrongType, Severity::kError, key, std::string("\"") + key + "\" must be true or false"});
      return fallback;
    }
    return v->AsBool();
  }
  bool Has(const char* key) const {
    const Json* v = j_.Find(key);
    return v != nullptr && !v->IsNull();
  }

 private:
  const Json& j_;
  Diagnostics& d_;
};

// The decoder fields most families share (llama naming).
void ReadLlamaLike(Reader& r, ModelSpec& m) {
  m.vocab = r.Int("vocab_size", 0, true);
  m.hidden = r.Int("hidden_size", 0, true);
  m.layers = r.Int("num_hidden_layers", 0, true);
  m.heads = r.Int("num_attention_heads", 0, true);
  m.kv_heads = r.Int("num_key_value_heads", m.heads);
  m.head_dim = r.Int("head_dim", m.heads > 0 ? m.hidden / m.heads : 0);
  m.ffn = r.Int("intermediate_size", 0, true);
  m.mlp = MlpKind::kGated;
  m.norm = NormKind::kRmsNorm;
  m.qkv_bias = r.Bool("attention_bias", false);
  m.attn_out_bias = m.qkv_bias;
  m.mlp_bias = r.Bool("mlp_bias", false);
  m.tied_embeddings = r.Bool("tie_word_embeddings", false);
}

// Qwen-style MoE: every decoder_sparse_step-th layer is sparse unless listed in
// mlp_only_layers; we support the uniform layouts the released models use.
void ReadQwenMoe(Reader& r, const Json& j, ModelSpec& m, Diagnostics& d) {
  m.experts = r.Int("num_experts", 0, true);
  m.experts_per_token = r.Int("num_experts_per_tok", 0, true);
  m.moe_ffn = r.Int("moe_intermediate_size", 0, true);
  const int64_t step = r.Int("decoder_sparse_step", 1);
  const Json* only = j.Find("mlp_only_layers");
  if (step != 1 || (only != nullptr && only->IsArray() && !only->AsArray().empty())) {
    d.push_back({DiagId::kUnsupported, Severity::kError, "decoder_sparse_step",
                 "dense layers interleaved with MoE layers (decoder_sparse_step != 1 or mlp_only_layers) are not "
                 "modelled yet; enter the dimensions by hand"});
  }
}

// Which layers attend within a window: an explicit layer_types list when the config has
// one; else Gemma 2 alternates (even layers local), Gemma 3 has sliding_window_pattern - 1
// local layers per global one, and Mistral-style configs window every layer.
void ReadSlidingWindow(const Json& j, Reader& r, const std::string& type, ModelSpec& m) {
  const int64_t window = r.Int("sliding_window", 0);
  if (window <= 0) return;
  if (r.Has("use_sliding_window") && !r.Bool("use_sliding_window", false)) return;  // Qwen2 ships it off
  int64_t sliding = m.layers;
  if (const Json* types = j.Find("layer_types"); types != nullptr && types->IsArray()) {
    sliding = 0;
    for (const Json& t : types->AsArray()) sliding += t.IsString() && t.AsString() == "sliding_attention";
  } else if (type == "gemma2") {
    sliding = (m.layers + 1) / 2;
  } else if (type == "gemma3_text") {
    const int64_t pattern = r.Int("sliding_window_pattern", 6);
    sliding = pattern > 0 ? m.layers - m.layers / pattern : m.layers;
  } else if (type == "qwen2" || type == "qwen2_moe" || type == "qwen3" || type == "qwen3_moe") {
    const int64_t max_window_layers = r.Int("max_window_layers", m.layers);
    sliding = m.layers - std::min(m.layers, max_window_layers);
  }
  m.sliding_window = window;
  m.sliding_layers = sliding;
}

}  // namespace

const char* SupportedModelTypes() {
  return "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3_text, phi3, "
         "deepseek_v2, deepseek_v3, gpt2, gpt_bigcode, gpt_neox, falcon, bert, olmo2, baichuan, yi";
}

// The MLP's activation: hidden_act (llama naming), activation_function (gpt2) or
// hidden_activation (gemma); each family's modeling code has its own default.
void ReadActivation(const Json& j, const std::string& type, ModelSpec& m, Diagnostics& d) {
  m.act = type == "gpt2"          ? ActivationFn::kGeluNew
          : type == "gpt_bigcode" ? ActivationFn::kGeluTanh  // GPTBigCodeConfig: gelu_pytorch_tanh
          : type == "falcon" || type == "RefinedWeb" || type == "RefinedWebModel" || type == "bert"
              ? ActivationFn::kGelu
          : type.compare(0, 5, "gemma") == 0 ? ActivationFn::kGeluTanh
                                             : ActivationFn::kSilu;
  for (const char* key : {"hidden_activation", "hidden_act", "activation_function"}) {
    const Json* v = j.Find(key);
    if (v == nullptr || !v->IsString()) continue;
    if (!ParseId(v->AsString(), m.act)) {
      d.push_back({DiagId::kUnknownValue, Severity::kWarning, key,
                   std::string("activation \"") + EchoValue(v->AsString(), 40) +
                       "\" is not one the activation profiles know (" + IdList<ActivationFn>() +
                       "); its saved tensors are counted as " + Id(m.act) + "'s"});
    }
    return;
  }
}

HfImport ImportHfConfig(const Json& j, const std::string& name) {
  HfImport out;
  if (!j.IsObject()) {
    out.diagnostics.push_back(
        {DiagId::kWrongType, Severity::kError, "config", "a config.json must be a JSON object ({...})"});
    return out;
  }
  const Json* type_field = j.Find("model_type");
  if (type_field == nullptr || !type_field->IsString()) {
    out.diagnostics.push_back({DiagId::kMissingField, Severity::kError, "model_type",
                               std::string("config.json has no \"model_type\"; add one of: ") + SupportedModelTypes()});
    return out;
  }
  const std::string type = type_field->AsString();
  Diagnostics& d = out.diagnostics;
  Reader r(j, d);
  ModelSpec m;
  m.name = name;

  if (type == "llama" || type == "mistral" || type == "yi" || type == "baichuan") {
    ReadLlamaLike(r, m);
  } else if (type == "mixtral") {
    ReadLlamaLike(r, m);
    m.experts = r.Int("num_local_experts", 0, true);
    m.experts_per_token = r.Int("num_experts_per_tok", 0, true);
    m.moe_ffn = m.ffn;
  } else if (type == "qwen2" || type == "qwen2_moe") {
    ReadLlamaLike(r, m);
    m.qkv_bias = true;  // Qwen2 always has q/k/v biases; no config field says so
    m.attn_out_bias = false;
    if (type == "qwen2_moe") {
      ReadQwenMoe(r, j, m, d);
      const int64_t shared = r.Int("shared_expert_intermediate_size", 0);
      if (shared > 0) {
        m.shared_experts = 1;
        m.shared_ffn = shared;
        m.shared_expert_gate = true;
      }
    }
  } else if (type == "qwen3" || type == "qwen3_moe") {
    ReadLlamaLike(r, m);
    m.qk_norm = QkNorm::kPerHead;
    if (type == "qwen3_moe") ReadQwenMoe(r, j, m, d);
  } else if (type == "gemma" || type == "gemma2" || type == "gemma3_text") {
    ReadLlamaLike(r, m);
    m.tied_embeddings = r.Bool("tie_word_embeddings", true);
    if (type != "gemma") m.norms_per_layer = 4;
    if (type == "gemma3_text") m.qk_norm = QkNorm::kPerHead;
  } else if (type == "phi3") {
    ReadLlamaLike(r, m);
  } else if (type == "olmo2") {
    ReadLlamaLike(r, m);
    m.qk_norm = QkNorm::kFull;
  } else if (type == "gpt2" || type == "gpt_bigcode") {
    m.vocab = r.Int("vocab_size", 0, true);
    m.hidden = r.Int("n_embd", 0, true);
    m.layers = r.Int("n_layer", 0, true);
    m.heads = r.Int("n_head", 0, true);
    // GPTBigCodeAttention: kv_heads = 1 if multi_query (its default) else num_heads.
    m.kv_heads = type == "gpt_bigcode" && r.Bool("multi_query", true) ? 1 : m.heads;
    m.head_dim = m.heads > 0 ? m.hidden / m.heads : 0;
    m.ffn = r.Int("n_inner", 4 * m.hidden);
    m.learned_positions = r.Int("n_positions", 1024);
    m.mlp = MlpKind::kPlain;
    m.norm = NormKind::kLayerNorm;
    m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;
    m.tied_embeddings = true;
    m.fused_qkv = true;  // c_attn
    if (type == "gpt_bigcode" && r.Bool("use_cache", true)) {
      d.push_back({DiagId::kSuggestion, Severity::kInfo, "train_use_cache",
                   "for training with gradient checkpointing: transformers' GPTBigCode keeps use_cache on, so each "
                   "layer's cache (its whole QKV output) stays until the loss has run; turn on train_use_cache "
                   "(--train-use-cache) to count it"});
    }
  } else if (type == "gpt_neox") {
    ReadLlamaLike(r, m);
    m.mlp = MlpKind::kPlain;
    m.norm = NormKind::kLayerNorm;
    m.qkv_bias = m.attn_out_bias = m.mlp_bias = r.Bool("attention_bias", true);
    m.mlp_bias = true;
    m.fused_qkv = true;  // query_key_value
  } else if (type == "falcon" || type == "RefinedWeb" || type == "RefinedWebModel") {
    m.vocab = r.Int("vocab_size", 0, true);
    m.hidden = r.Int("hidden_size", 0, true);
    m.layers = r.Int("num_hidden_layers", r.Int("n_layer", 0), !r.Has("n_layer"));
    m.heads = r.Int("num_attention_heads", r.Int("n_head", 0), !r.Has("n_head"));
    m.head_dim = m.heads > 0 ? m.hidden / m.heads : 0;
    const bool new_arch = r.Bool("new_decoder_architecture", false);
    const bool multi_query = r.Bool("multi_query", true);
    m.kv_heads = new_arch ? r.Int("num_kv_heads", m.heads) : multi_query ? 1 : m.heads;
    m.ffn = r.Int("ffn_hidden_size", 4 * m.hidden);
    m.mlp = MlpKind::kPlain;
    m.norm = NormKind::kLayerNorm;
    const bool bias = r.Bool("bias", false);
    m.qkv_bias = m.attn_out_bias = m.mlp_bias = bias;
    m.norms_per_layer = new_arch ? 2 : r.Bool("parallel_attn", true) ? 1 : 2;
    m.tied_embeddings = r.Bool("tie_word_embeddings", true);
    m.fused_qkv = true;  // query_key_value
  } else if (type == "bert") {
    m.arch = Arch::kEncoder;
    m.vocab = r.Int("vocab_size", 0, true);
    m.hidden = r.Int("hidden_size", 0, true);
    m.layers = r.Int("num_hidden_layers", 0, true);
    m.heads = r.Int("num_attention_heads", 0, true);
    m.kv_heads = m.heads;
    m.head_dim = m.heads > 0 ? m.hidden / m.heads : 0;
    m.ffn = r.Int("intermediate_size", 0, true);
    m.learned_positions = r.Int("max_position_embeddings", 512);
    m.type_vocab = r.Int("type_vocab_size", 2);
    m.mlp = MlpKind::kPlain;
    m.norm = NormKind::kLayerNorm;
    m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;
    m.embedding_norm = true;
    m.final_norm = false;
    m.pooler = true;
    m.tied_embeddings = true;
  } else if (type == "deepseek_v2" || type == "deepseek_v3") {
    ReadLlamaLike(r, m);
    m.q_lora_rank = r.Int("q_lora_rank", 0);  // null: a plain q_proj (V2-Lite)
    m.kv_lora_rank = r.Int("kv_lora_rank", 0, true);
    m.qk_nope_dim = r.Int("qk_nope_head_dim", 0, true);
    m.qk_rope_dim = r.Int("qk_rope_head_dim", 0, true);
    m.v_head_dim = r.Int("v_head_dim", 0, true);
    m.head_dim = m.qk_nope_dim + m.qk_rope_dim;  // Q and K per head; V uses v_head_dim
    m.kv_heads = m.heads;
    m.experts = r.Int("n_routed_experts", 0);
    if (m.experts > 0) {
      m.experts_per_token = r.Int("num_experts_per_tok", 0, true);
      m.moe_ffn = r.Int("moe_intermediate_size", 0, true);
      m.shared_experts = r.Int("n_shared_experts", 0);
      m.shared_ffn = m.moe_ffn;
      m.dense_layers = r.Int("first_k_dense_replace", 0);
      const Json* method = j.Find("topk_method");
      m.router_bias = method != nullptr && method->IsString() && method->AsString() == "noaux_tc";
      if (r.Int("moe_layer_freq", 1) != 1) {
        d.push_back({DiagId::kUnsupported, Severity::kError, "moe_layer_freq",
                     "MoE layers at a frequency other than 1 are not modelled yet; enter the dimensions by hand"});
      }
    }
    if (r.Int("num_nextn_predict_layers", 0) > 0) {
      d.push_back({DiagId::kIgnoredSetting, Severity::kInfo, "num_nextn_predict_layers",
                   "the multi-token-prediction module is not counted: inference engines load it only for "
                   "speculative decoding"});
    }
  } else {
    d.push_back({DiagId::kUnknownValue, Severity::kError, "model_type",
                 "model_type \"" + EchoValue(type) + "\" is not supported; supported: " + SupportedModelTypes() +
                     ". Enter the dimensions by hand instead"});
  }

  ReadSlidingWindow(j, r, type, m);
  ReadActivation(j, type, m, d);
  m.max_positions = r.Int("max_position_embeddings", r.Int("n_positions", 0));
  if (m.heads > 0 && m.head_dim <= 0) {
    d.push_back(
        {DiagId::kMissingField, Severity::kError, "head_dim", "head_dim could not be derived; add \"head_dim\""});
  }
  out.ok = !HasErrors(d);
  if (out.ok) out.model = m;
  return out;
}

HfImport ImportHfConfigText(const std::string& text, const std::string& name) {
  const JsonParseResult parsed = ParseJson(text);
  if (!parsed.ok) {
    HfImport out;
    out.diagnostics.push_back(
        {DiagId::kParse, Severity::kError, "config", "config.json is not valid JSON: " + parsed.error});
    return out;
  }
  return ImportHfConfig(parsed.value, name);
}

}  // namespace llmmem::core
