// Mamba-2 hybrids (issue 31): Nemotron-H, Granite 4.0-H and Falcon-H1 import from their
// config.json, count what their checkpoints store, and keep a fixed Mamba-2 state per sequence
// beside the attention layers' KV cache. Totals are the checkpoints' (each preset's
// params_source names it) or, where none was found, a hand computation written out here.
#include <doctest.h>

#include <cmath>

#include "core/estimate/account_serving.h"
#include "core/estimate/serving.h"
#include "core/import/hf_config.h"
#include "setups.h"

using namespace llmmem::test;

namespace {

double KvBytes(const char* preset, int64_t seq) {
  Config c = DefaultConfig();
  c.model = FindPreset(preset)->model;
  c.mode = Mode::kInference;
  c.kv_dtype = Dtype::kBf16;
  c.seq = seq;
  c.batch = 1;
  return Bytes(Explain(c), "total.inference.kv_cache");
}

// One Mamba-2 mixer as NemotronHMamba2Mixer registers it: in_proj h x (2 d_inner + 2 G N + H),
// conv1d (d_inner + 2 G N) x (kernel + bias), dt_bias, A_log and D (H each), the gated norm
// (d_inner), out_proj d_inner x h.
int64_t Mamba2Params(int64_t h, int64_t heads, int64_t head_dim, int64_t groups, int64_t state, int64_t conv,
                     bool norm) {
  const int64_t inner = heads * head_dim, gn = groups * state;
  return h * (2 * inner + 2 * gn + heads) + (inner + 2 * gn) * (conv + 1) + 3 * heads + (norm ? inner : 0) +
         inner * h;
}

}  // namespace

