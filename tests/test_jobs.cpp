// Several jobs on one GPU (core/plan/jobs.h): one worked case per kind, every figure asserted
// (in MB, 1e6 bytes), and each tied back to the one estimate it comes from.
//  (a) an RL trainer with its colocated vLLM rollout engine (TRL's GRPO colocate: the engine
//      in the trainer's process at gpu_memory_utilization 0.3, sleep level 2);
//  (b) an LLM served by vLLM with an embedding model and a reranker beside it, each its own
//      vLLM process (its CUDA context and its share);
//  (c) llama-server with a draft model for speculative decoding in its process;
//  (d) a display holding 8 GB of a 24 GB card, and vLLM at its default 0.9.
#include <cmath>
#include <string>

#include <doctest.h>

#include "core/catalogue/gpus.h"
#include "core/plan/jobs.h"
#include "core/plan/jobs_kinds.h"
#include "core/plan/jobs_json.h"
#include "core/estimate/serving.h"
#include "setups.h"

namespace llmmem::test {
namespace {

int64_t Mb(double bytes) { return static_cast<int64_t>(std::llround(bytes / 1e6)); }

JobsRequest Request(const char* json) {
  const JobsRequestParse p = JobsRequestFromJsonText(json);
  for (const Diagnostic& d : p.diagnostics) MESSAGE(d.field << ": " << d.message);
  REQUIRE_FALSE(HasErrors(p.diagnostics));
  return p.request;
}

const JobResult& Job(const JobsPlan& plan, const char* name) {
  for (const JobResult& j : plan.jobs)
    if (j.name == name) return j;
  FAIL("no job " << name);
  return plan.jobs.front();
}

const JobChange& Change(const JobsPlan& plan, const char* setting, const char* job = "") {
  for (const JobChange& c : plan.changes)
    if (c.setting == setting && c.job == job) return c;
  FAIL("no change " << setting << " for " << job);
  return plan.changes.front();
}

// Every phase's categories add up to its bytes, per job and summed.
void CategoriesAddUp(const JobsPlan& plan) {
  for (const JobResult& j : plan.jobs)
    for (const JobState& s : j.phases) {
      double sum = 0;
      for (double c : s.category_bytes) sum += c;
      CHECK_MESSAGE(sum == doctest::Approx(s.bytes).epsilon(1e-12), j.name << " " << s.state);
    }
  for (const PhaseTotal& t : plan.totals) {
    double sum = 0;
    for (double c : t.category_bytes) sum += c;
    CHECK(sum == doctest::Approx(t.bytes).epsilon(1e-12));
  }
}

constexpr const char* kRl = R"({"gpu": "H100-SXM-80GB", "jobs": [
  {"name": "trainer", "kind": "trainer",
   "config": {"model": "llama-3.2-3b", "mode": "train", "batch": 8, "seq": 1024, "recompute": "full",
              "master_weights": true, "optimizer_dtype": "fp32"}},
  {"name": "rollout", "kind": "engine", "process": "trainer", "sleep_level": 2, "weight_sync": "per_tensor",
   "config": {"model": "llama-3.2-3b", "runtime": "vllm", "mem_fraction": 0.3, "seq": 1024, "batch": 64}}]})";

}  // namespace

