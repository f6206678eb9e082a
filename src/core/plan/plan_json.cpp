// The plan's JSON (plan_json.h): schema llmmem.plan/1, and the request's JSON.
#include "core/plan/plan_json.h"

#include <cmath>

#include "core/config/config_json.h"
#include "core/report/result_json.h"
#include "core/solve/fit.h"

namespace llmmem::core {
namespace {

Json Num(double v) { return Json(std::isfinite(v) ? v : -1.0); }
Json Num(int64_t v) { return Json(static_cast<double>(v)); }

Json SettingsToJson(const PlanSettings& s) {
  Json j(Json::Object{});
  j["gpus"] = Num(s.gpus);
  j["tp"] = Num(s.tp);
  j["pp"] = Num(s.pp);
  j["vpp"] = Num(s.vpp);
  j["schedule"] = Json(s.vpp > 1 ? "interleaved" : "1f1b");
  j["cp"] = Num(s.cp);
  j["ep"] = Num(s.ep);
  j["dp"] = Num(s.dp);
  j["sp"] = Json(s.tp > 1);
  j["zero"] = Json(s.zero);
  j["sharding"] = Json(s.fsdp ? "fsdp" : "deepspeed");
  j["recompute"] = Json(Id(s.recompute));
  j["micro_batch"] = Num(s.micro_batch);
  j["grad_accum"] = Num(s.grad_accum);
  j["offload_optimizer"] = Json(s.offload ? "cpu" : "none");
  j["optimizer_impl"] = Json(Id(s.optimizer_impl));
  return j;
}

Json StepToJson(const StepTime& t) {
  Json j(Json::Object{});
  j["total_s"] = Num(t.total_s);
  j["compute_s"] = Num(t.compute_s);
  j["bubble_s"] = Num(t.bubble_s);
  j["tp_comm_s"] = Num(t.tp_comm_s);
  j["dp_comm_s"] = Num(t.dp_comm_s);
  j["cp_comm_s"] = Num(t.cp_comm_s);
  j["ep_comm_s"] = Num(t.ep_comm_s);
  j["offload_s"] = Num(t.offload_s);
  return j;
}

Json CandidateToJson(const PlanCandidate& k, double budget, int64_t tokens) {
  Json j(Json::Object{});
  j["rank"] = Json(k.rank);
  j["settings"] = SettingsToJson(k.settings);
  j["layout"] = Json(LayoutText(k.settings));  // in words, as the CLI prints it
  j["config"] = ConfigToJson(k.config);  // everything to launch with, as the estimate reads it
  const Totals& t = k.totals;
  j["peak_bytes"] = Num(t.peak_bytes);
  j["peak_moment"] = Json(MomentId(t.peak_moment));
  j["headroom_bytes"] = Num(budget - t.peak_bytes);  // below the budget (the card less kFitHeadroom)
  j["capacity_headroom_bytes"] = Num(t.Headroom());  // below the card itself
  j["cpu_bytes"] = Num(t.cpu_bytes);
  j["pipeline_stage"] = Json(t.pipeline_stage);
  Json cat(Json::Object{});
  for (int i = 0; i < kCategoryCount; ++i) cat[CategoryId(static_cast<Category>(i))] = Num(t.category_bytes[i]);
  j["bytes_by_category"] = std::move(cat);
  Json phase(Json::Object{});
  for (int m = 0; m < kMomentCount; ++m) phase[MomentId(static_cast<Moment>(m))] = Num(t.moment_bytes[m]);
  j["bytes_by_phase"] = std::move(phase);
  j["step"] = StepToJson(k.time);
  j["tokens_per_s"] = Num(k.time.total_s > 0 ? tokens / k.time.total_s : 0.0);
  Json::Array ns;
  for (const PlanNeighbour& n : k.neighbours) {
    Json x(Json::Object{});
    x["change"] = Json(n.change);
    x["verdict"] = Json(n.verdict);
    x["peak_bytes"] = Num(n.peak_bytes);
    x["over_bytes"] = Num(n.over_bytes);
    x["step_s"] = Num(n.step_s);
    x["text"] = Json(n.text);
    ns.push_back(std::move(x));
  }
  j["neighbours"] = Json(std::move(ns));
  return j;
}

}  // namespace

Json PlanToJson(const TrainPlanRequest& r, const TrainPlan& plan) {
  Json j(Json::Object{});
  j["schema"] = Json(kPlanSchema);
  j["ok"] = Json(plan.ok);
  if (!plan.error.empty()) j["error"] = Json(plan.error);
  Json req(Json::Object{});
  req["model"] = Json(r.base.model.name);
  req["gpu"] = Json(r.base.gpu);
  req["gpus"] = Num(r.gpus);
  req["max_gpus"] = Num(r.max_gpus);
  req["global_batch_tokens"] = Num(r.global_batch_tokens);
  const int64_t seq = r.seq > 0 ? r.seq : r.base.seq;
  req["seq"] = Num(seq);
  req["top"] = Json(r.top);
  Json links(Json::Object{});
  links["link_gbps"] = Num(r.links.link_gbps);
  links["network_gbps"] = Num(r.links.network_gbps);
  links["gpus_per_node"] = Num(r.links.gpus_per_node);
  links["pcie_gbps"] = Num(r.links.pcie_gbps);
  links["mfu"] = Num(r.base.mfu);
  req["assumptions"] = std::move(links);
  j["request"] = std::move(req);
  j["capacity_bytes"] = Num(plan.capacity_bytes);
  j["budget_bytes"] = Num(plan.budget_bytes);
  j["headroom_fraction"] = Num(AnswerHeadroom(r.base));
  Json counts(Json::Object{});
  counts["considered"] = Num(plan.counts.considered);
  counts["evaluated"] = Num(plan.counts.evaluated);
  counts["pruned"] = Num(plan.counts.pruned);
  counts["invalid"] = Num(plan.counts.invalid);
  counts["feasible"] = Num(plan.counts.feasible);
  j["search"] = std::move(counts);
  Json::Array best;
  for (const PlanCandidate& k : plan.best) best.push_back(CandidateToJson(k, plan.budget_bytes, r.global_batch_tokens));
  j["candidates"] = Json(std::move(best));
  Json::Array front;
  for (const PlanPoint& p : plan.pareto) {
    Json x(Json::Object{});
    x["settings"] = SettingsToJson(p.settings);
    x["peak_bytes"] = Num(p.peak_bytes);
    x["step_s"] = Num(p.step_s);
    front.push_back(std::move(x));
  }
  j["pareto"] = Json(std::move(front));
  return j;
}

PlanRequestParse PlanRequestFromJsonText(const std::string& text, const Config& base) {
  PlanRequestParse out;
  const JsonParseResult parsed = ParseJson(text);
  auto error = [&](DiagId id, const std::string& field, const std::string& msg) {
    out.diagnostics.push_back({id, Severity::kError, field, msg});
  };
  if (!parsed.ok || !parsed.value.IsObject()) {
    error(DiagId::kParse, "", parsed.ok ? "the plan request must be a JSON object" : parsed.error);
    return out;
  }
  const Json& j = parsed.value;
  TrainPlanRequest& r = out.request;
  r.base = base;
  if (const Json* c = j.Find("config")) {
    ConfigParse cp = ConfigFromJson(*c, base);
    r.base = cp.config;
    for (Diagnostic& d : cp.diagnostics) out.diagnostics.push_back(d);
  }
  auto integer = [&](const char* key, int64_t& v, int64_t lo, int64_t hi, bool required) {
    const Json* x = j.Find(key);
    if (x == nullptr) {
      if (required) error(DiagId::kMissingField, key, std::string(key) + " is required");
      return;
    }
    const double d = x->IsNumber() ? x->AsNumber() : NAN;
    if (!(d >= lo && d <= hi) || d != std::floor(d)) {
      error(DiagId::kOutOfRange, key,
            std::string(key) + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
      return;
    }
    v = static_cast<int64_t>(d);
  };
  auto number = [&](const char* key, double& v) {
    const Json* x = j.Find(key);
    if (x == nullptr) return;
    if (!x->IsNumber() || !(x->AsNumber() > 0) || !std::isfinite(x->AsNumber())) {
      error(DiagId::kOutOfRange, key, std::string(key) + " must be a positive number");
      return;
    }
    v = x->AsNumber();
  };
  integer("max_gpus", r.max_gpus, 0, 1000000, false);
  integer("gpus", r.gpus, 1, 1000000, r.max_gpus == 0);
  integer("global_batch_tokens", r.global_batch_tokens, 1, int64_t{1} << 40, true);
  integer("seq", r.seq, 0, int64_t{1} << 24, false);
  int64_t top = r.top;
  integer("top", top, 0, 1000, false);
  r.top = static_cast<int>(top);
  integer("gpus_per_node", r.links.gpus_per_node, 1, 1024, false);
  number("link_gbps", r.links.link_gbps);
  number("network_gbps", r.links.network_gbps);
  number("pcie_gbps", r.links.pcie_gbps);
  return out;
}

std::string PlanJson(const std::string& request_json) {
  const PlanRequestParse p = PlanRequestFromJsonText(request_json, DefaultConfig());
  if (HasErrors(p.diagnostics)) {
    Json j(Json::Object{});
    j["schema"] = Json(kPlanSchema);
    j["ok"] = Json(false);
    j["diagnostics"] = DiagnosticsToJson(p.diagnostics);
    for (const Diagnostic& d : p.diagnostics)
      if (d.severity == Severity::kError) {
        j["error"] = Json((d.field.empty() ? "" : d.field + ": ") + d.message);
        break;
      }
    return j.Dump();
  }
  return PlanToJson(p.request, PlanTraining(p.request)).Dump();
}

}  // namespace llmmem::core