TEST_CASE("Nemotron-Nano-9B-v2: 27 Mamba-2, 4 attention and 25 MLP blocks count its checkpoint's 8,888,227,328") {
  const Preset* p = FindPreset("nemotron-nano-9b-v2");
  REQUIRE(p != nullptr);
  REQUIRE(p->ok);
  const ModelSpec& m = p->model;
  CHECK(m.linear_kind == LinearKind::kMamba2);
  CHECK(m.linear_layers == 27);
  CHECK(m.AttentionLayers() == 4);
  CHECK(m.MlpLayers() == 25);
  CHECK(m.act == ActivationFn::kRelu2);
  CHECK(m.mlp == MlpKind::kPlain);
  // in_proj 4480 x 22656 = 101,498,880; conv 12288 x 5 = 61,440; 384; norm 10,240; out_proj 45,875,200.
  CHECK(Mamba2Params(4480, 128, 80, 8, 128, 4, true) == 147'446'144);
  const int64_t attention = int64_t{4480} * 5120 * 2 + int64_t{4480} * 1024 * 2;  // q, o; k, v
  const int64_t mlp = int64_t{2} * 4480 * 15680;                        // up, down
  const int64_t hand = int64_t{2} * 131072 * 4480 + int64_t{27} * 147'446'144 + 4 * attention + 25 * mlp + 57 * 4480;
  CHECK(hand == 8'888'227'328);
  CHECK(CountParameters(m).total == 8'888'227'328);
  CHECK(p->published_params == 8'888'227'328);
  // Tensors: 56 block norms, 27 x 8 mixer tensors, 4 x 4 attention, 25 x 2 MLP, embeddings, head, final norm.
  CHECK(CountParameterTensors(m) == 56 + 27 * 8 + 4 * 4 + 25 * 2 + 3);
  CHECK(m.linear_ssm_fp32);  // vLLM's NemotronHForCausalLMConfig: float32 when the config names none
}

TEST_CASE("Granite-4.0-H-Small: 36 Mamba-2 and 4 attention layers, 72 experts and a shared MLP in each") {
  const Preset* p = FindPreset("granite-4.0-h-small");
  REQUIRE(p != nullptr);
  REQUIRE(p->ok);
  const ModelSpec& m = p->model;
  CHECK(m.linear_layers == 36);
  CHECK(m.AttentionLayers() == 4);
  CHECK(m.MoeLayers() == 40);
  CHECK(m.shared_experts == 1);
  CHECK(Mamba2Params(4096, 128, 64, 1, 128, 4, true) == 102'286'976);
  // Per layer: router 4096 x 72, experts 72 x 3 x 4096 x 768, shared MLP 3 x 4096 x 1536, two norms.
  const int64_t moe = int64_t{4096} * 72 + int64_t{72} * 3 * 4096 * 768 + int64_t{3} * 4096 * 1536;
  const int64_t attention = int64_t{2} * 4096 * 4096 + int64_t{2} * 4096 * 1024;
  const int64_t hand = int64_t{100352} * 4096 + int64_t{36} * 102'286'976 + 4 * attention + 40 * (moe + 2 * 4096) + 4096;
  CHECK(hand == 32'207'337'984);
  CHECK(CountParameters(m).total == 32'207'337'984);
  CHECK(p->published_params == 32'207'337'984);
  CHECK_FALSE(m.linear_ssm_fp32);  // vLLM's mamba_ssm_cache_dtype auto: the model's dtype
}

TEST_CASE("Falcon-H1-7B: attention and Mamba-2 side by side in all 44 layers (no published total: by hand)") {
  const Preset* p = FindPreset("falcon-h1-7b");
  REQUIRE(p != nullptr);
  REQUIRE(p->ok);
  const ModelSpec& m = p->model;
  CHECK(m.linear_parallel);
  CHECK(m.linear_layers == 44);
  CHECK(m.AttentionLayers() == 44);
  // in_proj 3072 x 6680, conv 3584 x 5, 72, norm 3072 (mamba_rms_norm), out_proj 3072 x 3072.
  CHECK(Mamba2Params(3072, 24, 128, 1, 256, 4, true) == 29'979'208);
  const int64_t attention = int64_t{2} * 3072 * 1536 + int64_t{2} * 3072 * 256;  // q, o (12 heads of 128); k, v
  const int64_t mlp = int64_t{3} * 3072 * 12288;
  const int64_t hand = int64_t{2} * 130048 * 3072 + 44 * (29'979'208 + attention + mlp + 2 * 3072) + 3072;
  CHECK(hand == 7'585'648'736);
  CHECK(CountParameters(m).total == 7'585'648'736);
  CHECK(p->published_params == 0);
}

TEST_CASE("Mamba-2 state: fixed per sequence, conv (d_inner + 2 G N) x (kernel - 1) and heads x head_dim x N") {
  // Nemotron-Nano-9B-v2: conv 12288 x 3, SSM 128 x 80 x 128, bf16, in each of 27 layers; the KV
  // cache only in the 4 attention layers (8 KV heads of 128, K and V, bf16).
  const double state = (12288.0 * 3 + 128.0 * 80 * 128) * 2;
  CHECK(state == 2'695'168);
  const double row = 2.0 * 8 * 128 * 2;
  CHECK(KvBytes("nemotron-nano-9b-v2", 131072) == 4 * row * 131072 + 27 * state);
  CHECK(KvBytes("nemotron-nano-9b-v2", 8192) == 4 * row * 8192 + 27 * state);
  // Falcon-H1 keeps both: every layer's KV and every layer's Mamba-2 state (conv 3584 x 3, SSM 24 x 128 x 256).
  const double falcon_state = (3584.0 * 3 + 24.0 * 128 * 256) * 2;
  const double falcon_row = 2.0 * 2 * 128 * 2;
  CHECK(KvBytes("falcon-h1-7b", 8192) == 44 * falcon_row * 8192 + 44 * falcon_state);
}

TEST_CASE("vLLM: Nemotron-H's float32 SSM state sets the mamba page, and the attention block grows to it") {
  Config c = DefaultConfig();
  c.model = FindPreset("nemotron-nano-9b-v2")->model;
  c.dtype = Dtype::kBf16;
  c.mode = Mode::kInference;
  c.runtime = Runtime::kVllm;
  c.seq = 131072;
  c.batch = 1;
  Diagnostics diag;
  REQUIRE(SetField(c, "gpu", "H200-141GB", diag));
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  // mamba2_state_shape at TP 1: conv 12288 x 3 in bf16, SSM 128 x 80 x 128 in float32.
  const double mamba_page = 12288.0 * 3 * 2 + 128.0 * 80 * 128 * 4;
  CHECK(mamba_page == 5'316'608);
  // One attention token: 8 KV heads x 128 x (2 + 2) B = 4096 B; block 16 x cdiv(page, 16 x 4096) = 1312 tokens.
  const double block_tokens = 16 * std::ceil(mamba_page / (16 * 4096.0));
  CHECK(block_tokens == 1312);
  // 4 attention and 27 Mamba-2 layers: groups of 4 (27 > 1.5 x 4), one attention group, seven mamba groups.
  CHECK(r.block_bytes == 4 * block_tokens * 4096);
  const double per_request = std::ceil(131072 / block_tokens) + 7;
  CHECK(r.max_concurrency == doctest::Approx(static_cast<double>(r.blocks) / per_request));
}

TEST_CASE("nemotron_h, granitemoehybrid and falcon_h1 configs: block lists, spellings and refusals") {
  // A two-block Nemotron-H given as layers_block_type, with an MoE block.
  const HfImport moe = ImportHfConfigText(
      R"({"model_type":"nemotron_h","vocab_size":10,"hidden_size":8,"layers_block_type":["mamba","moe"],
          "num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"mamba_num_heads":2,"mamba_head_dim":4,
          "n_groups":1,"ssm_state_size":4,"conv_kernel":4,"n_routed_experts":4,"num_experts_per_tok":2,
          "moe_intermediate_size":6,"moe_shared_expert_intermediate_size":6})",
      "tiny");
  REQUIRE(moe.ok);
  CHECK(moe.model.layers == 2);
  CHECK(moe.model.AttentionLayers() == 0);
  CHECK(moe.model.MoeLayers() == 1);
  // Embedding 80 + head 80 + 2 norms 16 + final 8; mixer 8 x 26 + 16 x 5 + 6 + 8 + 8 x 8 = 366;
  // MoE: router 32 + bias 4 + 4 experts x 2 x 48 + shared 2 x 48 = 516.
  CHECK(CountParameters(moe.model).total == 80 + 80 + 16 + 8 + 366 + 516);
  // An unknown block letter is refused by name.
  const HfImport bad = ImportHfConfigText(
      R"({"model_type":"nemotron_h","vocab_size":10,"hidden_size":8,"hybrid_override_pattern":"M*X",
          "num_attention_heads":2})",
      "bad");
  CHECK_FALSE(bad.ok);
  // Granite: mamba_d_head "auto" is d_inner / heads; a width that does not divide is refused.
  const HfImport granite = ImportHfConfigText(
      R"({"model_type":"granitemoehybrid","vocab_size":10,"hidden_size":8,"num_hidden_layers":2,
          "num_attention_heads":2,"intermediate_size":4,"shared_intermediate_size":12,"num_local_experts":0,
          "layer_types":["mamba","attention"],"mamba_n_heads":4,"mamba_d_head":"auto","mamba_d_state":2})",
      "g");
  REQUIRE(granite.ok);
  CHECK(granite.model.linear_v_dim == 4);  // 2 x 8 / 4
  CHECK(granite.model.ffn == 12);          // without experts only the shared MLP
  CHECK(granite.model.linear_layers == 1);
  const HfImport uneven = ImportHfConfigText(
      R"({"model_type":"falcon_h1","vocab_size":10,"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,
          "intermediate_size":4,"mamba_d_ssm":16,"mamba_n_heads":3,"mamba_d_head":5})",
      "f");
  CHECK_FALSE(uneven.ok);
}

