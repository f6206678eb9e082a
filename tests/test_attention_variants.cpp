// MLA, sliding-window and hybrid attention in the KV cache (issue 5).
#include <doctest.h>

#include "core/base/units.h"
#include "core/import/hf_config.h"
#include "core/catalogue/presets.h"
#include "core/estimate/activations_paper.h"
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

}  // namespace

TEST_CASE("MLA: DeepSeek-V2-Lite caches (512 + 64) values per token and layer") {
  CHECK(KvBytes("deepseek-v2-lite", 4096) == (512.0 + 64) * 2 * 27 * 4096);
  const Preset* lite = FindPreset("deepseek-v2-lite");
  REQUIRE(lite->ok);
  CHECK(lite->model.IsMla());
  CHECK(lite->model.q_lora_rank == 0);
  const Preset* r1 = FindPreset("deepseek-r1");
  REQUIRE(r1->ok);
  CHECK(r1->model.q_lora_rank == 1536);
  CHECK(r1->model.router_bias);
  // 37B active of 671B (DeepSeek-V3 report) within a percent.
  CHECK(CountParameters(r1->model).active == doctest::Approx(37.5e9).epsilon(0.02));
}

TEST_CASE("Sliding window: Mistral-7B-v0.1's cache stops growing at 4096 tokens") {
  const double per_token = 2.0 * 32 * 8 * 128 * 2;
  CHECK(KvBytes("mistral-7b-v0.1", 2048) == per_token * 2048);
  CHECK(KvBytes("mistral-7b-v0.1", 32768) == per_token * 4096);
  CHECK(KvBytes("mistral-7b-v0.3", 32768) == per_token * 32768);  // v0.3 dropped the window
}

TEST_CASE("Hybrid attention: Gemma 2 alternates, Gemma 3 has one global layer in six") {
  const Preset* g2 = FindPreset("gemma-2-9b");
  CHECK(g2->model.sliding_layers == 21);
  CHECK(KvBytes("gemma-2-9b", 8192) == 2.0 * 8 * 256 * 2 * (21 * 8192 + 21 * 4096));
  const Preset* g3 = FindPreset("gemma-3-1b");
  CHECK(g3->model.sliding_window == 512);
  CHECK(g3->model.sliding_layers == 26 - 26 / 6);
}

// [SECTION] 2025-2026 layer kinds (issue 31) ------------------------------------------------

TEST_CASE("gpt-oss: half the layers keep a 128-token window, not a full-length cache") {
  const Preset* oss = FindPreset("gpt-oss-120b");
  REQUIRE(oss->ok);
  CHECK(oss->model.sliding_window == 128);
  CHECK(oss->model.sliding_layers == 18);  // layer_types: sliding_attention / full_attention x 18
  CHECK(oss->model.attn_sinks);
  const double row = 2.0 * 8 * 64 * 2;  // K and V, 8 KV heads of 64, bf16
  CHECK(KvBytes("gpt-oss-120b", 131072) == row * (18.0 * 131072 + 18.0 * 128));
  CHECK(KvBytes("gpt-oss-120b", 8192) == row * (18.0 * 8192 + 18.0 * 128));
}

TEST_CASE("Qwen3-Next: 36 Gated DeltaNet layers hold a fixed state, 12 full-attention layers a KV cache") {
  const Preset* next = FindPreset("qwen3-next-80b-a3b");
  REQUIRE(next->ok);
  CHECK(next->model.linear_layers == 36);  // full_attention_interval 4
  CHECK(next->model.AttentionLayers() == 12);
  const double row = 2.0 * 2 * 256 * 2;  // 2 KV heads of 256, bf16
  // vLLM's gated_delta_net_state_shape: conv (2 x 16 x 128 + 32 x 128) x (4 - 1), delta-rule 32 x 128 x 128.
  const double state = ((2.0 * 16 * 128 + 32 * 128) * 3 + 32.0 * 128 * 128) * 2;
  CHECK(KvBytes("qwen3-next-80b-a3b", 131072) == row * 12 * 131072 + 36 * state);
  CHECK(KvBytes("qwen3-next-80b-a3b", 8192) == row * 12 * 8192 + 36 * state);
}

