// The model description and its exact, itemised parameter count.
// Decoder-only and encoder-only transformers; dense or mixture-of-experts MLPs.
// Counting follows the module shapes of the Hugging Face implementations (Linear
// d_in x d_out (+ d_out bias), Embedding n x d, LayerNorm 2d, RMSNorm d); the presets'
// published totals are the test of it.
#pragma once

#include <cstdint>
#include <string>

namespace llmmem::core {

// Their tables (ids, labels, help): model_enums.h.
enum class MlpKind : uint8_t { kPlain, kGated, kLast = kGated };           // 2 matrices (GeLU/ReLU) or 3 (SwiGLU/GeGLU)
enum class NormKind : uint8_t { kLayerNorm, kRmsNorm, kLast = kRmsNorm };  // weight + bias, or weight only
enum class QkNorm : uint8_t {
  kNone,
  kPerHead,
  kFull,
  kLast = kFull
};  // Qwen3/Gemma3: per head_dim; OLMo2: whole projection
enum class Arch : uint8_t { kDecoder, kEncoder, kLast = kEncoder };
// The MLP's activation function as transformers' ACT2FN names it (config hidden_act /
// activation_function); it decides how many tensors autograd keeps inside it
// (activation_fn.h).
enum class ActivationFn : uint8_t {
  kSilu,
  kGelu,
  kGeluTanh,
  kGeluNew,
  kGeluFast,
  kQuickGelu,
  kRelu,
  kRelu2,  // squared ReLU (Nemotron-H's MLP, transformers ReLUSquaredActivation)
  kLast = kRelu2
};
// Which vision tower, with its projector, the checkpoint stores (ForEachTensor lists each one's tensors).
enum class VisionKind : uint8_t { kSiglip, kQwen25Vl, kQwen3Vl, kLlama4, kPixtral, kGemma4, kLast = kGemma4 };
// Which recurrent mixer the linear layers hold (their weights differ; their per-sequence state has
// one shape: a conv state and a state matrix per head).
enum class LinearKind : uint8_t { kGatedDeltaNet, kMamba2, kKda, kLast = kKda };

struct ModelSpec {
  std::string name = "custom";
  std::string preset;  // key of the preset it came from ("llama-3-8b"); empty when custom
  Arch arch = Arch::kDecoder;
  int64_t vocab = 32000;
  int64_t hidden = 4096;
  int64_t layers = 32;
  int64_t heads = 32;
  int64_t kv_heads = 32;
  int64_t head_dim = 128;  // may differ from hidden / heads (Gemma, Qwen3)
  int64_t ffn = 11008;     // intermediate size of the dense MLP
  MlpKind mlp = MlpKind::kGated;
  ActivationFn act = ActivationFn::kSilu;
  NormKind norm = NormKind::kRmsNorm;
  // Qwen3-Next's RMSNorm (Qwen3NextRMSNorm, transformers modeling_qwen3_next.py@01cdc608): the
  // weight is stored as an offset from one and scales in fp32 before the cast back,
  // norm(x.float()) * (1.0 + weight.float()); Llama's casts back first, weight * x.to(dtype).
  bool norm_unit_offset = false;
  bool qkv_bias = false;
  bool fused_qkv = false;  // Q, K and V stored as one matrix (GPT-2, GPT-NeoX, Falcon: GGUF attn_qkv)
  bool attn_out_bias = false;
  bool mlp_bias = false;
  bool tied_embeddings = false;
  bool final_norm = true;
  int64_t learned_positions = 0;  // rows of a learned position table (GPT-2, BERT); 0: rotary/none
  int64_t type_vocab = 0;         // BERT token-type embeddings
  bool embedding_norm = false;    // a norm right after the embeddings (BERT)
  bool pooler = false;            // BERT pooler: Linear(h, h) with bias
  int64_t norms_per_layer = 2;    // 1 (parallel attention, Falcon/Phi-2), 2 (pre-norm), 4 (Gemma 2/3)
  QkNorm qk_norm = QkNorm::kNone;
  // Mixture of experts (experts == 0: dense model).
  int64_t experts = 0;
  int64_t experts_per_token = 0;
  int64_t moe_ffn = 0;  // intermediate size of one routed expert
  int64_t shared_experts = 0;
  int64_t shared_ffn = 0;           // intermediate size of one shared expert
  int64_t dense_layers = 0;         // first k layers keep the dense MLP (DeepSeek first_k_dense_replace)
  bool shared_expert_gate = false;  // Qwen2-MoE: Linear(h, 1) gating the shared expert
  bool router_bias = false;         // DeepSeek-V3: e_score_correction_bias, one per expert
  // Multi-head latent attention (DeepSeek-V2/V3) when kv_lora_rank > 0: K and V are
  // compressed into a kv_lora_rank latent plus a shared rotary key of qk_rope_dim.
  int64_t q_lora_rank = 0;  // 0: a plain q_proj
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_dim = 0;
  int64_t qk_rope_dim = 0;
  int64_t v_head_dim = 0;
  // Sliding-window attention: `sliding_layers` of the layers attend to the last
  // `sliding_window` tokens only, so their KV cache stops growing there (Mistral v0.1;
  // Gemma 2 alternates, Gemma 3 has five local layers per global one).
  int64_t sliding_window = 0;
  int64_t sliding_layers = 0;
  int64_t max_positions = 0;  // the context it was trained for (max_position_embeddings); 0: unknown
  // 2025 attention variants (one switch or width each; the importer sets them from config.json).
  bool attn_sinks = false;        // gpt-oss: one learnt sink logit per head and layer (modeling_gpt_oss.py `sinks`)
  bool attn_output_gate = false;  // Qwen3-Next: q_proj also emits a sigmoid gate, heads x head_dim wide
  int64_t moe_layer_step = 1;     // every k-th layer is MoE: layer i when (i + 1) % k == 0 (Llama 4
                                  // interleave_moe_layer_step, Qwen decoder_sparse_step); the rest dense
  // Linear-attention layers (Gated DeltaNet: Qwen3-Next, Qwen3.5) in place of `linear_layers` of the
  // attention layers: no KV cache, a fixed recurrent state per sequence instead (conv state of
  // (2 x k_heads x k_dim + v_heads x v_dim) x (conv - 1) and a delta-rule state of v_heads x k_dim x v_dim;
  // transformers modeling_qwen3_next.py Qwen3NextDynamicCache, vLLM mamba_utils gated_delta_net_state_shape).
  // Kimi Delta Attention (Kimi-Linear) has k_heads = v_heads = num_heads and k_dim = v_dim = head_dim:
  // three convs over q, k and v and a head_dim x head_dim state per head (vllm kda_state_shape).
  // Mamba-2 layers (Nemotron-H, Granite 4.0-H, Falcon-H1) are linear layers of kind kMamba2 with
  // k_heads = n_groups, k_dim = d_state, v_heads = the SSM heads, v_dim = their head_dim: the conv
  // runs over d_inner + 2 x n_groups x d_state channels and the state is heads x head_dim x d_state,
  // the same shapes (transformers modeling_nemotron_h.py NemotronHHybridDynamicCache).
  int64_t linear_layers = 0;
  int64_t linear_k_heads = 0;
  int64_t linear_v_heads = 0;
  int64_t linear_k_dim = 0;
  int64_t linear_v_dim = 0;
  int64_t linear_conv = 0;  // causal conv1d kernel width
  LinearKind linear_kind = LinearKind::kGatedDeltaNet;
  bool linear_parallel = false;   // Falcon-H1: the mixer runs beside attention in each layer, not instead
  bool linear_conv_bias = false;  // Mamba-2: conv1d bias (use_conv_bias / mamba_conv_bias)
  bool linear_proj_bias = false;  // Mamba-2: in_proj and out_proj biases (mamba_proj_bias)
  bool linear_norm = true;        // Mamba-2: the gated RMSNorm over d_inner (Falcon-H1: mamba_rms_norm)
  // Mamba-2's SSD chunk (config chunk_size / mamba_chunk_size): only transformers' torch fallback
  // keeps tensors of its size (chunk x chunk per head), the fused kernel's saved list has none.
  int64_t linear_chunk = 256;
  // vLLM keeps Nemotron-H's SSM state in float32 when --mamba-ssm-cache-dtype is auto (vllm
  // model_executor/models/config.py NemotronHForCausalLMConfig: the config's mamba_ssm_cache_dtype,
  // float32 when absent); other models' state is in the model's dtype there.
  bool linear_ssm_fp32 = false;
  // Nemotron-H's blocks hold one module each (a norm and one of Mamba-2, attention, MLP or MoE):
  // `mixer_free_layers` have no attention or linear mixer, `mlp_free_layers` no MLP.
  int64_t mixer_free_layers = 0;
  int64_t mlp_free_layers = 0;
  // DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2, inference/model.py Indexer): per
  // MLA layer wq_b, wk, k_norm and weights_proj, and one index_dim key per token in the cache.
  int64_t index_heads = 0;
  int64_t index_dim = 0;
  // Gemma 3n (transformers models/gemma3n, Gemma3nTextModel and Gemma3nTextDecoderLayer; mlx-lm's
  // port has the same modules): per-layer embeddings (PLE), a ple_vocab x (layers x ple_dim) table
  // (embed_tokens_per_layer), per_layer_model_projection h -> layers x ple_dim and its norm, and per
  // layer per_layer_input_gate h -> ple_dim, per_layer_projection ple_dim -> h, a norm; AltUp over
  // altup_inputs streams (altup_projections and altup_unembed_projections, inputs - 1 of h x h each,
  // and per layer correct_output_scale, correction_coefs n x n, prediction_coefs n x n^2,
  // modality_router h x n, router_norm); LAuReL (linear_left h -> laurel_rank, linear_right back,
  // post_laurel_norm). The last kv_shared_layers layers keep their K and V projections but reuse
  // the cache of the last earlier layer of their kind (Gemma3nTextConfig num_kv_shared_layers), so
  // they hold no cache: CacheLayers.
  int64_t ple_dim = 0;
  int64_t ple_vocab = 0;
  int64_t altup_inputs = 0;
  int64_t laurel_rank = 0;
  int64_t kv_shared_layers = 0;
  // Gemma 4 (transformers src/transformers/models/gemma4/modeling_gemma4.py @c308a309e651,
  // Gemma4TextAttention, Gemma4TextMLP, Gemma4TextRouter, Gemma4TextDecoderLayer): the full-attention
  // (non-sliding) layers have their own head size (global_head_dim) and, with attention_k_eq_v, their
  // own K heads (num_global_key_value_heads) and no v_proj (V is K's projection before k_norm); the
  // cache keeps K and V all the same. The kv_shared_layers' checkpoint still stores k_proj, v_proj and
  // k_norm (Gemma4TextModel lists them in _keys_to_ignore_on_load_unexpected), counted here as stored.
  // use_double_wide_mlp: those shared layers' MLP is 2 x ffn wide. Each layer stores a layer_scalar
  // (a persistent one-element buffer). Gemma4TextRouter keeps an h-wide scale and a per-expert
  // scale beside proj; the MoE layer also keeps its dense MLP (shared_experts = 1 of width ffn).
  int64_t global_head_dim = 0;  // 0: head_dim
  int64_t global_kv_heads = 0;  // 0: kv_heads
  bool global_k_eq_v = false;
  bool double_wide_mlp = false;
  bool layer_scalar = false;
  bool router_scale = false;
  // A vision tower and its projector; vision_layers == 0: text only. SigLIP with Gemma 3's projector,
  // Qwen2.5-VL's and Qwen3-VL's towers with their patch mergers, Llama 4's with its pixel-shuffle
  // adapter, Pixtral with Mistral 3's patch merger, Gemma 4's with embed_vision (the tensors: ForEachTensor).
  VisionKind vision_kind = VisionKind::kSiglip;
  int64_t vision_layers = 0;
  int64_t vision_hidden = 0;
  int64_t vision_ffn = 0;
  int64_t vision_patch = 0;
  int64_t vision_image = 0;     // learned positions cover (image / patch)^2 patches (SigLIP, Qwen3-VL, Llama 4)
  int64_t vision_merge = 0;     // patches merged per side: spatial_merge_size, or 1 / pixel_shuffle_ratio
  int64_t vision_out = 0;       // the merger's output width (Qwen out_hidden_size, Llama 4 projector dims)
  int64_t vision_deepstack = 0;
  // Gemma 4's tower (Gemma4VisionModel): per-head q_norm and k_norm of vision_head_dim, the four
  // bounds each Gemma4ClippableLinear stores (use_clipped_linears), std_bias and std_scale
  // (standardize). Its position tables have vision_image rows each (position_embedding_size).
  int64_t vision_head_dim = 0;
  bool vision_clipped = false;
  bool vision_standardize = false;  // Qwen3-VL: extra mergers feeding early decoder layers (deepstack_visual_indexes)
  // When > 0, model states use this total instead of the architecture's count (a model
  // known only by its size, as in the seeds' "7B" examples). Activations still need
  // the architecture.
  int64_t params_override = 0;

