// Serving runtimes by layer kind (issue 31): sliding-window, chunked and linear-attention
// layers as vLLM's hybrid KV cache manager, SGLang's pools and llama.cpp's caches allocate
// them. The expected figures are recomputed here by hand from each runtime's rule.
#include <doctest.h>

#include <cmath>
#include <string>

#include "core/estimate/account_serving.h"
#include "core/estimate/serving.h"
#include "core/base/units.h"
#include "setups.h"

using namespace llmmem::test;

namespace {

// Weights in a format that leaves room for a pool on one H200 (MXFP4 for gpt-oss, FP8 else).
Config Served(const char* preset, Runtime runtime, int64_t seq) {
  Config c = DefaultConfig();
  c.model = FindPreset(preset)->model;
  c.dtype = std::string(preset).rfind("gpt-oss", 0) == 0 ? Dtype::kMxfp4 : Dtype::kFp8;
  c.mode = Mode::kInference;
  c.runtime = runtime;
  c.seq = seq;
  c.batch = 1;
  Diagnostics d;
  REQUIRE(SetField(c, "gpu", "H200-141GB", d));
  return c;
}

double CeilDiv(double a, double b) { return std::ceil(a / b); }

}  // namespace

TEST_CASE("vLLM: gpt-oss-120b's sliding layers keep their window's blocks, not the whole request") {
  const Config c = Served("gpt-oss-120b", Runtime::kVllm, 131072);
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  CHECK(r.blocks > 0);
  // 18 full + 18 sliding layers: two KV cache groups of 18 layers (group size = the fewer);
  // a pool block is 18 layers' 16-token pages (8 KV heads x 64 x (2 + 2) B per token).
  const double page = 16 * 8 * 64 * 4.0;
  CHECK(r.block_bytes == 18 * page);
  // Per request: the full group's cdiv(131072, 16) blocks, the sliding group's
  // cdiv(min(128 - 1 + 8192, 131072), 16) + 1 (SlidingWindowSpec.max_memory_usage_bytes).
  const double per_request = 8192 + (CeilDiv(127 + 8192, 16) + 1);
  CHECK(r.max_concurrency == doctest::Approx(static_cast<double>(r.blocks) / per_request));
  // "GPU KV cache size": blocks over the two groups, 16 tokens each.
  CHECK(r.pool_tokens == r.blocks / 2 * 16);
  const Estimate e = Explain(c);
  CHECK(Bytes(e, "total.inference.kv_cache") == per_request * 18 * page);
}

TEST_CASE("vLLM: Qwen3-Next's Gated DeltaNet layers take one padded state block per request") {
  const Config c = Served("qwen3-next-80b-a3b", Runtime::kVllm, 131072);
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  CHECK(r.blocks > 0);
  // gated_delta_net_state_shape: conv (2 x 16 x 128 + 32 x 128) x (4 - 1), state 32 x 128 x 128,
  // bf16: 1,097,728 B. One attention token (2 KV heads x 256 x 2 x 2 B) is 2048 B, so the
  // attention block grows to 16 x cdiv(1097728, 16 x 2048) = 544 tokens and the mamba page is
  // padded to 544 x 2048 B (platforms/interface.py).
  const double state = ((2 * 16 * 128 + 32 * 128) * 3 + 32 * 128 * 128) * 2.0;
  CHECK(state == 1097728);
  const double block_tokens = 16 * CeilDiv(state, 16 * 2048);
  CHECK(block_tokens == 544);
  const double page = block_tokens * 2048;
  // 12 full + 36 linear layers: group size 12, one full group and three mamba groups.
  CHECK(r.block_bytes == 12 * page);
  const double per_request = CeilDiv(131072, block_tokens) + 3;
  CHECK(r.max_concurrency == doctest::Approx(static_cast<double>(r.blocks) / per_request));
  CHECK(r.pool_tokens == static_cast<int64_t>(r.blocks / 4 * block_tokens));
  CHECK(Bytes(Explain(c), "total.inference.kv_cache") == per_request * 12 * page);
}