TEST_CASE("Llama 4: chunked attention on three layers in four, MoE interleaved with dense layers") {
  const Preset* scout = FindPreset("llama-4-scout");
  REQUIRE(scout->ok);
  CHECK(scout->model.sliding_window == 8192);  // attention_chunk_size
  CHECK(scout->model.sliding_layers == 36);    // no_rope_layers == 1
  CHECK(scout->model.MoeLayers() == 48);
  const double row = 2.0 * 8 * 128 * 2;
  CHECK(KvBytes("llama-4-scout", 131072) == row * (12.0 * 131072 + 36.0 * 8192));
  const Preset* maverick = FindPreset("llama-4-maverick");
  REQUIRE(maverick->ok);
  CHECK(maverick->model.MoeLayers() == 24);  // interleave_moe_layer_step 2: layers 1, 3, 5, ...
  CHECK(maverick->model.ffn == 16384);       // the dense layers' intermediate_size_mlp
}

TEST_CASE("DeepSeek-V3.2: the lightning indexer's weights and its key in the cache") {
  const Preset* v32 = FindPreset("deepseek-v3.2-exp");
  const Preset* r1 = FindPreset("deepseek-r1");
  REQUIRE(v32->ok);
  // The 851,524,864 parameters issue 31 found missing: 61 x (1536 x 8192 + 7168 x 128 + 2 x 128 + 7168 x 64).
  CHECK(CountParameters(v32->model).total - CountParameters(r1->model).total == 851'524'864);
  CHECK(KvBytes("deepseek-v3.2-exp", 4096) == (512.0 + 64 + 128) * 2 * 61 * 4096);
}

TEST_CASE("Gemma 3n: per-layer embeddings, AltUp and LAuReL counted; KV-shared layers keep no cache") {
  // E2B by hand from the modules (model.h at ple_dim): token table 262400 x 2048, PLE table
  // 262144 x 30 x 256, per_layer_model_projection 2048 x 7680 and its norm, AltUp's 6 h x h
  // projections, the final norm, and per layer: q, k, v, o, q/k norms, four norms, the GeGLU MLP,
  // AltUp (router 2048 x 4, coefs 4 x 4 and 4 x 16, two h-wide vectors), LAuReL (2 x 2048 x 64 and
  // a norm), the per-layer gate and projection (2 x 2048 x 256) and their norm.
  const int64_t h = 2048, L = 30;
  const int64_t layer = h * 2048 * 2 + 2 * h * 512 + 2 * 256 + 3 * h * 8192 + 4 * h + (h * 4 + 16 + 64) + 2 * h +
                        2 * h * 64 + h + 2 * h * 256 + h;
  const int64_t e2b = 262400 * h + 262144 * L * 256 + h * L * 256 + 256 + 6 * h * h + L * layer + h;
  const Preset* small = FindPreset("gemma-3n-e2b");
  const Preset* large = FindPreset("gemma-3n-e4b");
  REQUIRE(small->ok);
  REQUIRE(large->ok);
  CHECK(e2b == 4'456'156'768);
  CHECK(CountParameters(small->model).total == e2b);
  CHECK(CountParameters(large->model).total == 6'866'696'688);
  // E4B: 35 layers, 28 windowed; the last 15 (12 windowed, 3 full) read layers 18 and 19's cache.
  CHECK(large->model.sliding_layers == 28);
  CHECK(large->model.CacheLayers() == 20);
  CHECK(large->model.CacheSlidingLayers() == 16);
  const double row = 2.0 * 2 * 256 * 2;  // K and V, 2 heads of 256, bf16
  CHECK(KvBytes("gemma-3n-e4b", 32768) == row * (4 * 32768.0 + 16 * 512.0));
  // A MatFormer slice with several MLP widths is refused, not averaged.
  const HfImport mixed = ImportHfConfigText(
      R"({"model_type": "gemma3n_text", "num_hidden_layers": 5, "intermediate_size": [8192, 8192, 16384, 8192, 8192],
          "num_kv_shared_layers": 0})",
      "t");
  CHECK_FALSE(mixed.ok);
}

