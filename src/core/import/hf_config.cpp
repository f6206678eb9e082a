// Family rules, from the modeling_*.py files of Hugging Face transformers:
//  llama/mistral/yi/baichuan: SwiGLU, RMSNorm, no biases, untied by default
//  qwen2(_moe): + q/k/v biases the config does not state; qwen2_moe: shared expert + gate
//  qwen3(_moe): per-head q/k RMSNorm, explicit head_dim
//  qwen2_5_vl / qwen3_vl(_moe): Qwen2's / Qwen3's text model and a vision tower (hf_config_vision.cpp)
//  gemma: GeGLU, tied; gemma2: four norms per layer; gemma3_text: + per-head q/k norms
//  phi3: fused qkv_proj and gate_up_proj (same count as separate)
//  olmo2: q/k RMSNorm over the whole projection, post-norms only (two per layer)
//  gpt2: learned positions, LayerNorm, biases everywhere, tied; gpt_neox: biases, untied
//  gpt_bigcode: gpt2's layout with one K/V head under multi_query (SantaCoder, StarCoder)
//  falcon: fused qkv, multi-query or new_decoder_architecture groups, LayerNorm, tied
//  bert: post-norm encoder, token types, embedding LayerNorm, pooler
//  2025-2026 families (gpt-oss, Qwen3-Next, Llama 4, GLM-4.x MoE, MiniMax-M2, ...): hf_config_families.cpp
//  gemma3n / gemma3n_text: Gemma 3's layer plus PLE, AltUp, LAuReL, KV-shared layers (hf_config_families.cpp)
//  gemma4 / gemma4_text: full layers of their own heads, K = V, PLE, KV-shared layers, MoE (hf_config_families.cpp)
//  glm_moe_dsa (GLM-5): DeepSeek-V3.2's MLA, lightning indexer and MoE (hf_config_families.cpp)
//  Mamba-2 hybrids (nemotron_h, granitemoehybrid, falcon_h1): hf_config_mamba.cpp
// model_type -> family is one table (kModelTypes) and one switch, as llama.cpp's LLM_ARCH_NAMES
// and its loader's switch (arch): a new model_type is a row, a new family a case.
#include "core/import/hf_config.h"

#include <algorithm>
#include <cmath>

#include "core/model/activation_fn.h"
#include "core/import/hf_config_reader.h"
#include "core/base/safe_text.h"

