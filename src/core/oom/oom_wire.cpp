// oom_wire.h: the evidence, field by field.
#include "core/oom/oom_wire.h"

#include <cmath>
#include <limits>

namespace llmmem::core {
namespace {

Json Num(double v) {
  if (std::isfinite(v)) return Json(v);
  return Json(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}
double NumOf(const Json* v, double fallback) {
  if (v == nullptr) return fallback;
  if (v->IsNumber()) return v->AsNumber();
  if (v->IsString()) {
    const std::string& s = v->AsString();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  return fallback;
}
std::string StrOf(const Json* v) { return v != nullptr && v->IsString() ? v->AsString() : std::string(); }
bool BoolOf(const Json* v) { return v != nullptr && v->IsBool() && v->AsBool(); }

Json Fig(const Figure& f) { return Json(Json::Array{Num(f.bytes), Num(f.tolerance)}); }
Figure FigOf(const Json* v) {
  Figure f;
  if (v == nullptr || !v->IsArray() || v->AsArray().size() != 2) return f;
  f.bytes = NumOf(&v->AsArray()[0], -1);
  f.tolerance = NumOf(&v->AsArray()[1], 0);
  return f;
}
Json Strings(const std::vector<std::string>& list) {
  Json::Array out;
  for (const std::string& s : list) out.push_back(Json(s));
  return Json(std::move(out));
}
std::vector<std::string> StringsOf(const Json* v) {
  std::vector<std::string> out;
  if (v != nullptr)
    for (const Json& s : v->AsArray()) out.push_back(StrOf(&s));
  return out;
}

// The figures in one order, both ways.
template <typename O, typename F>
void EachFigure(O& o, F&& f) {
  f("capacity", o.capacity);
  f("free", o.free);
  f("used", o.used);
  f("request", o.request);
  f("allocated", o.allocated);
  f("reserved", o.reserved);
  f("private_pools", o.private_pools);
  f("allowed", o.allowed);
  f("process_total", o.process_total);
  f("peak_allocated", o.peak_allocated);
  f("peak_reserved", o.peak_reserved);
  f("non_releasable", o.non_releasable);
}

}  // namespace

Json EvidenceToWire(const Evidence& e) {
  Json::Array observations;
  for (const Observation& o : e.observations) {
    Json j(Json::Object{});
    j["form"] = Json(static_cast<int>(o.form));
    j["backend"] = Json(o.backend);
    j["device"] = Json(o.device);
    j["gpu_name"] = Json(o.gpu_name);
    j["line"] = Num(static_cast<double>(o.line));
    j["excerpt"] = Json(o.excerpt);
    j["repeats"] = Json(o.repeats);
    EachFigure(o, [&](const char* key, const Figure& f) { j[key] = Fig(f); });
    j["oom_count"] = Json(o.oom_count);
    Json::Array processes;
    for (const GpuProcess& p : o.processes) {
      Json q(Json::Object{});
      q["pid"] = Json(p.pid);
      q["name"] = Json(p.name);
      q["used"] = Fig(p.used);
      q["self"] = Json(p.self);
      q["self_inferred"] = Json(p.self_inferred);
      processes.push_back(std::move(q));
    }
    j["processes"] = Json(std::move(processes));
    j["notes"] = Strings(o.notes);
    observations.push_back(std::move(j));
  }
  Json j(Json::Object{});
  j["observations"] = Json(std::move(observations));
  j["notes"] = Strings(e.notes);
  j["recognised"] = Json(e.recognised);
  j["truncated"] = Json(e.truncated);
  j["left_out"] = Num(static_cast<double>(e.left_out));
  return j;
}

bool EvidenceFromWire(const Json& j, Evidence* e, std::string* error) {
  const Json* observations = j.IsObject() ? j.Find("observations") : nullptr;
  if (observations == nullptr || !observations->IsArray()) {
    *error = "the OOM reading is not the worker's evidence";
    return false;
  }
  *e = Evidence{};
  for (const Json& x : observations->AsArray()) {
    Observation o;
    const double form = NumOf(x.Find("form"), -1);
    if (!(form >= 0 && form < kEvidenceFormCount)) {
      *error = "the OOM reading names no known form";
      return false;
    }
    o.form = static_cast<EvidenceForm>(static_cast<int>(form));
    o.backend = StrOf(x.Find("backend"));
    o.device = static_cast<int>(NumOf(x.Find("device"), -1));
    o.gpu_name = StrOf(x.Find("gpu_name"));
    o.line = static_cast<size_t>(NumOf(x.Find("line"), 0));
    o.excerpt = StrOf(x.Find("excerpt"));
    o.repeats = static_cast<int>(NumOf(x.Find("repeats"), 1));
    EachFigure(o, [&](const char* key, Figure& f) { f = FigOf(x.Find(key)); });
    o.oom_count = static_cast<int>(NumOf(x.Find("oom_count"), -1));
    if (const Json* processes = x.Find("processes")) {
      for (const Json& q : processes->AsArray()) {
        GpuProcess p;
        p.pid = StrOf(q.Find("pid"));
        p.name = StrOf(q.Find("name"));
        p.used = FigOf(q.Find("used"));
        p.self = BoolOf(q.Find("self"));
        p.self_inferred = BoolOf(q.Find("self_inferred"));
        o.processes.push_back(std::move(p));
      }
    }
    o.notes = StringsOf(x.Find("notes"));
    e->observations.push_back(std::move(o));
  }
  e->notes = StringsOf(j.Find("notes"));
  e->recognised = BoolOf(j.Find("recognised"));
  e->truncated = BoolOf(j.Find("truncated"));
  e->left_out = static_cast<size_t>(NumOf(j.Find("left_out"), 0));
  return true;
}

}  // namespace llmmem::core
