// QLoRA as particular stacks run it: fp32 norms under AMP (trl + peft), bitsandbytes 0.42, a 4-bit head.
// QLoRA with fp32 norms (peft's prepare_model_for_kbit_training, as trl 0.13 calls it) under
// AMP, against fms-acceleration's own pair of runs that differ only in it
// (scripts/benchmarks/refs/a100_80gb.csv@24bdadb228e2d55bc0c69deec034b86a73da6917, Mistral-7B
// QLoRA on one A100, batch 4 x 4096 packed, checkpointing): baseline-peft-bnb casts the norms,
// accelerated-peft-bnb does not. Their peaks (mem_peak_torch_mem_alloc_in_bytes) differ by
// 4,295,499,776 B and their end-of-training memory (mem_torch_mem_alloc_in_bytes) by 532,480 B.
#include <doctest.h>

#include "core/config/fields.h"
#include "setups.h"

namespace llmmem::test {
namespace {

Config FmsMistralQlora(bool norms_fp32) {
  Config c = FmsAccelerationPeft("mistral-7b-v0.1", {{"mode", "qlora"}, {"batch", "4"}, {"autocast", "bf16"}});
  c.norms_fp32 = norms_fp32;
  return c;
}

TEST_CASE("fp32 norms: the residual stream turns fp32, as fms-acceleration's twin QLoRA runs differ") {
  const Estimate cast = Explain(FmsMistralQlora(true));
  const Estimate plain = Explain(FmsMistralQlora(false));
  REQUIRE(cast.totals.ok);
  REQUIRE(plain.totals.ok);
  // Published: 20,669,338,112 - 16,373,838,336 B between the two peaks.
  CHECK(cast.totals.allocated_bytes - plain.totals.allocated_bytes == 20669338112.0 - 16373838336.0);
  // Published: 4,307,028,992 - 4,306,496,512 B at rest: 65 norms x 4096 weights, 2 B more each.
  CHECK(cast.tree.Find("total.model_states.weights")->bytes - plain.tree.Find("total.model_states.weights")->bytes ==
        4307028992.0 - 4306496512.0);
  CHECK(Validate(FmsMistralQlora(true)).empty());
  Config no_amp = FmsMistralQlora(true);
  no_amp.autocast = Dtype::kCount;  // without autocast a bf16 Linear cannot take the fp32 norm output
  CHECK(HasErrors(Validate(no_amp)));
}

TEST_CASE("a LayerNorm model's QLoRA under AMP has an fp32 stream without fp32 norms") {
  // layer_norm is on autocast's fp32 list and bnb's Linear4bit returns its input's format, so
  // the MLP's output and the residual stream are fp32 from the first layer on: the
  // checkpointed layer inputs take 4 B per element (fms-acceleration's santacoder QLoRA).
  Config c = FmsMistralQlora(false);
  c.model.norm = NormKind::kLayerNorm;
  const double tokens = 4 * 4096.0, h = 4096, layers = 32;
  auto inputs = [&](const Config& x) {
    return Explain(x).tree.Find("total.activations.layer_inputs")->moment_bytes[0] / (tokens * h * layers);
  };
  CHECK(inputs(c) == 4);
  c.model.norm = NormKind::kRmsNorm;  // HF's RMSNorm casts back to its bf16 input
  CHECK(inputs(c) == 2);
  c.model.norm = NormKind::kLayerNorm;
  c.autocast = Dtype::kCount;  // pure bf16: no autocast, no fp32 anywhere
  c.dtype = Dtype::kBf16;
  CHECK(inputs(c) == 2);
}

}  // namespace
}  // namespace llmmem::test

namespace llmmem::test {
namespace {

// bitsandbytes 0.42 (litgpt pins it): MatMul4Bit keeps each 4-bit Linear's input when that
// input needs a gradient. Beside what the adapters keep, a layer then holds the norm output
// q/k/v read, the one gate/up read and down's input: 2 B x tokens x (h + h + f), all layers
// but the first's q/k/v input (the frozen embedding gives it no gradient).
TEST_CASE("bnb 0.42: a 4-bit Linear keeps its input, but not in the first layer's Q/K/V") {
  Config c = DefaultConfig();
  c.model = FindPreset("llama-3.2-1b")->model;
  REQUIRE(FindField("mode")->set(c, "qlora").empty());
  c.batch = 2;
  c.seq = 512;
  c.lora_targets = kLoraQ | kLoraV;
  c.adapter_dtype = Dtype::kBf16;  // litgpt's adapters are in the model's dtype: they share the input
  c.fragmentation_pct = 0;         // the reserve would grow with what is added
  const double before = Explain(c).totals.moment_bytes[static_cast<int>(Moment::kForwardEnd)];
  c.bnb_saves_inputs = true;
  const double after = Explain(c).totals.moment_bytes[static_cast<int>(Moment::kForwardEnd)];
  const double tokens = 2 * 512, h = 2048, f = 8192, L = 16;
  // q and v's lora_A already keep the norm output they share (bf16 adapters): only the MLP's.
  CHECK(after - before == 2 * tokens * (h + f) * L);
  c.lora_targets = kLoraO;  // now nothing shares the Q/K/V input: 4-bit q/k/v keep it, layer 0 excepted
  c.bnb_saves_inputs = false;
  const double before_o = Explain(c).totals.moment_bytes[static_cast<int>(Moment::kForwardEnd)];
  c.bnb_saves_inputs = true;
  const double after_o = Explain(c).totals.moment_bytes[static_cast<int>(Moment::kForwardEnd)];
  CHECK(after_o - before_o == 2 * tokens * (h * (L - 1) + (h + f) * L));
  c.mode = Mode::kLora;
  CHECK(HasErrors(Validate(c)));
}

}  // namespace
}  // namespace llmmem::test

namespace llmmem::test {
namespace {

// litgpt's QLoRA (Lightning's BitsandbytesPrecision makes every nn.Linear NF4): the head is
// 4-bit too, and its backward dequantises it, fp16 then bf16, beside everything the loss left.
TEST_CASE("A 4-bit output head: NF4 at rest, 4 B per weight while its backward runs") {
  Config c = DefaultConfig();
  c.model = FindPreset("llama-3.1-8b")->model;
  REQUIRE(FindField("mode")->set(c, "qlora").empty());
  const Estimate plain = Explain(c);
  c.quantized_head = true;
  const Estimate nf4 = Explain(c);
  const double V = 128256, h = 4096;
  const double head16 = plain.tree.Find("total.model_states.weights.head")->bytes;
  const double head4 = nf4.tree.Find("total.model_states.weights.head")->bytes;
  CHECK(head16 == 2 * V * h);
  CHECK(head4 == V * h * BitsPerWeight(Dtype::kNf4, c.quant) / 8);
  CHECK(nf4.tree.Find("total.activations.outputs.head_dequantised")->bytes == 4 * V * h);
  c.model.tied_embeddings = true;  // an embedding cannot be NF4: refused, not silently counted
  CHECK(HasErrors(Validate(c)));
}

}  // namespace
}  // namespace llmmem::test
