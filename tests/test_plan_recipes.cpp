// The training planner against layouts published recipes actually ran: each recipe's
// layout must be among the planner's feasible set; where the planner's ranking puts it is
// reported (MESSAGE), not forced. Megatron-LM's rows are FP8 runs; the planner estimates
// bf16 weights, which hold at least as much memory, so a recipe that fits here fits there.
//  - Megatron-LM examples/llama/README.md (NVIDIA/Megatron-LM@d98e8a64ddf34856e74b24714e3bedb2f5a39553,
//    "FP8 Performance"), the distributed optimizer (--use-distributed-optimizer in
//    train_llama3_8b_h100_fp8.sh: ZeRO-1) on H100s, sequence 8192, micro-batch 1:
//      Llama3 8B    8 GPUs, GBS 128, TP 1 PP 1 CP 2, GA 32 (dp 4)
//      Llama3 70B   64 GPUs, GBS 128, TP 4 PP 8 VP 5, GA 64 (dp 2)
//      Llama3 405B  1024 GPUs, GBS 512, TP 8 PP 8 CP 2 VP 8, GA 64 (dp 8)
//  - torchtitan torchtitan/models/llama3/config_registry.py (pytorch/torchtitan@b5bcd76c66d0acb1a08b176d9639425bc55e0b2a):
//      llama3_8b    FSDP over 8 GPUs, 1 x 8192 tokens per rank, selective AC
//      llama3_70b   tp 8 (64 GPUs: FSDP 8), 8 x 8192 tokens per rank, full AC
//    and benchmarks/llama3_h100_202412_torchtitan.md (same commit), Table 5: Llama 3.1 405B
//    on 512 GPUs, FSDP 8 TP 8 PP 8, global batch 256, full AC.
#include <doctest.h>

#include "core/plan/train_plan.h"
#include "core/base/units.h"
#include "setups.h"

namespace llmmem::test {
namespace {

Config MegatronBase(const char* preset) {
  return WithSettings(preset, {{"mode", "train"},
                               {"framework", "megatron"},
                               {"gpu", "H100-SXM-80GB"},
                               {"dtype", "bf16"},
                               {"master_weights", "1"},
                               {"grad_dtype", "fp32"},
                               {"optimizer_dtype", "fp32"}});
}

struct Recipe {
  const char* name;
  Config base;
  int64_t gpus;
  int64_t global_seqs;
  PlanMatch match;
};

void CheckRecipe(const Recipe& r) {
  TrainPlanRequest q;
  q.base = r.base;
  q.gpus = r.gpus;
  q.seq = 8192;
  q.global_batch_tokens = r.global_seqs * 8192;
  q.top = 1;
  const TrainPlan plan = PlanTraining(q);
  REQUIRE_MESSAGE(plan.ok, plan.error);
  REQUIRE(!plan.best.empty());
  const PlanPoint* hit = nullptr;
  const int64_t rank = RankOf(plan, r.match, &hit);
  PlanMatch on_gpu = r.match;
  on_gpu.offload = 0;
  const int64_t rank_on_gpu = RankOf(plan, on_gpu);
  const PlanSettings& b = plan.best[0].settings;
  const std::string line =
      std::string(r.name) + ": the recipe ranks " + std::to_string(rank) + " of " +
      std::to_string(plan.counts.feasible) + " that fit (" + std::to_string(plan.counts.considered) +
      " considered, " + std::to_string(plan.counts.evaluated) + " estimated)" + (rank_on_gpu < 0 ? std::string(", only with the optimizer on the CPU") : "") + ", fastest with recompute " +
      (hit ? Id(hit->settings.recompute) : "-") + (hit && hit->settings.offload ? " and optimizer offload" : "") +
      ", its step " + FormatNumber(hit ? hit->step_s : 0, 3) + " s; the planner's best: tp " + std::to_string(b.tp) + " pp " +
      std::to_string(b.pp) + " vpp " + std::to_string(b.vpp) + " cp " + std::to_string(b.cp) + " dp " +
      std::to_string(b.dp) + " zero " + std::to_string(b.zero) + (b.fsdp ? " fsdp" : "") + " recompute " +
      Id(b.recompute) + " mb " + std::to_string(b.micro_batch) + " ga " + std::to_string(b.grad_accum) +
      (b.offload ? " offload" : "") + " at " + FormatNumber(plan.best[0].totals.peak_bytes / 1e9, 1) + " GB, " +
      FormatNumber(plan.best[0].time.total_s, 3) + " s";
  MESSAGE(line);
  const std::string why = std::string(r.name) + ": the recipe's layout is not among the feasible set";
  CHECK_MESSAGE(rank > 0, why);
}

}  // namespace

TEST_CASE("plan recipes: Megatron-LM Llama3 8B, 70B and 405B") {
  PlanMatch m8;
  m8.tp = 1, m8.pp = 1, m8.cp = 2, m8.dp = 4, m8.micro_batch = 1, m8.zero = 1, m8.fsdp = 0;
  m8.recompute = static_cast<int>(Recompute::kNone);
  CheckRecipe({"Megatron-LM Llama3 8B", MegatronBase("llama-3-8b"), 8, 128, m8});
  PlanMatch m70;
  m70.tp = 4, m70.pp = 8, m70.vpp = 5, m70.cp = 1, m70.dp = 2, m70.micro_batch = 1, m70.zero = 1, m70.fsdp = 0;
  CheckRecipe({"Megatron-LM Llama3 70B", MegatronBase("llama-3-70b"), 64, 128, m70});
  PlanMatch m405;
  m405.tp = 8, m405.pp = 8, m405.vpp = 8, m405.cp = 2, m405.dp = 8, m405.micro_batch = 1, m405.zero = 1;
  m405.fsdp = 0;
  CheckRecipe({"Megatron-LM Llama3 405B", MegatronBase("llama-3.1-405b"), 1024, 512, m405});
}

TEST_CASE("plan recipes: torchtitan Llama 3.1 8B, 70B and 405B") {
  PlanMatch t8;
  t8.tp = 1, t8.pp = 1, t8.cp = 1, t8.dp = 8, t8.micro_batch = 1, t8.zero = 3, t8.fsdp = 1;
  t8.recompute = static_cast<int>(Recompute::kOpSelective);  // torchtitan's SelectiveAC: op-level
  CheckRecipe({"torchtitan llama3_8b", Torchtitan("llama-3.1-8b", {}), 8, 8, t8});
  PlanMatch t70;
  t70.tp = 8, t70.pp = 1, t70.cp = 1, t70.dp = 8, t70.micro_batch = 8, t70.zero = 3, t70.fsdp = 1;
  t70.recompute = static_cast<int>(Recompute::kFull);
  CheckRecipe({"torchtitan llama3_70b", Torchtitan("llama-3.1-70b", {}), 64, 64, t70});
  PlanMatch t405;
  t405.tp = 8, t405.pp = 8, t405.cp = 1, t405.dp = 8, t405.micro_batch = 1, t405.zero = 3, t405.fsdp = 1;
  t405.recompute = static_cast<int>(Recompute::kFull);
  CheckRecipe({"torchtitan Llama 3.1 405B (Table 5)", Torchtitan("llama-3.1-405b", {}), 512, 256, t405});
}

}  // namespace llmmem::test
