// The OOM doctor's remedies (doctor.h) and the compatibility modes' figures (compat.h) as
// JSON, one form each: `llmmem --doctor --json`, `llmmem --compat ... --json`, the OOM
// report (oom_json.cpp) and the JS API's diagnose() and compat() all print these.
#pragma once

#include <vector>

#include "core/solve/compat.h"
#include "core/solve/doctor.h"
#include "core/parse/json.h"

namespace llmmem::core {

// id, title, change, tradeoff, saving_bytes, peak_bytes (whole bytes), fits,
// changes_workload, query (the configuration with the remedy applied, as a link query).
Json RemedyToJson(const Remedy& r);
Json RemediesToJson(const std::vector<Remedy>& remedies);
// tool, scope, ok, and either error or gpu_bytes, cpu_bytes, lines and departures.
Json CompatToJson(const CompatEstimate& c);

}  // namespace llmmem::core