TEST_CASE("jobs (a): GRPO's trainer and its colocated vLLM engine, asleep while it trains") {
  const JobsRequest r = Request(kRl);
  const JobsPlan plan = PlanJobs(r);
  REQUIRE(plan.ok);
  CategoriesAddUp(plan);
  // The card: an H100's 85.52 GB, nothing held; a trainer on it keeps the 2% headroom.
  CHECK(Mb(plan.capacity_bytes) == 85521);
  CHECK(plan.headroom == doctest::Approx(0.02));
  CHECK(Mb(plan.budget_bytes) == 83810);
  REQUIRE(plan.phases.size() == 5);
  CHECK(plan.phases[0] == JobPhase::kWeightSync);
  CHECK(plan.phases[1] == JobPhase::kGenerate);
  // The trainer's phases are the training estimate's moments, not a second computation.
  const JobResult& t = Job(plan, "trainer");
  const Totals tt = EstimateTotals(r.jobs[0].config);
  CHECK(t.phases[0].bytes == tt.moment_bytes[static_cast<int>(Moment::kGeneration)]);
  CHECK(t.phases[2].bytes == tt.moment_bytes[static_cast<int>(Moment::kForwardEnd)]);
  CHECK(t.phases[3].bytes == tt.moment_bytes[static_cast<int>(Moment::kLayerBackward)]);
  CHECK(t.phases[4].bytes == tt.moment_bytes[static_cast<int>(Moment::kOptimizerStep)]);
  CHECK(Mb(t.phases[0].bytes) == 55345);  // resident between steps: weights, gradients, fp32 master, Adam
  CHECK(Mb(t.phases[2].bytes) == 63528);  // forward
  CHECK(Mb(t.phases[3].bytes) == 52034);  // backward
  CHECK(Mb(t.phases[4].bytes) == 68838);  // optimizer step
  CHECK(t.sync_buffer_bytes == 0);        // DDP-style: each parameter is pushed from where it is
  // The engine: 0.3 x CUDA's 85.03 GB asked, in the trainer's process (no second context).
  const JobResult& e = Job(plan, "rollout");
  Config ec = r.jobs[1].config;
  ec.cuda_context_gb = 0;
  const Totals et = EstimateTotals(ec);
  CHECK(e.phases[1].bytes == et.peak_bytes);
  CHECK(e.phases[0].bytes == et.peak_bytes - et.category_bytes[static_cast<int>(Category::kKvCache)]);
  CHECK(e.phases[2].bytes == e.phases[0].bytes - et.category_bytes[static_cast<int>(Category::kWeights)]);
  CHECK(Mb(e.requested_bytes) == 25509);
  CHECK(Mb(e.start_free_bytes) == 29684);  // CUDA's total less the trainer's resident states
  CHECK(e.starts);
  CHECK(Mb(e.phases[1].bytes) == 25680);  // awake: generating
  CHECK(Mb(e.phases[0].bytes) == 9140);   // its weights woken for the sync, the KV cache still discarded
  CHECK(Mb(e.phases[2].bytes) == 2714);   // asleep: graphs, activation blocks, non-torch memory
  CHECK(e.cpu_bytes == 0);                // level 2 keeps no copy in host RAM
  // The sums and the peak: generation, driven by the engine waking.
  CHECK(Mb(plan.totals[0].bytes) == 64484);
  CHECK(Mb(plan.totals[1].bytes) == 81025);
  CHECK(Mb(plan.totals[2].bytes) == 66242);
  CHECK(Mb(plan.totals[3].bytes) == 54748);
  CHECK(Mb(plan.totals[4].bytes) == 71552);
  CHECK(plan.peak_phase == 1);
  CHECK(plan.totals[1].driver == "rollout");
  CHECK(plan.totals[2].driver == "trainer");
  CHECK(plan.verdict == Verdict::kFits);
  // What fits: TRL's 0.3 is near the top; the trainer leaves room for 0.33.
  const JobChange& f = Change(plan, "mem_fraction", "rollout");
  CHECK(f.lo == doctest::Approx(0.20));
  CHECK(f.hi == doctest::Approx(0.33));
  CHECK(Change(plan, "batch", "trainer").hi == 17);
  CHECK(Mb(Change(plan, "held_bytes").hi) == 2842);
}

