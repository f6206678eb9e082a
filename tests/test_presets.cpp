// Model library: every preset imports, and its computed parameter count equals the
// published one exactly (issue 5). Presets whose architecture is not modelled yet
// (DeepSeek MLA) must say so with a diagnostic instead of a wrong number.
#include <doctest.h>

#include "core/catalogue/presets.h"
#include "setups.h"

using namespace llmmem::test;

TEST_CASE("Presets: at least 40, each importing or explaining why not") {
  const auto& presets = Presets();
  CHECK(presets.size() >= 40);
  for (const Preset& p : presets) {
    CAPTURE(p.key);
    if (!p.ok) {
      REQUIRE(!p.diagnostics.empty());
      CHECK(p.diagnostics.front().id == DiagId::kUnsupported);
    }
  }
  REQUIRE(FindPreset(kDefaultPreset) != nullptr);
  CHECK(FindPreset(kDefaultPreset)->ok);
  CHECK(FindPreset("META-LLAMA/Llama-3.1-8B") == FindPreset("llama-3.1-8b"));
}

TEST_CASE("Presets: computed parameter count equals the published count exactly") {
  int with_count = 0;
  for (const Preset& p : Presets()) with_count += p.ok && p.published_params != 0;
  CHECK(with_count >= 45);
  // One subcase per preset, so each model passes or fails under its own name.
  for (const Preset& p : Presets()) {
    if (!p.ok || p.published_params == 0) continue;
    SUBCASE(p.key.c_str()) {
      int64_t computed = CountParameters(p.model).total;
      // Some checkpoints store a tied output head a second time; the published total
      // counts it, memory does not (the tensor is shared).
      if (p.published_counts_tied_head) computed += p.model.vocab * p.model.hidden;
      CHECK(computed == p.published_params);
    }
  }
}

