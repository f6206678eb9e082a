// The rules of llama.cpp src/llama-quant.cpp llama_tensor_get_type for GGUF files: the
// output rule and the fallback for every type, the per-tensor rules of the K recipes (the IQ
// recipes' own rules and Falcon's branches are not modelled: they follow the general ones).
// See gguf_mix.h.
#include "core/model/gguf_mix.h"

#include <algorithm>

namespace llmmem::core {
namespace {

// A block type's bytes per weight (ggml-common.h block layouts).
double BytesPer(Dtype block) { return BitsPerWeight(block, QuantOptions{}) / 8.0; }

// llama.cpp: more bits for the first and last eighth of the layers and every third between.
bool UseMoreBits(int64_t i, int64_t n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

// A recipe's default block type (llama_model_quantize_impl); a block type is its own.
Dtype DefaultBlock(Dtype recipe) {
  if (!IsGgufRecipe(recipe)) return recipe;
  switch (recipe) {
    case Dtype::kQ6_K_File:
      return Dtype::kQ6_K;
    case Dtype::kQ5_K_M:
    case Dtype::kQ5_K_S:
      return Dtype::kQ5_K;
    case Dtype::kQ4_K_M:
    case Dtype::kQ4_K_S:
      return Dtype::kQ4_K;
    case Dtype::kQ3_K_L:
    case Dtype::kQ3_K_M:
    case Dtype::kQ3_K_S:
      return Dtype::kQ3_K;
    default:
      return Dtype::kQ2_K;
  }
}

int64_t BlockWidth(Dtype block) {
  switch (block) {
    case Dtype::kQ8_0:
    case Dtype::kQ5_0:
    case Dtype::kQ5_1:
    case Dtype::kQ4_0:
    case Dtype::kQ4_1:
    case Dtype::kIQ4_NL:
      return 32;
    default:
      return 256;  // the K and IQ super-blocks
  }
}

// A type whose block does not divide the row falls back (llama_tensor_get_type's
// convert_incompatible_tensor), and to F16 when the fallback's does not either.
Dtype Fallback(Dtype block, int64_t row) {
  if (row % BlockWidth(block) == 0) return block;
  const Dtype fallback = block == Dtype::kQ4_K      ? Dtype::kQ5_0
                         : block == Dtype::kQ5_K    ? Dtype::kQ5_1
                         : block == Dtype::kQ6_K    ? Dtype::kQ8_0
                         : BlockWidth(block) == 256 ? Dtype::kIQ4_NL
                                                    : Dtype::kFp16;
  return fallback != Dtype::kFp16 && row % BlockWidth(fallback) == 0 ? fallback : Dtype::kFp16;
}

struct Rules {
  Dtype recipe;
  const ModelSpec& m;
  Dtype base;
  bool eight_experts;
  bool seventy_b;  // llama.cpp's LLM_TYPE_70B: 80 layers with grouped-query attention

  // output.weight: Q8_0 stays, the lowest IQ types take Q5_K, the rest Q6_K (`else if
  // (new_type != GGML_TYPE_Q8_0) new_type = GGML_TYPE_Q6_K`).
  Dtype Output() const {
    if (base == Dtype::kQ8_0) return base;
    const bool low_iq = base == Dtype::kIQ2_XXS || base == Dtype::kIQ2_XS || base == Dtype::kIQ3_XXS ||
                        base == Dtype::kIQ1_S || base == Dtype::kIQ2_S || base == Dtype::kIQ1_M;
    return low_iq ? Dtype::kQ5_K : Dtype::kQ6_K;
  }

  // attn_v of layer i (i-th attention layer of n).
  Dtype AttnV(int64_t i, int64_t n) const {
    Dtype t = base;
    const int64_t gqa = m.kv_heads > 0 ? m.heads / m.kv_heads : 1;
    if (recipe == Dtype::kQ2_K_File)
      t = gqa >= 4 ? Dtype::kQ4_K : Dtype::kQ3_K;
    else if (recipe == Dtype::kQ3_K_M)
      t = i < 2 ? Dtype::kQ5_K : Dtype::kQ4_K;
    else if (recipe == Dtype::kQ3_K_L)
      t = Dtype::kQ5_K;
    else if ((recipe == Dtype::kQ4_K_M || recipe == Dtype::kQ5_K_M) && UseMoreBits(i, n))
      t = Dtype::kQ6_K;
    else if (recipe == Dtype::kQ4_K_S && i < 4)
      t = Dtype::kQ5_K;
    if (seventy_b && (t == Dtype::kQ3_K || t == Dtype::kQ4_K)) t = Dtype::kQ5_K;
    if (eight_experts) t = Dtype::kQ8_0;
    return t;
  }

  Dtype AttnQkv() const {
    if (recipe == Dtype::kQ3_K_M || recipe == Dtype::kQ3_K_L) return Dtype::kQ4_K;
    if (recipe == Dtype::kQ4_K_M) return Dtype::kQ5_K;
    if (recipe == Dtype::kQ5_K_M) return Dtype::kQ6_K;
    return base;
  }

  Dtype AttnOutput() const {
    if (eight_experts) {
      const bool bump = recipe == Dtype::kQ2_K_File || recipe == Dtype::kQ3_K_S || recipe == Dtype::kQ3_K_M ||
                        recipe == Dtype::kQ4_K_S || recipe == Dtype::kQ4_K_M;
      return bump ? Dtype::kQ5_K : base;
    }
    if (recipe == Dtype::kQ2_K_File) return Dtype::kQ3_K;
    if (recipe == Dtype::kQ3_K_M) return Dtype::kQ4_K;
    if (recipe == Dtype::kQ3_K_L) return Dtype::kQ5_K;
    return base;
  }

  // ffn_down of block i of n.
  Dtype FfnDown(int64_t i, int64_t n) const {
    if (recipe == Dtype::kQ2_K_File) return Dtype::kQ3_K;
    if (recipe == Dtype::kQ3_K_M) return i < n / 16 ? Dtype::kQ5_K : Dtype::kQ4_K;
    if (recipe == Dtype::kQ3_K_L) return Dtype::kQ5_K;
    if ((recipe == Dtype::kQ4_K_M || recipe == Dtype::kQ5_K_M) && UseMoreBits(i, n)) return Dtype::kQ6_K;
    if (recipe == Dtype::kQ4_K_S && i < n / 8) return Dtype::kQ5_K;
    return base;
  }
};

}  // namespace

double GgufTensorBytes(const TensorShape& t, Dtype format, const ModelSpec& m) {
  const double rows = static_cast<double>(t.rows), cols = static_cast<double>(t.cols);
  const double n = rows * cols * static_cast<double>(t.count);
  // Vectors (norms, biases) and what llama-quantize leaves alone (routers, position and
  // token-type tables) stay as the converter wrote them: fp32.
  if (t.cols <= 1 || t.role == TensorRole::kRouter || t.role == TensorRole::kPosition ||
      t.role == TensorRole::kTokenType)
    return n * 4.0;
  const Rules r{format, m, DefaultBlock(format), m.experts == 8, m.layers == 80 && m.kv_heads < m.heads};
  // ggml's ne[0], the row a block must divide: a Linear's input width (rows here), the
  // hidden width for the embedding table (vocab x hidden).
  const int64_t row = t.role == TensorRole::kEmbedding ? t.cols : t.rows;
  auto bytes = [&](Dtype block, double elements) { return elements * BytesPer(Fallback(block, row)); };
  // A tied embedding is the output tensor too: llama.cpp quantises it by the output's rule.
  const bool output = t.role == TensorRole::kHead || (t.role == TensorRole::kEmbedding && m.tied_embeddings);
  if (output) return bytes(row % BlockWidth(r.base) == 0 ? r.Output() : Dtype::kQ8_0, n);
  if (!IsGgufRecipe(format)) return bytes(r.base, n);  // a plain block type: no other rule
  const int64_t L = std::max<int64_t>(1, m.layers);
  // Sums a per-layer rule over the layers a family spans (count / layers tensors each):
  // layers counted by the type they get, then each type's bytes once (the estimate runs
  // this per serving estimate).
  auto per_layer = [&](int64_t first, int64_t last, auto&& rule) {
    const double per = n / static_cast<double>(std::max<int64_t>(1, last - first));
    int64_t layers_of[static_cast<int>(Dtype::kCount)] = {};
    for (int64_t i = first; i < last; ++i) ++layers_of[static_cast<int>(rule(i))];
    double sum = 0;
    for (int k = 0; k < static_cast<int>(Dtype::kCount); ++k)
      if (layers_of[k] > 0) sum += bytes(static_cast<Dtype>(k), per * static_cast<double>(layers_of[k]));
    return sum;
  };
  const bool attention_qkv = t.role == TensorRole::kQ || t.role == TensorRole::kK || t.role == TensorRole::kV;
  if (attention_qkv && m.fused_qkv && !m.IsMla()) return bytes(r.AttnQkv(), n);
  if (t.role == TensorRole::kV && !m.IsMla()) return per_layer(0, L, [&](int64_t i) { return r.AttnV(i, L); });
  if (t.role == TensorRole::kK && !m.IsMla() && r.eight_experts) return bytes(Dtype::kQ8_0, n);
  if (t.role == TensorRole::kO) return bytes(r.AttnOutput(), n);
  if (t.role == TensorRole::kDown) {
    // Dense MLPs of a mixture-of-experts model are its first dense_layers blocks; experts
    // and shared experts the rest (llama.cpp reads the block index from the tensor's name).
    const int64_t dense = m.IsMoe() ? std::min(m.dense_layers, L) : L;
    const bool in_moe_blocks = m.IsMoe() && (t.routed_expert || t.count != dense);
    return in_moe_blocks ? per_layer(dense, L, [&](int64_t i) { return r.FfnDown(i, L); })
                         : per_layer(0, dense, [&](int64_t i) { return r.FfnDown(i, L); });
  }
  return bytes(r.base, n);
}

}  // namespace llmmem::core
