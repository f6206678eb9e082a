// Speed beside memory (core/speed.h): the roofline's arithmetic by hand, and its ratio to
// figures people published. Ratios with the defaults (bw_efficiency 0.7, mfu 0.4):
//   decode, llama.cpp CUDA, RTX 3090, Llama 8B Q4_0, batch 1, 512 tokens: 156.56 t/s
//     (ggml-org/llama.cpp PR #15802, llama-bench) -> estimate 148.1, ratio 0.95
//   decode, RTX 3080, Llama 3.1 8B Q4_K_M: 111.95 t/s (dmatora/LLM-inference-speed-benchmarks
//     issue #12, llama.cpp build 93bc3839) -> 114.1, ratio 1.02
//   decode, Mac mini M4 16 GB (Metal), Llama 3.1 8B Q4_K_M tg128: 20.87 t/s (brand-o/normiebench
//     issue #3) -> 18.2, ratio 0.87
//   prefill, RTX 3080 pp512: 3806.89 t/s (same issue #12) -> 1572, ratio 0.41; RTX 4090 pp2048,
//     Llama 8B Q4_K_S: 9278.55 t/s (llama.cpp PR #7860) -> 4250, ratio 0.46. llama.cpp's int8 MMQ
//     kernels sustain about 0.9 of GeForce's bf16 (FP32-accumulate) peak: --mfu 0.9 for llama.cpp.
#include <doctest.h>

#include "core/estimate/speed.h"
#include "setups.h"

using namespace llmmem::test;

namespace {

Config Gguf(const char* gpu, Dtype dtype, int64_t seq) {
  Config c = DefaultConfig();
  c.model = FindPreset("llama-3.1-8b")->model;
  c.mode = Mode::kInference;
  c.runtime = Runtime::kLlamaCpp;
  c.dtype = dtype;
  c.seq = seq;
  Diagnostics d;
  REQUIRE(SetField(c, "gpu", gpu, d));
  return c;
}

}  // namespace

TEST_CASE("Speed: decode is bytes over bandwidth x efficiency (by hand)") {
  Config c = Gguf("RTX-3090-24GB", Dtype::kQ4_0, 512);
  const SpeedEstimate s = EstimateSpeed(c);
  REQUIRE(s.ok);
  // Every layer and the output layer on the GPU: the step reads them all (the token
  // embedding stays on the CPU and is a lookup) and 512 tokens of f16 KV.
  const double kv = 32 * 8 * 128 * 4.0 * 512;
  CHECK(s.kv_bytes_step == kv);
  CHECK(s.decode_step_s == doctest::Approx((s.weight_bytes_step + kv) / (936e9 * 0.7)));
  CHECK(s.decode_tokens_s / 156.56 == doctest::Approx(1.0).epsilon(0.10));  // llama.cpp PR #15802
  c.bw_efficiency = 0.35;
  CHECK(EstimateSpeed(c).decode_tokens_s == doctest::Approx(s.decode_tokens_s / 2));
}

TEST_CASE("Speed: published llama.cpp decode figures within 15% at the defaults") {
  const SpeedEstimate rtx3080 = EstimateSpeed(Gguf("RTX-3080-10GB", Dtype::kQ4_K_M, 512));
  CHECK(rtx3080.decode_tokens_s / 111.95 == doctest::Approx(1.0).epsilon(0.15));
  const SpeedEstimate m4 = EstimateSpeed(Gguf("M4-16GB", Dtype::kQ4_K_M, 128));
  CHECK(m4.decode_tokens_s / 20.87 == doctest::Approx(1.0).epsilon(0.15));
  // Prefill at the default mfu 0.4 is well under llama.cpp's CUDA prefill (stated above).
  CHECK(rtx3080.prefill_tokens_s / 3806.89 < 0.5);
}

TEST_CASE("Speed: MoE decode reads only the experts the batch touches; training is 6N + 12 L h s") {
  Config moe = DefaultConfig();
  moe.model = FindPreset("qwen3-30b-a3b")->model;
  moe.mode = Mode::kInference;
  moe.seq = 1024;
  const SpeedEstimate one = EstimateSpeed(moe);
  REQUIRE(one.ok);
  moe.batch = 64;
  const SpeedEstimate many = EstimateSpeed(moe);
  CHECK(many.weight_bytes_step > 2 * one.weight_bytes_step);  // 64 tokens touch most of the 128 experts
  CHECK(one.weight_bytes_step < 0.25 * 2 * 30.5e9);           // one token: 8 of 128 experts

  Config t = DefaultConfig();
  t.model = FindPreset("llama-3.1-8b")->model;
  t.batch = 4;
  t.seq = 4096;
  const SpeedEstimate tr = EstimateSpeed(t);
  REQUIRE(tr.ok);
  const double n = static_cast<double>(CountParameters(t.model).active);
  const double per_token = 6 * n + 12.0 * 32 * 4096 * 4096;
  CHECK(tr.step_flops == doctest::Approx(per_token * 4 * 4096));
  CHECK(tr.step_s == doctest::Approx(tr.step_flops / (989.5e12 * 0.4)));
  t.recompute = Recompute::kFull;
  CHECK(EstimateSpeed(t).step_flops > tr.step_flops);
}

TEST_CASE("Speed: a GPU without catalogue figures says what to set") {
  Config c = Gguf("RTX-3090-24GB", Dtype::kQ4_0, 512);
  c.gpu = "custom";
  const SpeedEstimate s = EstimateSpeed(c);
  CHECK_FALSE(s.ok);
  CHECK(s.why_not.find("bandwidth_gbps") != std::string::npos);
  c.bandwidth_gbps = 1000;
  CHECK(EstimateSpeed(c).ok);
}
