// Several jobs on one GPU as data: the request's JSON in, schema "llmmem.jobs/1" out
// (README.md "Several jobs on one GPU"). Fields are only ever added under this version; a
// field removed or retyped needs "llmmem.jobs/2" (tests/test_jobs_json.cpp checks each).
// The CLI's `plan --jobs FILE --json` and the JS API's planJobs(requestJson) print it.
//
// Request: {"gpu": "RTX-4090-24GB", "gpu_memory_gb": 24 (optional, a card of that memory),
//           "jobs": [{"name", "kind": "held" | "trainer" | "engine" | "server",
//                     "bytes" | "gb" (held), "config": {...Config JSON...} (the others),
//                     "sleep_level", "weight_sync", "bucket_mib", "process" (engine),
//                     "draft": {...Config JSON: model and formats...} (server, llama.cpp)}]}
// A bare list of jobs is the request when the GPU comes from elsewhere (the CLI's --gpu).
// Every bad input is an error naming its key ("jobs[1].sleep_level"); unknown keys, the
// config's included, are errors here, not warnings.
#pragma once

#include <string>

#include "core/base/diagnostics.h"
#include "core/parse/json.h"
#include "core/plan/jobs.h"

namespace llmmem::core {

constexpr const char* kJobsSchema = "llmmem.jobs/1";

struct JobsRequestParse {
  JobsRequest request;
  Diagnostics diagnostics;  // errors: no plan
};
// `gpu_key`: the GPU when the document names none (or is a bare list); "" for none.
JobsRequestParse JobsRequestFromJsonText(const std::string& text, const std::string& gpu_key = "");

Json JobsToJson(const JobsPlan& plan, const JobsRequest& r);
// An error document under the same schema: ok false, error (the first), diagnostics.
Json JobsErrorJson(const Diagnostics& diags);

// The JS API's one call: the request's JSON in, the plan's JSON out.
std::string JobsJson(const std::string& request_json);

}  // namespace llmmem::core
