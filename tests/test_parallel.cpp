// Reference cases Z1-Z4, A10, B2 (scale-out, issue 6) and a case per parallel mode.
#include <doctest.h>

#include "core/base/units.h"
#include "setups.h"

using namespace llmmem::test;

namespace {

double ModelStates(const Config& c) { return Bytes(Explain(c), "total.model_states"); }

}  // namespace

TEST_CASE("Z1: 7.5B over DP=64: ZeRO-0 120 GB, ZeRO-1 31.40625, ZeRO-2 16.640625, ZeRO-3 1.875") {
  Config c = ParamsOnly(7.5e9);
  c.dp = 64;
  const double expected[] = {120e9, 31.40625e9, 16.640625e9, 1.875e9};
  for (int z = 0; z <= 3; ++z) {
    CAPTURE(z);
    c.zero = z;
    CHECK(ModelStates(c) == expected[z]);
  }
  // The buffers each stage allocates are their own lines, outside the model states.
  c.zero = 3;
  const Estimate e = Explain(c);
  CHECK(e.tree.Find("total.buffers.reduce_bucket") != nullptr);
}

TEST_CASE("Z2: fewest data-parallel 80 GB GPUs when activations take 2 bytes/param per GPU") {
  // Seed 002's assumption: per GPU, model states plus 2 bytes/param of activations; we
  // stand the activations in as a fixed per-GPU term (cuda_context_gb) on a params-only model.
  auto threshold = [](double billions, int zero) {
    Config c = ParamsOnly(billions * 1e9);
    c.zero = zero;
    c.cuda_context_gb = 2 * billions;
    c.reduce_bucket = c.allgather_bucket = c.prefetch_bucket = 0;
    c.ddp_bucket_view = true;
    const FitGpus f = MinDataParallel(c, 80e9);
    return f;
  };
  CHECK(threshold(7, 2).threshold == doctest::Approx(1.88).epsilon(0.003));
  CHECK(threshold(7, 3).threshold == doctest::Approx(1.70).epsilon(0.003));
  CHECK_FALSE(threshold(14, 1).possible);
  CHECK(threshold(14, 2).threshold == doctest::Approx(8.17).epsilon(0.001));
  CHECK(threshold(14, 3).threshold == doctest::Approx(4.31).epsilon(0.001));
  CHECK(threshold(14, 2).min_gpus == 9);
  CHECK(threshold(14, 3).min_gpus == 5);
  CHECK_FALSE(threshold(20.5, 2).possible);  // ZeRO-2 impossible beyond 20B: 4 bytes/param never shard
  CHECK(threshold(19.5, 2).possible);
  CHECK_FALSE(threshold(40.5, 3).possible);  // ZeRO-3 beyond 40B: the 2 bytes/param of activations
  CHECK(threshold(39.5, 3).possible);
  // Seed 002 also gives ZeRO-1 7B k > 2.29; its own assumption gives 12*7/(80 - 6*7) = 2.21.
  CHECK(threshold(7, 1).threshold == doctest::Approx(84.0 / 38).epsilon(1e-9));
  CHECK(threshold(7, 1).threshold != doctest::Approx(2.29).epsilon(0.01));
}

TEST_CASE("Z3: model-state capacity of one card at 16 bytes/param") {
  // Largest model whose 16 bytes/param fit: 24 GB -> 1.5B, 80 GB -> 5B; half kept for activations: 0.75B, 2.5B.
  CHECK(ModelStates(ParamsOnly(1.5e9)) == 24e9);
  CHECK(ModelStates(ParamsOnly(5e9)) == 80e9);
  CHECK(ModelStates(ParamsOnly(0.75e9)) == 12e9);
  CHECK(ModelStates(ParamsOnly(2.5e9)) == 40e9);
  CHECK(MaxParamsForMemory(ParamsOnly(1e9), 24e9) == doctest::Approx(1.5e9).epsilon(1e-12));
  CHECK(MaxParamsForMemory(ParamsOnly(1e9), 80e9) == doctest::Approx(5e9).epsilon(1e-12));
}