TEST_CASE("Gemma 4: full layers of their own heads, K = V, double-wide shared layers; the cache by kind") {
  // 31B by hand (Gemma4TextAttention / Gemma4TextMLP / Gemma4TextDecoderLayer, modeling_gemma4.py
  // @c308a309e651): 50 sliding layers (q 5376 x 32 x 256, k and v 16 x 256, o, q/k norms of 256) and
  // 10 full ones (q 32 x 512, k 4 x 512 and no v_proj: attention_k_eq_v, q/k norms of 512), every
  // layer's GeGLU of 21504, four norms and its layer_scalar, the tied table and the final norm.
  const int64_t h = 5376, f = 21504;
  const int64_t sliding = 2 * h * 8192 + 2 * h * 4096 + 2 * 256, full = 2 * h * 16384 + h * 2048 + 2 * 512;
  const int64_t g31 = 262144 * h + h + 50 * sliding + 10 * full + 60 * (3 * h * f + 4 * h + 1);
  const Preset* p31 = FindPreset("gemma-4-31b");
  REQUIRE(p31->ok);
  CHECK(g31 == 30'697'345'340);
  ModelSpec text31 = p31->model;
  text31.vision_layers = 0;  // its vision tower: tests/test_presets.cpp
  CHECK(CountParameters(text31).total == g31);
  CHECK(p31->model.sliding_layers == 50);
  CHECK(p31->model.GlobalLayers() == 10);
  // The cache at 32768 tokens, bf16: sliding layers keep the 1024-token window of 2 x 16 x 256,
  // full layers every token of 2 x 4 x 512 (K = V still caches both).
  CHECK(KvBytes("gemma-4-31b", 32768) == 2.0 * (50 * 1024.0 * 2 * 16 * 256 + 10 * 32768.0 * 2 * 4 * 512));
  CHECK(KvBytes("gemma-4-31b", 32768) == 3'523'215'360.0);
  // E2B: 35 layers, 28 windowed (four of five); the last 20 (16 windowed, 4 full) read layers 13
  // and 14's cache, so 12 windowed and 3 full keep one: 2 x 1 x 256 and 2 x 1 x 512 per token.
  const Preset* e2b = FindPreset("gemma-4-e2b");
  REQUIRE(e2b->ok);
  CHECK(e2b->model.CacheLayers() == 15);
  CHECK(e2b->model.CacheSlidingLayers() == 12);
  CHECK(KvBytes("gemma-4-e2b", 32768) == 2.0 * (12 * 512.0 * 2 * 256 + 3 * 32768.0 * 2 * 512));
  CHECK(KvBytes("gemma-4-e2b", 32768) == 207'618'048.0);
  // Its shared layers' MLP is twice as wide (use_double_wide_mlp): 20 x 3 x 1536 x 6144 more.
  ModelSpec narrow = e2b->model;
  narrow.double_wide_mlp = false;
  CHECK(CountParameters(e2b->model).total - CountParameters(narrow).total == 20 * 3 * 1536 * 6144);
  // gemma4_text on its own reads the same; the wrapper says which towers it leaves out.
  const HfImport text = ImportHfConfigText(
      R"({"model_type": "gemma4_text", "hidden_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4,
          "num_key_value_heads": 2, "head_dim": 16, "global_head_dim": 32, "intermediate_size": 128,
          "vocab_size": 1000, "sliding_window": 8, "attention_k_eq_v": true, "num_global_key_value_heads": 1,
          "hidden_size_per_layer_input": null})",
      "t");
  REQUIRE(text.ok);
  CHECK(text.model.sliding_layers == 5);  // (i + 1) % 6: one full layer, the last
  CHECK(text.model.ple_dim == 0);
  CHECK(CountParameters(text.model).total ==
        1000 * 64 + 64 + 5 * (2 * 64 * 64 + 2 * 64 * 32 + 2 * 16) + (2 * 64 * 128 + 64 * 32 + 2 * 32) +
            6 * (3 * 64 * 128 + 4 * 64 + 1));
  const HfImport wrapped = ImportHfConfigText(
      R"({"model_type": "gemma4", "text_config": {"model_type": "gemma4_text", "num_hidden_layers": 6},
          "vision_config": {"model_type": "gemma4_vision"}, "audio_config": {"model_type": "gemma4_audio"}})",
      "t");
  REQUIRE(wrapped.ok);
  CHECK(wrapped.model.vision_kind == VisionKind::kGemma4);
  CHECK(wrapped.model.vision_layers == 16);  // Gemma4VisionConfig's defaults
  int audio = 0;
  for (const auto& diag : wrapped.diagnostics) audio += diag.field == "audio_config";
  CHECK(audio == 1);
}

