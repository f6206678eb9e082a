// The serving planner (core/plan/serve_plan.h): each option is the edge of what fits (one
// more request or token does not), within the fit solver's budget (vLLM: its own share),
// ranked by the goal, with the runtime's launch command carrying the planned settings.
#include <string>

#include <doctest.h>

#include "core/parse/json.h"
#include "core/plan/serve_plan.h"
#include "core/plan/serve_plan_json.h"
#include "setups.h"

namespace llmmem::test {

TEST_CASE("serve plan: llama.cpp, the longest context on a 12 GB card, by KV format") {
  ServePlanRequest r;
  r.base = WithSettings("llama-3.1-8b", {{"mode", "infer"}, {"runtime", "llama.cpp"}, {"dtype", "q4_k_m"},
                                         {"gpu", "RTX-3060-12GB"}, {"batch", "1"}, {"seq", "8192"}});
  r.gpus = 1;
  r.goal = ServeGoal::kContext;
  const ServePlan plan = PlanServing(r);
  REQUIRE(plan.ok);
  REQUIRE(plan.options.size() == 3);  // f16, q8_0, q4_0 KV
  // The cheapest KV holds the most context: q4_0 reaches the model's whole 131,072 tokens.
  CHECK(plan.options[0].kv_dtype == Dtype::kQ4_0);
  CHECK(plan.options[0].context == 131072);
  CHECK(plan.options[1].kv_dtype == Dtype::kQ8_0);
  CHECK(plan.options[2].kv_dtype == Dtype::kFp16);
  CHECK(plan.options[1].context > plan.options[2].context);
  for (const ServeOption& o : plan.options) {
    const Totals t = EstimateTotals(o.config);
    CHECK(t.peak_bytes <= FitBudget(t.capacity_bytes));
    if (o.context < 131072) {  // the edge: one more token does not fit
      Config more = o.config;
      more.seq = o.context + 1;
      CHECK(EstimateTotals(more).peak_bytes > FitBudget(t.capacity_bytes));
    }
    CHECK(o.launch.find("-c " + std::to_string(o.context)) != std::string::npos);
  }
  CHECK(plan.options[0].launch.find("-ctk q4_0") != std::string::npos);
}

TEST_CASE("serve plan: vLLM, the most requests at 8192 tokens over up to four 24 GB cards") {
  ServePlanRequest r;
  r.base = WithSettings("llama-3.1-8b", {{"mode", "infer"}, {"runtime", "vllm"}, {"gpu", "RTX-4090-24GB"},
                                         {"seq", "8192"}});
  r.gpus = 4;
  r.goal = ServeGoal::kConcurrency;
  r.top = 10;
  const ServePlan plan = PlanServing(r);
  REQUIRE(plan.ok);
  REQUIRE(!plan.options.empty());
  // tp 1, 2, 4 (3 does not divide 32 heads / 8 KV heads) x KV bf16, fp8.
  CHECK(plan.considered == 6);
  const ServeOption& best = plan.options[0];
  CHECK(best.gpus == 4);
  CHECK(best.kv_dtype == Dtype::kFp8);
  for (size_t i = 1; i < plan.options.size(); ++i) CHECK(plan.options[i - 1].concurrency >= plan.options[i].concurrency);
  for (const ServeOption& o : plan.options) {
    CHECK(EstimateTotals(o.config).Fits());
    Config more = o.config;
    more.batch = o.concurrency + 1;
    more.max_num_seqs = 0;
    CHECK_FALSE(EstimateTotals(more).Fits());
    if (o.gpus > 1)  // tp 1 is vLLM's default and the command leaves it out
      CHECK(o.launch.find("--tensor-parallel-size " + std::to_string(o.gpus)) != std::string::npos);
    CHECK(o.launch.find("--max-num-seqs " + std::to_string(o.concurrency)) != std::string::npos);
  }
}

TEST_CASE("serve plan JSON: llmmem.serve_plan/1, every field with its type") {
  const JsonParseResult p = ParseJson(ServePlanJson(
      R"({"config": {"model": "llama-3.1-8b", "mode": "infer", "runtime": "llama.cpp", "dtype": "q4_k_m",
                     "gpu": "RTX-3060-12GB", "seq": 8192}, "gpus": 1, "goal": "context"})"));
  REQUIRE(p.ok);
  const Json& j = p.value;
  CHECK(j.Find("schema")->AsString() == "llmmem.serve_plan/1");
  CHECK(j.Find("ok")->AsBool());
  for (const char* k : {"model", "gpu", "runtime", "goal"}) CHECK_MESSAGE(j.Find("request")->Find(k)->IsString(), k);
  for (const char* k : {"gpus", "seq", "batch"}) CHECK_MESSAGE(j.Find("request")->Find(k)->IsNumber(), k);
  for (const char* k : {"considered", "evaluated"}) CHECK_MESSAGE(j.Find("search")->Find(k)->IsNumber(), k);
  const Json::Array& opts = j.Find("options")->AsArray();
  REQUIRE(opts.size() == 3);
  for (const Json& o : opts) {
    for (const char* k : {"gpus", "gpu_layers", "context", "concurrency", "peak_bytes"})
      CHECK_MESSAGE(o.Find(k)->IsNumber(), k);
    for (const char* k : {"kv_dtype", "launch"}) CHECK_MESSAGE(o.Find(k)->IsString(), k);
    CHECK(o.Find("config")->IsObject());
  }
  CHECK(opts[0].Find("context")->AsNumber() == 131072);
}

}  // namespace llmmem::test
