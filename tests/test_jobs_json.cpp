// Several jobs on one GPU as data (core/plan/jobs_json.h, schema llmmem.jobs/1 in README.md
// "Several jobs on one GPU"): a request through the JS API's entry point, parsed back, every
// documented field present with its type. A field renamed, removed or retyped fails here: that
// change needs llmmem.jobs/2. Bad input answers ok false with an error naming the key.
#include <string>

#include <doctest.h>

#include "core/parse/json.h"
#include "core/plan/jobs_json.h"

namespace llmmem::core {
namespace {

enum class T { kNum, kStr, kBool, kObj, kArr };

void Has(const Json& j, const char* key, T type) {
  const Json* x = j.Find(key);
  REQUIRE_MESSAGE(x != nullptr, key);
  const bool ok = type == T::kNum    ? x->IsNumber()
                  : type == T::kStr  ? x->IsString()
                  : type == T::kBool ? x->IsBool()
                  : type == T::kObj  ? x->IsObject()
                                     : x->IsArray();
  CHECK_MESSAGE(ok, key);
}

void HasCategories(const Json& j) {
  Has(j, "bytes_by_category", T::kObj);
  for (const char* k : {"weights", "gradients", "master_weights", "optimizer_states", "activations", "kv_cache",
                        "buffers", "overheads"})
    Has(*j.Find("bytes_by_category"), k, T::kNum);
}

Json Plan(const std::string& request) {
  const JsonParseResult p = ParseJson(JobsJson(request));
  REQUIRE(p.ok);
  return p.value;
}

std::string ErrorOf(const std::string& request) {
  const Json j = Plan(request);
  CHECK(j.Find("schema")->AsString() == "llmmem.jobs/1");
  CHECK_FALSE(j.Find("ok")->AsBool());
  Has(j, "diagnostics", T::kArr);
  return j.Find("error") != nullptr ? j.Find("error")->AsString() : "";
}

}  // namespace

TEST_CASE("jobs JSON: llmmem.jobs/1, every documented field with its type") {
  const Json j = Plan(R"({"gpu": "H100-SXM-80GB", "jobs": [
    {"name": "display", "kind": "held", "bytes": 500000000},
    {"name": "trainer", "kind": "trainer", "config": {"model": "llama-3.2-1b", "mode": "train", "seq": 1024}},
    {"name": "rollout", "kind": "engine", "process": "trainer", "sleep_level": 1, "weight_sync": "bucket",
     "bucket_mib": 1024, "config": {"model": "llama-3.2-1b", "mem_fraction": 0.3, "seq": 1024, "batch": 16}},
    {"name": "small", "kind": "server", "config": {"model": "qwen3-0.6b", "runtime": "llama.cpp", "dtype": "q8_0",
     "seq": 2048}, "draft": {"model": "qwen3-0.6b", "dtype": "q4_0"}}]})");
  CHECK(std::string(kJobsSchema) == "llmmem.jobs/1");  // the version is part of the contract
  CHECK(j.Find("schema")->AsString() == "llmmem.jobs/1");
  Has(j, "ok", T::kBool);
  REQUIRE(j.Find("ok")->AsBool());
  Has(j, "gpu", T::kObj);
  Has(*j.Find("gpu"), "key", T::kStr);
  Has(*j.Find("gpu"), "capacity_bytes", T::kNum);
  for (const char* k : {"held_bytes", "free_bytes", "headroom_fraction", "budget_bytes"}) Has(j, k, T::kNum);
  CHECK(j.Find("held_bytes")->AsNumber() == 5e8);
  Has(j, "phases", T::kArr);
  const Json::Array& phases = j.Find("phases")->AsArray();
  REQUIRE(phases.size() == 5);
  const char* ids[] = {"weight_sync", "generate", "forward", "backward", "optimizer_step"};
  for (size_t i = 0; i < phases.size(); ++i) {
    const Json& p = phases[i];
    CHECK(p.Find("id")->AsString() == ids[i]);
    for (const char* k : {"id", "name", "driver"}) Has(p, k, T::kStr);
    for (const char* k : {"bytes", "over_bytes"}) Has(p, k, T::kNum);
    Has(p, "fits", T::kBool);
    HasCategories(p);
  }
  Has(j, "peak", T::kObj);
  for (const char* k : {"phase", "driver"}) Has(*j.Find("peak"), k, T::kStr);
  for (const char* k : {"bytes", "headroom_bytes"}) Has(*j.Find("peak"), k, T::kNum);
  Has(j, "verdict", T::kStr);
  CHECK(j.Find("verdict")->AsString() == "fits");
  Has(j, "reasons", T::kArr);
  Has(j, "jobs", T::kArr);
  const Json::Array& jobs = j.Find("jobs")->AsArray();
  REQUIRE(jobs.size() == 4);
  const char* kinds[] = {"held", "trainer", "engine", "server"};
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Json& x = jobs[i];
    CHECK(x.Find("kind")->AsString() == kinds[i]);
    for (const char* k : {"name", "kind", "model", "runtime", "verdict", "verdict_note", "launch", "source"})
      Has(x, k, T::kStr);
    for (const char* k : {"peak_bytes", "cpu_bytes", "sync_buffer_bytes", "draft_bytes"}) Has(x, k, T::kNum);
    Has(x, "start", T::kObj);
    for (const char* k : {"checked", "starts"}) Has(*x.Find("start"), k, T::kBool);
    for (const char* k : {"free_bytes", "requested_bytes"}) Has(*x.Find("start"), k, T::kNum);
    Has(x, "config", T::kObj);
    Has(x, "phases", T::kArr);
    REQUIRE(x.Find("phases")->AsArray().size() == 5);
    for (const Json& s : x.Find("phases")->AsArray()) {
      for (const char* k : {"phase", "state"}) Has(s, k, T::kStr);
      Has(s, "bytes", T::kNum);
      HasCategories(s);
    }
  }
  CHECK(jobs[2].Find("start")->Find("checked")->AsBool());
  CHECK(jobs[2].Find("cpu_bytes")->AsNumber() > 0);  // sleep level 1: the weights in host RAM
  CHECK(jobs[1].Find("sync_buffer_bytes")->AsNumber() == 1024.0 * 1048576);
  CHECK(jobs[3].Find("draft_bytes")->AsNumber() > 0);
  CHECK(jobs[3].Find("launch")->AsString().find("llama-server") == 0);
  Has(j, "changes", T::kArr);
  const Json::Array& changes = j.Find("changes")->AsArray();
  REQUIRE(changes.size() == 3);  // the engine's utilisation, the trainer's micro-batch, the held memory
  for (const Json& c : changes) {
    for (const char* k : {"job", "setting", "text"}) Has(c, k, T::kStr);
    for (const char* k : {"current", "lo", "hi"}) Has(c, k, T::kNum);
    Has(c, "fits", T::kBool);
  }
}

