// config.json readers of the Mamba-2 hybrids, each from its transformers configuration and
// modeling file (huggingface/transformers; commits as read):
//  nemotron_h (modeling_nemotron_h.py @897753a0, configuration_nemotron_h.py @cfeb552e): each block
//    is one RMSNorm and one module, chosen by hybrid_override_pattern (M Mamba-2, * attention,
//    - MLP, E MoE) or layers_block_type; q/k/v/o without biases; the MLP and the experts are
//    up/down projections with relu2 between (no gate); the MoE a router with
//    e_score_correction_bias and one shared expert of moe_shared_expert_intermediate_size.
//  granitemoehybrid (modular_granitemoehybrid.py @403a3679): every layer two RMSNorms, a Mamba-2
//    mixer (BambaMixer, d_inner = mamba_expand x hidden) or attention (layer_types), then the MoE
//    (router without bias, gated experts of intermediate_size) beside a gated shared MLP of
//    shared_intermediate_size; without experts only that MLP.
//  falcon_h1 (modular_falcon_h1.py @3c0a5c70, configuration_falcon_h1.py @7abb76c5): attention
//    and a Mamba-2 mixer side by side in every layer, then Llama's gated MLP; no attention or MLP
//    biases (the config forces them off); the mixer's gated norm only with mamba_rms_norm, its
//    in_proj bias mamba_proj_bias, its out_proj bias projectors_bias. The muP vector is a
//    non-persistent buffer, not stored.
// The Mamba-2 mixer's tensors: model.h ForEachTensor; its state: account_inference.h.
#include <string>

#include "core/import/hf_config_reader.h"
#include "core/base/safe_text.h"