TEST_CASE("GLM-5 (glm_moe_dsa): DeepSeek-V3.2's indexer at GLM's sizes; dense layers and shared indexers") {
  const Preset* glm5 = FindPreset("glm-5");
  REQUIRE(glm5->ok);
  CHECK(glm5->model.dense_layers == 3);
  CHECK(glm5->model.MoeLayers() == 75);
  // The cache: MLA's latent and rope key plus the indexer's 128-wide key, per layer.
  CHECK(KvBytes("glm-5", 4096) == (512.0 + 64 + 128) * 2 * 78 * 4096);
  // mlp_layer_types' dense prefix stands for first_k_dense_replace when that is absent.
  const std::string base =
      R"("model_type": "glm_moe_dsa", "vocab_size": 1000, "hidden_size": 64, "intermediate_size": 128,
         "moe_intermediate_size": 32, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 4,
         "n_routed_experts": 8, "num_experts_per_tok": 2, "n_shared_experts": 1, "kv_lora_rank": 16,
         "q_lora_rank": 32, "qk_rope_head_dim": 8, "qk_nope_head_dim": 8, "v_head_dim": 16,
         "index_n_heads": 2, "index_head_dim": 16)";
  const HfImport types =
      ImportHfConfigText("{" + base + R"(, "mlp_layer_types": ["dense", "sparse", "sparse", "sparse"]})", "t");
  REQUIRE(types.ok);
  CHECK(types.model.dense_layers == 1);
  CHECK(types.model.index_heads == 2);
  // Layers that reuse another layer's top-k hold no indexer: refused, not over-counted.
  const HfImport shared = ImportHfConfigText(
      "{" + base + R"(, "indexer_types": ["full", "shared", "full", "shared"]})", "t");
  CHECK_FALSE(shared.ok);
}

// Gemma 4 (issue 31): the full-attention layers keep Q and the attention output at
// global_head_dim (512 against the sliding layers' 256) and K, V at their own K/V heads; the
// per-layer rows average the two kinds, so rows x layers is each kind's sum.
TEST_CASE("Gemma 4: full-attention layers' activations at their own head size") {
  Config c = DefaultConfig();
  c.model = FindPreset("gemma-4-31b")->model;
  c.mode = Mode::kLora;
  c.seq = 4096;
  const ModelSpec& m = c.model;
  REQUIRE(m.HasGlobalGeometry());
  REQUIRE(m.GlobalLayers() > 0);
  const Derived d(c, 0);
  const LayerWidths w = Widths(d);
  const double full = static_cast<double>(m.GlobalLayers()), sliding = static_cast<double>(m.AttentionLayers()) - full;
  CHECK(w.q * static_cast<double>(m.AttentionLayers()) ==
        doctest::Approx(static_cast<double>(m.heads) * (sliding * static_cast<double>(m.head_dim) +
                                                        full * static_cast<double>(m.GlobalHeadDim()))));
  CHECK(w.kv * static_cast<double>(m.AttentionLayers()) ==
        doctest::Approx(sliding * static_cast<double>(m.kv_heads * m.head_dim) +
                        full * static_cast<double>(m.GlobalKvHeads() * m.GlobalHeadDim())));
  CHECK(w.q > static_cast<double>(m.heads * m.head_dim));  // the full layers' wider heads count
}
