// The serving report (serving.h) and the serving fit answers (serve_fit.h) as JSON, shared by
// the CLI, the estimate's JSON and the JS API.
#pragma once

#include "core/parse/json.h"
#include "core/estimate/serving.h"

namespace llmmem::core {

Json ServingToJson(const ServingReport& r);
// The serving fit answers (serve_fit.h) for a configuration: llmmem fit's "serving" object.
Json ServingFitToJson(const Config& c);
// The speed estimate (speed.h).
struct SpeedEstimate;
Json SpeedToJson(const SpeedEstimate& s);

}  // namespace llmmem::core