namespace llmmem::core::hf {
namespace {

// The first of several spellings a config may use for one field (NVIDIA's remote-code config
// writes n_groups and conv_kernel, transformers' constructor takes mamba_n_groups and mamba_d_conv).
int64_t IntOf(Reader& r, std::initializer_list<const char*> keys, int64_t fallback, bool required = false) {
  for (const char* key : keys)
    if (r.Has(key)) return r.Int(key, fallback);
  return required ? r.Int(*keys.begin(), fallback, true) : fallback;
}
bool BoolOf(Reader& r, std::initializer_list<const char*> keys, bool fallback) {
  for (const char* key : keys)
    if (r.Has(key)) return r.Bool(key, fallback);
  return fallback;
}

void SetMamba2(ModelSpec& m, int64_t layers, int64_t heads, int64_t head_dim, int64_t groups, int64_t state,
               int64_t conv) {
  m.linear_kind = LinearKind::kMamba2;
  m.linear_layers = layers;
  m.linear_v_heads = heads;
  m.linear_v_dim = head_dim;
  m.linear_k_heads = groups;
  m.linear_k_dim = state;
  m.linear_conv = conv;
}

// mamba_d_head may be "auto" (transformers: d_inner // mamba_n_heads).
int64_t MambaHeadDim(Reader& r, int64_t d_inner, int64_t heads) {
  const Json* v = r.json().Find("mamba_d_head");
  if (v != nullptr && v->IsString() && v->AsString() == "auto") return heads > 0 ? d_inner / heads : 0;
  return r.Int("mamba_d_head", heads > 0 ? d_inner / heads : 0);
}

void CheckInner(Diagnostics& d, int64_t d_inner, int64_t heads, int64_t head_dim) {
  if (heads * head_dim != d_inner) {
    d.push_back({DiagId::kInconsistent, Severity::kError, "mamba_d_head",
                 "mamba_n_heads x mamba_d_head (" + std::to_string(heads) + " x " + std::to_string(head_dim) +
                     ") must equal the Mamba-2 inner width " + std::to_string(d_inner)});
  }
}

}  // namespace

void ReadNemotronH(Reader& r, ModelSpec& m) {
  Diagnostics& d = r.diagnostics();
  // The block list: layers_block_type, else hybrid_override_pattern (the released checkpoints').
  int64_t mamba = 0, attention = 0, mlp = 0, moe = 0, n = 0;
  auto count = [&](const std::string& kind) {
    ++n;
    int64_t* tally = kind == "M" || kind == "mamba"       ? &mamba
                     : kind == "*" || kind == "attention" ? &attention
                     : kind == "-" || kind == "mlp"       ? &mlp
                     : kind == "E" || kind == "moe"       ? &moe
                                                          : nullptr;
    if (tally != nullptr) {
      ++*tally;
      return true;
    }
    d.push_back({DiagId::kUnsupported, Severity::kError, "hybrid_override_pattern",
                 "Nemotron-H block \"" + EchoValue(kind, 20) +
                     "\" is not one of M (mamba), * (attention), - (mlp) or E (moe)"});
    return false;
  };
  const Json* list = r.json().Find("layers_block_type");
  const Json* pattern = r.json().Find("hybrid_override_pattern");
  if (list != nullptr && list->IsArray() && !list->AsArray().empty()) {
    for (const Json& t : list->AsArray())
      if (!count(t.IsString() ? t.AsString() : std::string("?"))) return;
  } else if (pattern != nullptr && pattern->IsString() && !pattern->AsString().empty()) {
    for (char c : pattern->AsString())
      if (!count(std::string(1, c))) return;
  } else {
    d.push_back({DiagId::kMissingField, Severity::kError, "hybrid_override_pattern",
                 "config.json has neither \"hybrid_override_pattern\" nor \"layers_block_type\": the Nemotron-H "
                 "block list is needed"});
    return;
  }
  m.vocab = r.Int("vocab_size", 0, true);
  m.hidden = r.Int("hidden_size", 0, true);
  m.layers = n;
  if (r.Has("num_hidden_layers") && r.Int("num_hidden_layers", n) != n) {
    d.push_back({DiagId::kInconsistent, Severity::kError, "num_hidden_layers",
                 "num_hidden_layers is " + std::to_string(r.Int("num_hidden_layers", n)) + " but the block list has " +
                     std::to_string(n) + " blocks"});
  }
  m.heads = r.Int("num_attention_heads", 0, true);
  m.kv_heads = r.Int("num_key_value_heads", m.heads);
  m.head_dim = r.Int("head_dim", m.heads > 0 ? m.hidden / m.heads : 0);
  m.ffn = r.Int("intermediate_size", 0, mlp > 0);
  m.mlp = MlpKind::kPlain;  // up_proj, relu2, down_proj
  m.norm = NormKind::kRmsNorm;
  m.norms_per_layer = 1;
  m.qkv_bias = m.attn_out_bias = r.Bool("attention_bias", false);
  m.mlp_bias = r.Bool("mlp_bias", false);
  m.tied_embeddings = r.Bool("tie_word_embeddings", false);
  m.mixer_free_layers = mlp + moe;
  m.mlp_free_layers = mamba + attention;
  SetMamba2(m, mamba, r.Int("mamba_num_heads", 0, mamba > 0), r.Int("mamba_head_dim", 0, mamba > 0),
            IntOf(r, {"n_groups", "mamba_n_groups"}, 8), r.Int("ssm_state_size", 128),
            IntOf(r, {"conv_kernel", "mamba_d_conv"}, 4));
  m.linear_conv_bias = BoolOf(r, {"use_conv_bias", "mamba_conv_bias"}, true);
  m.linear_proj_bias = r.Bool("use_bias", false);  // NemotronHMamba2Mixer: in_proj/out_proj bias=config.use_bias
  // NemotronHConfig chunk_size: int = 128, mamba_chunk_size its older name (configuration_nemotron_h.py@13923c63).
  m.linear_chunk = IntOf(r, {"chunk_size", "mamba_chunk_size"}, 128);
  // vLLM's NemotronHForCausalLMConfig: the config's mamba_ssm_cache_dtype, float32 when absent.
  const Json* ssm_dtype = r.json().Find("mamba_ssm_cache_dtype");
  m.linear_ssm_fp32 = ssm_dtype == nullptr || !ssm_dtype->IsString() || ssm_dtype->AsString() == "float32";
  if (moe > 0) {
    m.experts = r.Int("n_routed_experts", 0, true);
    m.experts_per_token = r.Int("num_experts_per_tok", 0, true);
    m.moe_ffn = r.Int("moe_intermediate_size", 0, true);
    m.shared_ffn = r.Int("moe_shared_expert_intermediate_size", 0);
    m.shared_experts = m.shared_ffn > 0 ? 1 : 0;  // NemotronHMoE: one shared NemotronHMLP
    m.router_bias = true;                         // NemotronHTopkRouter.e_score_correction_bias
    m.dense_layers = mlp;                         // the '-' blocks keep a dense MLP (their place does not count)
    if (r.Has("moe_latent_size")) {
      d.push_back({DiagId::kUnsupported, Severity::kError, "moe_latent_size",
                   "Nemotron-H's latent MoE projections (moe_latent_size) are not modelled; enter the dimensions by "
                   "hand"});
    }
    if (m.mlp_bias) {
      d.push_back({DiagId::kUnsupported, Severity::kError, "mlp_bias",
                   "mlp_bias with experts is not modelled (NemotronHExperts have no biases, the shared expert has); "
                   "enter the dimensions by hand"});
    }
  }
  if (r.Int("num_nextn_predict_layers", 0) > 0) {
    NoteLeftOut(d, "num_nextn_predict_layers",
                "the multi-token-prediction layers the checkpoint stores (mtp.*) are not counted: inference engines "
                "load them only for speculative decoding");
  }
}

void ReadGraniteMoeHybrid(Reader& r, ModelSpec& m) {
  Diagnostics& d = r.diagnostics();
  ReadLlamaLike(r, m);
  m.head_dim = m.heads > 0 ? m.hidden / m.heads : 0;  // GraniteMoeSharedAttention: hidden / heads
  m.qkv_bias = m.attn_out_bias = r.Bool("attention_bias", false);
  m.mlp_bias = false;
  const int64_t shared = r.Int("shared_intermediate_size", 0);
  m.experts = r.Int("num_local_experts", 0);
  if (m.experts > 0) {
    m.experts_per_token = r.Int("num_experts_per_tok", 0, true);
    m.moe_ffn = m.ffn;  // intermediate_size: one expert's width
    m.shared_experts = shared > 0 ? 1 : 0;
    m.shared_ffn = shared;
  } else {
    m.ffn = shared;  // only the shared MLP
  }
  // Which layers are Mamba-2: layer_types ("mamba" / "attention"), else all of them (Bamba's default).
  if (!ReadLayerTypes(r.json(), m, d, true)) m.linear_layers = m.layers;
  const int64_t d_inner = r.Int("mamba_expand", 2) * m.hidden;
  const int64_t heads = r.Int("mamba_n_heads", 128);
  const int64_t head_dim = MambaHeadDim(r, d_inner, heads);
  CheckInner(d, d_inner, heads, head_dim);
  SetMamba2(m, m.linear_layers, heads, head_dim, r.Int("mamba_n_groups", 1), r.Int("mamba_d_state", 256),
            r.Int("mamba_d_conv", 4));
  m.linear_conv_bias = r.Bool("mamba_conv_bias", true);
  m.linear_proj_bias = r.Bool("mamba_proj_bias", false);
  m.linear_chunk = r.Int("mamba_chunk_size", m.linear_chunk);  // absent: the field's 256
}

void ReadFalconH1(Reader& r, ModelSpec& m) {
  Diagnostics& d = r.diagnostics();
  ReadLlamaLike(r, m);
  m.qkv_bias = m.attn_out_bias = m.mlp_bias = false;  // FalconH1Config sets attention_bias and mlp_bias False
  m.linear_parallel = true;
  const int64_t d_inner = r.Has("mamba_d_ssm") ? r.Int("mamba_d_ssm", 0) : r.Int("mamba_expand", 2) * m.hidden;
  const int64_t heads = r.Int("mamba_n_heads", 128);
  const int64_t head_dim = MambaHeadDim(r, d_inner, heads);
  CheckInner(d, d_inner, heads, head_dim);
  SetMamba2(m, m.layers, heads, head_dim, r.Int("mamba_n_groups", 1), r.Int("mamba_d_state", 256),
            r.Int("mamba_d_conv", 4));
  m.linear_conv_bias = r.Bool("mamba_conv_bias", true);
  m.linear_proj_bias = r.Bool("mamba_proj_bias", false);
  m.linear_norm = r.Bool("mamba_rms_norm", false);
  m.linear_chunk = r.Int("mamba_chunk_size", m.linear_chunk);  // Falcon-H1-7B's config states 128
  if (r.Bool("projectors_bias", false) != m.linear_proj_bias) {
    d.push_back({DiagId::kUnsupported, Severity::kError, "projectors_bias",
                 "a Mamba-2 out_proj bias (projectors_bias) different from the in_proj bias (mamba_proj_bias) is not "
                 "modelled; enter the dimensions by hand"});
  }
}

}  // namespace llmmem::core::hf
