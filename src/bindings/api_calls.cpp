// The JS API's calls, JSON text in and JSON text out, as plain C++ (no Embind): the Embind
// module (embind_api.cpp) and the Python module (python_module.cpp) bind these same functions,
// so the two doors give the same answers as each other and as the CLI. What each takes and
// answers is documented in api_calls.h.
#include "bindings/api_calls.h"

#include <string>

#include "core/config/config_json.h"
#include "core/config/config_schema.h"
#include "core/solve/doctor.h"
#include "core/report/doctor_json.h"
#include "core/report/export.h"
#include "core/report/fit_json.h"
#include "core/parse/weight_headers.h"
#include "core/estimate/estimate.h"
#include "core/import/hf_config.h"
#include "core/import/quantization_config.h"
#include "core/oom/oom_json.h"
#include "core/catalogue/presets.h"
#include "core/report/launch_export.h"
#include "core/report/published_bands.h"
#include "core/report/result_json.h"
#include "core/base/safe_text.h"
#include "core/config/validate.h"
#include "core/report/serving_json.h"

namespace llmmem::bindings {

using core::Json;

namespace {

// Bad input is reported, never answered for the defaults: an entry point whose input has
// an error returns this document instead of its usual answer.
std::string ErrorDocument(const core::Diagnostics& d) {
  Json j(Json::Object{});
  j["ok"] = Json(false);
  j["diagnostics"] = core::DiagnosticsToJson(d);
  for (const core::Diagnostic& x : d) {
    if (x.severity != core::Severity::kError) continue;
    j["error"] = Json((x.field.empty() ? "" : x.field + ": ") + x.message);
    break;
  }
  return j.Dump();
}

std::string EstimateParsed(const core::ConfigParse& parsed) {
  // An input error: no figures at all (they would be the defaults' for the bad field), but
  // every other field's problems.
  core::Estimate e;
  if (core::HasErrors(parsed.diagnostics))
    e.diagnostics = core::Validate(parsed.config);
  else
    e = core::Explain(parsed.config);
  Json j = core::EstimateToJson(parsed.config, e);
  // How far published runs of the same program were from the estimate (issue 30), as the CLI.
  if (Json band = core::PublishedBandJson(parsed.config); !band.IsNull()) j["published_runs"] = std::move(band);
  // Input diagnostics first: a bad field is reported even though the rest was estimated.
  Json all = core::DiagnosticsToJson(parsed.diagnostics);
  for (const Json& d : j["diagnostics"].AsArray()) all.MutableArray().push_back(d);
  j["diagnostics"] = all;
  if (core::HasErrors(parsed.diagnostics)) j["ok"] = Json(false);
  return j.Dump();
}

}  // namespace

std::string Estimate(const std::string& config_json) {
  return EstimateParsed(core::ConfigFromJsonText(config_json, core::DefaultConfig()));
}

std::string EstimateQuery(const std::string& query) {
  return EstimateParsed(core::ConfigFromQuery(query, core::DefaultConfig()));
}

std::string DefaultConfigJson() { return core::ConfigToJson(core::DefaultConfig()).Dump(); }

std::string ConfigToQuery(const std::string& config_json) {
  const core::ConfigParse parsed = core::ConfigFromJsonText(config_json, core::DefaultConfig());
  if (core::HasErrors(parsed.diagnostics)) return ErrorDocument(parsed.diagnostics);
  return core::ConfigToQuery(parsed.config);
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
  if (imported.ok) {
    core::Config c = core::DefaultConfig();
    c.model = imported.model;
    core::StartAtModelContext(c, imported.diagnostics);  // GPT-2, BERT: their own context
    j["config"] = core::ConfigToJson(c);
    // The format quantization_config says the weights are stored in (a 4-bit bitsandbytes
    // checkpoint: nf4), which the configuration leaves to the workload; the Python reader
    // tells QLoRA from LoRA by it.
    core::Dtype stored;
    const core::JsonParseResult config = core::ParseJson(text);
    if (config.ok && core::DtypeFromQuantConfig(config.value, &stored)) j["checkpoint_dtype"] = Json(core::Id(stored));
  }
  j["diagnostics"] = core::DiagnosticsToJson(imported.diagnostics);
  return j.Dump();
}

std::string ExportEstimate(const std::string& config_json, const std::string& format) {
  if (format != "markdown" && format != "csv" && format != "json") {
    return ErrorDocument({{core::DiagId::kUnknownValue, core::Severity::kError, "format",
                           "\"" + core::EchoValue(format) + "\" is not markdown, csv or json"}});
  }
  const core::ConfigParse parsed = core::ConfigFromJsonText(config_json, core::DefaultConfig());
  if (core::HasErrors(parsed.diagnostics)) return ErrorDocument(parsed.diagnostics);
  const core::Estimate e = core::Explain(parsed.config);
  if (format == "markdown") return core::EstimateToMarkdown(parsed.config, e);
  if (format == "csv") {
    if (!e.totals.ok) return ErrorDocument(e.diagnostics);  // CSV has no place for the reasons
    return core::EstimateToCsv(e);
  }
  return core::EstimateToJson(parsed.config, e).Dump(2);
}

std::string Diagnose(const std::string& config_json) {
  const core::ConfigParse parsed = core::ConfigFromJsonText(config_json, core::DefaultConfig());
  if (core::HasErrors(parsed.diagnostics)) return ErrorDocument(parsed.diagnostics);
  const core::Diagnostics invalid = core::Validate(parsed.config);
  if (core::HasErrors(invalid)) return ErrorDocument(invalid);
  return core::RemediesToJson(core::Diagnose(parsed.config)).Dump();
}

std::string ReadOom(const std::string& text, const std::string& config_json) {
  if (config_json.empty()) return core::OomReportToJson(core::ReadOomReport(text, nullptr)).Dump();
  const core::ConfigParse parsed = core::ConfigFromJsonText(config_json, core::DefaultConfig());
  core::Json j = core::OomReportToJson(core::ReadOomReport(text, &parsed.config));
  j["config_diagnostics"] = core::DiagnosticsToJson(parsed.diagnostics);
  return j.Dump();
}

std::string ExportLaunch(const std::string& config_json, const std::string& target) {
  core::LaunchTarget t;
  if (!core::ParseId(target, t))
    return "unknown target \"" + target + "\"; one of " + core::IdList<core::LaunchTarget>();
  const core::ConfigParse parsed = core::ConfigFromJsonText(config_json, core::DefaultConfig());
  if (core::HasErrors(parsed.diagnostics)) return ErrorDocument(parsed.diagnostics);
  return core::ExportLaunch(parsed.config, t);
}

std::string FitServing(const std::string& config_json) {
  const core::ConfigParse parsed = core::ConfigFromJsonText(config_json, core::DefaultConfig());
  if (core::HasErrors(parsed.diagnostics)) return ErrorDocument(parsed.diagnostics);
  return core::ServingFitToJson(parsed.config).Dump();
}

std::string Fit(const std::string& config_json) {
  const core::ConfigParse parsed = core::ConfigFromJsonText(config_json, core::DefaultConfig());
  if (core::HasErrors(parsed.diagnostics)) return ErrorDocument(parsed.diagnostics);
  return core::FitToJson(parsed.config).Dump();
}

std::string ConfigSchemaJson() { return core::ConfigSchema().Dump(); }

std::string Compat(const std::string& config_json, const std::string& tool, int gpus_per_node) {
  if (tool != "deepspeed" && tool != "megatron") {
    return ErrorDocument({{core::DiagId::kUnknownValue, core::Severity::kError, "tool",
                           "\"" + core::EchoValue(tool) + "\" is not deepspeed or megatron"}});
  }
  if (gpus_per_node < 1) {
    return ErrorDocument({{core::DiagId::kOutOfRange, core::Severity::kError, "gpus_per_node",
                           "gpus_per_node must be at least 1, not " + std::to_string(gpus_per_node)}});
  }
  const core::ConfigParse parsed = core::ConfigFromJsonText(config_json, core::DefaultConfig());
  if (core::HasErrors(parsed.diagnostics)) return ErrorDocument(parsed.diagnostics);
  const core::CompatEstimate c = tool == "deepspeed" ? core::DeepSpeedEstimate(parsed.config, gpus_per_node)
                                                     : core::MegatronEstimate(parsed.config);
  return core::CompatToJson(c).Dump();
}

std::string InspectWeightHeader(const std::string& bytes, double file_size) {
  // File.size: a whole number of bytes, at least the bytes given, at most 2^53.
  if (!(file_size >= static_cast<double>(bytes.size()) && file_size <= 9007199254740992.0 &&
        file_size == static_cast<double>(static_cast<uint64_t>(file_size)))) {
    core::WeightHeaderResult r;
    r.error = core::WeightIssue::kBadSize;
    r.message = "fileSize must be the file's size in bytes (a whole number, at least the " +
                std::to_string(bytes.size()) + " bytes given), not " + core::FormatJsonNumber(file_size);
    return core::WeightHeaderToJson(r).Dump();
  }
  const core::WeightHeaderResult r = core::ParseWeightHeader(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                             bytes.size(), static_cast<uint64_t>(file_size));
  return core::WeightHeaderToJson(r).Dump();
}

}  // namespace llmmem::bindings

