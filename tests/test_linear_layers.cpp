// Training activations of 2025's token mixers against what PyTorch keeps: a Gated DeltaNet layer
// (Qwen3-Next), a Mamba-2 mixer (Nemotron-H), a Kimi Delta Attention layer (Kimi-Linear), gpt-oss's
// sink attention with and without its sliding window, and Qwen3-Next's gated full-attention layer. tests/truth/measure_linear_layers.py runs replicas of transformers' modules
// (tests/truth/replicas_linear.py) under saved-tensor hooks on Debian's torch 1.13 (CPU) and commits
// every saved storage to tests/data/linear_layers_*.json. The estimate counts the fused-kernel path
// (flash-linear-attention, mamba_ssm, causal-conv1d: activations_hf.h GatedDeltaNetTensors,
// Mamba2Tensors, KdaTensors); the replicas measure it through Functions that save the kernels'
// ctx.save_for_backward lists, and the torch fallbacks as transformers runs them without the kernels
// (counted with linear_kernels torch: GatedDeltaNetTorchTensors, Mamba2TorchTensors).
#include <doctest.h>

#include <cstring>
#include <string>

#include "core/catalogue/embedded.h"
#include "core/estimate/account_activations.h"
#include "core/parse/json.h"
#include "setups.h"

namespace llmmem::test {
extern const core::EmbeddedFile kEmbeddedTestData[];
}

using namespace llmmem::test;

namespace {

const Json& Measurements() {
  static const Json doc = [] {
    for (const EmbeddedFile* f = kEmbeddedTestData; f->name != nullptr; ++f) {
      if (std::strncmp(f->name, "linear_layers_", 14) == 0) return ParseJson(f->Text()).value;
    }
    return Json();
  }();
  return doc;
}

double Num(const Json& j, const char* key) {
  const Json* v = j.Find(key);
  return v != nullptr && v->IsNumber() ? v->AsNumber() : -1;
}

// saved_bytes of one measured case.
double Measured(const std::string& name) {
  const Json* cases = Measurements().Find("cases");
  REQUIRE(cases != nullptr);
  const Json* k = cases->Find(name.c_str());
  REQUIRE_MESSAGE(k != nullptr, name);
  return Num(*k, "saved_bytes");
}

int64_t Dim(const char* block, const char* key) {
  const Json* b = Measurements().Find(block);
  REQUIRE(b != nullptr);
  return static_cast<int64_t>(Num(*b, key));
}

// The measured shapes as a one-layer model, trained in the case's dtype under HF eager.
Config Case(bool fp32) {
  Config c = Bare();
  c.framework = Framework::kHfEager;
  c.flash_attn = false;
  c.dropout = false;
  c.seq = static_cast<int64_t>(Num(Measurements(), "tokens"));
  c.batch = static_cast<int64_t>(Num(Measurements(), "batch"));
  c.dtype = c.grad_dtype = c.optimizer_dtype = fp32 ? Dtype::kFp32 : Dtype::kBf16;
  c.master_weights = false;
  ModelSpec& m = c.model;
  m = ModelSpec{};
  m.name = "replica";
  m.layers = 1;
  m.vocab = 1000;
  m.ffn = 128;
  return c;
}

Config GatedDeltaNetCase(bool fp32) {
  Config c = Case(fp32);
  ModelSpec& m = c.model;
  m.hidden = Dim("gated_deltanet", "hidden");
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 16;
  m.linear_layers = 1;  // the one layer is a linear-attention layer: no attention rows
  m.linear_kind = LinearKind::kGatedDeltaNet;
  m.linear_k_heads = Dim("gated_deltanet", "k_heads");
  m.linear_v_heads = Dim("gated_deltanet", "v_heads");
  m.linear_k_dim = Dim("gated_deltanet", "k_dim");
  m.linear_v_dim = Dim("gated_deltanet", "v_dim");
  m.linear_conv = Dim("gated_deltanet", "conv");
  return c;
}

Config Mamba2Case(bool fp32) {
  Config c = Case(fp32);
  ModelSpec& m = c.model;
  m.hidden = Dim("mamba2", "hidden");
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 16;
  m.linear_layers = 1;
  m.linear_kind = LinearKind::kMamba2;
  m.linear_k_heads = Dim("mamba2", "n_groups");
  m.linear_k_dim = Dim("mamba2", "d_state");
  m.linear_v_heads = Dim("mamba2", "heads");
  m.linear_v_dim = Dim("mamba2", "head_dim");
  m.linear_conv = Dim("mamba2", "conv");
  m.linear_conv_bias = true;
  m.linear_norm = true;
  m.linear_chunk = Dim("mamba2", "chunk_size");
  return c;
}

Config GptOssCase(bool fp32) {
  Config c = Case(fp32);
  ModelSpec& m = c.model;
  m.hidden = Dim("gpt_oss", "hidden");
  m.heads = Dim("gpt_oss", "heads");
  m.kv_heads = Dim("gpt_oss", "kv_heads");
  m.head_dim = Dim("gpt_oss", "head_dim");
  m.qkv_bias = m.attn_out_bias = true;
  m.attn_sinks = true;
  return c;
}

// Kimi-Linear's KDA layer: num_heads = k_heads = v_heads, head_dim = k_dim = v_dim (the importer's
// mapping of linear_attn_config).
Config KdaCase(bool fp32) {
  Config c = Case(fp32);
  ModelSpec& m = c.model;
  m.hidden = Dim("kda", "hidden");
  m.heads = 4;
  m.kv_heads = 4;
  m.head_dim = 16;
  m.linear_layers = 1;
  m.linear_kind = LinearKind::kKda;
  m.linear_k_heads = m.linear_v_heads = Dim("kda", "heads");
  m.linear_k_dim = m.linear_v_dim = Dim("kda", "head_dim");
  m.linear_conv = Dim("kda", "conv");
  return c;
}

// A Qwen3-Next full-attention layer: 4 heads of 16 (2 KV heads), per-head q/k norms, the output
// gate and the (1 + w) fp32 RMSNorm.
Config Qwen3NextAttentionCase(bool fp32) {
  Config c = Case(fp32);
  ModelSpec& m = c.model;
  m.hidden = Dim("qwen3_next", "hidden");
  m.heads = Dim("qwen3_next", "heads");
  m.kv_heads = Dim("qwen3_next", "kv_heads");
  m.head_dim = Dim("qwen3_next", "head_dim");
  m.qk_norm = QkNorm::kPerHead;
  m.attn_output_gate = true;
  m.norm_unit_offset = true;
  return c;
}

// The estimate's rows of one group, one layer.
double GroupBytes(const Config& c, LayerGroup g) {
  const Derived d(c, 0);
  double sum = 0;
  ForEachLayerActivation(d, true, [&](const LayerTensor& t) {
    if (t.group == g) sum += t.Bytes();
  });
  return sum;
}

// torch 1.13's repeat_interleave(int) runs index_select, whose backward keeps an int64 index of
// the repeated dimension (v_heads entries) for q and for k; torch 2.x expands and copies instead.
double Torch113RepeatIndex(const Config& c) {
  const ModelSpec& m = c.model;
  return m.linear_v_heads > m.linear_k_heads ? 2.0 * 8 * static_cast<double>(m.linear_v_heads) : 0.0;
}

}  // namespace

