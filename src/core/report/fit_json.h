// The fit solver's answers (fit.h) as one JSON document: `llmmem fit --json` prints it and
// the JS API's fit() returns it, so both say the same thing, and the UI's Fit tab shows the
// same AnswerFit. Every answer is solved against AnswerBudget (budget_bytes, headroom).
#pragma once

#include "core/config/config.h"
#include "core/solve/fit.h"
#include "core/parse/json.h"

namespace llmmem::core {

Json ZeroStageFitToJson(const ZeroStageFit& r);
// gpu, capacity_bytes, budget_bytes, headroom, model_context, fewest_gpus (one row per ZeRO
// stage, training only), max_micro_batch, max_sequence (within the model's context),
// max_params, inference_formats, and for inference the serving answers (serving_json.h).
Json FitToJson(const Config& c);

}  // namespace llmmem::core
