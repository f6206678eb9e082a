// Reference cases B1 and B3 (whole budgets, seed 004), I1-I2 (inference), L1-L4 (LoRA).
#include <doctest.h>

#include "core/base/units.h"
#include "setups.h"

using namespace llmmem::test;

namespace {

// Seed 004's 7B: the A4 architecture, model states counted for exactly 7e9 parameters.
Config Seed004_7B() {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  c.model.params_override = 7'000'000'000;
  return c;
}

}  // namespace

TEST_CASE("B1: 7B, model states + activations + CUDA context is about 144 GB") {
  Config c = Seed004_7B();
  c.cuda_context_gb = 1.5;
  const Estimate e = Explain(c);
  CHECK(Bytes(e, "total.model_states") == 112e9);
  CHECK(Bytes(e, "total.activations.layers") == 32 * 956'301'312.0);  // 30.6 GB
  // The document adds 14 + 14 + 28 + 56 + 30.6 + 1.5; the estimate also counts the output
  // layer (Korthikanti §4.3: logits 4sbV and friends), about 0.3 GB more.
  const double outputs = Bytes(e, "total.activations.outputs");
  CHECK(outputs == doctest::Approx(0.30e9).epsilon(0.05));
  CHECK(e.totals.peak_bytes == 112e9 + 32 * 956'301'312.0 + outputs + 1.5e9);
  CHECK(e.totals.peak_bytes / 1e9 == doctest::Approx(144).epsilon(0.01));
}

TEST_CASE("B3: 7B with full checkpointing, no offload: 112 + 0.5 + 2 = about 114.5 GB, 1.4x an 80 GB card") {
  Config c = Seed004_7B();
  c.recompute = Recompute::kFull;
  c.cuda_context_gb = 2;
  const Estimate e = Explain(c);
  const double inputs = Bytes(e, "total.activations.layer_inputs");
  CHECK(inputs == 32 * 2.0 * 2048 * 4096);  // 0.537 GB
  // Beyond the document's sum: the layer re-created in backward and the output layer.
  const double remat = Bytes(e, "total.activations.rematerialised_layer");
  const double outputs = Bytes(e, "total.activations.outputs");
  CHECK(remat == 956'301'312.0 - 2.0 * 2048 * 4096);  // one layer less its checkpointed input
  CHECK(e.totals.peak_bytes == 112e9 + inputs + remat + outputs + 2e9);
  CHECK(e.totals.peak_bytes - remat - outputs == doctest::Approx(114.5e9).epsilon(0.001));
  CHECK(e.totals.peak_bytes / 80e9 == doctest::Approx(1.4).epsilon(0.05));
}

TEST_CASE("I1: 14B bf16 inference needs 28 GB of weights plus the KV cache") {
  Config c = ParamsOnly(14e9);
  c.mode = Mode::kInference;
  const Estimate e = Explain(c);
  CHECK(Bytes(e, "total.model_states.weights") == 28e9);
  // "+ KV cache": with the dimensions of a 14B model (Qwen2.5-14B: 48 layers, 8 KV heads of
  // 128), bf16, 4,096 tokens: 2 x 48 x 8 x 128 x 2 B = 196,608 B per token, 805,306,368 B.
  Config q = c;
  q.model = FindPreset("qwen2.5-14b")->model;
  q.dtype = Dtype::kBf16;
  q.kv_dtype = Dtype::kBf16;
  q.seq = 4096;
  q.batch = 1;
  const Estimate k = Explain(q);
  CHECK(Bytes(k, "total.inference.kv_cache") == 805306368.0);
  CHECK(k.totals.peak_bytes > Bytes(k, "total.model_states.weights") + 805306368.0);
}

TEST_CASE("I2: KV cache of Llama-2-7B in fp16 at 4096 tokens is 2 GiB per sequence") {
  Config c = Bare();
  c.model = Llama2_7B();
  c.mode = Mode::kInference;
  c.kv_dtype = Dtype::kFp16;
  c.seq = 4096;
  c.batch = 1;
  Estimate e = Explain(c);
  CHECK(Bytes(e, "total.inference.kv_cache") == 2 * kGiB);
  c.batch = 8;
  e = Explain(c);
  CHECK(Bytes(e, "total.inference.kv_cache") == 16 * kGiB);
  // GQA: Llama-3-8B's 8 KV heads of 128 over 32 layers, 4096 tokens: 512 MiB in bf16.
  c.model.kv_heads = 8;
  c.batch = 1;
  e = Explain(c);
  CHECK(Bytes(e, "total.inference.kv_cache") == 512 * kMiB);
}

TEST_CASE("L1: LoRA r=8 on W_q and W_v of a 32-layer h=4096 model: 4,194,304 trainable") {
  Config c = Bare();
  c.model = Llama2_7B();
  c.mode = Mode::kLora;
  c.lora_rank = 8;
  REQUIRE(ParseLoraTargets("q,v", c.lora_targets));
  const Totals t = EstimateTotals(c);
  CHECK(t.trainable_params == 4'194'304);
  CHECK(t.trainable_params == 2 * 32 * 8 * (4096 + 4096));
}

