// The model box's Hugging Face logic; see hub_view.h.
#include "app/hub_view.h"

#include "app/i18n.h"
#include "app/state.h"
#include "core/config/config_json.h"
#include "core/hub/hub_ref.h"
#include "core/parse/json.h"
#include "core/parse/percent_encoding.h"

namespace llmmem::app {
namespace {

std::string Str(const core::Json& j, const char* key) {
  const core::Json* v = j.Find(key);
  return v != nullptr && v->IsString() ? v->AsString() : std::string();
}

double Num(const core::Json& j, const char* key, double fallback) {
  const core::Json* v = j.Find(key);
  return v != nullptr && v->IsNumber() ? v->AsNumber() : fallback;
}

}  // namespace

std::string HubSearchDue(const HubView& v, double now) {
  if (!v.typed || v.edited_at < 0 || now - v.edited_at < kHubSearchDebounce) return "";
  std::string q = v.text;
  while (!q.empty() && q.back() == ' ') q.pop_back();
  while (!q.empty() && q.front() == ' ') q.erase(q.begin());
  if (q.size() < kHubSearchMinChars || q == v.searched) return "";
  if (q.find("://") != std::string::npos || q.find('@') != std::string::npos) return "";
  return q;
}

HubResult HubResultFromJson(const std::string& text) {
  HubResult r;
  const core::JsonParseResult j = core::ParseJson(text);
  if (!j.ok || !j.value.IsObject()) {
    r.error = Tr("the page's loader answered something unreadable");
    return r;
  }
  const core::Json& o = j.value;
  r.seq = static_cast<int64_t>(Num(o, "seq", 0));
  r.ref = Str(o, "ref");
  r.error = Str(o, "error");
  if (const core::Json* files = o.Find("gguf_files"); files != nullptr && files->IsArray()) {
    for (const core::Json& f : files->AsArray())
      if (f.IsObject()) r.gguf_files.push_back({Str(f, "name"), static_cast<int64_t>(Num(f, "size", -1))});
  }
  const core::Json* result = o.Find("result");
  const core::Json* ok = o.Find("ok");
  if (ok == nullptr || !ok->IsBool() || !ok->AsBool() || result == nullptr || !result->IsObject()) {
    if (r.error.empty()) r.error = Tr("the model could not be loaded");
    return r;
  }
  if (const core::Json* lines = result->Find("provenance"); lines != nullptr && lines->IsArray()) {
    for (const core::Json& l : lines->AsArray())
      if (l.IsString()) r.provenance.push_back(l.AsString());
  }
  const core::Json* config = result->Find("config");
  if (config == nullptr) {
    r.error = Tr("the loader's answer has no model");
    return r;
  }
  const core::ConfigParse parsed = core::ConfigFromJsonText(config->Dump(), core::DefaultConfig());
  if (core::HasErrors(parsed.diagnostics)) {
    r.error = TrF("the loaded model is out of range: %s", parsed.diagnostics.front().message.c_str());
    return r;
  }
  r.model = parsed.config.model;
  const std::string dtype = Str(*result, "dtype");
  r.dtype_known = !dtype.empty() && core::ParseId(dtype, r.dtype);
  const core::Json* approx = result->Find("approximate");
  r.approximate = approx != nullptr && approx->IsBool() && approx->AsBool();
  r.gguf_file = Str(o, "gguf_file");
  r.ok = true;
  return r;
}

HubHits HubHitsFromJson(const std::string& text) {
  HubHits h;
  const core::JsonParseResult j = core::ParseJson(text);
  if (!j.ok || !j.value.IsObject()) {
    h.error = Tr("the search answered something unreadable");
    return h;
  }
  h.seq = static_cast<int64_t>(Num(j.value, "seq", 0));
  h.error = Str(j.value, "error");
  const core::Json* ok = j.value.Find("ok");
  h.ok = ok != nullptr && ok->IsBool() && ok->AsBool();
  if (const core::Json* hits = j.value.Find("hits"); hits != nullptr && hits->IsArray()) {
    for (const core::Json& x : hits->AsArray()) {
      if (!x.IsObject() || Str(x, "id").empty()) continue;
      h.hits.push_back({Str(x, "id"), static_cast<int64_t>(Num(x, "downloads", -1)),
                        static_cast<int64_t>(Num(x, "parameters", -1))});
    }
  }
  return h;
}

void ApplyHubResult(State& s, const HubResult& r) {
  HubView& v = s.hub;
  if (r.seq != v.seq) return;  // an older request's answer
  v.loading = false;
  if (!r.ok) {
    v.error = r.error.empty() ? Tr("the model could not be loaded") : r.error;
    return;
  }
  v.error.clear();
  v.loaded = r;
  core::Config c = s.config;
  c.model = r.model;
  c.model.preset.clear();
  // The stored format, where the mode runs the weights as stored (QLoRA keeps its NF4 base).
  if (r.dtype_known &&
      (c.mode == core::Mode::kInference || (core::Info(r.dtype).trainable && c.mode != core::Mode::kQlora)))
    c.dtype = r.dtype;
  core::Diagnostics notes;
  core::StartAtModelContext(c, notes);
  ApplyConfig(s, c, "model " + r.ref);
}

std::string HubLinkKey(const State& s) {
  const HubView& v = s.hub;
  if (!v.loaded.ok || v.loaded.ref.empty() || s.config.model.name != v.loaded.model.name) return "";
  return "hf=" + core::PercentEncode(v.loaded.ref, "/");
}

}  // namespace llmmem::app
