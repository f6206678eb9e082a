// Megatron-LM compatibility mode (src/core/solve/compat_megatron.cpp) against figures worked by
// hand from the upstream source (issue 10).
#include <doctest.h>

#include <string>

#include "core/solve/compat.h"
#include "core/catalogue/presets.h"
#include "setups.h"

using namespace llmmem::test;

// Megatron-LM's report (src/core/solve/compat_megatron.cpp): each expected figure is worked
// from megatron/training/theoretical_memory_usage.py @ d98e8a64 by hand. Weights: per layer
// attention 2h^2(1 + g/a)(kv_channels a / h), MLP 2h ffn (x 1.5 SwiGLU), norms 2h x norm_size
// (2 LayerNorm, 1 RMSNorm), a final norm, the padded embedding hV, split (layers / p +
// embedding) / t, at 18 B or 6 + 12/dp B. Activations: with SP + selective recompute
// sbh(18 + 4 ffn/h) L + 8sbp + sbhp (+ 4sbh(1 + V/h) at p = 1), / t; otherwise sbh(10 + 24/t) L
// + 8sbp + sbhp (+ 2(sbV/t + sbh) at p = 1), x 1.05; x (1 + (p-1)/(p v)) when interleaved.

namespace {

// Korthikanti's GPT: h 4096, a 32, L 32, ffn 4h, LayerNorm, GeLU, V 32000 untied, s 2048, b 1.
// Per layer: attention 4h^2 = 67,108,864, MLP 8h^2 = 134,217,728, norms 4h = 16,384;
// 32 layers: 6,442,450,944 in matrices + 524,288 in norms; final norm 8,192; sbh = 8,388,608.
Config Gpt() {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  c.model.tied_embeddings = false;
  return c;
}

}  // namespace

TEST_CASE("Megatron vocabulary padding: the next multiple of 128 x tp") {
  CHECK(MegatronPaddedVocab(32000, 1) == 32000);    // 250 x 128
  CHECK(MegatronPaddedVocab(32000, 8) == 32768);    // ceil(32000 / 1024) = 32
  CHECK(MegatronPaddedVocab(50257, 3) == 50304);    // ceil(50257 / 384) = 131
  CHECK(MegatronPaddedVocab(128256, 8) == 129024);  // ceil(128256 / 1024) = 126
}

TEST_CASE("Megatron M1: GPT 7B-class, t 1, p 1, no SP: 18 B/param and the without-SP formula") {
  const CompatEstimate r = MegatronEstimate(Gpt());
  REQUIRE(r.ok);
  // params 6,442,450,944 + 524,288 + 8,192 + 2 x 4096 x 32000 (untied at p = 1) = 6,705,127,424; x 18
  CHECK(r.lines[0].gpu_bytes == 120692293632.0);
  // sbh(10 + 24) x 32 = 9,126,805,504, + 8sb 16,384 + sbh 8,388,608, + 2(sbV + sbh) = 2 x 73,924,608
  // = 9,283,059,712; x 1.05
  CHECK(r.lines[1].gpu_bytes == 9747212697.6);
  CHECK(r.lines[1].formula.find("compute_activation_memory_without_sp") != std::string::npos);
  CHECK(r.gpu_bytes == r.lines[0].gpu_bytes + r.lines[1].gpu_bytes);
}

TEST_CASE("Megatron M2: the distributed optimizer at dp 8: 6 + 12/8 bytes per param") {
  Config c = Gpt();
  c.zero = 1;
  c.dp = 8;
  const CompatEstimate r = MegatronEstimate(c);
  CHECK(r.lines[0].gpu_bytes == 50288455680.0);  // 6,705,127,424 x 7.5
  CHECK(r.lines[1].gpu_bytes == 9747212697.6);   // activations as M1
}

TEST_CASE("Megatron M3: t 8 with SP and selective recompute: Korthikanti's formula, V padded to 32768") {
  Config c = Gpt();
  c.tp = 8;
  c.sp = true;
  c.recompute = Recompute::kSelective;
  const CompatEstimate r = MegatronEstimate(c);
  // hV = 4096 x 32768 = 134,217,728. (6,442,450,944 + hV) / 8 + hV / 8 (untied) = 838,860,800,
  // + norms 532,480 replicated = 839,393,280; x 18
  CHECK(r.lines[0].gpu_bytes == 15109079040.0);
  // sbh(18 + 4 x 4) x 32 = 9,126,805,504, + 16,384 + 8,388,608, + 4sbh(1 + 32768/4096) = 301,989,888
  // = 9,437,200,384; / 8
  CHECK(r.lines[1].gpu_bytes == 1179650048.0);
  CHECK(r.lines[1].formula.find("compute_activation_memory:") != std::string::npos);
}

