// MLA, sliding-window and hybrid attention in the KV cache (issue 5).
#include <doctest.h>

#include "core/report/units.h"
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
