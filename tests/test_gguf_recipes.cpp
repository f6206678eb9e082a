// llama.cpp's mixed recipes tensor by tensor (gguf_mix.h), against ggml-org/ci's logs of
// Pythia-2.8B on a V100 (llama.cpp e90688edd, ggml-4-x86-cuda-v100/pythia_2_8b-tg-*.log):
// "CUDA0 model buffer size" is every tensor but the token embedding, which stays
// "CPU_Mapped". Both are printed in MiB with two decimals; the estimate must give the same.
#include <doctest.h>

#include <cmath>

#include "core/model/gguf_mix.h"
#include "setups.h"

namespace llmmem::test {
namespace {

ModelSpec Pythia28b() {
  Config c = DefaultConfig();
  Apply(c, {{"model.vocab", "50304"},
            {"model.hidden", "2560"},
            {"model.layers", "32"},
            {"model.heads", "32"},
            {"model.kv_heads", "32"},
            {"model.head_dim", "80"},
            {"model.ffn", "10240"},
            {"model.mlp", "plain"},
            {"model.act", "gelu"},
            {"model.norm", "layernorm"},
            {"model.qkv_bias", "1"},
            {"model.attn_out_bias", "1"},
            {"model.mlp_bias", "1"},
            {"model.fused_qkv", "1"},
            {"model.tied_embeddings", "0"}});
  return c.model;
}

double MiB2(double bytes) { return std::round(bytes / 1048576.0 * 100) / 100; }

TEST_CASE("GGUF: Pythia-2.8B's Q8_0 to Q2_K files, byte for byte as llama.cpp loaded them") {
  const ModelSpec m = Pythia28b();
  const struct {
    Dtype recipe;
    double gpu_mib, embedding_mib;
  } files[] = {{Dtype::kQ8_0, 2684.57, 130.49},  // plain block types: the output in Q6_K, Q8_0 kept
               {Dtype::kQ5_0, 1754.83, 84.43},   {Dtype::kQ4_1, 1604.83, 76.76},
               {Dtype::kQ4_0, 1454.83, 69.08},   {Dtype::kQ6_K_File, 2073.58, 100.74},
               {Dtype::kQ5_K_M, 1887.64, 84.43}, {Dtype::kQ4_K_M, 1632.95, 69.08},
               {Dtype::kQ3_K_M, 1354.83, 52.77}, {Dtype::kQ2_K_File, 993.89, 40.30}};
  for (const auto& file : files) {
    CAPTURE(Info(file.recipe).id);
    double embedding = 0, rest = 0;
    ForEachTensor(m, [&](const TensorShape& t) {
      const double bytes = GgufTensorBytes(t, file.recipe, m);
      (t.role == TensorRole::kEmbedding ? embedding : rest) += bytes;
    });
    CHECK(MiB2(rest) == doctest::Approx(file.gpu_mib));
    CHECK(MiB2(embedding) == doctest::Approx(file.embedding_mib));
  }
}

TEST_CASE("GGUF recipes: attn_v and ffn_down take more bits in the layers use_more_bits picks") {
  ModelSpec m = Pythia28b();
  m.fused_qkv = false;  // a separate V: Q4_K_M gives it Q6_K in 16 of 32 layers, Q4_K in the rest
  const TensorShape v{ParamGroup::kAttention, TensorRole::kV, 2560, 2560, 32, false};
  const double per_layer = 2560.0 * 2560.0;
  CHECK(GgufTensorBytes(v, Dtype::kQ4_K_M, m) == 16 * per_layer * 210 / 256 + 16 * per_layer * 144 / 256);
  // A tied embedding is the output tensor too: Q6_K under a Q4_0 file, as an untied head.
  ModelSpec tied = Pythia28b();
  tied.tied_embeddings = true;
  const TensorShape embedding{ParamGroup::kEmbedding, TensorRole::kEmbedding, 50304, 2560, 1, false};
  CHECK(GgufTensorBytes(embedding, Dtype::kQ4_0, tied) == 50304.0 * 2560 * 210 / 256);
  CHECK(GgufTensorBytes(embedding, Dtype::kQ4_0, m) == 50304.0 * 2560 * 18 / 32);
  // A row not divisible by the 256-wide K block falls back (Q4_K to Q5_0).
  const TensorShape odd{ParamGroup::kMlp, TensorRole::kUp, 2560 + 32, 4096, 1, false};
  CHECK(GgufTensorBytes(odd, Dtype::kQ4_K_M, m) == 2592.0 * 4096 * 22 / 32);
}

}  // namespace
}  // namespace llmmem::test
