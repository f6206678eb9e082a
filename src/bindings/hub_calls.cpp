// The Hub's pure calls (hub_calls.h).
#include "bindings/hub_calls.h"

#include "core/config/config_json.h"
#include "core/hub/hub_api.h"
#include "core/hub/hub_ref.h"
#include "core/report/result_json.h"

namespace llmmem::bindings::hub {

using core::Json;

namespace {
std::string Str(const Json& o, const char* key) {
  const Json* v = o.Find(key);
  return v != nullptr && v->IsString() ? v->AsString() : std::string();
}
}  // namespace

std::string ParseRef(const std::string& text, const std::string& endpoint) {
  const core::HubRefParse p = core::ParseHubRef(text, endpoint);
  Json j(Json::Object{});
  j["ok"] = Json(p.ok);
  if (p.ok) {
    j["repo_id"] = Json(p.ref.repo_id);
    j["revision"] = Json(p.ref.revision);
    j["file"] = Json(p.ref.file);
    j["text"] = Json(core::HubRefToText(p.ref));
  } else {
    j["error"] = Json(p.error);
  }
  return j.Dump();
}

std::string Endpoint(const std::string& value) {
  std::string error;
  Json j(Json::Object{});
  j["endpoint"] = Json(core::HubEndpoint(value, &error));
  j["error"] = Json(error);
  return j.Dump();
}

std::string Mirrors() {
  size_t n = 0;
  const core::HubMirror* m = core::HubMirrors(&n);
  Json::Array out;
  for (size_t i = 0; i < n; ++i) {
    Json j(Json::Object{});
    j["name"] = Json(m[i].name);
    j["endpoint"] = Json(m[i].endpoint);
    out.push_back(std::move(j));
  }
  return Json(std::move(out)).Dump();
}

std::string FileUrl(const std::string& endpoint, const std::string& id, const std::string& rev,
                    const std::string& file) {
  return core::HubFileUrl(endpoint, core::HubRef{id, rev, ""}, file);
}
std::string ApiUrl(const std::string& endpoint, const std::string& id, const std::string& rev) {
  return core::HubModelApiUrl(endpoint, core::HubRef{id, rev, ""});
}
std::string SearchUrl(const std::string& endpoint, const std::string& query, int limit) {
  return core::HubSearchUrl(endpoint, query, limit);
}

Json FilesJson(const std::vector<core::HubFile>& files) {
  Json::Array out;
  for (const core::HubFile& f : files) {
    Json j(Json::Object{});
    j["name"] = Json(f.name);
    j["size"] = Json(static_cast<double>(f.size));
    out.push_back(std::move(j));
  }
  return Json(std::move(out));
}

std::string Plan(const std::string& info_text, const std::string& chosen_gguf) {
  const core::HubInfoParse p = core::ReadHubModelInfo(info_text);
  Json j(Json::Object{});
  j["ok"] = Json(p.ok);
  if (!p.ok) {
    j["error"] = Json(p.error);
    return j.Dump();
  }
  Json info(Json::Object{});
  info["id"] = Json(p.info.id);
  info["sha"] = Json(p.info.sha);
  info["gated"] = Json(p.info.gated);
  info["model_type"] = Json(p.info.model_type);
  info["safetensors_total"] = Json(static_cast<double>(p.info.safetensors_total));
  j["info"] = std::move(info);
  const core::HubFilePlan plan = core::PlanHubFiles(p.info.files, chosen_gguf);
  static const char* kKinds[] = {"none", "safetensors", "safetensors_index", "gguf"};
  Json pj(Json::Object{});
  pj["has_config"] = Json(plan.has_config);
  pj["kind"] = Json(kKinds[static_cast<int>(plan.kind)]);
  pj["weights_file"] = Json(plan.weights_file);
  pj["gguf_files"] = FilesJson(plan.gguf_files);
  Json::Array parts;
  for (const std::string& p : plan.gguf_parts) parts.push_back(Json(p));
  pj["gguf_parts"] = Json(std::move(parts));
  pj["note"] = Json(plan.note);
  j["plan"] = std::move(pj);
  return j.Dump();
}

std::string ReadSearch(const std::string& text) {
  const core::HubSearchParse p = core::ReadHubSearch(text);
  Json j(Json::Object{});
  j["ok"] = Json(p.ok);
  j["error"] = Json(p.error);
  Json::Array hits;
  for (const core::HubSearchHit& h : p.hits) {
    Json x(Json::Object{});
    x["id"] = Json(h.id);
    x["downloads"] = Json(static_cast<double>(h.downloads));
    x["parameters"] = Json(static_cast<double>(h.parameters));
    hits.push_back(std::move(x));
  }
  j["hits"] = Json(std::move(hits));
  return j.Dump();
}

std::string IndexShards(const std::string& bytes) {
  const core::WeightHeaderResult r = core::ParseWeightHeader(bytes, bytes.size());
  Json j(Json::Object{});
  const bool ok = r.ok() && r.format == core::WeightFormat::kSafetensorsIndex;
  j["ok"] = Json(ok);
  j["error"] = Json(ok ? "" : r.message.empty() ? "not a model.safetensors.index.json" : r.message);
  std::string bad;
  for (const std::string& f : r.index.shard_files)
    if (bad.empty()) bad = core::HubPathProblem(f);
  if (!bad.empty()) {
    j["ok"] = Json(false);
    j["error"] = Json("the index names a shard that " + bad + "; refused");
  }
  Json::Array files;
  for (const std::string& f : r.index.shard_files) files.push_back(Json(f));
  j["shard_files"] = Json(std::move(files));
  return j.Dump();
}

// inspectWeightHeader with the format taken from the file's name (the plan chose the file
// by it): a safetensors header's length is judged from its first 8 bytes alone, so a
// header over 100 MB is refused before anything more is fetched.
core::WeightHeaderResult ParseWeightHeaderByName(const std::string& bytes, double file_size, const std::string& name) {
  const uint64_t size = file_size >= static_cast<double>(bytes.size()) && file_size < 9e15
                            ? static_cast<uint64_t>(file_size)
                            : bytes.size();
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  auto ends = [&](const char* suffix) {
    const std::string s(suffix);
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  if (ends(".safetensors")) return core::ParseSafetensorsHeader(data, bytes.size(), size);
  if (ends(".gguf") || ends(".GGUF")) return core::ParseGgufHeader(data, bytes.size(), size);
  return core::ParseWeightHeader(data, bytes.size(), size);
}

std::string InspectHeader(const std::string& bytes, double file_size, const std::string& name) {
  return core::WeightHeaderToJson(ParseWeightHeaderByName(bytes, file_size, name)).Dump();
}

std::string ErrorMessage(int status, const std::string& id, const std::string& what, const std::string& transport,
                         const std::string& code, const std::string& message, bool token_sent) {
  core::HubFailure f;
  f.status = status;
  f.transport = transport;
  f.error_code = code;
  f.error_message = message;
  f.token_sent = token_sent;
  return core::HubErrorMessage(f, id, what);
}

std::string TokenProblem(const std::string& token) { return core::HubTokenProblem(token, "the access token"); }

int64_t HubMs(double v) { return v > 0 && v < 9e15 ? static_cast<int64_t>(v) : 0; }
uint64_t HubCount(double v) { return v > 0 && v < 9e15 ? static_cast<uint64_t>(v) : 0; }

std::string BuildModel(const Json& request, const HeaderSumCalls& headers) {
  Json out(Json::Object{});
  auto fail = [&](const std::string& why) {
    out["ok"] = Json(false);
    out["error"] = Json(why);
    return out.Dump();
  };
  if (!request.IsObject()) return fail("hubBuildModel(request, sum): an object and a HubHeaderSum");
  const std::string config_text = Str(request, "config_text");
  const bool has_config = request.Find("config_text") != nullptr && request.Find("config_text")->IsString();
  const core::HubHeaderSum& sum = headers.sum();
  if (!sum.error().empty()) return fail("the weights header could not be read: " + sum.error());
  const core::WeightHeaderResult& weights = sum.total();
  core::HubInfoParse info;
  if (const Json* t = request.Find("info_text"); t != nullptr && t->IsString()) info = core::ReadHubModelInfo(t->AsString());
  core::HubModelInput in;
  in.name = Str(request, "name");
  in.config_text = has_config ? &config_text : nullptr;
  in.config_source = Str(request, "config_source");
  in.weights = sum.count() == 0 ? nullptr : &weights;
  in.weights_file = Str(request, "weights_file");
  in.weights_source = Str(request, "weights_source");
  in.info = info.ok ? &info.info : nullptr;
  in.info_source = Str(request, "info_source");
  const core::HubModelBuild b = core::BuildHubModel(in);
  out["ok"] = Json(b.ok);
  Json::Array lines;
  for (const std::string& p : b.provenance) lines.push_back(Json(p));
  out["provenance"] = Json(std::move(lines));
  out["diagnostics"] = core::DiagnosticsToJson(b.diagnostics);
  if (!b.ok) {
    for (const core::Diagnostic& d : b.diagnostics)
      if (d.severity == core::Severity::kError) out["error"] = Json(d.message);
    return out.Dump();
  }
  core::Config c = core::DefaultConfig();
  c.model = b.model;
  if (b.dtype_known) c.dtype = b.dtype;
  out["config"] = core::ConfigToJson(c);
  out["approximate"] = Json(b.approximate);
  out["model_type"] = Json(b.model_type);
  out["dtype"] = Json(b.dtype_known ? core::Info(b.dtype).id : "");
  out["stored_bytes"] = Json(static_cast<double>(b.stored_bytes));
  return out.Dump();
}

std::string HubBudgetCalls::Limits() const {
  const core::HubBudgetLimits& l = b_.limits();
  core::Json j(core::Json::Object{});
  j["max_requests"] = core::Json(static_cast<double>(l.max_requests));
  j["max_bytes"] = core::Json(static_cast<double>(l.max_bytes));
  j["max_wall_ms"] = core::Json(static_cast<double>(l.max_wall_ms));
  j["max_shards"] = core::Json(static_cast<double>(l.max_shards));
  j["max_split_parts"] = core::Json(static_cast<double>(l.max_split_parts));
  return j.Dump();
}

std::string HeaderSumCalls::Add(const std::string& bytes, double file_size, const std::string& name) {
  const core::WeightHeaderResult h = ParseWeightHeaderByName(bytes, file_size, name);
  if (!h.ok())
    return "the weights header of " + name + " could not be read: " +
           (h.message.empty() ? std::string("it is incomplete") : h.message);
  return sum_.Add(h) ? "" : sum_.error();
}

}  // namespace llmmem::bindings::hub