TEST_CASE("jobs JSON: bad input is an error value naming the key") {
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [)").find("line 1") != std::string::npos);  // malformed
  CHECK(ErrorOf(R"("a string")").find("an object") != std::string::npos);
  CHECK(ErrorOf(R"({"jobs": []})").rfind("gpu:", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "nope", "jobs": []})").rfind("gpu: \"nope\" is not a GPU", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": []})").rfind("jobs: a plan needs at least one job", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobz": []})").rfind("jobz:", 0) == 0);  // unknown key
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "gpu_memory_gb": -4, "jobs": []})").rfind("gpu_memory_gb:", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "x", "kind": "daemon"}]})").rfind("jobs[0].kind:", 0) ==
        0);
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "x", "kind": "held", "gb": 1, "colour": 3}]})")
            .rfind("jobs[0].colour: \"colour\" is not a key of a job", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "x", "kind": "trainer", "sleep_level": 1,
                    "config": {}}]})")
            .rfind("jobs[0].sleep_level: a trainer job has no \"sleep_level\"", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "x", "kind": "held", "gb": -2}]})")
            .rfind("jobs[0].gb:", 0) == 0);  // impossible number
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "x", "kind": "held", "bytes": 1e300}]})")
            .rfind("jobs[0].bytes:", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer", "config": {}},
                    {"name": "e", "kind": "engine", "sleep_level": 3, "config": {}}]})")
            .rfind("jobs[1].sleep_level:", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer", "config": {}},
                    {"name": "e", "kind": "engine", "weight_sync": "carrier pigeon", "config": {}}]})")
            .rfind("jobs[1].weight_sync:", 0) == 0);
  // The config's own keys: an unknown one is an error here, a bad value names its field.
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer", "config": {"bach": 4}}]})")
            .rfind("jobs[0].config.bach:", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer", "config": {"batch": -4}}]})")
            .rfind("jobs[0].config.batch:", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "H100-SXM-80GB", "jobs": [{"name": "t", "kind": "trainer",
                    "config": {"gpu": "RTX-4090-24GB"}}]})")
            .rfind("jobs[0].config.gpu: every job runs on the plan's GPU", 0) == 0);
  CHECK(ErrorOf(R"({"gpu": "RTX-4090-24GB", "jobs": [{"name": "s", "kind": "server",
                    "config": {"runtime": "llama.cpp", "dtype": "q4_k_m"}, "draft": {"seq": 512}}]})")
            .rfind("jobs[0].draft.seq:", 0) == 0);
}

TEST_CASE("jobs JSON: a bare list of jobs takes its GPU from the caller") {
  const JobsRequestParse p = JobsRequestFromJsonText(R"([{"name": "d", "kind": "held", "gb": 2},
    {"name": "s", "kind": "server", "config": {"model": "llama-3.2-1b", "runtime": "llama.cpp", "dtype": "q4_k_m"}}])",
                                                     "RTX-4090-24GB");
  REQUIRE_FALSE(HasErrors(p.diagnostics));
  CHECK(p.request.gpu.gpu == "RTX-4090-24GB");
  CHECK(p.request.jobs.size() == 2);
  CHECK(p.request.jobs[1].config.gpu == "RTX-4090-24GB");
  CHECK(HasErrors(JobsRequestFromJsonText(R"([{"name": "d", "kind": "held", "gb": 2}])").diagnostics));
}

}  // namespace llmmem::core
