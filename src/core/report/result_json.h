// An Estimate as JSON: parameters, per-GPU totals, the breakdown tree with bytes,
// formulas and sources, and the diagnostics. The CLI's --json, the JS API and the
// exports share it, so every front end shows the same numbers.
#pragma once

#include "core/estimate/estimate.h"
#include "core/parse/json.h"
#include "core/parse/weight_headers.h"

namespace llmmem::core {

Json EstimateToJson(const Config& c, const Estimate& e);
Json DiagnosticsToJson(const Diagnostics& d);
// A weight-file header: {status, need_bytes, message, tensors, parameters, parameters_known,
// weight_bytes, header_bytes, by_type: [{type, tensors, parameters, bytes}], notes}.
Json WeightHeaderToJson(const WeightHeaderResult& r);

}  // namespace llmmem::core
