// config.json readers of the 2025-2026 families, each from its transformers configuration and
// modeling file (the counts follow the modules those files register):
//  gpt_oss: modeling_gpt_oss.py: q/k/v/o with biases, `sinks` per head, a router with bias,
//    experts with gate_up/down biases, layer_types alternating a 128-token window and full
//  qwen3_next: modeling_qwen3_next.py: Gated DeltaNet layers, and one gated full-attention layer
//    every full_attention_interval; Qwen2-MoE's experts with a gated shared expert
//  llama4: modeling_llama4.py: MoE every interleave_moe_layer_step-th layer (a shared expert,
//    a router without bias), dense layers of intermediate_size_mlp; chunked local attention
//    on the RoPE layers (no_rope_layers), global attention every fourth
//  glm4_moe: modeling_glm4_moe.py: q/k/v biases, optional per-head q/k norms, DeepSeek-V3's
//    routing (e_score_correction_bias), first_k_dense_replace dense layers
//  minimax_m2: modeling_minimax_m2.py: q/k RMSNorm over the whole projection, routing bias
//  gemma3: a SigLIP tower (modeling_siglip.py) and Gemma3MultiModalProjector
//  kimi_linear: vllm model_executor/models/kimi_linear.py @8744bb09: Kimi Delta Attention layers
//    (linear_attn_config.kda_layers) and DeepSeek's MLA on the others (full_attn_layers; q_proj
//    without a q_lora_rank), first_k_dense_replace dense MLPs, then MoE: a router with
//    e_score_correction_bias and one shared MLP of num_shared_experts x moe_intermediate_size
#include <algorithm>
#include <string>

#include "core/import/hf_config_reader.h"
#include "core/base/safe_text.h"

namespace llmmem::core::hf {

void NoteLeftOut(Diagnostics& d, const char* field, const std::string& what) {
  d.push_back({DiagId::kIgnoredSetting, Severity::kInfo, field, what});
}

bool ReadLayerTypes(const Json& j, ModelSpec& m, Diagnostics& d, bool mamba_layers) {
  const Json* types = j.Find("layer_types");
  if (types == nullptr || !types->IsArray() || types->AsArray().empty()) return false;
  int64_t sliding = 0, chunked = 0, linear = 0, n = 0;
  for (const Json& t : types->AsArray()) {
    ++n;
    const std::string kind = t.IsString() ? t.AsString() : std::string();
    if (kind == "sliding_attention") {
      ++sliding;
    } else if (kind == "chunked_attention") {
      ++chunked;
    } else if (kind == (mamba_layers ? "mamba" : "linear_attention")) {
      ++linear;
    } else if (kind != "full_attention" && kind != "attention") {
      d.push_back({DiagId::kUnsupported, Severity::kError, "layer_types",
                   "layer type \"" + EchoValue(kind, 40) +
                       "\" is not modelled here (full_attention, sliding_attention, chunked_attention and " +
                       (mamba_layers ? "mamba" : "linear_attention") + " are); enter the dimensions by hand"});
      return true;
    }
  }
  if (n != m.layers) {
    d.push_back({DiagId::kInconsistent, Severity::kError, "layer_types",
                 "layer_types lists " + std::to_string(n) + " layers but num_hidden_layers is " +
                     std::to_string(m.layers)});
    return true;
  }
  if (sliding > 0 && chunked > 0) {
    d.push_back({DiagId::kUnsupported, Severity::kError, "layer_types",
                 "sliding and chunked attention in one model are not modelled; enter the dimensions by hand"});
    return true;
  }
  m.sliding_layers = sliding + chunked;
  if (m.sliding_layers == 0) m.sliding_window = 0;
  if (linear > 0) m.linear_layers = linear;
  return true;
}

void ReadDeepseek(Reader& r, ModelSpec& m) {
  Diagnostics& d = r.diagnostics();
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
    const Json* method = r.json().Find("topk_method");
    m.router_bias = method != nullptr && method->IsString() && method->AsString() == "noaux_tc";
    if (r.Int("moe_layer_freq", 1) != 1) {
      d.push_back({DiagId::kUnsupported, Severity::kError, "moe_layer_freq",
                   "MoE layers at a frequency other than 1 are not modelled yet; enter the dimensions by hand"});
    }
  }
  if (r.Int("num_nextn_predict_layers", 0) > 0) {
    NoteLeftOut(d, "num_nextn_predict_layers",
                "the multi-token-prediction module is not counted: inference engines load it only for "
                "speculative decoding");
  }
}