TEST_CASE("Z4: PPO with 14B actor, critic and reference on 4 x 80 GB: 91 GB static per GPU") {
  Config c = ParamsOnly(14e9);
  c.mode = Mode::kRlhf;
  c.rlhf = Rlhf::kPpo;
  c.reward_model = false;
  c.rollout_engine = false;
  c.master_weights = false;  // the example counts m and v only
  c.tp = 4;                  // actor and reference TP=4; the critic's FSDP over 4 shards it the same
  const Estimate e = Explain(c);
  CHECK(Bytes(e, "total.model_states.actor.weights") == 7e9);
  CHECK(Bytes(e, "total.model_states.critic.weights") == 7e9);
  CHECK(Bytes(e, "total.model_states.reference.weights") == 7e9);
  CHECK(Bytes(e, "total.model_states.actor.optimizer") == 28e9);
  CHECK(Bytes(e, "total.model_states.critic.optimizer") == 28e9);
  CHECK(Bytes(e, "total.model_states.actor.gradients") == 7e9);
  CHECK(Bytes(e, "total.model_states.critic.gradients") == 7e9);
  CHECK(Bytes(e, "total.model_states") == 91e9);
  CHECK(e.totals.peak_bytes > 80e9);
}

TEST_CASE("RLHF: GRPO drops the critic, DPO keeps policy and reference; the rollout KV cache lives in generation") {
  Config c = Bare();
  c.model = Llama2_7B();
  c.mode = Mode::kRlhf;
  c.rlhf = Rlhf::kGrpo;
  c.reward_model = false;
  Estimate e = Explain(c);
  CHECK(e.tree.Find("total.model_states.critic") == nullptr);
  CHECK(e.tree.Find("total.rollout.kv_cache") != nullptr);
  const BreakdownNode* kv = e.tree.Find("total.rollout.kv_cache");
  CHECK(kv->moment_bytes[static_cast<int>(Moment::kGeneration)] > 0);
  CHECK(kv->moment_bytes[static_cast<int>(Moment::kForwardEnd)] == 0);
  c.rlhf = Rlhf::kDpo;
  e = Explain(c);
  CHECK(e.tree.Find("total.model_states.reference") != nullptr);
  CHECK(e.tree.Find("total.rollout") == nullptr);
}

TEST_CASE("Pipeline: the estimate names the stage it is for, the more loaded of the first and last, and why") {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  c.pp = 4;
  c.grad_accum = 8;
  Estimate e = Explain(c);
  REQUIRE(e.totals.ok);
  CHECK(e.totals.pipeline_stage == 0);
  CHECK(e.first_stage_peak_bytes == e.totals.peak_bytes);
  CHECK(e.first_stage_peak_bytes >= e.last_stage_peak_bytes);
  CHECK(e.peak_note.find("stage 1 of 4, the first, holding the embeddings, 8 layers and 4 micro-batch(es) in flight") !=
        std::string::npos);
  CHECK(e.peak_note.find("at least the last stage's " + FormatBytesBoth(e.last_stage_peak_bytes)) != std::string::npos);
  // One micro-batch in flight and a huge vocabulary: the last stage's logits weigh more.
  c.grad_accum = 1;
  c.model.vocab = 1'000'000;
  e = Explain(c);
  REQUIRE(e.totals.ok);
  CHECK(e.totals.pipeline_stage == 3);
  CHECK(e.last_stage_peak_bytes == e.totals.peak_bytes);
  CHECK(e.last_stage_peak_bytes > e.first_stage_peak_bytes);
  CHECK(e.peak_note.find("stage 4 of 4, the last, holding the output head and logits") != std::string::npos);
  CHECK(EstimateTotals(c).peak_bytes == e.totals.peak_bytes);
}

TEST_CASE("A10: with 1F1B the first stage holds p micro-batches of L/p layers = L layers") {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  c.recompute = Recompute::kNone;
  const double one_gpu = Bytes(Explain(c), "total.activations.layers");
  c.pp = 4;
  c.grad_accum = 8;  // micro-batches per step >= pp
  const Estimate e = Explain(c);
  CHECK(e.totals.pipeline_stage == 0);
  CHECK(Bytes(e, "total.activations.layers") == one_gpu);
  // GPipe keeps every micro-batch: m/p times more.
  c.schedule = Schedule::kGpipe;
  CHECK(Bytes(Explain(c), "total.activations.layers") == one_gpu * 8 / 4);
  // Interleaved with v=2: Megatron's factor 1 + (p-1)/(p*v).
  c.schedule = Schedule::kInterleaved;
  c.vpp = 2;
  CHECK(Bytes(Explain(c), "total.activations.layers") == doctest::Approx(one_gpu * (1 + 3.0 / 8)).epsilon(1e-12));
  // Fewer micro-batches than stages: only m in flight.
  c.schedule = Schedule::k1F1B;
  c.grad_accum = 2;
  CHECK(Bytes(Explain(c), "total.activations.layers") == one_gpu / 2);
}

