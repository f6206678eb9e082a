// The model box's Hugging Face logic (src/app/hub_view.*): the search's debounce, the
// page's answers read back, a failed load leaving the model as it was, stale answers
// ignored, and the link key.
#include <doctest.h>

#include <cstdio>

#include "app/hub_view.h"
#include "app/state.h"
#include "core/config/config_json.h"

using namespace llmmem;
using namespace llmmem::app;

TEST_CASE("Hub box: search only after typing, debounced, never for URLs or id@rev") {
  HubView v;
  std::snprintf(v.text, sizeof v.text, "qwen");
  CHECK(HubSearchDue(v, 10) == "");  // nothing typed by the user (a link filled it)
  v.typed = true;
  v.edited_at = 10;
  CHECK(HubSearchDue(v, 10.1) == "");
  CHECK(HubSearchDue(v, 10.5) == "qwen");
  v.searched = "qwen";
  CHECK(HubSearchDue(v, 11) == "");
  std::snprintf(v.text, sizeof v.text, "q");
  CHECK(HubSearchDue(v, 11) == "");
  std::snprintf(v.text, sizeof v.text, "https://huggingface.co/x/y");
  CHECK(HubSearchDue(v, 11) == "");
  std::snprintf(v.text, sizeof v.text, "x/y@main");
  CHECK(HubSearchDue(v, 11) == "");
}

TEST_CASE("Hub box: a load's answer applies as one step; a failure changes nothing") {
  State s;
  s.config = core::DefaultConfig();
  const core::Config before = s.config;
  s.hub.seq = 2;
  HubResult r = HubResultFromJson(R"x({"seq":2,"ok":false,"error":"tiny/x (model info): not found (HTTP 404)"})x");
  ApplyHubResult(s, r);
  CHECK(s.hub.error.find("404") != std::string::npos);
  CHECK(s.config.model.name == before.model.name);
  CHECK(s.undo.empty());

  const std::string ok = R"({"seq":2,"ok":true,"ref":"tiny/m","gguf_files":[{"name":"a-Q4_K_M.gguf","size":10}],
    "result":{"ok":true,"dtype":"q4_k_m","approximate":true,"provenance":["weights: ..."],
    "config":{"mode":"infer","model":{"name":"tiny/m","hidden":16,"layers":2,"heads":2,"kv_heads":1,"head_dim":8,
    "ffn":32,"vocab":64}}}})";
  r = HubResultFromJson(ok);
  REQUIRE(r.ok);
  CHECK(r.approximate);
  CHECK(r.gguf_files.size() == 1);
  r.seq = 1;  // stale: an older request's answer
  ApplyHubResult(s, r);
  CHECK(s.config.model.name == before.model.name);
  r.seq = 2;
  s.config.mode = core::Mode::kInference;
  ApplyHubResult(s, r);
  CHECK(s.config.model.name == "tiny/m");
  CHECK(s.config.model.hidden == 16);
  CHECK(s.config.dtype == core::Dtype::kQ4_K_M);
  CHECK(s.hub.error.empty());
  CHECK(HubLinkKey(s) == "hf=tiny/m");
  s.config.model.name = "something else";
  CHECK(HubLinkKey(s) == "");
}

TEST_CASE("Hub box: hf= in a link asks for the model; search answers read back") {
  State s;
  const std::string rest = TakeViewKeys(s, "v=1&hf=Qwen/Qwen2.5-7B%40v1&units=gib");
  CHECK(s.hub.pending_link == "Qwen/Qwen2.5-7B@v1");
  CHECK(rest.find("hf=") == std::string::npos);
  const HubHits h = HubHitsFromJson(R"({"seq":3,"ok":true,"hits":[{"id":"a/b","downloads":5,"parameters":7}]})");
  CHECK(h.ok);
  CHECK(h.seq == 3);
  REQUIRE(h.hits.size() == 1);
  CHECK(h.hits[0].downloads == 5);
  CHECK_FALSE(HubResultFromJson("not json").ok);
}
