// The JS API: the core's estimate behind Embind, JSON text in and out, for node
// (build/wasm/llmmem_api.js) and for the page (the web app's Module). Same core, same
// numbers as the CLI and the UI.
//   estimate(configJson) -> result JSON (as llmmem --json)
//   estimateQuery(urlQuery) -> result JSON
//   defaultConfig() -> config JSON; configToQuery(configJson) -> "v=1&model=..."
//   presets() -> [{key, id, name, family, params, published_params, ok}]
//   importHfConfig(configJsonText) -> {ok, config, diagnostics}
#include <emscripten/bind.h>

#include <string>

#include "core/config_json.h"
#include "core/estimate.h"
#include "core/hf_config.h"
#include "core/presets.h"
#include "core/result_json.h"

namespace llmmem::bindings {
namespace {

using core::Json;

std::string EstimateParsed(const core::ConfigParse& parsed) {
  const core::Estimate e = core::Explain(parsed.config);
  Json j = core::EstimateToJson(parsed.config, e);
  // Input diagnostics first: a bad field is reported even though the rest was estimated.
  Json all = core::DiagnosticsToJson(parsed.diagnostics);
  for (const Json& d : j["diagnostics"].AsArray()) all.MutableArray().push_back(d);
  j["diagnostics"] = all;
  if (core::HasErrors(parsed.diagnostics)) j["ok"] = Json(false);
  return j.Dump();
}

std::string Estimate(const std::string& config_json) {
  return EstimateParsed(core::ConfigFromJsonText(config_json, core::DefaultConfig()));
}

std::string EstimateQuery(const std::string& query) {
  return EstimateParsed(core::ConfigFromQuery(query, core::DefaultConfig()));
}

std::string DefaultConfigJson() { return core::ConfigToJson(core::DefaultConfig()).Dump(); }

std::string ConfigToQuery(const std::string& config_json) {
  return core::ConfigToQuery(core::ConfigFromJsonText(config_json, core::DefaultConfig()).config);
}

std::string PresetsJson() {
  Json::Array out;
  for (const core::Preset& p : core::Presets()) {
    Json j(Json::Object{});
    j["key"] = Json(p.key);
    j["id"] = Json(p.hf_id);
    j["name"] = Json(p.name);
    j["family"] = Json(p.family);
    j["ok"] = Json(p.ok);
    j["params"] = Json(p.ok ? static_cast<double>(core::CountParameters(p.model).total) : 0.0);
    j["published_params"] = Json(static_cast<double>(p.published_params));
    out.push_back(std::move(j));
  }
  return Json(std::move(out)).Dump();
}

std::string ImportHfConfig(const std::string& text) {
  core::HfImport imported = core::ImportHfConfigText(text, "imported");
  Json j(Json::Object{});
  j["ok"] = Json(imported.ok);
  j["diagnostics"] = core::DiagnosticsToJson(imported.diagnostics);
  if (imported.ok) {
    core::Config c = core::DefaultConfig();
    c.model = imported.model;
    j["config"] = core::ConfigToJson(c);
  }
  return j.Dump();
}

}  // namespace
}  // namespace llmmem::bindings

EMSCRIPTEN_BINDINGS(llmmem) {
  using namespace llmmem::bindings;
  emscripten::function("estimate", &Estimate);
  emscripten::function("estimateQuery", &EstimateQuery);
  emscripten::function("defaultConfig", &DefaultConfigJson);
  emscripten::function("configToQuery", &ConfigToQuery);
  emscripten::function("presets", &PresetsJson);
  emscripten::function("importHfConfig", &ImportHfConfig);
}
