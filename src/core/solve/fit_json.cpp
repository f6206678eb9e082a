// The fit answers as JSON (fit_json.h).
#include "core/solve/fit_json.h"

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
  const double cap = CapacityBytes(c);
  Json j(Json::Object{});
  j["gpu"] = Json(c.gpu);
  j["capacity_bytes"] = Json(cap);
  Json::Array zero;
  for (const ZeroStageFit& r : FewestGpusPerZeroStage(c, cap)) zero.push_back(ZeroStageFitToJson(r));
  j["fewest_gpus"] = Json(std::move(zero));
  j["max_micro_batch"] = Json(static_cast<double>(MaxMicroBatch(c, cap)));
  j["max_sequence"] = Json(static_cast<double>(MaxSequence(c, cap)));
  const FitFormats formats = CheapestInferenceFormats(c, cap);
  Json inf(Json::Object{});
  inf["found"] = Json(formats.found);
  if (formats.found) {
    inf["dtype"] = Json(Info(formats.dtype).id);
    inf["kv_dtype"] = Json(Info(formats.kv_dtype).id);
    inf["peak_bytes"] = Json(formats.peak_bytes);
  }
  j["inference_formats"] = std::move(inf);
  if (c.mode == Mode::kInference) j["serving"] = ServingFitToJson(c);
  return j;
}

}  // namespace llmmem::core
