// PyTorch FSDP's buffers (account_parallel_buffers.h AccountFsdpUnits): whole units instead of
// DeepSpeed's fixed-size buckets, the root kept gathered from forward to backward. Measured:
// fms-acceleration's Mistral-7B full fine-tune on two A100s under accelerate's FSDP
// FULL_SHARD (bf16 weights, grads and AdamW states, batch 2 x 4096 packed, checkpointing),
// mem_peak_torch_mem_alloc_in_bytes 36,225,939,968 B, at the optimizer step
// (scripts/benchmarks/refs/a100_80gb.csv@24bdadb228e2d55bc0c69deec034b86a73da6917).
#include <doctest.h>

#include "core/estimate/derived.h"
#include "setups.h"

namespace llmmem::test {
namespace {

Config FmsMistralFullFsdp() {
  return FmsAcceleration("mistral-7b-v0.1", {{"mode", "train"},
                                             {"batch", "2"},
                                             {"dp", "2"},
                                             {"zero", "3"},
                                             {"sharding", "fsdp"},
                                             {"dtype", "bf16"},
                                             {"master_weights", "0"},
                                             {"grad_dtype", "bf16"},
                                             {"optimizer_dtype", "bf16"},
                                             {"loss_shift_copy", "1"}});
}

TEST_CASE("FSDP: no buckets at the optimizer step, as fms-acceleration's two-GPU full fine-tune measured") {
  const Estimate fsdp = Explain(FmsMistralFullFsdp());
  REQUIRE(fsdp.totals.ok);
  CHECK(fsdp.totals.peak_moment == Moment::kOptimizerStep);
  CHECK(fsdp.totals.allocated_bytes == doctest::Approx(36225939968.0).epsilon(0.0001));
  Config ds = FmsMistralFullFsdp();
  ds.sharding = Sharding::kDeepSpeed;  // DeepSpeed's 5e8-element reduce bucket stays allocated at the step
  CHECK(Explain(ds).totals.allocated_bytes > 36225939968.0 + 0.9e9);
}

TEST_CASE("FSDP FULL_SHARD: the root gathered through the loss, two layers and a layer's gradients in backward") {
  const Config c = FmsMistralFullFsdp();
  const Estimate e = Explain(c);
  const double V = 32000, h = 4096;
  const double root = 2 * V * h;  // untied embedding and head, bf16: 2 B each
  CHECK(BytesAt(e, "total.buffers.gathered_root", Moment::kForwardEnd) == 2.0 * root);
  CHECK(BytesAt(e, "total.buffers.gathered_root", Moment::kLayerBackward) == 2.0 * root);
  CHECK(BytesAt(e, "total.buffers.gathered_root", Moment::kOptimizerStep) == 0);
  // One Mistral layer: q and o 4096 x 4096, k and v 4096 x 1024, three 4096 x 14336 MLP
  // matrices and two 4096-wide norms.
  const double layer = 2 * h * h + 2 * h * 1024 + 3 * h * 14336 + 2 * h;
  CHECK(BytesAt(e, "total.buffers.gathered_layers", Moment::kLayerBackward) == 2 * 2.0 * layer);
  CHECK(BytesAt(e, "total.buffers.gathered_layers", Moment::kForwardEnd) == 0);
  CHECK(BytesAt(e, "total.buffers.unsharded_layer_grads", Moment::kLayerBackward) == 2.0 * layer);
  // The head's gradient beyond this GPU's half waits for the embedding's, the root's last.
  CHECK(BytesAt(e, "total.buffers.unsharded_head_grad", Moment::kLayerBackward) == 2.0 * V * h / 2);
  CHECK(e.tree.Find("total.buffers.reduce_bucket") == nullptr);
}

TEST_CASE("FSDP mixed precision: the fp32 master is the only sharded copy; DeepSpeed keeps a 16-bit one too") {
  Config c = FmsMistralFullFsdp();
  c.master_weights = true;  // torchtitan's MixedPrecisionPolicy: fp32 shards, bf16 compute
  c.grad_dtype = Dtype::kFp32;
  c.optimizer_dtype = Dtype::kFp32;
  const Estimate fsdp = Explain(c);
  CHECK(fsdp.tree.Find("total.model_states.weights")->bytes == 0);
  CHECK(fsdp.tree.Find("total.model_states.master_weights")->bytes > 0);
  c.sharding = Sharding::kDeepSpeed;
  const double ds_weights = Explain(c).tree.Find("total.model_states.weights")->bytes;
  CHECK(ds_weights == doctest::Approx(7241732096.0 * 2 / 2).epsilon(0.0001));  // bf16 params / 2 shards
}

// torchtitan's Llama 3.1 405B on 512 H100s, FSDP 8 x TP 8 x PP 8 (1F1B), 8 micro-batches of
// 1 x 32768, full AC: 75.3 GiB max_memory_reserved (benchmarks/llama3_h100_202412_torchtitan.md
// @820504e Table 6, "FSDP 8, CP 1").
TEST_CASE("pipelined FSDP: unsharded gradients summed over the micro-batches, sharded ones only for the step") {
  Config c = Torchtitan("llama-3.1-405b", {{"batch", "1"},
                                           {"seq", "32768"},
                                           {"dp", "8"},
                                           {"tp", "8"},
                                           {"pp", "8"},
                                           {"sp", "1"},
                                           {"grad_accum", "8"},
                                           {"reshard_after_forward", "0"},
                                           {"loss_shift_copy", "0"}});
  const Estimate e = Explain(c);
  REQUIRE(e.totals.ok);
  const Derived d(c, e.totals.pipeline_stage);
  const double summed = d.T_gpu * 4;  // fp32, the reduce dtype, for the stage's parameters on this GPU
  CHECK(BytesAt(e, "total.buffers.summed_grads", Moment::kLayerBackward) == summed);
  CHECK(BytesAt(e, "total.buffers.summed_grads", Moment::kForwardEnd) == 0);  // 8 micro-batches, 8 in flight
  CHECK(BytesAt(e, "total.buffers.summed_grads", Moment::kOptimizerStep) == 0);
  CHECK(BytesAt(e, "total.model_states.gradients", Moment::kLayerBackward) == 0);
  CHECK(BytesAt(e, "total.model_states.gradients", Moment::kOptimizerStep) == doctest::Approx(summed / 8));
  const double measured = 75.3 * 1024 * 1024 * 1024;
  CHECK(e.totals.reserved_bytes / measured == doctest::Approx(0.933).epsilon(0.01));  // 0.632 without them
  c.grad_accum = 16;  // 1F1B's steady state runs forwards after backwards
  CHECK(BytesAt(Explain(c), "total.buffers.summed_grads", Moment::kForwardEnd) == summed);
}

// peft's FSDP guide: Llama-2-70B loaded in fp32 (no torch_dtype), LoRA on all linear layers,
// FSDP FULL_SHARD over 8 H100s with bf16 mixed precision, batch 8 x 2048, checkpointing:
// nvidia-smi 72-80 GB (docs/source/accelerate/fsdp.md@aa2ca83).
TEST_CASE("FSDP LoRA over an fp32-loaded base: fp32 shards, 16-bit units and activations") {
  Config c = WithSettings("llama-2-70b", {{"mode", "lora"},
                                          {"batch", "8"},
                                          {"seq", "2048"},
                                          {"recompute", "full"},
                                          {"framework", "hf-flash2"},
                                          {"gpu", "H100-SXM-80GB"},
                                          {"dp", "8"},
                                          {"zero", "3"},
                                          {"sharding", "fsdp"},
                                          {"dtype", "bf16"},
                                          {"lora_rank", "8"},
                                          {"lora_targets", "all"},
                                          {"lora_dropout", "1"}});
  const Estimate bf16 = Explain(c);
  c.base_fp32_shards = true;
  const Estimate fp32 = Explain(c);
  REQUIRE(fp32.totals.ok);
  const double base = fp32.params.total;  // the frozen base: every parameter of the model
  CHECK(fp32.tree.Find("total.model_states.weights")->bytes == doctest::Approx(base * 4 / 8));
  CHECK(bf16.tree.Find("total.model_states.weights")->bytes == doctest::Approx(base * 2 / 8));
  // Units are gathered in bf16 and the activations stay bf16: only the shards differ.
  CHECK(BytesAt(fp32, "total.buffers.gathered_layers", Moment::kLayerBackward) ==
        BytesAt(bf16, "total.buffers.gathered_layers", Moment::kLayerBackward));
  CHECK(fp32.tree.Find("total.activations")->bytes == bf16.tree.Find("total.activations")->bytes);
  const double measured = 80e9;  // the top of the guide's range
  CHECK(fp32.totals.nvidia_smi_bytes / measured == doctest::Approx(0.955).epsilon(0.01));
  c.sharding = Sharding::kDeepSpeed;  // ZeRO-3's zero.Init partitions in the config's bf16
  CHECK(HasErrors(Validate(c)));
  c.sharding = Sharding::kFsdp;
  c.mode = Mode::kQlora;  // a 4-bit base is gathered as stored
  CHECK(HasErrors(Validate(c)));
}

TEST_CASE("FSDP has no optimizer-only stage") {
  Config c = FmsMistralFullFsdp();
  c.zero = 1;
  CHECK(HasErrors(Validate(c)));
  c.sharding = Sharding::kDeepSpeed;
  CHECK_FALSE(HasErrors(Validate(c)));
}

}  // namespace
}  // namespace llmmem::test
