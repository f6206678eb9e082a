// The plan as data (core/plan/plan_json.h, schema llmmem.plan/1 in README.md "The plan as
// JSON"): a real request through the JS API's entry point, parsed back, every field of the
// documented schema present with its type. A field renamed, removed or retyped fails here:
// that change needs llmmem.plan/2.
#include <string>

#include <doctest.h>

#include "core/parse/json.h"
#include "core/plan/plan_json.h"

namespace llmmem::core {
namespace {

enum class T { kNum, kStr, kBool, kObj, kArr };

void Has(const Json& j, const char* key, T type) {
  const Json* x = j.Find(key);
  REQUIRE_MESSAGE(x != nullptr, key);
  switch (type) {
    case T::kNum:
      CHECK_MESSAGE(x->IsNumber(), key);
      break;
    case T::kStr:
      CHECK_MESSAGE(x->IsString(), key);
      break;
    case T::kBool:
      CHECK_MESSAGE(x->IsBool(), key);
      break;
    case T::kObj:
      CHECK_MESSAGE(x->IsObject(), key);
      break;
    case T::kArr:
      CHECK_MESSAGE(x->IsArray(), key);
      break;
  }
}

void CheckSettings(const Json& s) {
  for (const char* k : {"gpus", "tp", "pp", "vpp", "cp", "ep", "dp", "zero", "micro_batch", "grad_accum"})
    Has(s, k, T::kNum);
  for (const char* k : {"schedule", "sharding", "recompute", "offload_optimizer", "optimizer_impl"}) Has(s, k, T::kStr);
  Has(s, "sp", T::kBool);
}

}  // namespace

TEST_CASE("plan JSON: llmmem.plan/1, every documented field with its type") {
  const std::string out = PlanJson(
      R"({"config": {"model": "llama-3.1-8b", "gpu": "H100-SXM-80GB", "framework": "megatron"},
          "gpus": 8, "global_batch_tokens": 1048576, "seq": 8192, "top": 2})");
  const JsonParseResult p = ParseJson(out);
  REQUIRE(p.ok);
  const Json& j = p.value;
  CHECK(std::string(kPlanSchema) == "llmmem.plan/1");  // the version is part of the contract
  REQUIRE(j.Find("schema") != nullptr);
  CHECK(j.Find("schema")->AsString() == "llmmem.plan/1");
  Has(j, "ok", T::kBool);
  CHECK(j.Find("ok")->AsBool());
  for (const char* k : {"capacity_bytes", "budget_bytes", "headroom_fraction"}) Has(j, k, T::kNum);
  CHECK(j.Find("headroom_fraction")->AsNumber() == doctest::Approx(0.02));
  Has(j, "request", T::kObj);
  const Json& req = *j.Find("request");
  for (const char* k : {"gpus", "max_gpus", "global_batch_tokens", "seq", "top"}) Has(req, k, T::kNum);
  for (const char* k : {"model", "gpu"}) Has(req, k, T::kStr);
  Has(req, "assumptions", T::kObj);
  for (const char* k : {"link_gbps", "network_gbps", "gpus_per_node", "pcie_gbps", "mfu"})
    Has(*req.Find("assumptions"), k, T::kNum);
  Has(j, "search", T::kObj);
  for (const char* k : {"considered", "evaluated", "pruned", "invalid", "feasible"}) Has(*j.Find("search"), k, T::kNum);
  Has(j, "candidates", T::kArr);
  const Json::Array& cands = j.Find("candidates")->AsArray();
  REQUIRE(cands.size() == 2);
  for (const Json& c : cands) {
    for (const char* k : {"rank", "peak_bytes", "headroom_bytes", "capacity_headroom_bytes", "cpu_bytes",
                          "pipeline_stage", "tokens_per_s"})
      Has(c, k, T::kNum);
    Has(c, "peak_moment", T::kStr);
    Has(c, "layout", T::kStr);
    CHECK(c.Find("layout")->AsString().rfind("tp ", 0) == 0);
    Has(c, "settings", T::kObj);
    CheckSettings(*c.Find("settings"));
    Has(c, "config", T::kObj);
    CHECK(c.Find("config")->Find("tp") != nullptr);
    Has(c, "bytes_by_category", T::kObj);
    for (const char* k : {"weights", "gradients", "master_weights", "optimizer_states", "activations", "kv_cache",
                          "buffers", "overheads"})
      Has(*c.Find("bytes_by_category"), k, T::kNum);
    Has(c, "bytes_by_phase", T::kObj);
    for (const char* k : {"forward_end", "optimizer_step", "generation", "layer_backward"})
      Has(*c.Find("bytes_by_phase"), k, T::kNum);
    Has(c, "step", T::kObj);
    for (const char* k : {"total_s", "compute_s", "bubble_s", "tp_comm_s", "cp_comm_s", "dp_comm_s", "ep_comm_s", "offload_s"})
      Has(*c.Find("step"), k, T::kNum);
    Has(c, "neighbours", T::kArr);
    for (const Json& n : c.Find("neighbours")->AsArray()) {
      for (const char* k : {"change", "verdict", "text"}) Has(n, k, T::kStr);
      for (const char* k : {"peak_bytes", "over_bytes", "step_s"}) Has(n, k, T::kNum);
    }
    CHECK(c.Find("headroom_bytes")->AsNumber() >= 0);
  }
  Has(j, "pareto", T::kArr);
  REQUIRE(!j.Find("pareto")->AsArray().empty());
  for (const Json& x : j.Find("pareto")->AsArray()) {
    CheckSettings(*x.Find("settings"));
    Has(x, "peak_bytes", T::kNum);
    Has(x, "step_s", T::kNum);
  }
}

TEST_CASE("plan JSON: a bad request answers ok false under the same schema") {
  const JsonParseResult p = ParseJson(PlanJson(R"({"config": {"model": "llama-3.1-8b"}, "gpus": 8, "seq": 8192})"));
  REQUIRE(p.ok);
  CHECK(p.value.Find("schema")->AsString() == "llmmem.plan/1");
  CHECK_FALSE(p.value.Find("ok")->AsBool());
  CHECK(p.value.Find("error")->AsString() == "global_batch_tokens: global_batch_tokens is required");
}

}  // namespace llmmem::core