// GLM-5 (transformers models/glm_moe_dsa/modular_glm_moe_dsa.py @01f8fa55d98f, configuration
// @598881bceccf): GlmMoeDsaConfig is DeepseekV32Config with GLM's sizes; GlmMoeDsaIndexer is
// DeepseekV32Indexer (wq_b, wk, k_norm, weights_proj; only its RoPE is interleaved). The
// leading dense layers are first_k_dense_replace (default 3) or the "dense" prefix of
// mlp_layer_types; layer 78, the MTP layer, is left out on load (_keys_to_ignore_on_load_
// unexpected), as ReadDeepseek notes. A "shared" layer of indexer_types holds no indexer.
void ReadGlmMoeDsa(Reader& r, ModelSpec& m) {
  Diagnostics& d = r.diagnostics();
  ReadDeepseek(r, m);
  m.index_heads = r.Int("index_n_heads", 32);
  m.index_dim = r.Int("index_head_dim", 128);
  if (m.IsMoe()) {
    int64_t dense = r.Int("first_k_dense_replace", 3);
    if (const Json* types = r.json().Find("mlp_layer_types"); types != nullptr && types->IsArray()) {
      int64_t prefix = 0;
      bool contiguous = true;
      for (const Json& t : types->AsArray()) {
        const bool is_dense = t.IsString() && t.AsString() == "dense";
        if (is_dense && !contiguous) {
          d.push_back({DiagId::kUnsupported, Severity::kError, "mlp_layer_types",
                       "dense layers after the first MoE layer are not modelled yet; enter the dimensions by hand"});
          break;
        }
        if (is_dense) ++prefix; else contiguous = false;
      }
      if (!r.Has("first_k_dense_replace")) dense = prefix;
    }
    m.dense_layers = dense;
  }
  // Cross-layer top-k sharing (GlmMoeDsaAttention: indexer None on "shared" layers).
  bool shared = r.Int("index_topk_freq", 1) > 1 || r.json().Find("index_topk_pattern") != nullptr;
  if (const Json* types = r.json().Find("indexer_types"); types != nullptr && types->IsArray()) {
    for (const Json& t : types->AsArray()) shared = shared || (t.IsString() && t.AsString() == "shared");
  }
  if (shared) {
    d.push_back({DiagId::kUnsupported, Severity::kError, "indexer_types",
                 "layers that share another layer's DSA indexer (indexer_types \"shared\", index_topk_freq) are not "
                 "modelled yet: each layer would be counted with its own indexer"});
  }
}

