// The JS API's Hub functions (issue 15): the pure parts of loading a Hugging Face model,
// for web/hub.js, which does the fetching (the browser's fetch(), or node's). JSON text out.
//   hubParseRef(text, endpoint) -> {ok, repo_id, revision, file, text, error} (a URL's host
//     must be the endpoint's, see core::ParseHubRef)
//   hubTokenProblem(token) -> "" or why it cannot be sent (never repeating it)
//   hubEndpoint(value) -> {endpoint, error}      hubMirrors() -> [{name, endpoint}]
//   hubFileUrl(endpoint, repoId, revision, file), hubApiUrl(endpoint, repoId, revision),
//   hubSearchUrl(endpoint, query, limit) -> URL text (huggingface_hub's layout)
//   hubPlan(infoText, chosenGguf) -> {ok, error, info: {...}, plan: {has_config, kind,
//     weights_file, gguf_files: [{name, size}], gguf_parts: [a split GGUF's parts], note}}
//   hubReadSearch(text) -> {ok, error, hits: [{id, downloads, parameters}]}
//   hubErrorMessage(status, repoId, what, transport, errorCode, errorMessage, tokenSent) ->
//     a sentence (errorCode/errorMessage: the Hub's X-Error-Code / X-Error-Message headers)
//   hubIndexShards(bytes of model.safetensors.index.json) -> {ok, error, shard_files}: every
//     shard name a path inside the repo (core::HubPathProblem), else ok false
//   new HubBudget(timeoutMs, nowMs): the load's budget (core/hub/hub_budget.h), the same as
//     the CLI's: request(nowMs), time(nowMs), bytes(n), shards(n), splitParts(n) -> "" or the
//     sentence that stops the load; limits() -> {max_requests, max_bytes, max_wall_ms,
//     max_shards, max_split_parts}; requests(), received(). Call delete() when done.
//   new HubHeaderSum(): add(bytes, fileSize, fileName) -> "" or why the header cannot be
//     added (parsed by name as hubInspectHeader); count(). Each header is summed and its bytes
//     dropped, so the page holds one header at a time. delete() when done.
//   hubInspectHeader(bytes, fileSize, fileName) -> as inspectWeightHeader, the format by name
//   hubBuildModel(request, sum) -> {ok, error, config, approximate, model_type, dtype,
//     stored_bytes, provenance: [...], diagnostics}: request {name, config_text (absent: no
//     config.json), config_source, info_text, info_source, weights_file, weights_source};
//     sum: a HubHeaderSum of the weight headers (none added: no weights were read).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "core/config/config_json.h"
#include "core/hub/hub_api.h"
#include "core/hub/hub_budget.h"
#include "core/hub/hub_model.h"
#include "core/hub/hub_ref.h"
#include "core/io/json.h"
#include "core/report/result_json.h"