TEST_CASE("B2: 7B with full checkpointing and the optimizer offloaded to CPU: GPU about 30.5 GB, CPU RAM 84 GB") {
  Config c = Korthikanti(4096, 32, 32, 2048, 1);
  c.model.params_override = 7'000'000'000;
  c.recompute = Recompute::kFull;
  c.offload_optimizer = Offload::kCpu;
  c.cuda_context_gb = 2;
  const Estimate e = Explain(c);
  CHECK(e.totals.cpu_bytes == 84e9);  // master 28 + m 28 + v 28
  const double inputs = Bytes(e, "total.activations.layer_inputs");
  const double remat = Bytes(e, "total.activations.rematerialised_layer");
  const double outputs = Bytes(e, "total.activations.outputs");
  CHECK(e.totals.peak_bytes == 14e9 + 14e9 + inputs + remat + outputs + 2e9);
  CHECK(e.totals.peak_bytes - remat - outputs == doctest::Approx(30.5e9).epsilon(0.002));
  const BreakdownNode* master = e.tree.Find("total.model_states.master_weights");
  REQUIRE(master != nullptr);
  CHECK(master->device == Device::kCpu);
}

namespace {

// A GPU node's figures are its GPU children's; what lies below it off the GPU is summed
// apart, device by device; every leaf says where it lives.
void CheckDevices(const BreakdownNode& n) {
  CAPTURE(n.id);
  if (n.children.empty()) {
    CHECK(n.cpu_bytes == (n.device == Device::kCpu ? n.bytes : 0));
    CHECK(n.nvme_bytes == (n.device == Device::kNvme ? n.bytes : 0));
    return;
  }
  double gpu = 0, cpu = 0, nvme = 0, all = 0;
  for (const BreakdownNode& c : n.children) {
    CheckDevices(c);
    if (c.device == Device::kGpu) gpu += c.bytes;
    all += c.bytes;
    cpu += c.cpu_bytes;
    nvme += c.nvme_bytes;
  }
  CHECK(n.bytes == (n.device == Device::kGpu ? gpu : all));
  CHECK(n.cpu_bytes == cpu);
  CHECK(n.nvme_bytes == nvme);
}

}  // namespace

TEST_CASE("Offload: each row says where it lives; a GPU row is the sum of its GPU rows") {
  Config c = DefaultConfig();
  c.dp = 8;
  c.zero = 3;
  c.offload_optimizer = Offload::kCpu;
  c.offload_params = Offload::kNvme;
  c = Followed(c);  // DeepSpeed ZeRO-3 under hf-trainer: fp32 master partitions (stacks.h)
  const Estimate e = Explain(c);
  REQUIRE(e.totals.ok);
  CheckDevices(e.tree);
  const BreakdownNode* states = e.tree.Find("total.model_states");
  REQUIRE(states != nullptr);
  CHECK(states->device == Device::kGpu);
  CHECK(states->bytes == 0);  // every model state is off the GPU: gradients follow the parameters' offload
  CHECK(e.tree.Find("total.model_states.gradients")->device == Device::kCpu);
  CHECK(e.tree.Find("total.model_states.optimizer.adam_m")->device == Device::kCpu);
  CHECK(e.tree.Find("total.model_states.weights.mlp")->device == Device::kNvme);
  CHECK(states->cpu_bytes == Bytes(e, "total.model_states.master_weights") + Bytes(e, "total.model_states.optimizer") +
                                 Bytes(e, "total.model_states.gradients"));
  CHECK(states->nvme_bytes == Bytes(e, "total.model_states.weights"));
  CHECK(e.tree.cpu_bytes == e.totals.cpu_bytes);
  CHECK(e.tree.nvme_bytes == e.totals.nvme_bytes);
  // The same in the other modes and targets (RLHF roles, LoRA adapters, the step-only copy).
  for (const Mode mode : {Mode::kTraining, Mode::kLora, Mode::kRlhf}) {
    for (const Offload optimizer : {Offload::kCpu, Offload::kNvme}) {
      for (const Offload params : {Offload::kNone, Offload::kCpu}) {
        Config k = c;
        k.mode = mode;
        k.offload_optimizer = optimizer;
        k.offload_params = params;
        k.optimizer_grad_copy = true;
        const Estimate ek = Explain(k);
        REQUIRE(ek.totals.ok);
        CheckDevices(ek.tree);
      }
    }
  }
}