TEST_CASE("Megatron M4: t 8, SP with full recompute goes to the without-SP formula") {
  Config c = Gpt();
  c.tp = 8;
  c.sp = true;
  c.recompute = Recompute::kFull;
  const CompatEstimate r = MegatronEstimate(c);
  CHECK(r.lines[0].gpu_bytes == 15109079040.0);  // as M3
  // sbh(10 + 24/8) x 32 = 3,489,660,928, + 16,384 + 8,388,608, + 2(sbV/8 + sbh) = 2 x 16,777,216
  // = 3,531,620,352; x 1.05 (Python's float result, 3708201369.6000004)
  CHECK(r.lines[1].gpu_bytes == 3708201369.6000004);
}

TEST_CASE("Megatron M5: t 8, selective recompute without SP: the without-SP formula") {
  Config c = Gpt();
  c.tp = 8;
  c.recompute = Recompute::kSelective;
  CHECK(MegatronEstimate(c).lines[1].gpu_bytes == 3708201369.6000004);  // as M4
}

TEST_CASE("Megatron M6: SP and selective at t 1: arguments.py turns SP off, so the without-SP formula") {
  Config c = Gpt();
  c.sp = true;
  c.recompute = Recompute::kSelective;
  CHECK(MegatronEstimate(c).lines[1].gpu_bytes == 9747212697.6);  // as M1
}

TEST_CASE("Megatron M7: p 4 (1F1B), t 4, SP + selective: the first stage, 4 micro-batches in flight") {
  Config c = Gpt();
  c.tp = 4;
  c.pp = 4;
  c.dp = 2;
  c.grad_accum = 4;  // 4 micro-batches: all 4 stages fill
  c.sp = true;
  c.recompute = Recompute::kSelective;
  const CompatEstimate r = MegatronEstimate(c);
  // V padded to 63 x 512 = 32256, hV = 132,120,576; no output head at p > 1.
  // (6,442,450,944 / 4 + hV) / 4 = 435,683,328, + (524,288 + 8,192) / 4 = 133,120; x 18
  CHECK(r.lines[0].gpu_bytes == 7844696064.0);
  // L/p layers x p in flight: sbh(18 + 16) x 32 = 9,126,805,504, + 8sb x 4 = 65,536 + sbh x 4
  // = 33,554,432, = 9,160,425,472; / 4
  CHECK(r.lines[1].gpu_bytes == 2290106368.0);
  CHECK(r.lines[0].label.find("stage 1 of 4") != std::string::npos);
  CHECK(r.lines[1].label.find("stage 1 of 4") != std::string::npos);
  CHECK(r.scope.find("4 micro-batches in flight") != std::string::npos);
}

TEST_CASE("Megatron M8: p 4 interleaved with v 2, t 2, no SP: x (1 + 3/8)") {
  Config c = Gpt();
  c.tp = 2;
  c.pp = 4;
  c.schedule = Schedule::kInterleaved;
  c.vpp = 2;
  const CompatEstimate r = MegatronEstimate(c);
  // V = 32000 (a multiple of 256). (6,442,450,944 / 4 + 131,072,000) / 2 = 870,842,368, + 133,120; x 18
  CHECK(r.lines[0].gpu_bytes == 15677558784.0);
  // sbh(10 + 12) x 32 = 5,905,580,032, + 65,536 + 33,554,432 = 5,939,200,000; x 1.375 x 1.05
  CHECK(r.lines[1].gpu_bytes == 8574720000.0);
  CHECK(r.scope.find("6 micro-batches in flight") != std::string::npos);  // ceil(1.375 x 4)
  c.schedule = Schedule::k1F1B;  // the same without the penalty: 5,939,200,000 x 1.05
  c.grad_accum = 4;               // (with 4 micro-batches: no discount)
  CHECK(MegatronEstimate(c).lines[1].gpu_bytes == 6236160000.0);
}