namespace llmmem::bindings {
namespace {

using core::Json;
using emscripten::val;

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
core::WeightHeaderResult ParseByName(const std::string& bytes, double file_size, const std::string& name) {
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
  return core::WeightHeaderToJson(ParseByName(bytes, file_size, name)).Dump();
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

int64_t Ms(double v) { return v > 0 && v < 9e15 ? static_cast<int64_t>(v) : 0; }
uint64_t Count(double v) { return v > 0 && v < 9e15 ? static_cast<uint64_t>(v) : 0; }

// core::HubBudget for the page: each call answers "" or the sentence that stops the load.
class JsHubBudget {
 public:
  JsHubBudget(double timeout_ms, double now_ms) : b_(core::HubBudgetFor(Ms(timeout_ms)), Ms(now_ms)) {}
  std::string Request(double now_ms) { return b_.Request(Ms(now_ms)) ? "" : b_.error(); }
  std::string Time(double now_ms) { return b_.Time(Ms(now_ms)) ? "" : b_.error(); }
  std::string Bytes(double n) { return b_.Bytes(Count(n)) ? "" : b_.error(); }
  std::string Shards(double n) { return b_.Shards(static_cast<int64_t>(Count(n))) ? "" : b_.error(); }
  std::string SplitParts(double n) { return b_.SplitParts(static_cast<int64_t>(Count(n))) ? "" : b_.error(); }
  double Requests() const { return static_cast<double>(b_.requests()); }
  double Received() const { return static_cast<double>(b_.bytes()); }
  std::string Limits() const {
    const core::HubBudgetLimits& l = b_.limits();
    Json j(Json::Object{});
    j["max_requests"] = Json(static_cast<double>(l.max_requests));
    j["max_bytes"] = Json(static_cast<double>(l.max_bytes));
    j["max_wall_ms"] = Json(static_cast<double>(l.max_wall_ms));
    j["max_shards"] = Json(static_cast<double>(l.max_shards));
    j["max_split_parts"] = Json(static_cast<double>(l.max_split_parts));
    return j.Dump();
  }

 private:
  core::HubBudget b_;
};

// core::HubHeaderSum for the page: one header's bytes in, summed, dropped.
class JsHeaderSum {
 public:
  std::string Add(const std::string& bytes, double file_size, const std::string& name) {
    const core::WeightHeaderResult h = ParseByName(bytes, file_size, name);
    if (!h.ok())
      return "the weights header of " + name + " could not be read: " +
             (h.message.empty() ? std::string("it is incomplete") : h.message);
    return sum_.Add(h) ? "" : sum_.error();
  }
  double Count() const { return static_cast<double>(sum_.count()); }
  const core::HubHeaderSum& sum() const { return sum_; }

 private:
  core::HubHeaderSum sum_;
};

std::string Str(const val& o, const char* key) {
  const val v = o[key];
  return v.isString() ? v.as<std::string>() : std::string();
}

std::string BuildModel(val request, const JsHeaderSum& headers) {
  Json out(Json::Object{});
  auto fail = [&](const std::string& why) {
    out["ok"] = Json(false);
    out["error"] = Json(why);
    return out.Dump();
  };
  if (request.typeOf().as<std::string>() != "object" || request.isNull())
    return fail("hubBuildModel(request, sum): an object and a HubHeaderSum");
  const std::string config_text = Str(request, "config_text");
  const bool has_config = request["config_text"].isString();
  const core::HubHeaderSum& sum = headers.sum();
  if (!sum.error().empty()) return fail("the weights header could not be read: " + sum.error());
  const core::WeightHeaderResult& weights = sum.total();
  core::HubInfoParse info;
  if (request["info_text"].isString()) info = core::ReadHubModelInfo(Str(request, "info_text"));
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

}  // namespace
}  // namespace llmmem::bindings

EMSCRIPTEN_BINDINGS(llmmem_hub) {
  using namespace llmmem::bindings;
  emscripten::function("hubParseRef", &ParseRef);
  emscripten::function("hubEndpoint", &Endpoint);
  emscripten::function("hubMirrors", &Mirrors);
  emscripten::function("hubFileUrl", &FileUrl);
  emscripten::function("hubApiUrl", &ApiUrl);
  emscripten::function("hubSearchUrl", &SearchUrl);
  emscripten::function("hubPlan", &Plan);
  emscripten::function("hubReadSearch", &ReadSearch);
  emscripten::function("hubErrorMessage", &ErrorMessage);
  emscripten::function("hubIndexShards", &IndexShards);
  emscripten::function("hubInspectHeader", &InspectHeader);
  emscripten::function("hubBuildModel", &BuildModel);
  emscripten::function("hubTokenProblem", &TokenProblem);
  emscripten::class_<JsHubBudget>("HubBudget")
      .constructor<double, double>()
      .function("request", &JsHubBudget::Request)
      .function("time", &JsHubBudget::Time)
      .function("bytes", &JsHubBudget::Bytes)
      .function("shards", &JsHubBudget::Shards)
      .function("splitParts", &JsHubBudget::SplitParts)
      .function("requests", &JsHubBudget::Requests)
      .function("received", &JsHubBudget::Received)
      .function("limits", &JsHubBudget::Limits);
  emscripten::class_<JsHeaderSum>("HubHeaderSum")
      .constructor<>()
      .function("add", &JsHeaderSum::Add)
      .function("count", &JsHeaderSum::Count);
}