TEST_CASE("Parallel modes each change what one GPU holds") {
  Config c = Bare();
  c.model = Llama2_7B();
  c.seq = 4096;
  const Totals base = EstimateTotals(c);
  // Context parallelism halves the saved activations per GPU.
  Config cp = c;
  cp.cp = 2;
  const Estimate ecp = Explain(cp);
  CHECK(Bytes(ecp, "total.activations.layers") ==
        doctest::Approx(Bytes(Explain(c), "total.activations.layers") / 2).epsilon(1e-12));
  CHECK(EstimateTotals(cp).gpus == 2);
  // ZeRO-3 parameter offload to NVMe takes the weights off the GPU.
  Config z3 = c;
  z3.dp = 8;
  z3.zero = 3;
  z3.offload_params = Offload::kNvme;
  z3.offload_optimizer = Offload::kNvme;
  const Totals t3 = EstimateTotals(z3);
  CHECK(t3.nvme_bytes > 0);
  CHECK(t3.peak_bytes < base.peak_bytes);
  // Expert parallelism splits the routed experts.
  Config moe = Bare();
  moe.model = Llama2_7B();
  moe.model.experts = 8;
  moe.model.experts_per_token = 2;
  moe.model.moe_ffn = 11008;
  moe.mode = Mode::kInference;
  const double all = Bytes(Explain(moe), "total.model_states.weights.mlp");
  moe.ep = 8;
  CHECK(Bytes(Explain(moe), "total.model_states.weights.mlp") < all / 7);
  // Parameter offload without ZeRO-3 is refused, with the reason.
  Config bad = c;
  bad.offload_params = Offload::kCpu;
  CHECK(HasErrors(Validate(bad)));
}

TEST_CASE("Property: per GPU ZeRO-3 <= ZeRO-2 <= ZeRO-1 <= ZeRO-0") {
  const char* presets[] = {"llama-3.1-8b", "qwen2.5-14b", "mixtral-8x7b", "gemma-2-9b"};
  for (const char* key : presets) {
    for (int64_t dp : {8, 64}) {
      Config c = DefaultConfig();
      c.model = FindPreset(key)->model;
      c.dp = dp;
      double previous = 1e300;
      for (int z = 0; z <= 3; ++z) {
        c.zero = z;
        const double peak = EstimateTotals(c).peak_bytes;
        CAPTURE(key);
        CAPTURE(dp);
        CAPTURE(z);
        CHECK(peak <= previous);
        previous = peak;
      }
    }
  }
}

TEST_CASE("ZeRO with LoRA: the all-gather bucket holds at most the trained adapters") {
  Config c = DefaultConfig();
  c.mode = Mode::kLora;
  c = Followed(c);  // LoRA's fp32 adapters and their fp32 states
  c.dp = 8;
  c.zero = 1;
  const Estimate e = Explain(c);
  const double adapters = static_cast<double>(e.totals.trainable_params);
  CHECK(Bytes(e, "total.buffers.allgather_bucket") == adapters * 2);
  // So sharding the adapters' optimizer states never costs more than it saves here.
  c.zero = 0;
  c.ddp_bucket_view = true;
  const double zero0 = EstimateTotals(c).peak_bytes;
  c.zero = 1;
  CHECK(EstimateTotals(c).peak_bytes <= zero0);
}

TEST_CASE("Context parallelism joins the ZeRO/FSDP shard group: states split over dp x cp") {
  Config c = Bare();
  c.model = Llama2_7B();
  c.dp = 2;
  c.cp = 4;
  c.zero = 1;
  const Estimate e = Explain(c);
  const double T = static_cast<double>(CountParameters(c.model).total);
  CHECK(Bytes(e, "total.model_states.optimizer.adam_m") == doctest::Approx(T * 4 / 8).epsilon(1e-9));
  CHECK(Bytes(e, "total.model_states.gradients") == doctest::Approx(T * 2).epsilon(1e-9));  // ZeRO-1: not sharded
}
