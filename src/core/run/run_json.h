// The run reading as JSON: one shape for `llmmem run --json` and the JS API's readRun.
#pragma once

#include "core/parse/json.h"
#include "core/run/calibrate.h"
#include "core/run/run_compare.h"
#include "core/run/run_log.h"

namespace llmmem::core {

Json RunLogToJson(const RunLog& log);
// The log and, when `cmp` is not null, the comparison beside the estimate ("comparison") and
// the residual to carry into other settings ("calibration": calibrate.h).
Json RunReadingToJson(const RunLog& log, const RunComparison* cmp);
Json CalibrationToJson(const Calibration& cal);

}  // namespace llmmem::core