TEST_CASE("Gated DeltaNet with its kernels: the mixer's rows are what the Functions save, to the byte") {
  for (const bool fp32 : {false, true}) {
    const Config c = GatedDeltaNetCase(fp32);
    const double measured = Measured(std::string("gated_deltanet_kernels_") + (fp32 ? "fp32" : "bf16"));
    const double estimate = GroupBytes(c, LayerGroup::kLinearMixer);
    INFO((fp32 ? "fp32" : "bf16") << ": estimate " << estimate << " B, measured " << measured << " B");
    CHECK(estimate + Torch113RepeatIndex(c) == measured);
    CHECK(GroupBytes(c, LayerGroup::kAttention) == 0);  // a linear layer keeps no attention rows
  }
  // The figure: 2 x 48 tokens, h 64, 2 key heads and 4 value heads of 16: 160,512 bf16 bytes (the
  // WY matrix A alone 49,152), 9,248 fp32 and 64 of torch 1.13's indices.
  CHECK(Measured("gated_deltanet_kernels_bf16") == 169824);
}

TEST_CASE("Mamba-2 with mamba_split_conv1d_scan_combined: the mixer's rows are what the Function saves") {
  for (const bool fp32 : {false, true}) {
    const Config c = Mamba2Case(fp32);
    const double measured = Measured(std::string("mamba2_kernels_") + (fp32 ? "fp32" : "bf16"));
    const double estimate = GroupBytes(c, LayerGroup::kLinearMixer);
    INFO((fp32 ? "fp32" : "bf16") << ": estimate " << estimate << " B, measured " << measured << " B");
    CHECK(estimate == measured);
  }
  CHECK(Measured("mamba2_kernels_bf16") == 63008);
}