TEST_CASE("vLLM: a model of one attention kind keeps its blocks and concurrency") {
  // Llama-3.1-8B: one group of all 32 layers, 16-token blocks, cdiv(seq, 16) per request.
  const Config c = Served("llama-3.1-8b", Runtime::kVllm, 8192);
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  CHECK(r.blocks > 0);
  CHECK(r.block_bytes == 32 * 16 * 8 * 128 * 4.0);
  CHECK(r.max_concurrency == doctest::Approx(static_cast<double>(r.blocks) / 512));
  CHECK(r.pool_tokens == r.blocks * 16);
}

TEST_CASE("SGLang: gpt-oss's sliding layers get 0.8 of the full layers' tokens (swa_full_tokens_ratio)") {
  const Config c = Served("gpt-oss-120b", Runtime::kSglang, 131072);
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  CHECK(r.blocks > 0);
  const Derived d(c, 0);
  const ServingPlan p = PlanServing(d);
  const double cell = 8 * 64 * 4.0;  // one token, one layer
  // set_num_tokens_hybrid_swa: the profiled tokens over all 36 layers, re-split so that
  // full x 18 x cell + 0.8 x full x 18 x cell holds the same memory.
  const double profiled = std::floor(p.kv_available / (36 * cell));
  const double full = std::floor(profiled * 36 / (18 + 0.8 * 18));
  CHECK(r.blocks == static_cast<int64_t>(full));
  // In use: 131072 tokens in the full layers, the window and a prefill chunk in the sliding ones.
  const double swa_tokens = std::min(131072.0, 128.0 + static_cast<double>(p.set.batched_tokens));
  CHECK(Bytes(Explain(c), "total.inference.kv_cache") == cell * 18 * (131072 + swa_tokens));
}

TEST_CASE("SGLang: Qwen3-Next's mamba pool takes 0.9 / 1.9 of the memory left (mamba_full_memory_ratio)") {
  const Config c = Served("qwen3-next-80b-a3b", Runtime::kSglang, 131072);
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  CHECK(r.blocks > 0);
  const ServingPlan p = PlanServing(Derived(c, 0));
  // mamba_cache_per_req: 36 layers x (bf16 conv + fp32 temporal state, mamba_ssm_dtype float32).
  const double per_req = 36 * ((2 * 16 * 128 + 32 * 128) * 3 * 2.0 + 32 * 128 * 128 * 4.0);
  const double states = std::floor(p.kv_available * 0.9 / 1.9 / per_req);
  const double cell = 12 * 2 * 256 * 2 * 2.0;  // full-attention layers only
  CHECK(r.blocks == static_cast<int64_t>(std::floor((p.kv_available - states * per_req) / cell)));
  CHECK(Bytes(Explain(c), "total.inference.kv_cache") == 131072 * cell + per_req);
}

TEST_CASE("llama.cpp: the report's KV cache is the same per-layer sum as the GPU's line") {
  // gpt-oss-20b at 128k: 12 full layers of n_ctx cells, 12 sliding layers of
  // ceil((128 x 1 + 512) / 256) x 256 = 768 cells (llama-kv-cache-iswa.cpp), 2048 B a cell.
  Config c = Served("gpt-oss-20b", Runtime::kLlamaCpp, 131072);
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  const double row = 8 * 64 * 4.0;
  CHECK(r.kv_bytes == row * (12 * 131072.0 + 12 * 768.0));
  CHECK(r.kv_bytes == Bytes(Explain(c), "total.inference.kv_cache"));
  // Half the layers on the CPU: GPU and CPU lines still add up to the report's figure.
  c.gpu_layers = 12;
  const Estimate e = Explain(c);
  CHECK(Serve(c).kv_bytes ==
        doctest::Approx(Bytes(e, "total.inference.kv_cache") + Bytes(e, "total.inference.kv_cpu")));
}

