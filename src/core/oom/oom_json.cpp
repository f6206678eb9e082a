// OomReportToJson (oom_json.h): one shape for the CLI's --json and the JS API.
#include "core/oom/oom_json.h"

#include <cmath>

#include "core/config/config_json.h"
#include "core/report/doctor_json.h"

namespace llmmem::core {
namespace {

Json Bytes(double b) { return Json(std::round(b)); }

Json Strings(const std::vector<std::string>& v) {
  Json::Array a;
  for (const std::string& s : v) a.push_back(Json(s));
  return Json(std::move(a));
}

Json Figures(const Observation& o) {
  Json j(Json::Object{});
  auto put = [&](const char* key, const Figure& f) {
    if (f.Known()) j[key] = Bytes(f.bytes);
  };
  put("capacity_bytes", o.capacity);
  put("free_bytes", o.free);
  put("used_bytes", o.used);
  put("request_bytes", o.request);
  put("allocated_bytes", o.allocated);
  put("reserved_bytes", o.reserved);
  put("private_pools_bytes", o.private_pools);
  put("allowed_bytes", o.allowed);
  put("process_bytes", o.process_total);
  put("peak_allocated_bytes", o.peak_allocated);
  put("peak_reserved_bytes", o.peak_reserved);
  put("non_releasable_bytes", o.non_releasable);
  if (o.oom_count >= 0) j["oom_count"] = Json(o.oom_count);
  return j;
}

Json BarJson(const OomBar& bar) {
  Json j(Json::Object{});
  j["drawable"] = Json(bar.drawable);
  j["consistent"] = Json(bar.consistent);
  j["capacity_bytes"] = Bytes(bar.capacity_bytes);
  j["total_bytes"] = Bytes(bar.total_bytes);
  if (bar.request_bytes >= 0) j["request_bytes"] = Bytes(bar.request_bytes);
  Json::Array segments;
  for (const BarSegment& s : bar.segments) {
    Json seg(Json::Object{});
    seg["kind"] = Json(SegmentKindId(s.kind));
    seg["label"] = Json(s.label);
    seg["bytes"] = Bytes(s.bytes);
    seg["arithmetic"] = Json(s.arithmetic);
    seg["stated"] = Json(s.stated);
    segments.push_back(std::move(seg));
  }
  j["segments"] = Json(std::move(segments));
  j["notes"] = Strings(bar.notes);
  return j;
}

Json DeviceJson(const OomReport& r, const DeviceReport& d) {
  const Observation& o = r.evidence.observations[d.observation];
  Json j(Json::Object{});
  j["form"] = Json(FormInfo(o.form).id);
  j["form_name"] = Json(FormInfo(o.form).name);
  j["backend"] = Json(o.backend);
  j["device"] = Json(o.device);
  j["gpu_name"] = Json(o.gpu_name);
  j["line"] = Json(static_cast<double>(o.line));
  j["repeats"] = Json(o.repeats);
  j["excerpt"] = Json(o.excerpt);
  j["figures"] = Figures(o);
  Json::Array procs;
  for (const GpuProcess& p : o.processes) {
    Json pj(Json::Object{});
    pj["pid"] = Json(p.pid);
    pj["name"] = Json(p.name);
    if (p.used.Known()) pj["bytes"] = Bytes(p.used.bytes);
    pj["self"] = Json(p.self);
    pj["self_inferred"] = Json(p.self_inferred);
    procs.push_back(std::move(pj));
  }
  j["processes"] = Json(std::move(procs));
  j["notes"] = Strings(o.notes);
  j["bar"] = BarJson(d.bar);
  Json::Array findings;
  for (const Finding& f : d.findings) {
    Json fj(Json::Object{});
    fj["id"] = Json(f.id);
    fj["title"] = Json(f.title);
    fj["text"] = Json(f.text);
    fj["summary"] = Json(f.summary);
    fj["actions"] = Strings(f.actions);
    fj["bytes"] = Bytes(f.bytes);
    fj["sufficient"] = Json(f.sufficient);
    findings.push_back(std::move(fj));
  }
  j["findings"] = Json(std::move(findings));
  Json::Array matches;
  for (const GpuMatch& m : d.matches) {
    Json mj(Json::Object{});
    mj["key"] = Json(m.gpu->key);
    mj["name"] = Json(m.gpu->name);
    mj["gap_bytes"] = Bytes(m.gap_bytes);
    mj["why"] = Json(m.why);
    matches.push_back(std::move(mj));
  }
  j["gpu_matches"] = Json(std::move(matches));
  if (d.has_config) {
    Json s(Json::Object{});
    s["query"] = Json(ConfigToQuery(d.suggested));
    s["gpu"] = Json(d.suggested.gpu);
    s["gpu_memory_gb"] = Json(d.suggested.gpu_memory_gb);
    s["other_processes_gb"] = Json(d.suggested.other_processes_gb);
    s["fits"] = Json(d.suggested_fits);
    j["suggested"] = std::move(s);
    Json c(Json::Object{});
    c["stage"] = Json(d.comparison.stage);
    Json::Array rows;
    for (const ComparisonRow& row : d.comparison.rows) {
      Json rj(Json::Object{});
      rj["label"] = Json(row.label);
      if (row.observed >= 0) rj["observed_bytes"] = Bytes(row.observed);
      if (row.estimated >= 0) rj["estimated_bytes"] = Bytes(row.estimated);
      rj["note"] = Json(row.note);
      rows.push_back(std::move(rj));
    }
    c["rows"] = Json(std::move(rows));
    c["differences"] = Strings(d.comparison.differences);
    j["comparison"] = std::move(c);
    j["remedies"] = RemediesToJson(d.remedies);
  }
  return j;
}

}  // namespace

Json OomReportToJson(const OomReport& r) {
  Json j(Json::Object{});
  j["recognised"] = Json(r.evidence.recognised);
  j["truncated"] = Json(r.evidence.truncated);
  j["left_out"] = static_cast<int64_t>(r.evidence.left_out);
  j["headline"] = Json(r.headline);
  j["notes"] = Strings(r.evidence.notes);
  Json::Array forms;
  for (int i = 0; i < kEvidenceFormCount; ++i) {
    const EvidenceFormInfo& f = FormInfo(static_cast<EvidenceForm>(i));
    Json fj(Json::Object{});
    fj["id"] = Json(f.id);
    fj["name"] = Json(f.name);
    fj["example"] = Json(f.example);
    fj["source"] = Json(f.source);
    forms.push_back(std::move(fj));
  }
  j["known_forms"] = Json(std::move(forms));
  Json::Array devices;
  for (const DeviceReport& d : r.devices) devices.push_back(DeviceJson(r, d));
  j["devices"] = Json(std::move(devices));
  return j;
}

}  // namespace llmmem::core
