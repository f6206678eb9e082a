// The model's rows of the field table (fields.h): its dimensions and architecture
// switches, in the order JSON, links and --help list them.
#include <string>

#include "core/model/activation_fn.h"
#include "core/config/field_rows.h"
#include "core/model/model_enums.h"
#include "core/config/limits.h"
#include "core/base/safe_text.h"

namespace llmmem::core::field_rows {

void AddModelRows(std::vector<FieldDef>& out) {
  constexpr FieldGroup kDims = FieldGroup::kModel;
  constexpr FieldGroup kArch = FieldGroup::kArchitecture;
  const FieldDef rows[] = {
      TextRow(
          "name", FieldKind::kText, true, kDims, "Name", "display name of the model",
          [](const Config& c) { return c.model.name; },
          [](Config& c, const std::string& t) {
            c.model.name = CutUtf8(t, 200);
            return std::string();
          }),
      LLMMEM_MODEL_ENUM("arch", arch, kArch, "Encoder only (BERT)", "", "an architecture"),
      LLMMEM_MODEL_INT("vocab", vocab, kDims, "Vocabulary", 1, 10'000'000, 1024, 32768, "vocabulary size V"),
      LLMMEM_MODEL_INT("hidden", hidden, kDims, "Hidden size", 1, 1'048'576, 256, 1024, "hidden size h"),
      LLMMEM_MODEL_INT("layers", layers, kDims, "Layers", 1, 16'384, 1, 8, "transformer layers L"),
      LLMMEM_MODEL_INT("heads", heads, kDims, "Heads", 1, 65'536, 1, 8, "attention heads a"),
      LLMMEM_MODEL_INT("kv_heads", kv_heads, kDims, "KV heads", 1, 65'536, 1, 8,
                       "key/value heads (GQA/MQA); must divide heads"),
      LLMMEM_MODEL_INT("head_dim", head_dim, kDims, "Head dim", 1, 65'536, 16, 64,
                       "dimension of one head (follows hidden / heads unless given)"),
      LLMMEM_MODEL_INT("ffn", ffn, kDims, "MLP size", 1, 16'777'216, 256, 1024, "MLP intermediate size f"),
      LLMMEM_MODEL_ENUM("mlp", mlp, kDims, "MLP kind",
                        "MLP kind (plain: GeLU/ReLU, 2 matrices; gated: SwiGLU/GeGLU, 3): ", "an MLP kind"),
      TextRow(
          "act", FieldKind::kText, true, kDims, "Activation", "MLP activation function (transformers ACT2FN name)",
          [](const Config& c) { return std::string(Id(c.model.act)); },
          [](Config& c, const std::string& t) {
            ActivationFn v;
            if (!ParseId(t, v)) return "\"" + t + "\" is not an activation; one of: " + IdList<ActivationFn>();
            c.model.act = v;
            return std::string();
          }),
      LLMMEM_MODEL_ENUM("norm", norm, kDims, "Norm", "", "a norm"),
      LLMMEM_MODEL_ENUM("qk_norm", qk_norm, kArch, "Q/K norm",
                        "norm on queries and keys (per_head: Qwen3, Gemma 3; full: OLMo 2): ", "a Q/K norm"),
      LLMMEM_MODEL_BOOL("qkv_bias", qkv_bias, kArch, "Q/K/V biases", "biases on Q, K, V"),
      LLMMEM_MODEL_BOOL("fused_qkv", fused_qkv, kArch, "Fused Q/K/V",
                        "Q, K and V stored as one matrix (GGUF attn_qkv), which llama.cpp's quantisation recipes treat "
                        "as one tensor"),
      LLMMEM_MODEL_BOOL("attn_out_bias", attn_out_bias, kArch, "Attention output bias", "bias on the attention output"),
      LLMMEM_MODEL_BOOL("mlp_bias", mlp_bias, kArch, "MLP biases", "biases in the MLP"),
      LLMMEM_MODEL_BOOL("tied_embeddings", tied_embeddings, kDims, "Tied embeddings",
                        "output head shares the embedding matrix"),
      LLMMEM_MODEL_BOOL("final_norm", final_norm, kArch, "Final norm", "a norm after the last layer"),
      LLMMEM_MODEL_BOOL("norm_unit_offset", norm_unit_offset, kArch, "Norm scale 1 + w in fp32",
                        "RMSNorm scales by (1 + weight) in fp32 before casting back (Qwen3-Next)"),
      LLMMEM_MODEL_INT("learned_positions", learned_positions, kArch, "Learned positions", 0, 16'777'216, 512, 2048,
                       "rows of a learned position-embedding table (0: none)"),
      LLMMEM_MODEL_INT("type_vocab", type_vocab, kArch, "Token types", 0, 1024, 1, 1, "token-type embeddings (BERT)"),
      LLMMEM_MODEL_BOOL("embedding_norm", embedding_norm, kArch, "Embedding norm", "norm after the embeddings"),
      LLMMEM_MODEL_BOOL("pooler", pooler, kArch, "Pooler", "BERT pooler"),
      LLMMEM_MODEL_INT("norms_per_layer", norms_per_layer, kArch, "Norms per layer", 1, 8, 1, 1,
                       "norms per layer: 1 parallel, 2 pre-norm, 4 sandwich (Gemma 2/3)"),
      LLMMEM_MODEL_INT("experts", experts, kDims, "Experts", 0, 16'384, 1, 8,
                       "routed experts per MoE layer (0: dense)"),
      LLMMEM_MODEL_INT("experts_per_token", experts_per_token, kDims, "Experts/token", 0, 1024, 1, 2,
                       "experts each token is routed to (top-k)"),
      LLMMEM_MODEL_INT("moe_ffn", moe_ffn, kDims, "Expert MLP", 0, 16'777'216, 256, 1024,
                       "intermediate size of one routed expert"),
      LLMMEM_MODEL_INT("shared_experts", shared_experts, kDims, "Shared experts", 0, 1024, 1, 1,
                       "always-active shared experts"),
      LLMMEM_MODEL_INT("shared_ffn", shared_ffn, kDims, "Shared MLP", 0, 16'777'216, 256, 1024,
                       "intermediate size of one shared expert"),
      LLMMEM_MODEL_INT("dense_layers", dense_layers, kDims, "Dense layers", 0, 16'384, 1, 1,
                       "first layers that keep a dense MLP"),
      LLMMEM_MODEL_BOOL("shared_expert_gate", shared_expert_gate, kArch, "Shared-expert gate",
                        "Qwen2-MoE shared-expert gate"),
      LLMMEM_MODEL_BOOL("router_bias", router_bias, kArch, "Router bias", "DeepSeek-V3 router score bias"),
      LLMMEM_MODEL_INT("q_lora_rank", q_lora_rank, kArch, "MLA Q rank", 0, 1'048'576, 64, 512,
                       "MLA query bottleneck rank (0: none)"),
      LLMMEM_MODEL_INT("kv_lora_rank", kv_lora_rank, kArch, "MLA KV rank", 0, 1'048'576, 64, 512,
                       "MLA KV latent rank (0: not MLA)"),
      LLMMEM_MODEL_INT("qk_nope_dim", qk_nope_dim, kArch, "MLA Q/K nope dim", 0, 65'536, 16, 64,
                       "MLA per-head non-rotary Q/K width"),
      LLMMEM_MODEL_INT("qk_rope_dim", qk_rope_dim, kArch, "MLA rope dim", 0, 65'536, 16, 64, "MLA rotary key width"),
      LLMMEM_MODEL_INT("v_head_dim", v_head_dim, kArch, "MLA V head dim", 0, 65'536, 16, 64, "MLA per-head V width"),
      LLMMEM_MODEL_INT("sliding_window", sliding_window, kArch, "Sliding window", 0, 16'777'216, 512, 4096,
                       "sliding-window size in tokens (0: none)"),
      LLMMEM_MODEL_INT("sliding_layers", sliding_layers, kArch, "Sliding layers", 0, 16'384, 1, 8,
                       "layers that use the sliding window"),
      LLMMEM_MODEL_BOOL("attn_sinks", attn_sinks, kArch, "Attention sinks",
                        "a learnt sink logit per head and layer (gpt-oss)"),
      LLMMEM_MODEL_BOOL("attn_output_gate", attn_output_gate, kArch, "Attention output gate",
                        "q_proj also emits a heads x head_dim output gate (Qwen3-Next)"),
      LLMMEM_MODEL_INT("moe_layer_step", moe_layer_step, kArch, "MoE layer step", 1, 16'384, 1, 1,
                       "every k-th layer is MoE, the others dense (Llama 4 interleave_moe_layer_step)"),
      LLMMEM_MODEL_INT("linear_layers", linear_layers, kArch, "Linear-attention layers", 0, 16'384, 1, 8,
                       "layers with a linear mixer (Gated DeltaNet, Mamba-2) instead of softmax attention"),
      LLMMEM_MODEL_INT("linear_k_heads", linear_k_heads, kArch, "Linear K heads", 0, 65'536, 1, 8,
                       "linear-attention key heads"),
      LLMMEM_MODEL_INT("linear_v_heads", linear_v_heads, kArch, "Linear V heads", 0, 65'536, 1, 8,
                       "linear-attention value heads"),
      LLMMEM_MODEL_INT("linear_k_dim", linear_k_dim, kArch, "Linear K dim", 0, 65'536, 16, 64,
                       "linear-attention key head width"),
      LLMMEM_MODEL_INT("linear_v_dim", linear_v_dim, kArch, "Linear V dim", 0, 65'536, 16, 64,
                       "linear-attention value head width"),
      LLMMEM_MODEL_INT("linear_conv", linear_conv, kArch, "Linear conv kernel", 0, 1024, 1, 1,
                       "linear-attention causal conv1d kernel width"),
      LLMMEM_MODEL_INT("linear_chunk", linear_chunk, kArch, "Mamba-2 chunk", 1, 65'536, 16, 64,
                       "Mamba-2's SSD chunk size (chunk_size / mamba_chunk_size; only the torch fallback keeps "
                       "chunk x chunk tensors)"),
      LLMMEM_MODEL_ENUM("linear_kind", linear_kind, kArch, "Linear mixer",
                        "the linear layers' mixer (Mamba-2: k heads = n_groups, k dim = d_state, v heads and dim = "
                        "the SSM heads): ",
                        "a linear mixer"),
      LLMMEM_MODEL_BOOL("linear_parallel", linear_parallel, kArch, "Mixer beside attention",
                        "the linear mixer runs beside attention in each layer, not instead of it (Falcon-H1)"),
      LLMMEM_MODEL_BOOL("linear_conv_bias", linear_conv_bias, kArch, "Mamba conv bias", "Mamba-2 conv1d bias"),
      LLMMEM_MODEL_BOOL("linear_proj_bias", linear_proj_bias, kArch, "Mamba projection biases",
                        "Mamba-2 in_proj and out_proj biases"),
      LLMMEM_MODEL_BOOL("linear_norm", linear_norm, kArch, "Mamba gated norm",
                        "Mamba-2 gated RMSNorm over d_inner (Falcon-H1: mamba_rms_norm)"),
      LLMMEM_MODEL_BOOL("linear_ssm_fp32", linear_ssm_fp32, kArch, "SSM state in fp32 (vLLM)",
                        "vLLM keeps the SSM state in float32 (Nemotron-H's mamba_ssm_cache_dtype)"),
      LLMMEM_MODEL_INT("mixer_free_layers", mixer_free_layers, kArch, "Layers without mixer", 0, 16'384, 1, 8,
                       "blocks with an MLP only, no attention or linear mixer (Nemotron-H '-' and 'E')"),
      LLMMEM_MODEL_INT("mlp_free_layers", mlp_free_layers, kArch, "Layers without MLP", 0, 16'384, 1, 8,
                       "blocks with a mixer only, no MLP (Nemotron-H 'M' and '*')"),
      LLMMEM_MODEL_INT("index_heads", index_heads, kArch, "Indexer heads", 0, 65'536, 1, 8,
                       "DeepSeek sparse attention's lightning indexer heads (0: none)"),
      LLMMEM_MODEL_INT("index_dim", index_dim, kArch, "Indexer head dim", 0, 65'536, 16, 64,
                       "lightning indexer head width (one key of this width cached per token)"),
      LLMMEM_MODEL_INT("ple_dim", ple_dim, kArch, "Per-layer input dim", 0, 65'536, 64, 256,
                       "Gemma 3n's per-layer embeddings: width per layer (hidden_size_per_layer_input; 0: none)"),
      LLMMEM_MODEL_INT("ple_vocab", ple_vocab, kArch, "Per-layer input vocab", 0, 16'777'216, 1024, 65'536,
                       "Gemma 3n's per-layer embedding table rows (vocab_size_per_layer_input)"),
      LLMMEM_MODEL_INT("altup_inputs", altup_inputs, kArch, "AltUp streams", 0, 64, 1, 2,
                       "Gemma 3n's AltUp: hidden-state streams (altup_num_inputs; 0: none)"),
      LLMMEM_MODEL_INT("laurel_rank", laurel_rank, kArch, "LAuReL rank", 0, 65'536, 16, 64,
                       "Gemma 3n's learned augmented residual: low-rank width (0: none)"),
      LLMMEM_MODEL_INT("kv_shared_layers", kv_shared_layers, kArch, "KV-shared layers", 0, 16'384, 1, 5,
                       "last layers that reuse an earlier layer's KV cache and keep none (num_kv_shared_layers)"),
      LLMMEM_MODEL_ENUM("vision_kind", vision_kind, kArch, "Vision tower",
                        "which vision tower and projector the checkpoint stores: ", "a vision tower"),
      LLMMEM_MODEL_INT("vision_layers", vision_layers, kArch, "Vision layers", 0, 16'384, 1, 4,
                       "vision tower layers (0: text only)"),
      LLMMEM_MODEL_INT("vision_hidden", vision_hidden, kArch, "Vision hidden", 0, 1'048'576, 64, 256,
                       "vision tower hidden size"),
      LLMMEM_MODEL_INT("vision_ffn", vision_ffn, kArch, "Vision MLP", 0, 16'777'216, 64, 256,
                       "vision tower MLP size"),
      LLMMEM_MODEL_INT("vision_patch", vision_patch, kArch, "Vision patch", 0, 1024, 1, 2, "vision patch size (pixels)"),
      LLMMEM_MODEL_INT("vision_image", vision_image, kArch, "Vision image", 0, 65'536, 14, 112,
                       "vision tower input image size (pixels)"),
      LLMMEM_MODEL_INT("vision_merge", vision_merge, kArch, "Vision merge", 0, 64, 1, 1,
                       "patches merged per side before the projector (spatial_merge_size; Llama 4: 1 / pixel_shuffle_ratio)"),
      LLMMEM_MODEL_INT("vision_out", vision_out, kArch, "Vision out", 0, 1'048'576, 64, 256,
                       "the vision merger's output width (Qwen out_hidden_size; Llama 4 projector dims)"),
      LLMMEM_MODEL_INT("vision_deepstack", vision_deepstack, kArch, "DeepStack mergers", 0, 1024, 1, 1,
                       "Qwen3-VL: extra patch mergers feeding early decoder layers (deepstack_visual_indexes)"),
      LLMMEM_MODEL_INT("max_positions", max_positions, kArch, "Trained context", 0, 16'777'216, 1024, 8192,
                       "the context length the model was trained for (0: unknown)"),
      LLMMEM_MODEL_INT("params_override", params_override, kDims, "Params override", 0, kMaxParams, 0, 0,
                       "given parameter total for the model states (0: count the architecture)"),
  };
  out.insert(out.end(), std::begin(rows), std::end(rows));
}

}  // namespace llmmem::core::field_rows