TEST_CASE("jobs (a): without sleep mode the engine stays awake and the trainer's step does not fit") {
  JobsRequest r = Request(kRl);
  r.jobs[1].sleep_level = 0;
  const JobsPlan plan = PlanJobs(r);
  REQUIRE(plan.ok);
  CHECK(plan.verdict == Verdict::kDoesNotFit);
  CHECK(plan.peak_phase == 4);  // the optimizer step, with the engine's whole share beside it
  CHECK(Mb(plan.totals[4].bytes) == 94519);  // 68.84 + 25.68 GB
  CHECK(plan.totals[4].driver == "trainer");
  CHECK(Mb(plan.totals[4].over_bytes) == 10708);
  // No utilisation fits awake beside the step: 0.20 is the least whose pool holds 64 x 1024
  // tokens, and the optimizer step leaves room for less.
  const JobChange& f = Change(plan, "mem_fraction", "rollout");
  CHECK(f.hi < f.lo);
  // Level 1 frees the same GPU memory; it keeps the weights in host RAM.
  r.jobs[1].sleep_level = 1;
  const JobsPlan one = PlanJobs(r);
  CHECK(one.verdict == Verdict::kFits);
  CHECK(Mb(Job(one, "rollout").cpu_bytes) == 6425);
  CHECK(Mb(one.totals[2].bytes) == 66242);
}

TEST_CASE("jobs (a): the weight-sync buffer, as TRL and verl hold it") {
  JobsRequest r = Request(kRl);
  const Config& c = r.jobs[0].config;
  const ParamCounts n = CountParameters(c.model);
  CHECK(n.largest_tensor == 128256LL * 3072);  // the tied embedding
  r.jobs[0].config.zero = 3;                    // FSDP full_shard: each parameter gathered to full size
  CHECK(WeightSyncBytes(r.jobs[0].config, r.jobs[1]) == 2.0 * 128256 * 3072);
  r.jobs[1].sync = WeightSync::kBucket;  // verl: the 2048 MiB IPC bucket beside the gathered tensor
  CHECK(WeightSyncBytes(r.jobs[0].config, r.jobs[1]) == 2048.0 * 1048576 + 2.0 * 128256 * 3072);
  r.jobs[1].sync = WeightSync::kFull;  // TRL #2927: the whole 16-bit model at once
  CHECK(WeightSyncBytes(r.jobs[0].config, r.jobs[1]) == 2.0 * static_cast<double>(n.total));
  r.jobs[0].config.zero = 0;
  const JobsPlan plan = PlanJobs(r);
  CHECK(Mb(Job(plan, "trainer").phases[0].bytes) == 55345 + Mb(2.0 * static_cast<double>(n.total)));
  CHECK(Job(plan, "trainer").phases[0].state == "resident_and_sync_buffer");
}

TEST_CASE("jobs (b): an LLM, an embedding model and a reranker, three vLLM processes on one L40S") {
  const JobsRequest r = Request(R"({"gpu": "L40S-48GB", "jobs": [
    {"name": "llm", "kind": "server",
     "config": {"model": "llama-3.1-8b", "runtime": "vllm", "mem_fraction": 0.7, "seq": 8192, "batch": 8}},
    {"name": "embedder", "kind": "server",
     "config": {"model": "qwen3-0.6b", "runtime": "vllm", "mem_fraction": 0.1, "seq": 512, "batch": 32}},
    {"name": "reranker", "kind": "server",
     "config": {"model": "qwen3-0.6b", "runtime": "vllm", "mem_fraction": 0.1, "seq": 512, "batch": 32}}]})");
  const JobsPlan plan = PlanJobs(r);
  REQUIRE(plan.ok);
  CategoriesAddUp(plan);
  REQUIRE(plan.phases.size() == 1);
  CHECK(plan.headroom == 0);  // vLLM budgets itself (fit.h AnswerHeadroom)
  CHECK(Mb(plan.budget_bytes) == 48306);
  // Each: its share of the 48.31 GB, plus its own CUDA context (1.3 GB) and CUDA graphs.
  for (size_t i = 0; i < 3; ++i) CHECK(plan.jobs[i].phases[0].bytes == EstimateTotals(r.jobs[i].config).peak_bytes);
  CHECK(Mb(Job(plan, "llm").peak_bytes) == 35305);
  CHECK(Mb(Job(plan, "embedder").peak_bytes) == 6282);
  CHECK(Mb(Job(plan, "reranker").peak_bytes) == 6282);
  CHECK(Mb(plan.totals[0].bytes) == 47869);
  CHECK(plan.totals[0].driver == "llm");
  // The start checks, in order: each sees what the ones before it took.
  CHECK(Mb(Job(plan, "llm").start_free_bytes) == 47006);
  CHECK(Mb(Job(plan, "embedder").start_free_bytes) == 11701);
  CHECK(Mb(Job(plan, "reranker").start_free_bytes) == 5419);
  CHECK(Mb(Job(plan, "reranker").requested_bytes) == 4831);
  CHECK(plan.verdict == Verdict::kFits);
  const JobChange& llm = Change(plan, "mem_fraction", "llm");
  CHECK(llm.lo == doctest::Approx(0.53));  // its pool holds 8 x 8192 tokens from here
  CHECK(llm.hi == doctest::Approx(0.70));  // 0.71 leaves the reranker too little to start
  CHECK(Mb(Change(plan, "held_bytes").hi) == 436);
  // 0.8 + 0.1 + 0.1 is 1.0 of the card, but the three contexts and the graphs are not in
  // the shares: the reranker is refused at its start.
  JobsRequest more = r;
  more.jobs[0].config.mem_fraction = 0.8;
  const JobsPlan over = PlanJobs(more, false);
  CHECK(over.verdict == Verdict::kDoesNotFit);
  CHECK(Job(over, "embedder").starts);
  CHECK_FALSE(Job(over, "reranker").starts);
}

