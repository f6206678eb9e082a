// The fit answers as JSON (fit_json.h).
#include "core/report/fit_json.h"

#include <cmath>

#include "core/estimate/estimate.h"
#include "core/report/serving_json.h"

namespace llmmem::core {

Json ZeroStageFitToJson(const ZeroStageFit& r) {
  Json row(Json::Object{});
  row["zero"] = Json(r.stage);
  row["possible"] = Json(r.fit.possible);
  row["threshold"] = Json(r.fit.threshold);
  row["min_dp"] = Json(static_cast<double>(r.fit.min_dp));
  row["min_gpus"] = Json(static_cast<double>(r.fit.min_gpus));
  row["unsharded_bytes"] = Json(r.fit.unsharded_bytes);
  row["sharded_bytes"] = Json(r.fit.sharded_bytes);
  row["peak_at_min_bytes"] = Json(r.peak_at_min_bytes);
  row["offload_params_dropped"] = Json(r.offload_params_dropped);
  if (!r.why_not.empty()) row["why_not"] = Json(r.why_not);
  if (!r.error.empty()) row["error"] = Json(r.error);
  return row;
}

Json FitToJson(const Config& c) {
  const FitAnswers a = AnswerFit(c);  // the UI's Fit tab shows the same answers
  Json j(Json::Object{});
  j["gpu"] = Json(c.gpu);
  j["capacity_bytes"] = Json(a.capacity_bytes);
  // The one headroom policy (fit.h AnswerBudget): what every answer below was solved against.
  j["budget_bytes"] = Json(std::floor(a.budget_bytes));
  j["headroom"] = Json(a.headroom);
  if (a.model_context > 0) j["model_context"] = Json(static_cast<double>(a.model_context));
  Json::Array zero;
  for (const ZeroStageFit& r : a.zero) zero.push_back(ZeroStageFitToJson(r));
  j["fewest_gpus"] = Json(std::move(zero));
  j["max_micro_batch"] = Json(static_cast<double>(a.max_micro_batch));
  j["max_sequence"] = Json(static_cast<double>(a.max_sequence));
  j["max_params"] = Json(std::floor(a.max_params));
  Json inf(Json::Object{});
  inf["found"] = Json(a.formats.found);
  if (a.formats.found) {
    inf["dtype"] = Json(Info(a.formats.dtype).id);
    inf["kv_dtype"] = Json(Info(a.formats.kv_dtype).id);
    inf["peak_bytes"] = Json(a.formats.peak_bytes);
  }
  j["inference_formats"] = std::move(inf);
  if (c.mode == Mode::kInference) j["serving"] = ServingFitToJson(c);
  return j;
}

}  // namespace llmmem::core