TEST_CASE("Kimi Delta Attention with fla's kernels: the mixer's rows are what the Functions save, to the byte") {
  for (const bool fp32 : {false, true}) {
    const Config c = KdaCase(fp32);
    const double measured = Measured(std::string("kda_kernels_") + (fp32 ? "fp32" : "bf16"));
    const double estimate = GroupBytes(c, LayerGroup::kLinearMixer);
    INFO((fp32 ? "fp32" : "bf16") << ": estimate " << estimate << " B, measured " << measured << " B");
    CHECK(estimate == measured);
    CHECK(GroupBytes(c, LayerGroup::kAttention) == 0);  // a KDA layer keeps no attention rows
  }
  // 2 x 48 tokens, h 64, 4 heads of 16: 190,464 bf16 bytes (Akk 49,152) and 129,024 fp32 (Aqk 98,304,
  // the per-channel decay's cumsum 24,576): Gated DeltaNet's list with a gate per key channel, fp32 Aqk
  // and the three convs' inputs.
  CHECK(Measured("kda_kernels_bf16") == 319488);
  CHECK(Measured("kda_kernels_fp32") == 509952);
}

TEST_CASE("Gated DeltaNet without the kernels (linear_kernels torch): the torch fallback's rows, to the byte") {
  for (const bool fp32 : {false, true}) {
    Config c = GatedDeltaNetCase(fp32);
    c.linear_kernels = LinearKernels::kTorch;
    const double measured = Measured(std::string("gated_deltanet_torch_") + (fp32 ? "fp32" : "bf16"));
    // torch 1.13 beside 2.x: the gated norm's MeanBackward1 keeps x^2 (fp32, sb v_heads v_dim) and
    // repeat_interleave's index_select its int64 index.
    const double mean_x2 = 4.0 * static_cast<double>(c.seq * c.batch * c.model.linear_v_heads * c.model.linear_v_dim);
    const double estimate = GroupBytes(c, LayerGroup::kLinearMixer);
    INFO((fp32 ? "fp32" : "bf16") << ": estimate " << estimate << " B, measured " << measured << " B");
    CHECK(estimate + mean_x2 + Torch113RepeatIndex(c) == measured);
  }
  CHECK(Measured("gated_deltanet_torch_fp32") == 4225152);
}

TEST_CASE("Mamba-2 without the kernels (linear_kernels torch): torch_forward's rows, to the byte") {
  for (const bool fp32 : {false, true}) {
    Config c = Mamba2Case(fp32);
    c.linear_kernels = LinearKernels::kTorch;
    const double measured = Measured(std::string("mamba2_torch_") + (fp32 ? "fp32" : "bf16"));
    // torch 1.13 beside 2.x: the gated norm's MeanBackward1 keeps x^2 (fp32, sb d_inner) and
    // repeat_interleave (called for B and C even at one head per group) its int64 index.
    const ModelSpec& m = c.model;
    const double torch113 = 4.0 * static_cast<double>(c.seq * c.batch * m.linear_v_heads * m.linear_v_dim) +
                            2.0 * 8 * static_cast<double>(m.linear_v_heads);
    const double estimate = GroupBytes(c, LayerGroup::kLinearMixer);
    INFO((fp32 ? "fp32" : "bf16") << ": estimate " << estimate << " B, measured " << measured << " B");
    CHECK(estimate + torch113 == measured);
  }
  CHECK(Measured("mamba2_torch_fp32") == 811154);
}

TEST_CASE("Without the kernels transformers' torch fallbacks keep every chunk's intermediates") {
  // torch_chunk_gated_delta_rule keeps its 63 per-row clones of each 64 x 64 chunk and fp32 copies
  // of q, k, v; Mamba-2's naive SSD its (chunk x chunk x heads x d_state) products.
  CHECK(Measured("gated_deltanet_torch_bf16") == 4098432);
  CHECK(Measured("gated_deltanet_torch_bf16") > 24 * Measured("gated_deltanet_kernels_bf16"));
  CHECK(Measured("mamba2_torch_bf16") == 720530);
  CHECK(Measured("mamba2_torch_bf16") > 11 * Measured("mamba2_kernels_bf16"));
}

TEST_CASE("gpt-oss's eager sink attention: one softmax of s + 1 columns and the max's indices, window or not") {
  for (const bool fp32 : {false, true}) {
    const Config c = GptOssCase(fp32);
    const std::string name = std::string("gpt_oss_attention_eager_") + (fp32 ? "fp32" : "bf16");
    const double estimate = GroupBytes(c, LayerGroup::kAttention);
    INFO(name << ": estimate " << estimate << " B, measured " << Measured(name) << " B");
    CHECK(estimate == Measured(name));
    // The sliding window is only a mask: the eager path keeps every s x s score in those layers too.
    const int window = static_cast<int>(Num(Measurements(), "window"));
    CHECK(Measured(name + "_sw" + std::to_string(window)) == Measured(name));
  }
  // 2 x 48 tokens, 4 heads of 16 (2 KV heads, repeated): 61,440 bytes of q, k, v, inputs and output,
  // 37,632 of softmax (4 x 48 x 49 x 2 x 2 B), 3,072 of int64 indices.
  CHECK(Measured("gpt_oss_attention_eager_bf16") == 102144);
}