TEST_CASE("Megatron M9: Llama-3-8B shape (GQA 8, SwiGLU 14336, RMSNorm), t 8, dp 4 distributed, s 8192, SP") {
  Config c = Bare();
  ModelSpec& m = c.model;
  m.vocab = 128256;
  m.hidden = 4096;
  m.layers = 32;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn = 14336;
  c.seq = 8192;
  c.tp = 8;
  c.dp = 4;
  c.zero = 1;
  c.sp = true;
  c.recompute = Recompute::kSelective;
  const CompatEstimate r = MegatronEstimate(c);
  // V padded to 129,024, hV = 528,482,304. Per layer: attention 2h^2 x 1.25 = 41,943,040,
  // MLP 2 x 4096 x 14336 x 1.5 = 176,160,768, norms 8,192.
  // (32 x 218,103,808 + hV) / 8 + hV / 8 = 1,004,535,808, + 32 x 8,192 + 4,096 = 1,004,802,048; x (6 + 3)
  CHECK(r.lines[0].gpu_bytes == 9043218432.0);
  // sbh = 33,554,432; sbh(18 + 4 x 3.5) x 32 = 34,359,738,368, + 65,536 + 33,554,432,
  // + 4sbh(1 + 31.5) = 4,362,076,160, = 38,755,434,496; / 8
  CHECK(r.lines[1].gpu_bytes == 4844429312.0);
}

TEST_CASE("Megatron M10: Mixtral-8x7B shape, ep 2, dp 4 distributed: experts at 6 + 12/expert-dp") {
  Config c = Bare();
  ModelSpec& m = c.model;
  m.hidden = 4096;
  m.layers = 32;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn = 14336;
  m.experts = 8;
  m.experts_per_token = 2;
  m.moe_ffn = 14336;
  c.seq = 4096;
  c.ep = 2;
  c.dp = 4;
  c.zero = 1;
  const CompatEstimate r = MegatronEstimate(c);
  // attention 41,943,040, norms 8,192, router 4096 x 8 = 32,768, experts 2 x 4096 x 14336 x 8 x 1.5
  // = 1,409,286,144 per layer. TP-sharded 32 x 41,943,040 + 2 x hV (131,072,000) = 1,604,321,280;
  // replicated 32 x 40,960 + 4,096 = 1,314,816; experts 32 x 1,409,286,144 / 2 = 22,548,578,304.
  // expert dp = 4 // (1 x 2 x 1) = 2: 1,605,636,096 x 9 + 22,548,578,304 x 12
  CHECK(r.lines[0].gpu_bytes == 285033664512.0);
  // sbh = 16,777,216; x 34 x 32 = 18,253,611,008, + 32,768 + 16,777,216, + 2(sbV + sbh) = 295,698,432
  // = 18,566,119,424; x 1.05
  CHECK(r.lines[1].gpu_bytes == 19494425395.2);
}

TEST_CASE("Megatron M11: DeepSeek-V2-Lite shape (MLA, 64 experts + 2 shared, first layer dense), ep 8, dp 8") {
  Config c = Bare();
  ModelSpec& m = c.model;
  m.vocab = 102400;
  m.hidden = 2048;
  m.layers = 27;
  m.heads = 16;
  m.kv_heads = 16;
  m.head_dim = 192;
  m.ffn = 10944;
  m.kv_lora_rank = 512;
  m.qk_nope_dim = 128;
  m.qk_rope_dim = 64;
  m.v_head_dim = 128;
  m.experts = 64;
  m.experts_per_token = 6;
  m.moe_ffn = 1408;
  m.shared_experts = 2;
  m.shared_ffn = 1408;
  m.dense_layers = 1;
  c.seq = 4096;
  c.ep = 8;
  c.dp = 8;
  c.zero = 1;
  const CompatEstimate r = MegatronEstimate(c);
  // MLA attention: q 2048 x 16 x 192 = 6,291,456, kv 512 x (2048 + 16 x 256 + 1) = 3,146,240,
  // rope key 2048 x 64 = 131,072, out 16 x 128 x 2048 = 4,194,304: 13,763,072.
  // Dense MLP 2 x 2048 x 10944 x 1.5 = 67,239,936; shared 2 x 2048 x 2816 x 1.5 = 17,301,504;
  // routed 2 x 2048 x 1408 x 64 x 1.5 = 553,648,128; router 131,072; norms 4,096.
  // TP-sharded 81,003,008 + 26 x 31,064,576 + 2 x hV (209,715,200) = 1,308,112,384;
  // replicated 4,096 + 26 x 135,168 + 2,048 = 3,520,512; experts 26 x 553,648,128 / 8 = 1,799,356,416.
  // expert dp = 8 // 8 = 1: 1,311,632,896 x 7.5 + 1,799,356,416 x 18
  CHECK(r.lines[0].gpu_bytes == 42225662208.0);
  // sbh = 8,388,608; x 34 x 27 = 7,700,742,144, + 32,768 + 8,388,608, + 2(sbV + sbh) = 855,638,016
  // = 8,564,801,536; x 1.05
  CHECK(r.lines[1].gpu_bytes == 8993041612.800001);
}

