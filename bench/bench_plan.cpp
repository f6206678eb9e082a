// The planner's search timed whole (bench_plan.h): Megatron-LM's three Llama 3 recipes'
// requests (examples/llama/README.md@d98e8a6), each searched every run.
#include "bench_plan.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "core/catalogue/presets.h"
#include "core/config/config_json.h"
#include "core/plan/train_plan.h"

namespace llmmem::bench {

std::vector<PlanBench> RunPlanBench(bool quick) {
  using namespace llmmem::core;
  struct Case {
    const char* preset;
    int64_t gpus, global_seqs;
  };
  const Case cases[] = {{"llama-3-8b", 8, 128}, {"llama-3-70b", 64, 128}, {"llama-3.1-405b", 1024, 512}};
  std::vector<PlanBench> out;
  for (const Case& k : cases) {
    if (quick && k.gpus > 8) continue;
    TrainPlanRequest r;
    r.base = DefaultConfig();
    r.base.model = FindPreset(k.preset)->model;
    r.base.framework = Framework::kMegatron;
    r.base.grad_dtype = Dtype::kFp32;
    r.gpus = k.gpus;
    r.seq = 8192;
    r.global_batch_tokens = k.global_seqs * 8192;
    PlanBench b;
    b.name = std::string(k.preset) + " x " + std::to_string(k.gpus) + " H100";
    std::vector<double> runs, cpu;
    for (int i = 0; i < (quick ? 1 : 5); ++i) {
      const auto start = std::chrono::steady_clock::now();
      const std::clock_t cpu_start = std::clock();
      const TrainPlan plan = PlanTraining(r);
      cpu.push_back(static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
      runs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      b.considered = static_cast<double>(plan.counts.considered);
      b.evaluated = static_cast<double>(plan.counts.evaluated);
      b.pruned = static_cast<double>(plan.counts.pruned);
      b.invalid = static_cast<double>(plan.counts.invalid);
      b.feasible = static_cast<double>(plan.counts.feasible);
    }
    std::sort(runs.begin(), runs.end());
    std::sort(cpu.begin(), cpu.end());
    b.seconds = runs[runs.size() / 2];
    b.cpu_seconds = cpu[cpu.size() / 2];
    out.push_back(b);
  }
  return out;
}

}  // namespace llmmem::bench
