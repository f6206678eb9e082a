// The serving plan's JSON (serve_plan_json.h).
#include "core/plan/serve_plan_json.h"

#include <cmath>

#include "core/config/config_json.h"
#include "core/estimate/estimate.h"
#include "core/report/result_json.h"

namespace llmmem::core {

Json ServePlanToJson(const ServePlanRequest& r, const ServePlan& plan) {
  Json j(Json::Object{});
  j["schema"] = Json(kServePlanSchema);
  j["ok"] = Json(plan.ok);
  if (!plan.error.empty()) j["error"] = Json(plan.error);
  Json req(Json::Object{});
  req["model"] = Json(r.base.model.name);
  req["gpu"] = Json(r.base.gpu);
  req["runtime"] = Json(Id(r.base.runtime));
  req["gpus"] = Json(r.gpus);
  req["goal"] = Json(r.goal == ServeGoal::kConcurrency ? "concurrency" : "context");
  req["seq"] = Json(r.base.seq);
  req["batch"] = Json(r.base.batch);
  j["request"] = std::move(req);
  Json search(Json::Object{});
  search["considered"] = Json(plan.considered);
  search["evaluated"] = Json(plan.evaluated);
  j["search"] = std::move(search);
  Json::Array opts;
  for (const ServeOption& o : plan.options) {
    Json x(Json::Object{});
    x["gpus"] = Json(o.gpus);
    x["kv_dtype"] = Json(Info(o.kv_dtype).id);
    x["gpu_layers"] = Json(o.gpu_layers);
    x["context"] = Json(o.context);
    x["concurrency"] = Json(o.concurrency);
    x["peak_bytes"] = Json(o.peak_bytes);
    x["config"] = ConfigToJson(o.config);
    x["launch"] = Json(o.launch);
    opts.push_back(std::move(x));
  }
  j["options"] = Json(std::move(opts));
  return j;
}

std::string ServePlanJson(const std::string& request_json) {
  Diagnostics diags;
  ServePlanRequest r;
  r.base = DefaultConfig();
  r.base.mode = Mode::kInference;
  const JsonParseResult parsed = ParseJson(request_json);
  if (!parsed.ok || !parsed.value.IsObject()) {
    diags.push_back({DiagId::kParse, Severity::kError, "",
                     parsed.ok ? "the serving plan request must be a JSON object" : parsed.error});
  } else {
    const Json& j = parsed.value;
    if (const Json* c = j.Find("config")) {
      ConfigParse cp = ConfigFromJson(*c, r.base);
      r.base = cp.config;
      diags.insert(diags.end(), cp.diagnostics.begin(), cp.diagnostics.end());
    }
    const Json* g = j.Find("gpus");
    if (g != nullptr && (!g->IsNumber() || g->AsNumber() < 1 || g->AsNumber() > 1024 ||
                         g->AsNumber() != std::floor(g->AsNumber())))
      diags.push_back({DiagId::kOutOfRange, Severity::kError, "gpus", "gpus must be a whole number from 1 to 1024"});
    else if (g != nullptr)
      r.gpus = static_cast<int64_t>(g->AsNumber());
    if (const Json* goal = j.Find("goal")) {
      if (goal->AsString() == "context")
        r.goal = ServeGoal::kContext;
      else if (goal->AsString() != "concurrency")
        diags.push_back({DiagId::kUnknownValue, Severity::kError, "goal", "goal is concurrency or context"});
    }
    const Json* top = j.Find("top");
    if (top != nullptr && top->IsNumber() && top->AsNumber() >= 0 && top->AsNumber() <= 1000)
      r.top = static_cast<int>(top->AsNumber());
  }
  if (HasErrors(diags)) {
    Json j(Json::Object{});
    j["schema"] = Json(kServePlanSchema);
    j["ok"] = Json(false);
    j["diagnostics"] = DiagnosticsToJson(diags);
    for (const Diagnostic& d : diags)
      if (d.severity == Severity::kError) {
        j["error"] = Json((d.field.empty() ? "" : d.field + ": ") + d.message);
        break;
      }
    return j.Dump();
  }
  return ServePlanToJson(r, PlanServing(r)).Dump();
}

}  // namespace llmmem::core
