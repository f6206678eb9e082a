// RunLogToJson / RunReadingToJson (run_json.h). Bytes as whole numbers of bytes.
#include "core/run/run_json.h"

#include <cmath>

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
  }
  return j;
}

}  // namespace llmmem::core