TEST_CASE("L2: LoRA keeps frozen weights at 2 bytes/param and 16 bytes only on the adapters") {
  Config c = Bare();
  c.model = Llama2_7B();
  c.mode = Mode::kLora;
  c.lora_rank = 8;
  REQUIRE(ParseLoraTargets("q,v", c.lora_targets));
  const Estimate e = Explain(c);
  const double P = static_cast<double>(CountParameters(c.model).total);
  const double T = 4'194'304;
  CHECK(Bytes(e, "total.model_states.weights") == 2 * P);
  const double adapter_states = Bytes(e, "total.model_states") - Bytes(e, "total.model_states.weights");
  CHECK(adapter_states == 16 * T);
}

TEST_CASE("L3: QLoRA brings a 65B fine-tune from over 780 GB to under 48 GB") {
  // LLaMA-65B: h=8192, L=80, 64 heads, ffn 22016, V=32000.
  Config c = Bare();
  c.model = Llama2_7B();
  c.model.hidden = 8192;
  c.model.layers = 80;
  c.model.heads = c.model.kv_heads = 64;
  c.model.ffn = 22016;
  const double P = static_cast<double>(CountParameters(c.model).total);
  CHECK(P == doctest::Approx(65.2e9).epsilon(0.002));
  // 16-bit full fine-tune: 16-bit weights and gradients with fp32 m and v (12 bytes/param,
  // no master copy) already exceed 780 GB.
  c.master_weights = false;
  CHECK(EstimateTotals(c).peak_bytes > 780e9);
  // QLoRA as in the paper: NF4 base with double quantisation, bf16 adapters r=64 on all
  // linear layers, 32-bit paged AdamW, gradient checkpointing, batch 1 of 512 tokens.
  c.mode = Mode::kQlora;
  c.lora_rank = 64;
  c.lora_targets = kLoraAllLinear;
  c.optimizer_dtype = Dtype::kFp32;
  c.recompute = Recompute::kFull;
  c.seq = 512;
  c.cuda_context_gb = 0.5;
  const Estimate e = Explain(c);
  CHECK(e.totals.peak_bytes < 48e9);
  CHECK(Bytes(e, "total.model_states.weights") < 35e9);
}

TEST_CASE("L4: rules of thumb: full FT 16-20X GB, LoRA 2.5-4X, QLoRA 0.7-1.5X") {
  // Llama-2-7B (X = 6.74), 2048 tokens, batch 1, FlashAttention, 0.5 GB context.
  Config c = Bare();
  c.model = Llama2_7B();
  c.seq = 2048;
  c.cuda_context_gb = 0.5;
  c.fragmentation_pct = 5;
  const double X = static_cast<double>(CountParameters(c.model).total) / 1e9;

  c.recompute = Recompute::kFull;  // full fine-tunes of 7B checkpoint as a matter of course
  const double full = EstimateTotals(c).peak_bytes / 1e9;
  CHECK(full >= 16 * X);
  CHECK(full <= 20 * X);

  c.mode = Mode::kLora;  // PEFT's defaults: r=16 on all linear layers, no checkpointing
  c.recompute = Recompute::kNone;
  const double lora = EstimateTotals(c).peak_bytes / 1e9;
  CHECK(lora >= 2.5 * X);
  CHECK(lora <= 4 * X);

  c.mode = Mode::kQlora;  // the QLoRA recipe checkpoints
  c.recompute = Recompute::kFull;
  const double qlora = EstimateTotals(c).peak_bytes / 1e9;
  CHECK(qlora >= 0.7 * X);
  CHECK(qlora <= 1.5 * X);
}

TEST_CASE("Chunked prefill bounds the workspace by the chunk, not the whole batch") {
  Config c = DefaultConfig();
  c.mode = Mode::kInference;
  c.batch = 8;
  c.seq = 8192;
  const double whole = Bytes(Explain(c), "total.inference.prefill_workspace");
  c.prefill_chunk = 8192;
  const double chunked = Bytes(Explain(c), "total.inference.prefill_workspace");
  CHECK(chunked ==
        doctest::Approx(whole / 8).epsilon(1e-12));  // every term is linear in the tokens with FlashAttention
  CHECK(Bytes(Explain(c), "total.inference.kv_cache") > 0);
}

TEST_CASE("Inference prefill workspace: fp32 weights compute in fp32, and the formula says so") {
  Config c = DefaultConfig();
  c.mode = Mode::kInference;
  const Estimate bf16 = Explain(c);
  c.dtype = Dtype::kFp32;
  const Estimate fp32 = Explain(c);
  c.dtype = Dtype::kInt4;
  const Estimate int4 = Explain(c);
  const char* id = "total.inference.prefill_workspace";
  CHECK(Bytes(fp32, id) == 2 * Bytes(bf16, id));
  CHECK(Bytes(int4, id) == Bytes(bf16, id));  // quantised weights run 16-bit activations
  CHECK(fp32.tree.Find(id)->formula.rfind("residual 4sbh", 0) == 0);
  CHECK(bf16.tree.Find(id)->formula.rfind("residual 2sbh", 0) == 0);
}
