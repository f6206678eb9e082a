// An Estimate as JSON: parameters, per-GPU totals, the breakdown tree with bytes,
// formulas and sources, and the diagnostics. The CLI's --json, the JS API and the
// exports share it, so every front end shows the same numbers.
#pragma once

#include "core/estimate.h"
#include "core/json.h"

namespace llmmem::core {

Json EstimateToJson(const Config& c, const Estimate& e);
Json DiagnosticsToJson(const Diagnostics& d);

}  // namespace llmmem::core
