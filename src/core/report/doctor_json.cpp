// The doctor's and the compatibility modes' JSON (doctor_json.h).
#include "core/report/doctor_json.h"

#include <cmath>

#include "core/config/config_json.h"

namespace llmmem::core {

Json RemedyToJson(const Remedy& r) {
  Json j(Json::Object{});
  j["id"] = Json(r.id);
  j["title"] = Json(r.title);
  j["change"] = Json(r.change);
  j["tradeoff"] = Json(r.tradeoff);
  j["saving_bytes"] = Json(std::round(r.saving_bytes));
  j["peak_bytes"] = Json(std::round(r.peak_bytes));
  j["fits"] = Json(r.fits);
  j["changes_workload"] = Json(r.changes_workload);
  j["query"] = Json(ConfigToQuery(r.config));
  return j;
}

Json RemediesToJson(const std::vector<Remedy>& remedies) {
  Json::Array out;
  for (const Remedy& r : remedies) out.push_back(RemedyToJson(r));
  return Json(std::move(out));
}

Json CompatToJson(const CompatEstimate& c) {
  Json j(Json::Object{});
  j["tool"] = Json(c.tool);
  j["scope"] = Json(c.scope);
  j["ok"] = Json(c.ok);
  if (!c.ok) {
    j["error"] = Json(c.error);
    return j;
  }
  j["gpu_bytes"] = Json(c.gpu_bytes);
  j["cpu_bytes"] = Json(c.cpu_bytes);
  Json::Array lines;
  for (const CompatLine& l : c.lines) {
    Json row(Json::Object{});
    row["label"] = Json(l.label);
    row["gpu_bytes"] = Json(l.gpu_bytes);
    row["cpu_bytes"] = Json(l.cpu_bytes);
    row["formula"] = Json(l.formula);
    lines.push_back(std::move(row));
  }
  j["lines"] = Json(std::move(lines));
  Json::Array departures;
  for (const std::string& d : c.departures) departures.push_back(Json(d));
  j["departures"] = Json(std::move(departures));
  return j;
}

}  // namespace llmmem::core
