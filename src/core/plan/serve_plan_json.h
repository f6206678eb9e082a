// The serving plan as data: schema "llmmem.serve_plan/1" (README.md "The plan as JSON").
// The JS API's planServing(request) prints it. Request: {"config": {...}, "gpus": N,
// "goal": "concurrency" | "context", "top": K}.
#pragma once

#include <string>

#include "core/parse/json.h"
#include "core/plan/serve_plan.h"

namespace llmmem::core {

constexpr const char* kServePlanSchema = "llmmem.serve_plan/1";

Json ServePlanToJson(const ServePlanRequest& r, const ServePlan& plan);
std::string ServePlanJson(const std::string& request_json);

}  // namespace llmmem::core