TEST_CASE("Megatron M12: GPT-2 small (tied), t 3 pads 50257 to 50304, s 1024, b 4") {
  Config c = Bare();
  ModelSpec& m = c.model;
  m.vocab = 50257;
  m.hidden = 768;
  m.layers = 12;
  m.heads = 12;
  m.kv_heads = 12;
  m.head_dim = 64;
  m.ffn = 3072;
  m.mlp = MlpKind::kPlain;
  m.norm = NormKind::kLayerNorm;
  m.tied_embeddings = true;
  m.learned_positions = 1024;  // Megatron's formula has no position table
  c.seq = 1024;
  c.batch = 4;
  c.tp = 3;
  const CompatEstimate r = MegatronEstimate(c);
  // hV = 768 x 50304 = 38,633,472 once (tied). (12 x 7,077,888 + hV) / 3 = 41,189,376,
  // + 12 x 3,072 + 1,536 = 38,400; x 18
  CHECK(r.lines[0].gpu_bytes == 742099968.0);
  // sbh = 3,145,728; x (10 + 8) x 12 = 679,477,248, + 32,768 + 3,145,728, + 2(sbV/3 + sbh)
  // = 2 x 71,827,456, = 826,310,656; x 1.05
  CHECK(r.lines[1].gpu_bytes == 867626188.8000001);
  bool says_padding = false;
  for (const std::string& d : r.departures) says_padding |= d.find("50,257 -> 50,304") != std::string::npos;
  CHECK(says_padding);
}

TEST_CASE("Megatron: fewer micro-batches than 1F1B stages scale the activations by m / p, as training.py's report does") {
  // Issue 30: 4 micro-batches over 8 stages was reported at 2x (num_microbatches=None).
  Config c = Gpt();
  c.pp = 8;
  c.grad_accum = 8;
  const double full = MegatronEstimate(c).lines[1].gpu_bytes;
  c.grad_accum = 4;
  const CompatEstimate r = MegatronEstimate(c);
  CHECK(r.lines[1].gpu_bytes == doctest::Approx(full * 0.5).epsilon(1e-12));  // min(1, 4/8), pp > 1: no head
  CHECK(r.scope.find("4 micro-batches in flight (num_microbatches=4)") != std::string::npos);
  bool noted = false;
  for (const std::string& d : r.departures) noted |= d.find("passes None") != std::string::npos;
  CHECK(noted);
  c.grad_accum = 16;  // m >= p: no discount, nothing to say
  CHECK(MegatronEstimate(c).lines[1].gpu_bytes == full);
  for (const std::string& d : MegatronEstimate(c).departures) CHECK(d.find("num_microbatches") == std::string::npos);
  c.grad_accum = 1;  // interleaved: the penalty, never the discount
  c.schedule = Schedule::kInterleaved;
  c.vpp = 2;
  CHECK(MegatronEstimate(c).lines[1].gpu_bytes > full);
}

TEST_CASE("Megatron: with pipeline stages the lines name stage 1, and say when this calculator's table is another") {
  Config c = Bare();
  c.model = FindPreset("llama-3.1-8b")->model;
  c.tp = 4;
  c.pp = 2;
  c.dp = 2;
  c.sp = true;
  c.recompute = Recompute::kSelective;
  REQUIRE(EstimateTotals(c).pipeline_stage == 1);  // the last stage: output head and fp32 logits
  const CompatEstimate r = MegatronEstimate(c);
  for (const CompatLine& l : r.lines) CHECK(l.label.find("(stage 1 of 2)") != std::string::npos);
  CHECK(r.scope.find("pipeline stage 1 of 2") == 0);
  CHECK(r.departures[0].find("this calculator's table is for stage 2 of 2") != std::string::npos);
}