TEST_CASE("Presets: MoE totals and active parameters") {
  const Preset* mixtral = FindPreset("mixtral-8x7b");
  REQUIRE(mixtral != nullptr);
  const ParamCounts c = CountParameters(mixtral->model);
  CHECK(c.total == 46'702'792'704);
  // 2 of 8 experts per token: 12.9B active (Mistral's announcement).
  CHECK(c.active == doctest::Approx(12.88e9).epsilon(0.002));
  const Preset* qwen = FindPreset("qwen3-30b-a3b");
  REQUIRE(qwen != nullptr);
  CHECK(CountParameters(qwen->model).active == doctest::Approx(3.35e9).epsilon(0.01));
}

TEST_CASE("Presets: this year's models count what their checkpoints store (issue 31)") {
  // Each total is the checkpoint's (the preset's params_source names it); the generic case
  // above checks them too, this one makes sure none of them drops out of the catalogue.
  const struct {
    const char* key;
    int64_t total;
  } kExact[] = {
      {"gpt-oss-20b", 20'914'757'184},       {"gpt-oss-120b", 116'829'156'672}, {"qwen3-coder-next", 79'674'391'296},
      {"gemma-3-4b", 4'300'079'472},         {"phi-4-mini", 3'836'021'760},     {"smollm3-3b", 3'075'098'624},
      {"minimax-m2", 228'689'764'864},       {"nemotron-nano-9b-v2", 8'888'227'328},
      {"granite-4.0-h-small", 32'207'337'984}, {"glm-4.7-flash", 29'943'393'920},
  };
  for (const auto& row : kExact) {
    CAPTURE(row.key);
    const Preset* p = FindPreset(row.key);
    REQUIRE(p != nullptr);
    REQUIRE(p->ok);
    CHECK(p->published_params == row.total);
    CHECK(CountParameters(p->model).total == row.total);
  }
  // Gemma 3n: the language model (the audio and vision encoders are not counted, and say so).
  CHECK(CountParameters(FindPreset("gemma-3n-e2b")->model).total == 4'456'156'768);
  CHECK(CountParameters(FindPreset("gemma-3n-e4b")->model).total == 6'866'696'688);
  CHECK(FindPreset("gemma-3n-e4b")->model.ple_vocab * 35 * FindPreset("gemma-3n-e4b")->model.ple_dim == 2'348'810'240);
  // Gemma 4 (presets' params_source names the Hub totals: the HF API's safetensors total, every
  // tensor of the checkpoint). 26B-A4B and 31B (also in the vision-language table below) store a
  // language model and a vision tower; E2B and E4B an audio tower too, not counted (and said so).
  // Their language models alone:
  auto text_only = [](const char* key) {
    ModelSpec m = FindPreset(key)->model;
    m.vision_layers = 0;
    return CountParameters(m).total;
  };
  CHECK(text_only("gemma-4-31b") == 30'697'345'340);
  CHECK(text_only("gemma-4-26b-a4b") == 25'233'141'790);
  CHECK(text_only("gemma-4-e2b") == 4'647'449'891);
  CHECK(text_only("gemma-4-e4b") == 7'518'069'034);
  // E2B's tower: 16 layers of 768 (q, k, v, o; gate, up, down of 3072; four norms; q_norm and
  // k_norm of 64; 7 clipped linears x 4 bounds), input_proj 768 x 768, positions 2 x 10240 x 768,
  // embed_vision 768 x 1536.
  const int64_t e2b = CountParameters(FindPreset("gemma-4-e2b")->model).total;
  const int64_t e4b = CountParameters(FindPreset("gemma-4-e4b")->model).total;
  CHECK(e2b - 4'647'449'891 ==
        16 * (4 * 768 * 768 + 3 * 768 * 3072 + 4 * 768 + 2 * 64 + 28) + 768 * 768 + 2 * 10240 * 768 + 768 * 1536);
  CHECK(e2b == 4'815'994'595);
  CHECK(e4b == 7'687'400'170);
  // Both store the same audio tower, whose projector maps its 1536-wide output to the text
  // width: what the Hub totals hold beyond the counts differs by that projector's extra columns.
  CHECK((7'996'156'490 - e4b) - (5'123'178'051 - e2b) == 1536 * (2560 - 1536));
  // GLM-5 (glm_moe_dsa): no checkpoint total in the index; its README states 744B. The count
  // is DeepSeek-V3.2's layout at GLM-5's sizes, 78 layers without the MTP layer, and the 78
  // DSA indexers (wq_b 2048x4096, wk 6144x128, k_norm 2x128, weights_proj 6144x32) in it.
  const Preset* glm5 = FindPreset("glm-5");
  REQUIRE(glm5 != nullptr);
  REQUIRE(glm5->ok);
  CHECK(CountParameters(glm5->model).total == 743'911'218'432);
  CHECK(CountParameters(glm5->model).total == doctest::Approx(744e9).epsilon(0.0005));
  CHECK(CountParameters(glm5->model).active == 41'784'728'832);
  CHECK(glm5->model.index_heads * glm5->model.index_dim == 32 * 128);
  CHECK(glm5->model.layers * (2048 * 32 * 128 + 6144 * 128 + 2 * 128 + 6144 * 32) == 731'008'512);
  // Qwen3-Coder-Next's published active count (3,874,929,408: the same public test as its total).
  CHECK(CountParameters(FindPreset("qwen3-coder-next")->model).active == 3'874'929'408);
  // gpt-oss ships its experts in MXFP4 and the rest in bf16.
  CHECK(FindPreset("gpt-oss-20b")->shipped_dtype == Dtype::kMxfp4);
}

TEST_CASE("Presets: vision-language checkpoints count their towers and projectors (issue 31)") {
  // Each total is the checkpoint's (params_source names it); the tower's share is what the
  // checkpoint adds to its language model.
  const struct {
    const char* key;
    int64_t total;
    int64_t tower;
    VisionKind kind;
  } kVl[] = {
      {"qwen2.5-vl-7b", 8'292'166'656, 676'550'144, VisionKind::kQwen25Vl},
      {"qwen3-vl-8b", 8'767'123'696, 576'388'336, VisionKind::kQwen3Vl},
      {"qwen3-vl-30b-a3b", 31'070'754'032, 538'631'408, VisionKind::kQwen3Vl},
      {"llama-4-scout", 108'641'793'536, 871'932'416, VisionKind::kLlama4},
      {"mistral-small-3.1-24b", 24'011'361'280, 438'958'080, VisionKind::kPixtral},
      {"gemma-3-4b", 4'300'079'472, 419'816'304, VisionKind::kSiglip},
      // Gemma4VisionModel (modeling_gemma4.py @c308a309e651): 27 layers at 1152 (q, k, v, o; gate,
      // up, down of 4304; four norms; q_norm and k_norm of 72, v_norm without weight),
      // input_proj 768 x 1152, positions 2 x 10240 x 1152, std_bias and std_scale, and
      // embed_vision 1152 x hidden: 27 x 14,949,792 + 23,478,528 + hidden x 1152.
      {"gemma-4-31b", 31'273'088'876, 575'743'536, VisionKind::kGemma4},
      {"gemma-4-26b-a4b", 25'805'936'206, 572'794'416, VisionKind::kGemma4},
  };
  for (const auto& row : kVl) {
    CAPTURE(row.key);
    const Preset* p = FindPreset(row.key);
    REQUIRE(p != nullptr);
    REQUIRE(p->ok);
    CHECK(p->model.vision_kind == row.kind);
    CHECK(p->published_params == row.total);
    CHECK(CountParameters(p->model).total == row.total);
    ModelSpec text = p->model;
    text.vision_layers = 0;
    CHECK(CountParameters(p->model).total - CountParameters(text).total == row.tower);
  }
  // Qwen2.5-VL's tower as its modules register it: the patch conv, 12 tensors per block (two
  // RMSNorms, qkv, proj and the gated MLP, each Linear with its bias) and the merger's five.
  const Preset* q25 = FindPreset("qwen2.5-vl-7b");
  ModelSpec text = q25->model;
  text.vision_layers = 0;
  CHECK(CountParameterTensors(q25->model) - CountParameterTensors(text) == 1 + 12 * 32 + 5);
}

TEST_CASE("Presets: one order on every build, ties broken by key") {
  // std::sort's order of equal elements is its own: libstdc++ and libc++ listed Mistral 7B v0.1
  // and v0.3 (one family, one size) the other way round, so native and WASM drew different
  // presets from the same index.
  const std::vector<Preset>& all = Presets();
  for (size_t i = 1; i < all.size(); ++i) {
    const Preset& a = all[i - 1];
    const Preset& b = all[i];
    const int64_t sa = a.model.hidden * a.model.layers, sb = b.model.hidden * b.model.layers;
    CAPTURE(a.key);
    CAPTURE(b.key);
    CHECK((a.family < b.family || (a.family == b.family && (sa < sb || (sa == sb && a.key < b.key)))));
  }
}
