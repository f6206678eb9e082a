// The training plan as data (issue 34 part 4): schema "llmmem.plan/1", documented in
// README.md ("The plan as JSON"); fields are only ever added under this version, a field
// removed or retyped needs "llmmem.plan/2". The CLI's `plan --json` and the JS API's
// plan(request) print this document; the request's JSON is read here too.
#pragma once

#include <string>

#include "core/base/diagnostics.h"
#include "core/parse/json.h"
#include "core/plan/train_plan.h"

namespace llmmem::core {

constexpr const char* kPlanSchema = "llmmem.plan/1";

Json PlanToJson(const TrainPlanRequest& r, const TrainPlan& plan);

// {"config": {...Config JSON...}, "gpus": 8, "max_gpus": 0, "global_batch_tokens": 1048576,
//  "seq": 8192, "top": 5, "gpus_per_node": 8, "link_gbps": 450, "network_gbps": 50,
//  "pcie_gbps": 25}; every key but config, gpus (or max_gpus) and global_batch_tokens is optional.
struct PlanRequestParse {
  TrainPlanRequest request;
  Diagnostics diagnostics;  // errors: no plan
};
PlanRequestParse PlanRequestFromJsonText(const std::string& text, const Config& base);

// The JS API's one call: a request's JSON in, the plan's JSON out (an error: ok false,
// diagnostics and error, under the same schema).
std::string PlanJson(const std::string& request_json);

}  // namespace llmmem::core