TEST_CASE("Kimi-Linear-48B-A3B: 20 KDA layers and 7 MLA layers (no published total: by hand)") {
  const Preset* p = FindPreset("kimi-linear-48b-a3b");
  REQUIRE(p != nullptr);
  REQUIRE(p->ok);
  const ModelSpec& m = p->model;
  CHECK(m.linear_kind == LinearKind::kKda);
  CHECK(m.linear_layers == 20);
  CHECK(m.AttentionLayers() == 7);
  CHECK(m.IsMla());
  CHECK(m.MoeLayers() == 26);
  // KDA (P = 32 x 128): q, k, v 3 x 2304 x 4096, f_a and g_a 2 x 2304 x 128, f_b and g_b 2 x 128 x 4096,
  // dt_bias 4096, b_proj 2304 x 32, convs 3 x 4096 x 4, A_log 32, o_norm 128, o_proj 4096 x 2304.
  const int64_t kda = int64_t{3} * 2304 * 4096 + 2 * 2304 * 128 + 2 * 128 * 4096 + 4096 + 2304 * 32 + 3 * 4096 * 4 + 32 +
                      128 + 4096 * 2304;
  CHECK(kda == 39'514'272);
  // MLA without q_lora_rank: q 2304 x 32 x 192, kv_a 2304 x 576, kv norm 512, kv_b 512 x 32 x 256, o 4096 x 2304.
  const int64_t mla = int64_t{2304} * 32 * 192 + 2304 * 576 + 512 + 512 * 32 * 256 + 4096 * 2304;
  const int64_t expert = int64_t{3} * 2304 * 1024;
  const int64_t moe = int64_t{2304} * 256 + 256 + 256 * expert + expert;  // router, its bias, 256 experts, 1 shared
  const int64_t hand = int64_t{2} * 163840 * 2304 + 20 * kda + 7 * mla + int64_t{3} * 2304 * 9216 + 26 * moe + 55 * 2304;
  CHECK(hand == 49'122'681'728);
  CHECK(CountParameters(m).total == 49'122'681'728);
  // KDA state (vllm kda_state_shape): three convs of 4096 x (4 - 1) and 32 x 128 x 128, bf16, per
  // layer; MLA caches 512 + 64 per token in the 7 full layers.
  const double state = (3.0 * 4096 * 3 + 32.0 * 128 * 128) * 2;
  CHECK(KvBytes("kimi-linear-48b-a3b", 8192) == (512.0 + 64) * 2 * 7 * 8192 + 20 * state);
}