TEST_CASE("Gemma 4 31B: each runtime's cache follows its layers' kinds and widths") {
  // 50 sliding layers of 16 KV heads x 256 and 10 full ones of 4 x 512 (global_head_dim,
  // num_global_key_value_heads, K = V still caching both): one token's K and V in bf16 is
  // 16 x 256 x 4 = 16384 B in a sliding layer, 4 x 512 x 4 = 8192 B in a full one.
  const double row = 16 * 256 * 4.0, full_row = 4 * 512 * 4.0;
  // vLLM: groups of 10 layers (the fewer kind), one full and five sliding; every page is the
  // sliding layers' 16-token page, so the full layers' blocks hold 32 tokens
  // (unify_kv_cache_spec_page_size). Per request at 131072 tokens: cdiv(131072, 32) full blocks
  // and 5 x (cdiv(min(1024 - 1 + 8192, 131072), 16) + 1) sliding ones.
  {
    const Config c = Served("gemma-4-31b", Runtime::kVllm, 131072);
    const ServingReport r = Serve(c);
    REQUIRE(r.ok);
    CHECK(r.blocks > 0);
    const double page = 16 * row;
    CHECK(r.block_bytes == 10 * page);
    const double per_request = CeilDiv(131072, 32) + 5 * (CeilDiv(1023 + 8192, 16) + 1);
    CHECK(per_request == 6981);
    CHECK(r.max_concurrency == doctest::Approx(static_cast<double>(r.blocks) / per_request));
    CHECK(Bytes(Explain(c), "total.inference.kv_cache") == per_request * 10 * page);
  }
  // SGLang: the full pool and 0.8 of it for the sliding layers share the memory left.
  {
    const Config c = Served("gemma-4-31b", Runtime::kSglang, 131072);
    const ServingReport r = Serve(c);
    REQUIRE(r.ok);
    const ServingPlan p = PlanServing(Derived(c, 0));
    CHECK(r.blocks == static_cast<int64_t>(std::floor(p.kv_available / (10 * full_row + 0.8 * 50 * row))));
    const double swa_tokens = std::min(131072.0, 1024.0 + static_cast<double>(p.set.batched_tokens));
    CHECK(Bytes(Explain(c), "total.inference.kv_cache") == 10 * full_row * 131072 + 50 * row * swa_tokens);
  }
  // llama.cpp: full layers n_ctx cells, sliding ones ceil((1024 x 1 + 512) / 256) x 256 = 1536.
  {
    const Config c = Served("gemma-4-31b", Runtime::kLlamaCpp, 131072);
    const ServingReport r = Serve(c);
    REQUIRE(r.ok);
    // (shares of 10 / 60 and 50 / 60 of the layers: equal to the last rounding)
    CHECK(r.kv_bytes == doctest::Approx(full_row * 10 * 131072 + row * 50 * 1536).epsilon(1e-12));
    CHECK(full_row * 10 * 131072 + row * 50 * 1536 == 11'995'709'440.0);
    CHECK(r.kv_bytes == doctest::Approx(Bytes(Explain(c), "total.inference.kv_cache")).epsilon(1e-12));
  }
}

TEST_CASE("llama.cpp: each slot's stream keeps its own sliding-window cells (ollama/ollama#16480, gpt-oss-120b)") {
  // The log: n_seq_max 2, n_ctx 262144, n_ubatch 1024, kv_unified false. Non-SWA: 131072 cells a
  // stream, 18 layers, 9216.00 MiB; SWA: GGML_PAD(min(131072, 128 + 1024), 256) = 1280 cells a
  // stream, 2/2 seqs, 90.00 MiB (llama-kv-cache-iswa.cpp@02c28f53: one size_swa per stream).
  Config c = Served("gpt-oss-120b", Runtime::kLlamaCpp, 131072);
  c.batch = 2;
  c.prefill_chunk = 1024;
  const ServingReport r = Serve(c);
  REQUIRE(r.ok);
  const double row = 8 * 64 * 4.0;  // K + V, f16, one token, one layer
  CHECK(row * 18 * 2 * 131072 == 9216.0 * 1024 * 1024);
  CHECK(row * 18 * 2 * 1280 == 90.0 * 1024 * 1024);
  CHECK(r.kv_bytes == (9216.0 + 90.0) * 1024 * 1024);
  CHECK(r.kv_bytes == Bytes(Explain(c), "total.inference.kv_cache"));
}