// Gemma 3n (transformers models/gemma3n/configuration_gemma3n.py @c5d9fba144f6, whose defaults
// are E4B's, and the modules model.h lists at ple_dim): Gemma 3's layer (four norms, per-head q/k
// norms, a v_norm without weight, tied, GeGLU) with per-layer embeddings, AltUp, LAuReL and the
// last num_kv_shared_layers layers reading an earlier layer's cache. MatFormer's per-layer
// intermediate_size list is read when it is one width (E2B and E4B ship one; a Mix-n-Match slice
// with several widths is refused).
void ReadGemma3n(Reader& r, ModelSpec& m) {
  Diagnostics& d = r.diagnostics();
  m.vocab = r.Int("vocab_size", 262'400);
  m.hidden = r.Int("hidden_size", 2048);
  m.layers = r.Int("num_hidden_layers", 35);
  m.heads = r.Int("num_attention_heads", 8);
  m.kv_heads = r.Int("num_key_value_heads", 2);
  m.head_dim = r.Int("head_dim", 256);
  m.ffn = 16'384;
  if (const Json* ffn = r.json().Find("intermediate_size"); ffn != nullptr && ffn->IsArray()) {
    int64_t width = 0;
    bool uniform = !ffn->AsArray().empty();
    for (const Json& w : ffn->AsArray()) {
      const int64_t v = w.IsNumber() ? static_cast<int64_t>(w.AsNumber()) : 0;
      if (width == 0) width = v;
      uniform = uniform && v > 0 && v == width;
    }
    if (!uniform) {
      d.push_back({DiagId::kUnsupported, Severity::kError, "intermediate_size",
                   "layers of different MLP widths (a MatFormer Mix-n-Match slice) are not modelled yet; enter the "
                   "dimensions by hand"});
    }
    m.ffn = width;
  } else if (ffn != nullptr) {
    m.ffn = r.Int("intermediate_size", 16'384);
  }
  m.mlp = MlpKind::kGated;
  m.norm = NormKind::kRmsNorm;
  m.qkv_bias = m.attn_out_bias = r.Bool("attention_bias", false);
  m.tied_embeddings = r.Bool("tie_word_embeddings", true);
  m.norms_per_layer = 4;
  m.qk_norm = QkNorm::kPerHead;
  m.ple_dim = r.Int("hidden_size_per_layer_input", 256);
  m.ple_vocab = r.Int("vocab_size_per_layer_input", 262'144);
  m.altup_inputs = r.Int("altup_num_inputs", 4);
  m.laurel_rank = r.Int("laurel_rank", 64);
  m.kv_shared_layers = r.Int("num_kv_shared_layers", 15);
  d.push_back({DiagId::kUnsupported, Severity::kWarning, "altup_num_inputs",
               "Gemma 3n's training activations are those of a Gemma 3 layer: AltUp's extra streams, LAuReL and the "
               "per-layer inputs keep more, not counted. Its per-layer embedding table (hidden_size_per_layer_input x "
               "layers wide) is counted on the GPU, as transformers loads it; Google's on-device runtime keeps it "
               "out of accelerator memory (PLE caching)"});
}

// Gemma 4 (transformers src/transformers/models/gemma4/configuration_gemma4.py @351f643ab9f5, whose
// defaults these are, and modeling_gemma4.py @c308a309e651, the modules model.h lists at
// global_head_dim): Gemma 3's layer (four norms, per-head q/k norms, a v_norm without weight, tied,
// GeGLU) with full-attention layers of their own head size and K heads, attention_k_eq_v dropping
// their v_proj, per-layer embeddings as Gemma 3n's (no AltUp, no LAuReL), the last
// num_kv_shared_layers reading an earlier layer's cache (their MLP twice as wide with
// use_double_wide_mlp), a layer_scalar per layer, and with enable_moe_block a routed MoE beside the
// dense MLP in every layer (Gemma4TextRouter: proj, scale, per_expert_scale; Gemma4TextExperts:
// gate_up_proj and down_proj; three more norms).
void ReadGemma4(Reader& r, ModelSpec& m) {
  m.vocab = r.Int("vocab_size", 262'144);
  m.hidden = r.Int("hidden_size", 2304);
  m.layers = r.Int("num_hidden_layers", 30);
  m.heads = r.Int("num_attention_heads", 8);
  m.kv_heads = r.Int("num_key_value_heads", 4);
  m.head_dim = r.Int("head_dim", 256);
  m.ffn = r.Int("intermediate_size", 9216);
  m.mlp = MlpKind::kGated;
  m.norm = NormKind::kRmsNorm;
  m.qkv_bias = m.attn_out_bias = r.Bool("attention_bias", false);
  m.tied_embeddings = r.Bool("tie_word_embeddings", true);
  m.norms_per_layer = 4;
  m.qk_norm = QkNorm::kPerHead;
  m.layer_scalar = true;
  // Full layers: global_head_dim (default 512); with attention_k_eq_v their K heads are
  // num_global_key_value_heads and V reuses K's projection (else num_key_value_heads and a v_proj).
  m.global_head_dim = r.Int("global_head_dim", 512);
  m.global_k_eq_v = r.Bool("attention_k_eq_v", false);
  if (m.global_k_eq_v) m.global_kv_heads = r.Int("num_global_key_value_heads", m.kv_heads);
  // hidden_size_per_layer_input: absent is the default 256; null or 0 is no per-layer input.
  const Json* ple = r.json().Find("hidden_size_per_layer_input");
  m.ple_dim = ple == nullptr ? 256 : r.Int("hidden_size_per_layer_input", 0);
  m.ple_vocab = m.ple_dim > 0 ? r.Int("vocab_size_per_layer_input", 262'144) : 0;
  m.kv_shared_layers = r.Int("num_kv_shared_layers", 0);
  m.double_wide_mlp = m.kv_shared_layers > 0 && r.Bool("use_double_wide_mlp", false);
  if (r.Bool("enable_moe_block", false)) {
    m.experts = r.Int("num_experts", 0, true);
    m.experts_per_token = r.Int("top_k_experts", 0, true);
    m.moe_ffn = r.Int("moe_intermediate_size", r.Int("expert_intermediate_size", 0), true);
    m.shared_experts = 1;  // the dense MLP runs beside the experts in every layer
    m.shared_ffn = m.ffn;
    m.router_scale = true;
    m.norms_per_layer = 7;  // post_feedforward_layernorm_1 and _2, pre_feedforward_layernorm_2
  }
  if (m.ple_dim > 0) {
    r.diagnostics().push_back(
        {DiagId::kUnsupported, Severity::kWarning, "hidden_size_per_layer_input",
         "Gemma 4's per-layer embedding table (hidden_size_per_layer_input x layers wide) is counted on the GPU, "
         "as transformers loads it; Google's on-device runtime keeps it out of accelerator memory"});
  }
}

void ReadGptOss(Reader& r, ModelSpec& m) {
  ReadLlamaLike(r, m);
  m.experts = r.Int("num_local_experts", 0, true);
  m.experts_per_token = r.Int("num_experts_per_tok", r.Int("experts_per_token", 0), !r.Has("experts_per_token"));
  m.moe_ffn = m.ffn;
  m.qkv_bias = m.attn_out_bias = r.Bool("attention_bias", true);
  m.mlp_bias = true;     // gate_up_proj_bias, down_proj_bias
  m.router_bias = true;  // GptOssTopKRouter: weight and bias
  m.attn_sinks = true;
}

void ReadQwen3Next(Reader& r, ModelSpec& m) {
  Diagnostics& d = r.diagnostics();
  ReadLlamaLike(r, m);
  m.qkv_bias = m.attn_out_bias = r.Bool("attention_bias", false);
  m.qk_norm = QkNorm::kPerHead;
  m.attn_output_gate = r.Bool("attn_output_gate", true);  // Qwen3.5 states it; Qwen3-Next always has it
  m.norm_unit_offset = true;  // Qwen3NextRMSNorm: norm(x.float()) * (1.0 + weight.float()), then type_as(x)
  m.linear_k_heads = r.Int("linear_num_key_heads", 0, true);
  m.linear_v_heads = r.Int("linear_num_value_heads", 0, true);
  m.linear_k_dim = r.Int("linear_key_head_dim", 0, true);
  m.linear_v_dim = r.Int("linear_value_head_dim", 0, true);
  m.linear_conv = r.Int("linear_conv_kernel_dim", 4);
  if (!ReadLayerTypes(r.json(), m, d)) {
    // Qwen3NextConfig: layer i is full attention when (i + 1) % full_attention_interval == 0.
    const int64_t interval = std::max<int64_t>(1, r.Int("full_attention_interval", 4));
    m.linear_layers = m.layers - m.layers / interval;
  }
  m.experts = r.Int("num_experts", 0);
  if (m.experts > 0) {
    m.experts_per_token = r.Int("num_experts_per_tok", 0, true);
    m.moe_ffn = r.Int("moe_intermediate_size", 0, true);
    m.moe_layer_step = std::max<int64_t>(1, r.Int("decoder_sparse_step", 1));
    const Json* only = r.json().Find("mlp_only_layers");
    if (only != nullptr && only->IsArray() && !only->AsArray().empty()) {
      d.push_back({DiagId::kUnsupported, Severity::kError, "mlp_only_layers",
                   "dense layers listed in mlp_only_layers are not modelled yet; enter the dimensions by hand"});
    }
    const int64_t shared = r.Int("shared_expert_intermediate_size", 0);
    if (shared > 0) {
      m.shared_experts = 1;
      m.shared_ffn = shared;
      m.shared_expert_gate = true;
    }
  }
  NoteLeftOut(d, "mtp",
              "the multi-token-prediction layer the checkpoint stores (mtp.*) is not counted: inference engines "
              "load it only for speculative decoding");
}

void ReadLlama4(Reader& r, ModelSpec& m) {
  ReadLlamaLike(r, m);
  m.ffn = r.Int("intermediate_size_mlp", m.ffn);  // the dense layers' width
  m.experts = r.Int("num_local_experts", 0, true);
  m.experts_per_token = r.Int("num_experts_per_tok", 1);
  m.moe_ffn = r.Int("intermediate_size", 0, true);
  m.shared_experts = 1;  // Llama4TextMoe.shared_expert
  m.shared_ffn = m.moe_ffn;
  m.moe_layer_step = std::max<int64_t>(1, r.Int("interleave_moe_layer_step", 1));
  // Chunked attention on the RoPE layers: no_rope_layers[i] == 1, by default all but every
  // fourth layer (Llama4TextConfig). The chunk is counted as a window of attention_chunk_size
  // tokens, as llama.cpp (LLAMA_SWA_TYPE_CHUNKED in its SWA cache) and vLLM allocate it.
  const int64_t chunk = r.Int("attention_chunk_size", 0);
  if (chunk > 0) {
    int64_t chunked = m.layers - m.layers / 4;
    if (const Json* nope = r.json().Find("no_rope_layers"); nope != nullptr && nope->IsArray() &&
                                                              !nope->AsArray().empty()) {
      chunked = 0;
      for (const Json& v : nope->AsArray()) chunked += v.IsNumber() && v.AsNumber() != 0;
    }
    m.sliding_window = chunk;
    m.sliding_layers = chunked;
  }
}

void ReadGlm4Moe(Reader& r, ModelSpec& m) {
  Diagnostics& d = r.diagnostics();
  ReadLlamaLike(r, m);
  m.qkv_bias = r.Bool("attention_bias", false);
  m.attn_out_bias = false;  // Glm4MoeAttention.o_proj: bias=False
  if (r.Bool("use_qk_norm", false)) m.qk_norm = QkNorm::kPerHead;
  m.experts = r.Int("n_routed_experts", 0, true);
  m.experts_per_token = r.Int("num_experts_per_tok", 0, true);
  m.moe_ffn = r.Int("moe_intermediate_size", 0, true);
  m.shared_experts = r.Int("n_shared_experts", 0);
  m.shared_ffn = m.moe_ffn;
  m.dense_layers = r.Int("first_k_dense_replace", 0);
  m.router_bias = true;  // Glm4MoeTopkRouter.e_score_correction_bias
  if (r.Int("num_nextn_predict_layers", 0) > 0) {
    NoteLeftOut(d, "num_nextn_predict_layers",
                "the multi-token-prediction layer the checkpoint stores after the last layer is not counted: "
                "inference engines load it only for speculative decoding");
  }
}

void ReadMinimaxM2(Reader& r, ModelSpec& m) {
  ReadLlamaLike(r, m);
  m.experts = r.Int("num_local_experts", 0, true);
  m.experts_per_token = r.Int("num_experts_per_tok", 0, true);
  m.moe_ffn = m.ffn;
  if (r.Bool("use_qk_norm", true)) m.qk_norm = QkNorm::kFull;  // qk_norm_type "per_layer"
  m.router_bias = r.Bool("use_routing_bias", true);         // e_score_correction_bias
  const int64_t shared = r.Int("shared_intermediate_size", 0);
  if (shared > 0) {
    m.shared_experts = 1;
    m.shared_ffn = shared;
  }
  if (r.Int("num_mtp_modules", 0) > 0) {
    NoteLeftOut(r.diagnostics(), "num_mtp_modules",
                "multi-token-prediction modules are not counted: the published checkpoint does not store them");
  }
}

// Gemma 3's multimodal config.json writes only what differs from Gemma3TextConfig's defaults
// in text_config (gemma-3-4b-it: hidden_size, intermediate_size, num_hidden_layers,
// sliding_window); transformers fills the rest from configuration_gemma3.py.
void ReadGemma3TextDefaults(Reader& r, ModelSpec& m) {
  m.vocab = r.Int("vocab_size", 262208);
  m.hidden = r.Int("hidden_size", 2304);
  m.layers = r.Int("num_hidden_layers", 26);
  m.heads = r.Int("num_attention_heads", 8);
  m.kv_heads = r.Int("num_key_value_heads", 4);
  m.head_dim = r.Int("head_dim", 256);
  m.ffn = r.Int("intermediate_size", 9216);
  m.mlp = MlpKind::kGated;
  m.norm = NormKind::kRmsNorm;
  m.qkv_bias = m.attn_out_bias = r.Bool("attention_bias", false);
  m.mlp_bias = false;
}

void ReadSiglipTower(const Json& top, ModelSpec& m, Diagnostics& d) {
  const Json* vision = top.Find("vision_config");
  if (vision == nullptr || !vision->IsObject()) return;
  Reader r(*vision, d);
  // SiglipVisionConfig's defaults where the file leaves a field out.
  m.vision_layers = r.Int("num_hidden_layers", 12);
  m.vision_hidden = r.Int("hidden_size", 768);
  m.vision_ffn = r.Int("intermediate_size", 3072);
  m.vision_patch = r.Int("patch_size", 16);
  m.vision_image = r.Int("image_size", 224);
  if (r.Bool("vision_use_head", false)) {
    d.push_back({DiagId::kUnsupported, Severity::kError, "vision_use_head",
                 "a SigLIP attention-pooling head is not modelled; enter the dimensions by hand"});
  }
}

void ReadKimiLinear(Reader& r, ModelSpec& m) {
  Diagnostics& d = r.diagnostics();
  ReadDeepseek(r, m);  // MLA and the dense fields; the experts go by Kimi's own names
  m.experts = r.Int("num_experts", 0);
  if (m.experts > 0) {
    m.experts_per_token = r.Int("num_experts_per_token", r.Int("num_experts_per_tok", 0), !r.Has("num_experts_per_tok"));
    m.moe_ffn = r.Int("moe_intermediate_size", 0, true);
    const int64_t shared = r.Int("num_shared_experts", 0);
    m.shared_experts = shared > 0 ? 1 : 0;  // KimiMoE.shared_experts: one KimiMLP of shared x moe width
    m.shared_ffn = shared * m.moe_ffn;
    m.dense_layers = r.Int("first_k_dense_replace", 0);
    m.router_bias = true;  // KimiMoE.gate.e_score_correction_bias
    if (r.Int("moe_layer_freq", 1) != 1) {
      d.push_back({DiagId::kUnsupported, Severity::kError, "moe_layer_freq",
                   "MoE layers at a frequency other than 1 are not modelled yet; enter the dimensions by hand"});
    }
  }
  const Json* lin = r.json().Find("linear_attn_config");
  if (lin == nullptr || !lin->IsObject()) {
    d.push_back({DiagId::kMissingField, Severity::kError, "linear_attn_config",
                 "config.json has no \"linear_attn_config\": Kimi-Linear's KDA layers are described there"});
    return;
  }
  Reader k(*lin, d);
  auto layer_count = [&](const char* key) {
    const Json* v = lin->Find(key);
    return v != nullptr && v->IsArray() ? static_cast<int64_t>(v->AsArray().size()) : int64_t{-1};
  };
  const int64_t kda = layer_count("kda_layers"), full = layer_count("full_attn_layers");
  if (kda < 0 && full < 0) {
    d.push_back({DiagId::kMissingField, Severity::kError, "linear_attn_config.kda_layers",
                 "linear_attn_config lists neither kda_layers nor full_attn_layers"});
    return;
  }
  m.linear_layers = kda >= 0 ? kda : m.layers - full;
  if (kda >= 0 && full >= 0 && kda + full != m.layers) {
    d.push_back({DiagId::kInconsistent, Severity::kError, "linear_attn_config.kda_layers",
                 "kda_layers (" + std::to_string(kda) + ") and full_attn_layers (" + std::to_string(full) +
                     ") must cover the " + std::to_string(m.layers) + " layers once each"});
  }
  m.linear_kind = LinearKind::kKda;
  m.linear_k_heads = m.linear_v_heads = k.Int("num_heads", 0, true);
  m.linear_k_dim = m.linear_v_dim = k.Int("head_dim", 0, true);
  m.linear_conv = k.Int("short_conv_kernel_size", 4);
}

}  // namespace llmmem::core::hf
