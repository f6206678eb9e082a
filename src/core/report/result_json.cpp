#include "core/report/result_json.h"

#include "core/config/config_json.h"
#include "core/report/serving_json.h"
#include "core/estimate/speed.h"
#include "core/estimate/verdict.h"
#include "core/base/units.h"

namespace llmmem::core {
namespace {

Json NodeToJson(const BreakdownNode& n) {
  Json j(Json::Object{});
  j["id"] = Json(n.id);
  j["name"] = Json(n.name);
  // Where the node lives; its bytes are there. A GPU node's bytes are the sum of its GPU
  // children's, and what lies below it off the GPU is reported beside them.
  j["device"] = Json(DeviceId(n.device));
  j["bytes"] = Json(n.bytes);
  j["gb"] = Json(n.bytes / kGB);
  j["gib"] = Json(n.bytes / kGiB);
  if (n.cpu_bytes > 0) j["cpu_bytes"] = Json(n.cpu_bytes);
  if (n.nvme_bytes > 0) j["nvme_bytes"] = Json(n.nvme_bytes);
  if (!n.formula.empty()) j["formula"] = Json(n.formula);
  if (!n.source.empty()) j["source"] = Json(n.source);
  if (n.per_layer_bytes > 0) j["per_layer_bytes"] = Json(n.per_layer_bytes);
  if (n.children.empty()) j["category"] = Json(CategoryId(n.category));
  if (n.moment_bytes[0] != n.moment_bytes[1] || n.moment_bytes[0] != n.moment_bytes[3]) {
    j["bytes_at_forward_end"] = Json(n.moment_bytes[0]);
    j["bytes_in_layer_backward"] = Json(n.moment_bytes[3]);
    j["bytes_at_optimizer_step"] = Json(n.moment_bytes[1]);
  }
  if (!n.children.empty()) {
    Json::Array kids;
    for (const BreakdownNode& c : n.children) kids.push_back(NodeToJson(c));
    j["children"] = Json(std::move(kids));
  }
  return j;
}

}  // namespace

Json DiagnosticsToJson(const Diagnostics& d) {
  Json::Array out;
  for (const Diagnostic& x : d) {
    Json j(Json::Object{});
    j["id"] = Json(DiagIdName(x.id));
    j["severity"] = Json(SeverityName(x.severity));
    j["field"] = Json(x.field);
    j["message"] = Json(x.message);
    out.push_back(std::move(j));
  }
  return Json(std::move(out));
}

Json WeightHeaderToJson(const WeightHeaderResult& r) {
  Json j(Json::Object{});
  j["status"] = Json(r.status == WeightHeaderStatus::kComplete        ? "complete"
                     : r.status == WeightHeaderStatus::kNeedMoreBytes ? "need_more"
                                                                      : "error");
  j["ok"] = Json(r.ok());
  j["need_bytes"] = Json(static_cast<double>(r.need_bytes));
  if (!r.message.empty()) j["message"] = Json(r.message);
  j["tensors"] = Json(static_cast<double>(r.tensor_count));
  j["parameters"] = Json(static_cast<double>(r.parameter_count));
  j["parameters_known"] = Json(r.parameters_known);
  j["weight_bytes"] = Json(static_cast<double>(r.weight_bytes));
  j["header_bytes"] = Json(static_cast<double>(r.header_bytes));
  Json::Array types;
  for (const WeightTypeTally& t : r.by_type) {
    Json row(Json::Object{});
    row["type"] = Json(t.type);
    row["tensors"] = Json(static_cast<double>(t.tensors));
    row["parameters"] = Json(static_cast<double>(t.parameters));
    row["bytes"] = Json(static_cast<double>(t.bytes));
    types.push_back(std::move(row));
  }
  j["by_type"] = Json(std::move(types));
  Json::Array notes;
  for (const WeightNote& n : r.notes) notes.push_back(Json(n.message));
  j["notes"] = Json(std::move(notes));
  return j;
}

Json EstimateToJson(const Config& c, const Estimate& e) {
  Json j(Json::Object{});
  j["ok"] = Json(e.totals.ok);
  j["config"] = ConfigToJson(c);
  j["diagnostics"] = DiagnosticsToJson(e.diagnostics);
  if (!e.totals.ok) return j;
  const Totals& t = e.totals;

  Json params(Json::Object{});
  params["total"] = Json(static_cast<double>(t.params));
  params["trainable"] = Json(static_cast<double>(t.trainable_params));
  params["architecture_count"] = Json(static_cast<double>(e.params.total));
  params["active"] = Json(static_cast<double>(t.active_params));
  params["embedding"] = Json(static_cast<double>(e.params.embedding));
  params["attention"] = Json(static_cast<double>(e.params.attention));
  params["mlp"] = Json(static_cast<double>(e.params.mlp));
  params["norms"] = Json(static_cast<double>(e.params.norms));
  params["head"] = Json(static_cast<double>(e.params.head));
  j["parameters"] = std::move(params);

  Json gpu(Json::Object{});
  gpu["total_bytes"] = Json(t.peak_bytes);
  gpu["total_gb"] = Json(t.peak_bytes / kGB);
  gpu["total_gib"] = Json(t.peak_bytes / kGiB);
  gpu["allocated_bytes"] = Json(t.allocated_bytes);  // torch.cuda.max_memory_allocated
  gpu["reserved_bytes"] = Json(t.reserved_bytes);    // torch.cuda.max_memory_reserved
  gpu["nvidia_smi_bytes"] = Json(t.nvidia_smi_bytes);  // the process's memory as nvidia-smi shows it
  gpu["capacity_bytes"] = Json(t.capacity_bytes);
  gpu["headroom_bytes"] = Json(t.Headroom());
  gpu["fits"] = Json(t.Fits());
  // The verdict (issue 28): "incomplete" when what is counted fits but a part is unknown.
  gpu["verdict"] = Json(VerdictId(t.Judge()));
  gpu["verdict_note"] = Json(VerdictNote(c, t));
  gpu["budget_note"] = Json(Render(GpuBudgetNote(c)));  // issue 31: unified memory's budget; "" elsewhere
  Json not_counted(Json::Array{});
  if (t.not_counted & kNotCountedKvCache) not_counted.MutableArray().push_back(Json("kv_cache"));
  if (t.not_counted & kNotCountedActivations) not_counted.MutableArray().push_back(Json("activations"));
  if (t.not_counted & kNotCountedRuntime) not_counted.MutableArray().push_back(Json("runtime"));
  gpu["not_counted"] = std::move(not_counted);
  gpu["host_bytes"] = Json(t.host_bytes);
  gpu["host_short"] = Json(t.host_short);
  gpu["peak_moment"] = Json(MomentId(t.peak_moment));
  gpu["bytes_at_forward_end"] = Json(t.moment_bytes[0]);
  gpu["bytes_in_layer_backward"] = Json(t.moment_bytes[3]);
  gpu["bytes_at_optimizer_step"] = Json(t.moment_bytes[1]);
  // Which pipeline stage the figures are for (1-based): the more loaded of the first and last.
  gpu["pipeline_stage"] = Json(t.pipeline_stage + 1);
  gpu["pipeline_stages"] = Json(static_cast<double>(c.pp));
  if (c.pp > 1) {
    gpu["first_stage_bytes"] = Json(e.first_stage_peak_bytes);
    gpu["last_stage_bytes"] = Json(e.last_stage_peak_bytes);
  }
  Json cats(Json::Object{});
  for (int i = 0; i < kCategoryCount; ++i) cats[CategoryId(static_cast<Category>(i))] = Json(t.category_bytes[i]);
  gpu["by_category"] = std::move(cats);
  j["per_gpu"] = std::move(gpu);

  j["peak_note"] = Json(e.peak_note);
  Json quick(Json::Object{});
  quick["bytes"] = Json(t.quick_rule_bytes);
  quick["formula"] = Json(e.quick_rule_formula);
  j["quick_rule"] = std::move(quick);
  j["breakdown"] = NodeToJson(e.tree);
  if (UsesServingRuntime(c)) j["serving"] = ServingToJson(Serve(c));  // issue 16: blocks, concurrency, layers
  j["speed"] = SpeedToJson(EstimateSpeed(c));
  return j;
}

}  // namespace llmmem::core