  bool IsMoe() const { return experts > 0; }
  bool IsMla() const { return kv_lora_rank > 0; }
  // Layers that keep a KV cache: all but the linear ones (unless they run in parallel) and the blocks
  // without a mixer.
  int64_t AttentionLayers() const { return layers - (linear_parallel ? 0 : linear_layers) - mixer_free_layers; }
  int64_t MlpLayers() const { return layers - mlp_free_layers; }  // layers with an MLP or MoE block
  // MoE layers among the MLP layers after the first dense_layers (Llama 4 / Qwen2-MoE's rule).
  int64_t MoeLayers() const {
    const int64_t k = moe_layer_step > 0 ? moe_layer_step : 1;
    const int64_t n = MlpLayers();
    const int64_t first = dense_layers < n ? dense_layers : n;
    return IsMoe() ? n / k - first / k : 0;
  }
  bool HasArchitecture() const { return hidden > 0 && layers > 0 && heads > 0; }
  // Attention layers that keep a KV cache of their own, and the windowed ones among them: the
  // shared layers follow the attention pattern (its size divides kv_shared_layers, configuration_
  // gemma3n.py), so they take the sliding layers' share of it.
  int64_t CacheLayers() const { return AttentionLayers() - kv_shared_layers; }
  int64_t CacheSlidingLayers() const {
    return layers > 0 ? sliding_layers - kv_shared_layers * sliding_layers / layers : sliding_layers;
  }
  // Gemma 4: full-attention layers of their own geometry (global_head_dim, global_kv_heads, k_eq_v).
  bool HasGlobalGeometry() const { return global_head_dim > 0 || global_kv_heads > 0 || global_k_eq_v; }
  int64_t GlobalLayers() const { return HasGlobalGeometry() ? AttentionLayers() - sliding_layers : 0; }
  int64_t GlobalHeadDim() const { return global_head_dim > 0 ? global_head_dim : head_dim; }
  int64_t GlobalKvHeads() const { return global_kv_heads > 0 ? global_kv_heads : kv_heads; }
};

// The roles a weight tensor plays; LoRA targets and Adafactor's factoring use them.
enum class TensorRole : uint8_t {
  kEmbedding,
  kPosition,
  kTokenType,
  kNorm,
  kBias,
  kQ,
  kK,
  kV,
  kO,
  kGate,
  kUp,
  kDown,
  kRouter,
  kHead,
  kPooler,
  kSink,     // gpt-oss attention sinks
  kIndexer,  // DSA lightning indexer
  kLinearAttention,  // Gated DeltaNet projections, conv and state parameters
  kVision,   // vision tower and projector
  kPerLayer,  // Gemma 3n's per-layer input projections, AltUp and LAuReL
};

// Which line of the itemised parameter count a tensor adds to.
enum class ParamGroup : uint8_t { kEmbedding, kAttention, kMlp, kNorms, kHead };

// One kind of weight tensor: rows x cols (cols == 1 for vectors), repeated `count` times.
struct TensorShape {
  ParamGroup group;
  TensorRole role;
  int64_t rows;
  int64_t cols;
  int64_t count;
  bool routed_expert;  // belongs to a routed expert (only top-k are active per token)
};

struct ParamCounts {
  int64_t embedding = 0;  // token, position, token-type tables and the embedding norm
  int64_t attention = 0;  // all layers: Q, K, V, O, their biases, q/k norms
  int64_t mlp = 0;        // all layers: dense MLPs, experts, routers
  int64_t norms = 0;      // all layers' norms, plus the final norm
  int64_t head = 0;       // untied output projection, pooler
  int64_t total = 0;
  int64_t active = 0;          // per token: routed experts counted top-k times (== total when dense)
  int64_t largest_tensor = 0;  // elements of the largest single tensor (the HF calculator's "largest layer")
  int64_t tensors = 0;         // parameter tensors as the modules register them (PyTorch Adam keeps a step per tensor)
};

// The vision tower's and projector's tensors (all in the embedding group, role kVision). Each layout
// follows its transformers modeling file at commit 00709b862bb8 (qwen3_vl) or as cited:
//  SigLIP (modeling_siglip.py): patch conv with bias, learned positions, per layer two LayerNorms,
//    q/k/v/o and fc1/fc2 with biases, a post LayerNorm; Gemma 3's projector (a matrix and an RMSNorm).
//  Qwen2.5-VL (modeling_qwen2_5_vl.py): Conv3d over temporal_patch_size (2) x patch^2 without bias,
//    rotary positions (no table), per block two RMSNorms, qkv and proj with biases, a gated MLP with
//    biases; Qwen2_5_VLPatchMerger: RMSNorm, Linear(4h, 4h) and Linear(4h, out), both with biases.
//  Qwen3-VL (modeling_qwen3_vl.py): Conv3d with bias, pos_embed of num_position_embeddings rows, per
//    block two LayerNorms, qkv and proj with biases, fc1/fc2 with biases; the merger (LayerNorm over
//    h) and each deepstack merger (LayerNorm over 4h) with Linear(4h, 4h) and Linear(4h, out).
//  Llama 4 (modeling_llama4.py): an unfolded patch Linear without bias, a class embedding, positions
//    for (image / patch)^2 + 1, pre and post LayerNorms, per layer two LayerNorms, q/k/v/o and
//    fc1/fc2 with biases; the pixel-shuffle MLP (fc1 ffn x out, fc2 out x out, no biases) and the
//    projector Linear(out, hidden) without bias.
//  Gemma 4 (modeling_gemma4.py @c308a309e651 Gemma4VisionModel, Gemma4MultimodalEmbedder): the
//    patch input_proj 3 p^2 x h without bias, a 2 x position_embedding_size x h position table, per
//    layer q/k/v/o and a gated MLP without biases, four RMSNorms, q_norm and k_norm of head_dim
//    (v_norm has no weight) and, clipped, 4 bounds per linear; std_bias and std_scale when
//    standardized; embed_vision's projection h x hidden (its pre-projection norm has no weight).
//  Pixtral (modeling_pixtral.py): patch conv without bias, ln_pre, per layer two RMSNorms, q/k/v/o
//    and a gated MLP without biases; Mistral3MultiModalProjector: RMSNorm, the patch merger
//    Linear(merge^2 h, h) and Linear(h, hidden), Linear(hidden, hidden) (multimodal_projector_bias false).
template <class F>
void ForEachVisionTensor(const ModelSpec& m, F&& f) {
  const int64_t vh = m.vision_hidden, vf = m.vision_ffn, VL = m.vision_layers, p = m.vision_patch;
  const int64_t side = p > 0 ? m.vision_image / p : 0;
  const int64_t merged = m.vision_merge * m.vision_merge * vh;  // a merger's input width
  auto add = [&](int64_t rows, int64_t cols, int64_t count) {
    if (rows > 0 && cols > 0 && count > 0)
      f(TensorShape{ParamGroup::kEmbedding, TensorRole::kVision, rows, cols, count, false});
  };
  switch (m.vision_kind) {
    case VisionKind::kSiglip:
      add(3 * p * p + 1, vh, 1);
      add(side * side, vh, 1);
      add(vh + 1, vh, 4 * VL);
      add(vh + 1, vf, VL);
      add(vf + 1, vh, VL);
      add(4 * vh, 1, VL);
      add(2 * vh, 1, 1);
      add(vh, m.hidden, 1);
      add(vh, 1, 1);
      break;
    case VisionKind::kQwen25Vl:
      add(3 * 2 * p * p, vh, 1);
      add(2 * vh, 1, VL);       // norm1, norm2
      add(vh + 1, 3 * vh, VL);  // qkv
      add(vh + 1, vh, VL);      // proj
      add(vh + 1, vf, 2 * VL);  // gate_proj, up_proj
      add(vf + 1, vh, VL);      // down_proj
      add(vh, 1, 1);            // merger ln_q
      add(merged + 1, merged, 1);
      add(merged + 1, m.vision_out, 1);
      break;
    case VisionKind::kQwen3Vl:
      add(3 * 2 * p * p + 1, vh, 1);
      add(side * side, vh, 1);
      add(4 * vh, 1, VL);       // norm1, norm2 (LayerNorm)
      add(vh + 1, 3 * vh, VL);  // qkv
      add(vh + 1, vh, VL);      // proj
      add(vh + 1, vf, VL);      // linear_fc1
      add(vf + 1, vh, VL);      // linear_fc2
      add(2 * vh, 1, 1);        // merger norm
      add(2 * merged, 1, m.vision_deepstack);
      add(merged + 1, merged, 1 + m.vision_deepstack);
      add(merged + 1, m.vision_out, 1 + m.vision_deepstack);
      break;
    case VisionKind::kLlama4:
      add(3 * p * p, vh, 1);
      add(side * side + 2, vh, 1);  // positional_embedding_vlm (patches + class) and class_embedding
      add(4 * vh, 1, 1);            // layernorm_pre, layernorm_post
      add(vh + 1, vh, 4 * VL);
      add(vh + 1, vf, VL);
      add(vf + 1, vh, VL);
      add(4 * vh, 1, VL);
      add(vf, m.vision_out, 1);           // vision_adapter fc1
      add(m.vision_out, m.vision_out, 1);  // vision_adapter fc2
      add(m.vision_out, m.hidden, 1);      // multi_modal_projector linear_1
      break;
    case VisionKind::kGemma4:
      add(3 * p * p, vh, 1);                             // patch_embedder.input_proj
      add(2 * m.vision_image, vh, 1);                    // position_embedding_table
      add(vh, vh, 4 * VL);                               // q, k, v, o
      add(vh, vf, 2 * VL);                               // gate_proj, up_proj
      add(vf, vh, VL);                                   // down_proj
      add(4 * vh + 2 * m.vision_head_dim, 1, VL);        // four norms, q_norm, k_norm
      if (m.vision_clipped) add(7 * 4, 1, VL);           // input/output min/max of 7 linears
      if (m.vision_standardize) add(2 * vh, 1, 1);       // std_bias, std_scale
      add(vh, m.hidden, 1);                              // embed_vision.embedding_projection
      break;
    case VisionKind::kPixtral:
      add(3 * p * p, vh, 1);
      add(vh, 1, 1);  // ln_pre
      add(vh, vh, 4 * VL);
      add(vh, vf, 2 * VL);
      add(vf, vh, VL);
      add(2 * vh, 1, VL);  // attention_norm, ffn_norm
      add(vh, 1, 1);       // projector norm
      add(merged, vh, 1);  // patch_merger.merging_layer
      add(vh, m.hidden, 1);
      add(m.hidden, m.hidden, 1);
      break;
  }
}

// Calls f(const TensorShape&) for every kind of weight tensor of the model, in order.
// Header-only so the numeric path stays allocation-free and inlinable.
template <class F>
void ForEachTensor(const ModelSpec& m, F&& f) {
  const int64_t h = m.hidden;
  const int64_t q_out = m.heads * m.head_dim;
  const int64_t kv_out = m.kv_heads * m.head_dim;
  const int64_t norm_width = m.norm == NormKind::kLayerNorm ? 2 : 1;  // weight (+ bias)
  const int64_t L = m.layers;
  const int64_t LA = m.AttentionLayers();
  const int64_t q_proj = m.attn_output_gate ? 2 * q_out : q_out;

  f(TensorShape{ParamGroup::kEmbedding, TensorRole::kEmbedding, m.vocab, h, 1, false});
  if (m.learned_positions > 0)
    f(TensorShape{ParamGroup::kEmbedding, TensorRole::kPosition, m.learned_positions, h, 1, false});
  if (m.type_vocab > 0) f(TensorShape{ParamGroup::kEmbedding, TensorRole::kTokenType, m.type_vocab, h, 1, false});
  if (m.embedding_norm) f(TensorShape{ParamGroup::kEmbedding, TensorRole::kNorm, norm_width * h, 1, 1, false});

  // Attention (HF Linear stores out x in; we use rows = d_in, cols = d_out).
  if (m.IsMla()) {
    // DeepSeek-V2 §2.1: q (optionally through a q_lora_rank bottleneck), the joint KV
    // latent with the shared rotary key, its up-projection to per-head K_nope and V.
    const int64_t qk_head = m.qk_nope_dim + m.qk_rope_dim;
    if (m.q_lora_rank > 0) {
      f(TensorShape{ParamGroup::kAttention, TensorRole::kQ, h, m.q_lora_rank, LA, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, norm_width * m.q_lora_rank, 1, LA, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kQ, m.q_lora_rank, m.heads * qk_head, LA, false});
    } else {
      f(TensorShape{ParamGroup::kAttention, TensorRole::kQ, h, m.heads * qk_head, LA, false});
    }
    f(TensorShape{ParamGroup::kAttention, TensorRole::kK, h, m.kv_lora_rank + m.qk_rope_dim, LA, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, norm_width * m.kv_lora_rank, 1, LA, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kV, m.kv_lora_rank, m.heads * (m.qk_nope_dim + m.v_head_dim), LA,
                  false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kO, m.heads * m.v_head_dim, h, LA, false});
    if (m.index_heads > 0 && m.index_dim > 0) {
      // wq_b (from the q latent; from h without one), wk, k_norm (LayerNorm), weights_proj.
      const int64_t q_in = m.q_lora_rank > 0 ? m.q_lora_rank : h;
      f(TensorShape{ParamGroup::kAttention, TensorRole::kIndexer, q_in, m.index_heads * m.index_dim, LA, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kIndexer, h, m.index_dim, LA, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, 2 * m.index_dim, 1, LA, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kIndexer, h, m.index_heads, LA, false});
    }
  } else if (LA > 0) {
    // Gemma 4's full-attention layers (LG of them) take their own geometry; the rest as above.
    const int64_t LG = m.GlobalLayers(), LS = LA - LG;
    if (LS > 0) {
      f(TensorShape{ParamGroup::kAttention, TensorRole::kQ, h, q_proj, LS, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kK, h, kv_out, LS, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kV, h, kv_out, LS, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kO, q_out, h, LS, false});
    }
    if (LG > 0) {
      const int64_t gq = m.heads * m.GlobalHeadDim(), gkv = m.GlobalKvHeads() * m.GlobalHeadDim();
      f(TensorShape{ParamGroup::kAttention, TensorRole::kQ, h, gq, LG, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kK, h, gkv, LG, false});
      if (!m.global_k_eq_v) f(TensorShape{ParamGroup::kAttention, TensorRole::kV, h, gkv, LG, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kO, gq, h, LG, false});
    }
  }
  if (!m.IsMla() && LA > 0) {
    const int64_t LG = m.GlobalLayers(), LS = LA - LG;
    if (m.qkv_bias) f(TensorShape{ParamGroup::kAttention, TensorRole::kBias, q_proj + 2 * kv_out, 1, LA, false});
    if (m.attn_out_bias) f(TensorShape{ParamGroup::kAttention, TensorRole::kBias, h, 1, LA, false});
    if (m.qk_norm == QkNorm::kPerHead && LS > 0)
      f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, 2 * norm_width * m.head_dim, 1, LS, false});
    if (m.qk_norm == QkNorm::kPerHead && LG > 0)
      f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, 2 * norm_width * m.GlobalHeadDim(), 1, LG, false});
    if (m.qk_norm == QkNorm::kFull)
      f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, norm_width * (q_out + kv_out), 1, LA, false});
    if (m.attn_sinks) f(TensorShape{ParamGroup::kAttention, TensorRole::kSink, m.heads, 1, LA, false});
  }
  if (m.linear_layers > 0 && m.linear_kind == LinearKind::kMamba2) {
    // Mamba-2 (transformers modeling_nemotron_h.py NemotronHMamba2Mixer, Bamba's and Falcon-H1's
    // mixers alike): in_proj to z, x, B, C and dt (2 d_inner + 2 n_groups d_state + heads), a
    // depthwise conv1d over x, B and C, dt_bias, A_log and D per head, a gated RMSNorm over d_inner,
    // out_proj. key = n_groups x d_state, value = d_inner.
    const int64_t key = m.linear_k_heads * m.linear_k_dim, value = m.linear_v_heads * m.linear_v_dim;
    const int64_t NL = m.linear_layers, pb = m.linear_proj_bias ? 1 : 0;
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, h + pb, 2 * value + 2 * key + m.linear_v_heads,
                  NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, value + 2 * key,
                  m.linear_conv + (m.linear_conv_bias ? 1 : 0), NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, 3 * m.linear_v_heads, 1, NL, false});
    if (m.linear_norm) f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, value, 1, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, value + pb, h, NL, false});
  } else if (m.linear_layers > 0 && m.linear_kind == LinearKind::kKda) {
    // Kimi Delta Attention (vllm model_executor/layers/kda.py @1d03ed8f KimiDeltaAttention): q, k, v
    // projections, the decay gate's f_a/f_b and output gate's g_a/g_b low-rank pairs through
    // head_dim, dt_bias, b_proj (one beta per head), three depthwise convs without bias, A_log, the
    // gated o_norm over head_dim, o_proj. P = heads x head_dim.
    const int64_t P = m.linear_v_heads * m.linear_v_dim, hd = m.linear_v_dim, H = m.linear_v_heads;
    const int64_t NL = m.linear_layers;
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, h, 3 * P + 2 * hd + H, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, hd, 2 * P, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, 3 * P, m.linear_conv, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, P + H, 1, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, hd, 1, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, P, h, NL, false});
  } else if (m.linear_layers > 0) {
    // Gated DeltaNet (modeling_qwen3_next.py Qwen3NextGatedDeltaNet): in_proj_qkvz, in_proj_ba,
    // a depthwise conv1d over q, k, v, dt_bias and A_log, a gated RMSNorm over v_dim, out_proj.
    const int64_t key = m.linear_k_heads * m.linear_k_dim, value = m.linear_v_heads * m.linear_v_dim;
    const int64_t NL = m.linear_layers;
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, h, 2 * key + 2 * value, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, h, 2 * m.linear_v_heads, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, 2 * key + value, m.linear_conv, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, 2 * m.linear_v_heads, 1, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, m.linear_v_dim, 1, NL, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kLinearAttention, value, h, NL, false});
  }
  f(TensorShape{ParamGroup::kNorms, TensorRole::kNorm, m.norms_per_layer * norm_width * h, 1, L, false});
  if (m.layer_scalar) f(TensorShape{ParamGroup::kNorms, TensorRole::kNorm, 1, 1, L, false});  // Gemma 4

  // MLP: a dense block of width `ffn`, `count` times, optionally one expert of many.
  auto mlp = [&](int64_t width, int64_t count, bool routed) {
    if (count <= 0 || width <= 0) return;
    if (m.mlp == MlpKind::kGated) f(TensorShape{ParamGroup::kMlp, TensorRole::kGate, h, width, count, routed});
    f(TensorShape{ParamGroup::kMlp, TensorRole::kUp, h, width, count, routed});
    f(TensorShape{ParamGroup::kMlp, TensorRole::kDown, width, h, count, routed});
    if (m.mlp_bias) {
      int64_t up_bias = m.mlp == MlpKind::kGated ? 2 * width : width;
      f(TensorShape{ParamGroup::kMlp, TensorRole::kBias, up_bias + h, 1, count, routed});
    }
  };
  if (!m.IsMoe()) {
    // Gemma 4's use_double_wide_mlp: the KV-shared last layers' MLP is twice as wide.
    const int64_t wide = m.double_wide_mlp ? (m.kv_shared_layers < m.MlpLayers() ? m.kv_shared_layers : m.MlpLayers()) : 0;
    mlp(m.ffn, m.MlpLayers() - wide, false);
    mlp(2 * m.ffn, wide, false);
  } else {
    const int64_t moe = m.MoeLayers();
    mlp(m.ffn, m.MlpLayers() - moe, false);
    f(TensorShape{ParamGroup::kMlp, TensorRole::kRouter, h, m.experts, moe, false});
    if (m.router_bias) f(TensorShape{ParamGroup::kMlp, TensorRole::kBias, m.experts, 1, moe, false});
    if (m.router_scale) f(TensorShape{ParamGroup::kMlp, TensorRole::kRouter, h + m.experts, 1, moe, false});
    mlp(m.moe_ffn, moe * m.experts, true);
    mlp(m.shared_ffn, moe * m.shared_experts, false);
    if (m.shared_expert_gate) f(TensorShape{ParamGroup::kMlp, TensorRole::kRouter, h, 1, moe, false});
  }

  if (m.ple_dim > 0) {  // Gemma 3n's per-layer inputs (the rows above ple_dim in model.h)
    f(TensorShape{ParamGroup::kEmbedding, TensorRole::kEmbedding, m.ple_vocab, L * m.ple_dim, 1, false});
    f(TensorShape{ParamGroup::kEmbedding, TensorRole::kPerLayer, h, L * m.ple_dim, 1, false});
    f(TensorShape{ParamGroup::kEmbedding, TensorRole::kNorm, m.ple_dim, 1, 1, false});
    f(TensorShape{ParamGroup::kMlp, TensorRole::kPerLayer, h, m.ple_dim, L, false});
    f(TensorShape{ParamGroup::kMlp, TensorRole::kPerLayer, m.ple_dim, h, L, false});
    f(TensorShape{ParamGroup::kNorms, TensorRole::kNorm, h, 1, L, false});
  }
  if (m.altup_inputs > 1) {
    const int64_t n = m.altup_inputs;
    f(TensorShape{ParamGroup::kEmbedding, TensorRole::kPerLayer, h, h, 2 * (n - 1), false});
    f(TensorShape{ParamGroup::kMlp, TensorRole::kPerLayer, h + n + n * n, n, L, false});  // router, coefs
    f(TensorShape{ParamGroup::kNorms, TensorRole::kNorm, 2 * h, 1, L, false});  // correct_output_scale, router_norm
  }
  if (m.laurel_rank > 0) {
    f(TensorShape{ParamGroup::kMlp, TensorRole::kPerLayer, h, m.laurel_rank, L, false});
    f(TensorShape{ParamGroup::kMlp, TensorRole::kPerLayer, m.laurel_rank, h, L, false});
    f(TensorShape{ParamGroup::kNorms, TensorRole::kNorm, h, 1, L, false});
  }
  if (m.final_norm) f(TensorShape{ParamGroup::kNorms, TensorRole::kNorm, norm_width * h, 1, 1, false});
  if (!m.tied_embeddings && m.arch == Arch::kDecoder)
    f(TensorShape{ParamGroup::kHead, TensorRole::kHead, h, m.vocab, 1, false});
  if (m.pooler) f(TensorShape{ParamGroup::kHead, TensorRole::kPooler, h, h + 1, 1, false});  // weight + bias
  if (m.vision_layers > 0) ForEachVisionTensor(m, f);
}

ParamCounts CountParameters(const ModelSpec& m);

// Parameter tensors as transformers' modules register them: a Linear's weight and bias
// are two; GPT-2's Conv1D c_attn holds Q, K and V in one.
int64_t CountParameterTensors(const ModelSpec& m);

// The longest sequence the model takes: its learned position table (GPT-2, BERT) or the
// context it was trained for (max_positions), the shorter when both are known; 0: unknown.
int64_t ModelContext(const ModelSpec& m);

// The total that model states use: params_override when given, else the count.
int64_t TrainableBase(const ModelSpec& m, const ParamCounts& counts);

}  // namespace llmmem::core
