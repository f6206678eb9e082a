// The core's calls that may take long enough to freeze a frame (issue 34 part 5: the training
// search over 1,024 GPUs; the serving planner), by name, JSON in and JSON out: one dispatch for
// the doors that run them off the UI thread, the page's Web Worker (platform/plan_worker_main.cpp,
// web/plan_worker.js) and the desktop's thread (platform/desktop_background.cpp), so both answer
// alike. The JS API calls the same functions by their own names (embind_api.cpp: plan,
// planServing, planJobs).
#pragma once

#include <string>

namespace llmmem::bindings {

// fn: "plan" (core/plan/plan_json.h, schema llmmem.plan/1), "serve_plan" (serve_plan_json.h,
// llmmem.serve_plan/1), "jobs" (jobs_json.h, llmmem.jobs/1) or "jobs_examples" (the request
// is ignored: {"ok", "examples": [{"id", "title", "request", "bare_list"}]}, the embedded
// presets/jobs files, core/catalogue/job_examples.h) or "read_run" ({"text", "config",
// "from_log"}: ReadRunJson). An unknown name answers a JSON object with ok false and an error
// naming the known calls.
std::string CallBackground(const std::string& fn, const std::string& request_json);

// A runtime's start-up log, memory_stats() JSON or memory summary read (core/run) and, with a
// configuration's JSON (not empty), set beside its estimate: the JS API's readRun and `llmmem
// run --json`'s document; from_log takes the log's own settings (max_model_len, ...).
// importProgramFile(text, name): a training program's file as `llmmem --from FILE --json`
// reads it: {"import": what each key set, assumed, did not count or know, "config": the
// default configuration with the file applied (absent when it did not read)}.
std::string ImportProgramFileJson(const std::string& text, const std::string& file_name);
std::string ReadRunJson(const std::string& text, const std::string& config_json, bool from_log);

}  // namespace llmmem::bindings
