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
enum class ActivationFn : uint8_t { kSilu, kGelu, kGeluTanh, kGeluNew, kGeluFast, kQuickGelu, kRelu, kLast = kRelu };

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
  // When > 0, model states use this total instead of the architecture's count (a model
  // known only by its size, as in the seeds' "7B" examples). Activations still need
  // the architecture.
  int64_t params_override = 0;

  bool IsMoe() const { return experts > 0; }
  bool IsMla() const { return kv_lora_rank > 0; }
  bool HasArchitecture() const { return hidden > 0 && layers > 0 && heads > 0; }
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

// Calls f(const TensorShape&) for every kind of weight tensor of the model, in order.
// Header-only so the numeric path stays allocation-free and inlinable.
template <class F>
void ForEachTensor(const ModelSpec& m, F&& f) {
  const int64_t h = m.hidden;
  const int64_t q_out = m.heads * m.head_dim;
  const int64_t kv_out = m.kv_heads * m.head_dim;
  const int64_t norm_width = m.norm == NormKind::kLayerNorm ? 2 : 1;  // weight (+ bias)
  const int64_t L = m.layers;

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
      f(TensorShape{ParamGroup::kAttention, TensorRole::kQ, h, m.q_lora_rank, L, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, norm_width * m.q_lora_rank, 1, L, false});
      f(TensorShape{ParamGroup::kAttention, TensorRole::kQ, m.q_lora_rank, m.heads * qk_head, L, false});
    } else {
      f(TensorShape{ParamGroup::kAttention, TensorRole::kQ, h, m.heads * qk_head, L, false});
    }
    f(TensorShape{ParamGroup::kAttention, TensorRole::kK, h, m.kv_lora_rank + m.qk_rope_dim, L, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, norm_width * m.kv_lora_rank, 1, L, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kV, m.kv_lora_rank, m.heads * (m.qk_nope_dim + m.v_head_dim), L,
                  false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kO, m.heads * m.v_head_dim, h, L, false});
  } else {
    f(TensorShape{ParamGroup::kAttention, TensorRole::kQ, h, q_out, L, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kK, h, kv_out, L, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kV, h, kv_out, L, false});
    f(TensorShape{ParamGroup::kAttention, TensorRole::kO, q_out, h, L, false});
  }
  if (m.qkv_bias) f(TensorShape{ParamGroup::kAttention, TensorRole::kBias, q_out + 2 * kv_out, 1, L, false});
  if (m.attn_out_bias) f(TensorShape{ParamGroup::kAttention, TensorRole::kBias, h, 1, L, false});
  if (m.qk_norm == QkNorm::kPerHead)
    f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, 2 * norm_width * m.head_dim, 1, L, false});
  if (m.qk_norm == QkNorm::kFull)
    f(TensorShape{ParamGroup::kAttention, TensorRole::kNorm, norm_width * (q_out + kv_out), 1, L, false});
  f(TensorShape{ParamGroup::kNorms, TensorRole::kNorm, m.norms_per_layer * norm_width * h, 1, L, false});

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
    mlp(m.ffn, L, false);
  } else {
    const int64_t dense = m.dense_layers < L ? m.dense_layers : L;
    const int64_t moe = L - dense;
    mlp(m.ffn, dense, false);
    f(TensorShape{ParamGroup::kMlp, TensorRole::kRouter, h, m.experts, moe, false});
    if (m.router_bias) f(TensorShape{ParamGroup::kMlp, TensorRole::kBias, m.experts, 1, moe, false});
    mlp(m.moe_ffn, moe * m.experts, true);
    mlp(m.shared_ffn, moe * m.shared_experts, false);
    if (m.shared_expert_gate) f(TensorShape{ParamGroup::kMlp, TensorRole::kRouter, h, 1, moe, false});
  }

  if (m.final_norm) f(TensorShape{ParamGroup::kNorms, TensorRole::kNorm, norm_width * h, 1, 1, false});
  if (!m.tied_embeddings && m.arch == Arch::kDecoder)
    f(TensorShape{ParamGroup::kHead, TensorRole::kHead, h, m.vocab, 1, false});
  if (m.pooler) f(TensorShape{ParamGroup::kHead, TensorRole::kPooler, h, h + 1, 1, false});  // weight + bias
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