namespace llmmem::core {
namespace hf {

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
namespace {

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
void ReadSlidingWindow(const Json& j, Reader& r, Family family, ModelSpec& m, Diagnostics& d) {
  const int64_t window = r.Int("sliding_window", 0);
  if (window <= 0) return;
  if (r.Has("use_sliding_window") && !r.Bool("use_sliding_window", false)) return;  // Qwen2 ships it off
  m.sliding_window = window;
  if (ReadLayerTypes(j, m, d)) return;
  int64_t sliding = m.AttentionLayers();
  if (family == Family::kGemma2) {
    sliding = (m.layers + 1) / 2;
  } else if (family == Family::kGemma3n) {  // four sliding layers, then a full one (configuration_gemma3n.py)
    sliding = m.layers - m.layers / 5;
  } else if (family == Family::kGemma4) {  // (i + 1) % 6 full, the last layer forced full (configuration_gemma4.py)
    sliding = m.layers - m.layers / 6 - (m.layers % 6 != 0 ? 1 : 0);
  } else if (family == Family::kGemma3Text || family == Family::kGemma3) {
    const int64_t pattern = r.Int("sliding_window_pattern", 6);
    sliding = pattern > 0 ? m.layers - m.layers / pattern : m.layers;
  } else if (family == Family::kQwen2 || family == Family::kQwen2Moe || family == Family::kQwen25Vl ||
             family == Family::kQwen3Vl || family == Family::kQwen3VlMoe || family == Family::kQwen3 ||
             family == Family::kQwen3Moe) {
    const int64_t max_window_layers = r.Int("max_window_layers", m.layers);
    sliding = m.layers - std::min(m.layers, max_window_layers);
  }
  m.sliding_layers = sliding;
}

struct ModelTypeRow {
  const char* id;
  Family family;
};

// model_type -> family. Kimi K2 ships DeepSeek-V3's layout under its own name; glm4_moe_lite
// (GLM-4.7-Flash) is GLM-4.5's MoE with MLA. Multimodal wrappers (gemma3, mistral3, llama4)
// keep their language model under text_config.
constexpr ModelTypeRow kModelTypes[] = {
    {"llama", Family::kLlama},
    {"mistral", Family::kLlama},
    {"yi", Family::kLlama},
    {"baichuan", Family::kLlama},
    {"mixtral", Family::kMixtral},
    {"qwen2", Family::kQwen2},
    {"qwen2_moe", Family::kQwen2Moe},
    {"qwen3", Family::kQwen3},
    {"qwen3_moe", Family::kQwen3Moe},
    {"qwen2_5_vl", Family::kQwen25Vl},
    {"qwen3_vl", Family::kQwen3Vl},
    {"qwen3_vl_moe", Family::kQwen3VlMoe},
    {"qwen3_next", Family::kQwen3Next},
    {"qwen3_5", Family::kQwen3Next},
    {"qwen3_5_text", Family::kQwen3Next},
    {"qwen3_5_moe", Family::kQwen3Next},
    {"qwen3_5_moe_text", Family::kQwen3Next},
    {"gemma", Family::kGemma},
    {"gemma2", Family::kGemma2},
    {"gemma3_text", Family::kGemma3Text},
    {"gemma3", Family::kGemma3},
    {"gemma3n", Family::kGemma3n},
    {"gemma3n_text", Family::kGemma3n},
    {"gemma4", Family::kGemma4},
    {"gemma4_text", Family::kGemma4},
    {"phi3", Family::kPhi3},
    {"olmo2", Family::kOlmo2},
    {"olmo3", Family::kOlmo3},
    {"smollm3", Family::kSmolLm3},
    {"deepseek_v2", Family::kDeepseek},
    {"deepseek_v3", Family::kDeepseek},
    {"kimi_k2", Family::kDeepseek},
    {"kimi_linear", Family::kKimiLinear},
    {"deepseek_v32", Family::kDeepseekV32},
    {"glm_moe_dsa", Family::kGlmMoeDsa},
    {"gpt_oss", Family::kGptOss},
    {"llama4", Family::kLlama4},
    {"llama4_text", Family::kLlama4},
    {"glm4_moe", Family::kGlm4Moe},
    {"glm4_moe_lite", Family::kGlm4MoeLite},
    {"minimax_m2", Family::kMinimaxM2},
    {"mistral3", Family::kMistral3},
    {"nemotron_h", Family::kNemotronH},
    {"granitemoehybrid", Family::kGraniteMoeHybrid},
    {"falcon_h1", Family::kFalconH1},
    {"gpt2", Family::kGpt2},
    {"gpt_bigcode", Family::kGptBigCode},
    {"gpt_neox", Family::kGptNeox},
    {"falcon", Family::kFalcon},
    {"RefinedWeb", Family::kFalcon},
    {"RefinedWebModel", Family::kFalcon},
    {"bert", Family::kBert},
};

bool FindFamily(const std::string& type, Family& out) {
  for (const ModelTypeRow& row : kModelTypes) {
    if (type == row.id) {
      out = row.family;
      return true;
    }
  }
  return false;
}

// The language model's config: a multimodal wrapper's text_config (Gemma 3, Mistral 3, Llama 4,
// Qwen3.5 keep the language model there and no layer count of their own), else the file itself.
const Json& TextConfig(const Json& j) {
  const Json* text = j.Find("text_config");
  const Json* layers = j.Find("num_hidden_layers");
  return text != nullptr && text->IsObject() && (layers == nullptr || layers->IsNull()) ? *text : j;
}

std::string ListModelTypes() {
  std::string list;
  for (const ModelTypeRow& row : kModelTypes) {
    const std::string id = row.id;
    if (id == "RefinedWeb" || id == "RefinedWebModel") continue;  // Falcon's old names, accepted quietly
    if (!list.empty()) list += ", ";
    list += id;
  }
  return list;
}

// The MLP's activation: hidden_act (llama naming), activation_function (gpt2) or
// hidden_activation (gemma); each family's modeling code has its own default.
void ReadActivation(const Json& j, Family family, ModelSpec& m, Diagnostics& d) {
  m.act = family == Family::kGpt2         ? ActivationFn::kGeluNew
          : family == Family::kGptBigCode ? ActivationFn::kGeluTanh  // GPTBigCodeConfig: gelu_pytorch_tanh
          : family == Family::kNemotronH  ? ActivationFn::kRelu2  // NemotronHConfig mlp_hidden_act
          : family == Family::kFalcon || family == Family::kBert ? ActivationFn::kGelu
          : family == Family::kGemma || family == Family::kGemma2 || family == Family::kGemma3Text ||
                  family == Family::kGemma3 || family == Family::kGemma4
              ? ActivationFn::kGeluTanh
              : ActivationFn::kSilu;
  for (const char* key : {"mlp_hidden_act", "hidden_activation", "hidden_act", "activation_function"}) {
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

}  // namespace
}  // namespace hf

const char* SupportedModelTypes() {
  static const std::string list = hf::ListModelTypes();
  return list.c_str();
}

HfImport ImportHfConfig(const Json& j, const std::string& name) {
  using namespace hf;
  HfImport out;
  if (!j.IsObject()) {
    out.diagnostics.push_back(
        {DiagId::kWrongType, Severity::kError, "config", "a config.json must be a JSON object ({...})"});
    return out;
  }
  const Json* type_field = j.Find("model_type");
  const std::string type = type_field != nullptr && type_field->IsString() ? type_field->AsString() : "";
  Diagnostics& d = out.diagnostics;
  Family family = Family::kLlama;
  if (!FindFamily(type, family)) {
    // Not in the table: the common fields, read as --hf always read them (one import path).
    const std::string what = type.empty() ? std::string("config.json has no \"model_type\"")
                                          : "model_type \"" + EchoValue(type) + "\" is not in the importer's table";
    std::string missing;
    ModelSpec m;
    m.name = name;
    if (!ReadGenericConfig(j, &m, &missing)) {
      d.push_back({type.empty() ? DiagId::kMissingField : DiagId::kUnknownValue, Severity::kError, "model_type",
                   what + " and it lacks" + missing + " to read it generically; supported: " + SupportedModelTypes() +
                       ". Enter the dimensions by hand instead"});
      return out;
    }
    d.push_back({DiagId::kIgnoredSetting, Severity::kWarning, "model_type",
                 what + ": read generically (hidden size, layers, heads, KV heads, head dim, intermediate size, "
                        "vocab), the rest assumed Llama-like, so the count is approximate; supported exactly: " +
                     std::string(SupportedModelTypes())});
    out.model = m;
    out.ok = true;
    out.approximate = true;
    return out;
  }
  const Json& tj = TextConfig(j);
  Reader r(tj, d);
  ModelSpec m;
  m.name = name;

  switch (family) {
    case Family::kLlama:
    case Family::kPhi3:
      ReadLlamaLike(r, m);
      break;
    case Family::kSmolLm3:
      // SmolLM3: Llama's layout; no_rope_layers changes positions, not weights.
      ReadLlamaLike(r, m);
      m.tied_embeddings = r.Bool("tie_word_embeddings", true);
      break;
    case Family::kMistral3:
      // Mistral3ForConditionalGeneration: a Mistral text model under text_config, a Pixtral tower.
      ReadLlamaLike(r, m);
      ReadPixtralTower(j, m, d);
      break;
    case Family::kMixtral:
      ReadLlamaLike(r, m);
      m.experts = r.Int("num_local_experts", 0, true);
      m.experts_per_token = r.Int("num_experts_per_tok", 0, true);
      m.moe_ffn = m.ffn;
      break;
    case Family::kQwen2:
    case Family::kQwen2Moe:
    case Family::kQwen25Vl:
      ReadLlamaLike(r, m);
      m.qkv_bias = true;  // Qwen2 always has q/k/v biases; no config field says so
      m.attn_out_bias = false;
      if (family == Family::kQwen2Moe) {
        ReadQwenMoe(r, tj, m, d);
        const int64_t shared = r.Int("shared_expert_intermediate_size", 0);
        if (shared > 0) {
          m.shared_experts = 1;
          m.shared_ffn = shared;
          m.shared_expert_gate = true;
        }
      }
      if (family == Family::kQwen25Vl) ReadQwenVisionTower(j, VisionKind::kQwen25Vl, m, d);
      break;
    case Family::kQwen3:
    case Family::kQwen3Moe:
    case Family::kQwen3Vl:
    case Family::kQwen3VlMoe:
      // Qwen3-VL(-MoE)'s text model is Qwen3's (Qwen3VLTextAttention: per-head q/k norms), with its experts.
      ReadLlamaLike(r, m);
      m.qk_norm = QkNorm::kPerHead;
      if (family == Family::kQwen3Moe || family == Family::kQwen3VlMoe) ReadQwenMoe(r, tj, m, d);
      if (family == Family::kQwen3Vl || family == Family::kQwen3VlMoe)
        ReadQwenVisionTower(j, VisionKind::kQwen3Vl, m, d);
      break;
    case Family::kQwen3Next:
      ReadQwen3Next(r, m);
      break;
    case Family::kGemma:
    case Family::kGemma2:
    case Family::kGemma3Text:
    case Family::kGemma3:
      if (family == Family::kGemma3)
        ReadGemma3TextDefaults(r, m);  // the wrapper's text_config leaves most fields to their defaults
      else
        ReadLlamaLike(r, m);
      m.tied_embeddings = r.Bool("tie_word_embeddings", true);
      if (family != Family::kGemma) m.norms_per_layer = 4;
      if (family == Family::kGemma3Text || family == Family::kGemma3) m.qk_norm = QkNorm::kPerHead;
      if (family == Family::kGemma3) ReadSiglipTower(j, m, d);
      break;
    case Family::kOlmo2:
    case Family::kOlmo3:
      // OLMo 3: OLMo 2's layers, three sliding-window layers per full one (layer_types).
      ReadLlamaLike(r, m);
      m.qk_norm = QkNorm::kFull;
      break;
    case Family::kGpt2:
    case Family::kGptBigCode:
      m.vocab = r.Int("vocab_size", 0, true);
      m.hidden = r.Int("n_embd", 0, true);
      m.layers = r.Int("n_layer", 0, true);
      m.heads = r.Int("n_head", 0, true);
      // GPTBigCodeAttention: kv_heads = 1 if multi_query (its default) else num_heads.
      m.kv_heads = family == Family::kGptBigCode && r.Bool("multi_query", true) ? 1 : m.heads;
      m.head_dim = m.heads > 0 ? m.hidden / m.heads : 0;
      m.ffn = r.Int("n_inner", 4 * m.hidden);
      m.learned_positions = r.Int("n_positions", 1024);
      m.mlp = MlpKind::kPlain;
      m.norm = NormKind::kLayerNorm;
      m.qkv_bias = m.attn_out_bias = m.mlp_bias = true;
      m.tied_embeddings = true;
      m.fused_qkv = true;  // c_attn
      if (family == Family::kGptBigCode && r.Bool("use_cache", true)) {
        d.push_back({DiagId::kSuggestion, Severity::kInfo, "train_use_cache",
                     "for training with gradient checkpointing: transformers' GPTBigCode keeps use_cache on, so each "
                     "layer's cache (its whole QKV output) stays until the loss has run; turn on train_use_cache "
                     "(--train-use-cache) to count it"});
      }
      break;
    case Family::kGptNeox:
      ReadLlamaLike(r, m);
      m.mlp = MlpKind::kPlain;
      m.norm = NormKind::kLayerNorm;
      m.qkv_bias = m.attn_out_bias = m.mlp_bias = r.Bool("attention_bias", true);
      m.mlp_bias = true;
      m.fused_qkv = true;  // query_key_value
      break;
    case Family::kFalcon: {
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
      break;
    }
    case Family::kBert:
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
      break;
    case Family::kDeepseek:
    case Family::kDeepseekV32:
      ReadDeepseek(r, m);
      if (family == Family::kDeepseekV32) {
        // DeepSeek-V3.2's lightning indexer (config index_n_heads, index_head_dim).
        m.index_heads = r.Int("index_n_heads", 0, true);
        m.index_dim = r.Int("index_head_dim", 0, true);
      }
      break;
    case Family::kGptOss:
      ReadGptOss(r, m);
      break;
    case Family::kLlama4:
      ReadLlama4(r, m);
      if (&tj != &j) ReadLlama4VisionTower(j, m, d);  // llama4 (the wrapper); llama4_text has no tower
      break;
    case Family::kGlm4Moe:
      ReadGlm4Moe(r, m);
      break;
    case Family::kMinimaxM2:
      ReadMinimaxM2(r, m);
      break;
    case Family::kNemotronH:
      ReadNemotronH(r, m);
      break;
    case Family::kGraniteMoeHybrid:
      ReadGraniteMoeHybrid(r, m);
      break;
    case Family::kFalconH1:
      ReadFalconH1(r, m);
      break;
    case Family::kKimiLinear:
      ReadKimiLinear(r, m);
      break;
    case Family::kGlmMoeDsa:
      ReadGlmMoeDsa(r, m);
      break;
    case Family::kGemma3n:
      ReadGemma3n(r, m);
      if (&tj != &j && j.Find("audio_config") != nullptr) {
        d.push_back({DiagId::kUnsupported, Severity::kWarning, "audio_config",
                     "Gemma 3n's audio encoder (audio_config) is not counted, only its language model: the "
                     "checkpoint stores more than the estimate"});
      }
      break;
    case Family::kGemma4:
      ReadGemma4(r, m);
      // Gemma4Model's vision_tower and embed_vision are counted; audio_tower and embed_audio not yet.
      if (&tj != &j) ReadGemma4VisionTower(j, m, d);
      if (&tj != &j && j.Find("audio_config") != nullptr && !j.Find("audio_config")->IsNull()) {
        d.push_back({DiagId::kUnsupported, Severity::kWarning, "audio_config",
                     "Gemma 4's audio encoder and its projector (audio_config) are not counted, only its language "
                     "model: the checkpoint stores more than the estimate"});
      }
      break;
    case Family::kGlm4MoeLite:
      // GLM-4.7-Flash (modular_glm4_moe_lite.py @75a5f8b5): DeepSeek-V3's MLA with GLM-4.5's MoE,
      // whose router always holds e_score_correction_bias (Glm4MoeTopkRouter).
      ReadDeepseek(r, m);
      if (m.IsMoe()) m.router_bias = true;
      break;
  }

  if (&tj != &j && j.Find("vision_config") != nullptr && m.vision_layers == 0) {
    d.push_back({DiagId::kUnsupported, Severity::kWarning, "vision_config",
                 "this model's vision tower and multimodal projector (vision_config) are not counted, only its "
                 "language model (text_config): the checkpoint stores more than the estimate"});
  }
  ReadSlidingWindow(tj, r, family, m, d);
  // Gemma 3n's KV-shared layers take the attention pattern's share of the windowed layers
  // (ModelSpec::CacheSlidingLayers): the pattern's size must divide them.
  if (m.kv_shared_layers > 0 && m.layers > 0 && (m.kv_shared_layers * m.sliding_layers) % m.layers != 0) {
    d.push_back({DiagId::kUnsupported, Severity::kError, "num_kv_shared_layers",
                 "num_kv_shared_layers is not a whole number of attention patterns: which of the shared layers "
                 "are windowed is not modelled; enter the dimensions by hand"});
  }
  ReadActivation(tj, family, m, d);
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
