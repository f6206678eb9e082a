// The fit solver's answers (fit.h) as one JSON document: `llmmem fit --json` prints it and
// the JS API's fit() returns it, so both say the same thing. Against the card's whole
// capacity (CapacityBytes); the UI solves the same rows against FitBudget.
#pragma once

#include "core/config/config.h"
#include "core/solve/fit.h"
#include "core/io/json.h"

namespace llmmem::core {

Json ZeroStageFitToJson(const ZeroStageFit& r);
// gpu, capacity_bytes, fewest_gpus (one row per ZeRO stage), max_micro_batch, max_sequence,
// inference_formats, and for inference the serving answers (serving_json.h).
Json FitToJson(const Config& c);

}  // namespace llmmem::core