TEST_CASE("jobs (c): llama-server with a draft model: its weights once, its context per slot") {
  const JobsRequest r = Request(R"({"gpu": "RTX-4090-24GB", "jobs": [
    {"name": "llama-server", "kind": "server",
     "config": {"model": "llama-3.1-8b", "runtime": "llama.cpp", "dtype": "q4_k_m", "seq": 16384, "batch": 4},
     "draft": {"model": "llama-3.2-1b", "dtype": "q8_0"}}]})");
  const JobsPlan plan = PlanJobs(r);
  REQUIRE(plan.ok);
  CategoriesAddUp(plan);
  const JobResult& s = Job(plan, "llama-server");
  const Totals main = EstimateTotals(r.jobs[0].config);
  CHECK(Mb(main.peak_bytes) == 14778);  // the main model alone: weights, 4 slots x 16384 cells, buffers
  // The draft: one context per slot of a slot's cells (-cd 0), in the main's process.
  Config d = r.jobs[0].draft;
  d.runtime = Runtime::kLlamaCpp;
  d.seq = 16384;
  d.batch = 1;
  d.cuda_context_gb = 0;
  const Totals dt = EstimateTotals(d);
  const double w = dt.category_bytes[static_cast<int>(Category::kWeights)];
  CHECK(Mb(w) == 1313);
  CHECK(s.draft_bytes == doctest::Approx(w + 4 * (dt.peak_bytes - w)));
  CHECK(Mb(s.draft_bytes) == 4528);
  CHECK(Mb(s.peak_bytes) == 19307);
  CHECK(Mb(plan.totals[0].bytes) == 19307);
  CHECK(plan.verdict == Verdict::kFits);
  CHECK(Mb(plan.budget_bytes) == 25242);  // llama.cpp: the 2% headroom
  CHECK(s.launch.find("-md Llama-3.2-1B") != std::string::npos);
  CHECK(s.launch.find("-cd 0") != std::string::npos);
  CHECK(Mb(Change(plan, "held_bytes").hi) == 6056);
}

