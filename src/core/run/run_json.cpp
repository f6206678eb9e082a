// RunLogToJson / RunReadingToJson (run_json.h). Bytes as whole numbers of bytes.
#include "core/run/run_json.h"

#include <cmath>

#include "core/config/config_json.h"
#include "core/run/calibrate.h"

namespace llmmem::core {
namespace {

Json Strings(const std::vector<std::string>& v) {
  Json::Array a;
  for (const std::string& s : v) a.push_back(Json(s));
  return Json(std::move(a));
}

Json Lines(const std::vector<size_t>& v) {
  Json::Array a;
  for (size_t n : v) a.push_back(Json(static_cast<int64_t>(n)));
  return Json(std::move(a));
}

Json Row(const RunComparisonRow& r) {
  Json j(Json::Object{});
  j["category"] = Json(RunCategoryId(r.category));
  j["label"] = Json(r.label);
  if (r.measured >= 0 && r.category == RunCategory::kNone) {  // a count
    j["measured"] = Json(r.measured);
    j["lines"] = Lines(r.lines);
    j["measured_from"] = Json(r.measured_from);
  } else if (r.measured >= 0) {
    j["measured_bytes"] = Json(std::round(r.measured));
    j["measured_tolerance_bytes"] = Json(std::round(r.measured_tolerance));
    j["lines"] = Lines(r.lines);
    j["measured_from"] = Json(r.measured_from);
  }
  if (r.estimated >= 0 && r.category == RunCategory::kNone) {
    j["estimated"] = Json(std::round(r.estimated * 100) / 100);
    j["estimate_rows"] = Strings(r.estimate_rows);
  } else if (r.estimated >= 0) {
    j["estimated_bytes"] = Json(std::round(r.estimated));
    j["estimate_rows"] = Strings(r.estimate_rows);
  }
  if (r.ratio > 0) j["ratio"] = Json(std::round(r.ratio * 1e4) / 1e4);
  if (!r.note.empty()) j["note"] = Json(r.note);
  return j;
}

Json Rows(const std::vector<RunComparisonRow>& rows) {
  Json::Array a;
  for (const RunComparisonRow& r : rows) a.push_back(Row(r));
  return Json(std::move(a));
}

}  // namespace

Json RunLogToJson(const RunLog& log) {
  Json j(Json::Object{});
  j["recognised"] = Json(log.recognised);
  if (log.recognised) {
    j["source"] = Json(RunSourceId(log.source));
    j["source_name"] = Json(RunSourceName(log.source));  // "vLLM", as it names itself
  }
  if (!log.error.empty()) j["error"] = Json(log.error);
  j["notes"] = Strings(log.notes);
  Json::Array figures;
  for (const MeasuredFigure& f : log.figures) {
    Json g(Json::Object{});
    g["kind"] = Json(MeasuredKindId(f.kind));
    g["source"] = Json(RunSourceId(f.source));
    g["form"] = Json(f.form);
    g["category"] = Json(RunCategoryId(RunCategoryOf(f.kind)));
    if (IsByteFigure(f.kind)) {
      g["bytes"] = Json(std::round(f.value));
      g["tolerance_bytes"] = Json(std::round(f.tolerance));
    } else {
      g["value"] = Json(f.value);
      if (f.tolerance > 0) g["tolerance"] = Json(f.tolerance);
    }
    if (f.of >= 0) g["of"] = Json(f.of);
    g["device"] = Json(f.device);
    g["line"] = Json(static_cast<int64_t>(f.line));
    g["text"] = Json(f.text);
    figures.push_back(std::move(g));
  }
  j["figures"] = Json(std::move(figures));
  if (log.dropped > 0) j["figures_left_out"] = Json(static_cast<int64_t>(log.dropped));
  const RunSettingsSeen& s = log.settings;
  Json settings(Json::Object{});
  auto put = [&](const char* key, Json v, size_t line) {
    if (line == 0) return;
    Json e(Json::Object{});
    e["value"] = std::move(v);
    e["line"] = Json(static_cast<int64_t>(line));
    settings[key] = std::move(e);
  };
  put("model", Json(s.model), s.model_line);
  put("version", Json(s.version), s.version_line);
  put("max_model_len", Json(s.max_model_len), s.max_model_len_line);
  put("gpu_memory_utilization", Json(s.gpu_memory_utilization), s.utilization_line);
  put("n_ctx", Json(s.n_ctx), s.n_ctx_line);
  put("tensor_parallel", Json(s.tensor_parallel), s.tensor_parallel_line);
  j["settings"] = std::move(settings);
  return j;
}

Json RunReadingToJson(const RunLog& log, const RunComparison* cmp) {
  Json j(Json::Object{});
  j["log"] = RunLogToJson(log);
  if (cmp != nullptr) {
    Json c(Json::Object{});
    c["ok"] = Json(cmp->ok);
    c["device"] = Json(cmp->device);
    c["rows"] = Rows(cmp->rows);
    c["not_modelled"] = Rows(cmp->not_modelled);
    c["not_measured"] = Rows(cmp->not_measured);
    c["counts"] = Rows(cmp->counts);
    c["notes"] = Strings(cmp->notes);
    j["comparison"] = std::move(c);
    j["calibration"] = CalibrationToJson(Calibrate(*cmp));
  }
  return j;
}

Json CalibrationToJson(const Calibration& cal) {
  Json j(Json::Object{});
  j["ok"] = Json(cal.ok);
  if (!cal.ok) {
    j["why"] = Json(cal.why);
    return j;
  }
  j["basis"] = Json(cal.basis);
  j["measured_bytes"] = Json(std::round(cal.measured));
  j["estimated_bytes"] = Json(std::round(cal.estimated));
  j["residual_bytes"] = Json(std::round(cal.residual));
  j["carried_bytes"] = Json(std::round(cal.carried));
  j["measured_residual_gb"] = Json(cal.config.measured_residual_gb);
  j["run_tokens"] = Json(cal.run_tokens);
  j["reach_tokens"] = Json(cal.reach_tokens);
  j["text"] = Json(cal.text);
  j["reach"] = Json(cal.reach);
  // The run's configuration with the residual carried: fit() / estimate() answer settings Y from it.
  j["config"] = ConfigToJson(cal.config);
  j["query"] = Json(ConfigToQuery(cal.config));
  return j;
}

}  // namespace llmmem::core