// The attention group, the input norm's rows and the q/k norms' rows: what the replica's input norm
// and attention keep.
double InputNormAndAttentionBytes(const Config& c) {
  const Derived d(c, 0);
  double sum = 0;
  ForEachLayerActivation(d, true, [&](const LayerTensor& t) {
    const std::string id = t.id;
    if (t.group == LayerGroup::kAttention || id.rfind("norm1_", 0) == 0 || id.rfind("qk_norm", 0) == 0)
      sum += t.Bytes();
  });
  return sum;
}

TEST_CASE("Qwen3-Next's attention layer: the output gate and the (1 + w) fp32 norms, to the byte") {
  for (const bool fp32 : {false, true}) {
    const Config c = Qwen3NextAttentionCase(fp32);
    const double measured = Measured(std::string("qwen3_next_attention_eager_") + (fp32 ? "fp32" : "bf16"));
    // torch 1.13's MeanBackward1 keeps x^2 in fp32 for each of the three norms (2.x keeps its size
    // only; test_truth.cpp Torch113LayerExtra): the input norm's h and q/k norms' (a + kv) d_head.
    const ModelSpec& m = c.model;
    const double tokens = static_cast<double>(c.seq * c.batch);
    const double mean_x2 = 4 * tokens * static_cast<double>(m.hidden + (m.heads + m.kv_heads) * m.head_dim);
    const double estimate = InputNormAndAttentionBytes(c);
    INFO((fp32 ? "fp32" : "bf16") << ": estimate " << estimate << " B, measured " << measured << " B");
    CHECK(estimate + mean_x2 == measured);
  }
  // 2 x 48 tokens, h 64: 196,608 B of attention (the gate's sigmoid and the pre-gate output 12,288
  // each), 125,952 B of norms (fp32 normalised copies instead of Llama's bf16 ones, 1 + w: 384 B),
  // 61,440 B of torch 1.13's x^2.
  CHECK(Measured("qwen3_next_attention_eager_bf16") == 384000);
  CHECK(Measured("qwen3_next_attention_eager_fp32") == 457728);
  // Against the same layer without the gate and with Llama's norm (bf16): the gate adds its sigmoid
  // and the pre-gate output (2 x 12,288 B), the norms keep fp32 normalised copies instead of bf16
  // ones (12,288 + 18,432 B more) and their 1 + w (256 + 128 B).
  Config plain = Qwen3NextAttentionCase(false);
  plain.model.attn_output_gate = plain.model.norm_unit_offset = false;
  CHECK(InputNormAndAttentionBytes(Qwen3NextAttentionCase(false)) - InputNormAndAttentionBytes(plain) == 55680);
}

TEST_CASE("A hybrid model's layer is its attention and linear layers averaged by their counts") {
  // Qwen3-Next's pattern: 3 Gated DeltaNet layers to 1 full-attention layer.
  Config hybrid = GatedDeltaNetCase(false);
  hybrid.model.layers = 48;
  hybrid.model.linear_layers = 36;
  Config attention = hybrid, linear = hybrid;
  attention.model.linear_layers = 0;
  linear.model.linear_layers = 48;
  const Derived dh(hybrid, 0), da(attention, 0), dl(linear, 0);
  const double mixed =
      0.25 * GroupBytes(attention, LayerGroup::kAttention) + 0.75 * GroupBytes(linear, LayerGroup::kLinearMixer);
  CHECK(GroupBytes(hybrid, LayerGroup::kAttention) + GroupBytes(hybrid, LayerGroup::kLinearMixer) ==
        doctest::Approx(mixed).epsilon(1e-12));
  CHECK(detail::LayerBytes(dh, true) ==
        doctest::Approx(0.25 * detail::LayerBytes(da, true) + 0.75 * detail::LayerBytes(dl, true)).epsilon(1e-12));
  // The rows say so in their formula.
  const Estimate e = Explain(hybrid);
  const BreakdownNode* wy = e.tree.Find("total.activations.layers.linear_mixer.gdn_wy");
  REQUIRE(wy != nullptr);
  CHECK(wy->formula.find("in 36 of the model's 48 layers") != std::string::npos);
}