TEST_CASE("jobs (d): a display holding 8 GB of a 24 GB card, and vLLM at its default 0.9") {
  const JobsRequest r = Request(R"({"gpu": "RTX-4090-24GB", "jobs": [
    {"name": "display", "kind": "held", "gb": 8},
    {"name": "vllm", "kind": "server", "config": {"model": "llama-3.2-3b", "runtime": "vllm", "seq": 8192, "batch": 4}}]})");
  const JobsPlan plan = PlanJobs(r);
  REQUIRE(plan.ok);
  CHECK(Mb(plan.capacity_bytes) == 25757);
  CHECK(Mb(plan.held_bytes) == 8000);
  CHECK(Mb(plan.free_bytes) == 17757);
  CHECK(Mb(plan.budget_bytes) == 17757);
  const JobResult& v = Job(plan, "vllm");
  // vLLM asks 0.9 of the whole card and finds 16.46 GB free (its own CUDA context taken):
  // "Free memory on device ... on startup is less than desired GPU memory utilization".
  CHECK(Mb(v.requested_bytes) == 23181);
  CHECK(Mb(v.start_free_bytes) == 16457);
  CHECK_FALSE(v.starts);
  CHECK(Mb(plan.totals[0].bytes) == 24652);
  CHECK(Mb(plan.totals[0].over_bytes) == 6895);
  CHECK(plan.verdict == Verdict::kDoesNotFit);
  REQUIRE(plan.reasons.size() == 2);
  // On the empty card it would start: the same job fits once others hold at most 1.10 GB,
  // or at gpu_memory_utilization 0.43 to 0.63 beside the display.
  const JobChange& f = Change(plan, "mem_fraction", "vllm");
  CHECK(f.lo == doctest::Approx(0.43));
  CHECK(f.hi == doctest::Approx(0.63));
  CHECK(Mb(Change(plan, "held_bytes").hi) == 1104);
  JobsRequest at = r;
  at.jobs[1].config.mem_fraction = 0.63;
  CHECK(PlanJobs(at, false).verdict == Verdict::kFits);
}

TEST_CASE("jobs: the rules a request keeps, each error naming its field") {
  auto error = [](const char* json) {
    const JobsRequestParse p = JobsRequestFromJsonText(json);
    for (const Diagnostic& d : p.diagnostics)
      if (d.severity == Severity::kError) return d.field + ": " + d.message;
    return std::string();
  };
  CHECK(error(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "e", "kind": "engine", "config": {"model": "llama-3.2-1b"}}]})")
            .rfind("jobs[0].kind: a rollout engine needs its trainer", 0) == 0);
  CHECK(error(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer", "config": {"mode": "infer"}}]})")
            .rfind("jobs[0].config.mode:", 0) == 0);
  CHECK(error(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer",
                  "config": {"mode": "rlhf", "rlhf": "grpo"}}]})")
            .rfind("jobs[0].config.rollout_engine:", 0) == 0);
  CHECK(error(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "s", "kind": "server",
                  "config": {"runtime": "vllm"}, "draft": {"model": "llama-3.2-1b"}}]})")
            .rfind("jobs[0].draft: a draft model is counted under llama.cpp", 0) == 0);
  CHECK(error(R"({"gpu": "RTX-4090-24GB", "jobs": [{"name": "d", "kind": "held", "gb": 30}]})")
            .rfind("jobs[0].bytes:", 0) == 0);
  CHECK(error(R"({"gpu": "RTX-4090-24GB", "jobs": [{"name": "a", "kind": "held", "gb": 1},
                  {"name": "a", "kind": "held", "gb": 1}]})")
            .rfind("jobs[1].name: two jobs are named", 0) == 0);
  CHECK(error(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer", "config": {}},
                  {"name": "e", "kind": "engine", "process": "x", "config": {}}]})")
            .rfind("jobs[1].process:", 0) == 0);
  CHECK(error(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer", "config": {}},
                  {"name": "e", "kind": "engine", "sleep_level": 1, "config": {"runtime": "sglang"}}]})")
            .rfind("jobs[1].sleep_level: SGLang", 0) == 0);
  CHECK(error(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer",
                  "config": {"other_processes_gb": 3}}]})")
            .rfind("jobs[0].config.other_processes_gb:", 0) == 0);
  // The core refuses the same request when called without the JSON door.
  JobsRequest r;
  SelectGpu(r.gpu, *FindGpu("H100-SXM-80GB"));
  JobSpec e;
  e.name = "e";
  e.kind = JobKind::kEngine;
  e.config.mode = Mode::kInference;
  e.config.runtime = Runtime::kVllm;
  r.jobs.push_back(e);
  const JobsPlan plan = PlanJobs(r);
  CHECK_FALSE(plan.ok);
  CHECK(plan.error.rfind("jobs[0].kind:", 0) == 0);
}

}  // namespace llmmem::test
