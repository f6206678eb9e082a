#include "bindings/background_calls.h"

#include "core/parse/json.h"
#include "core/plan/plan_json.h"
#include "core/plan/serve_plan_json.h"

namespace llmmem::bindings {

std::string CallBackground(const std::string& fn, const std::string& request_json) {
  if (fn == "plan") return core::PlanJson(request_json);
  if (fn == "serve_plan") return core::ServePlanJson(request_json);
  core::Json j(core::Json::Object{});
  j["ok"] = core::Json(false);
  j["error"] = core::Json("no background call is named \"" + fn + "\" (known: plan, serve_plan)");
  return j.Dump();
}

}  // namespace llmmem::bindings
