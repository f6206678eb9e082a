// The JS API: the core's estimate behind Embind, JSON text in and out, for node
// (build/wasm/llmmem_api.js) and for the page (the web app's Module). Same core, same
// numbers as the CLI and the UI: the functions are api_calls.h's, which the Python module
// (python_module.cpp) binds too.
//   estimate(configJson) -> result JSON (as llmmem --json)
//   estimateQuery(urlQuery) -> result JSON
//   defaultConfig() -> config JSON; configToQuery(configJson) -> "v=1&model=..."
//   presets() -> [{key, id, name, family, params, published_params, ok}]
//   importHfConfig(configJsonText) -> {ok, config, diagnostics, checkpoint_dtype} (seq starts at
//     the model's context when that is shorter than the default; checkpoint_dtype, when its
//     quantization_config names one, the format the weights are stored in: "nf4", "gptq", ...)
//   exportEstimate(configJson, "markdown" | "csv" | "json") -> text
//   diagnose(configJson) -> [{id, title, change, tradeoff, saving_bytes, peak_bytes, fits,
//     changes_workload, query}] (as llmmem --doctor --json's "doctor": core/doctor_json.h)
//   configSchema() -> the configuration's JSON Schema (as llmmem --schema: core/config/config_schema.h)
//   compat(configJson, "deepspeed" | "megatron", gpusPerNode) -> that tool's figures (as
//     llmmem --compat ... --json's "compat")
//   readOom(text, configJson) -> the reading of a pasted CUDA OOM message / nvidia-smi /
//     memory_summary / mem_get_info (core/oom_json.h); configJson "" reads without a configuration
//   importProgramFile(text, name) -> what `llmmem --from FILE --json` reads of a training
//       program's file: {"import": each key's fate, "config": the defaults with it applied}
//   readRun(text, configJson, fromLog) -> a serving runtime's start-up log or a memory_stats()
//     JSON dump read and, with a configuration, set beside the estimate (as llmmem run --json:
//     core/run/run_json.h); configJson "" reads without one; fromLog takes the log's settings
// Bad input is reported by every entry point, never answered for the defaults:
// configToQuery, exportEstimate, diagnose and compat then return {"ok": false, "error", "diagnostics"}
// (JSON text) instead of their usual answer; estimate, estimateQuery and importHfConfig
// carry ok: false and the diagnostics in their own answer; inspectWeightHeader status "error".
//   exportLaunch(configJson, "vllm" | "sglang" | "llama.cpp" | "ollama" | "deepspeed" | "fsdp" |
//     "hf-trainer") -> the launch command or config (as llmmem --export)
//   fitServing(configJson) -> the serving fit answers (as llmmem fit's "serving")
//   fit(configJson) -> every fit answer (as llmmem fit --json: core/fit_json.h)
//   plan(requestJson) -> the training plan, schema llmmem.plan/1 (as llmmem plan --json:
//     core/plan/plan_json.h; request {config, gpus | max_gpus, global_batch_tokens, seq, top, ...})
//   planServing(requestJson) -> the serving plan, schema llmmem.serve_plan/1 (core/plan/serve_plan_json.h;
//     request {config, gpus, goal: "concurrency" | "context", top}), each option with its launch command
//   planJobs(requestJson) -> several jobs on one GPU, schema llmmem.jobs/1 (as llmmem plan --jobs FILE
//     --json: core/plan/jobs_json.h; request {gpu, gpu_memory_gb, jobs: [{name, kind, ...}]})
//   estimateNetwork(requestJson) -> any network, layer by layer (as llmmem --model resnet50
//     --json; keys in core/network_request.h); networks() -> the vision presets;
//   torchReprToNetwork(printModelText) -> {ok, network, graph_exact, diagnostics}
//   inspectWeightHeader(bytes: Uint8Array of the file's first bytes, fileSize) ->
//     {status: "complete" | "need_more" | "error", need_bytes, ...}: call again with
//     File.slice(0, need_bytes) until complete (never the whole file)
#include <emscripten/bind.h>

#include "bindings/api_calls.h"
#include "bindings/background_calls.h"
#include "core/network/network_request.h"
#include "core/plan/jobs_json.h"
#include "core/plan/plan_json.h"
#include "core/plan/serve_plan_json.h"

EMSCRIPTEN_BINDINGS(llmmem) {
  using namespace llmmem::bindings;
  emscripten::function("estimate", &Estimate);
  emscripten::function("estimateQuery", &EstimateQuery);
  emscripten::function("defaultConfig", &DefaultConfigJson);
  emscripten::function("configToQuery", &ConfigToQuery);
  emscripten::function("presets", &PresetsJson);
  emscripten::function("importHfConfig", &ImportHfConfig);
  emscripten::function("exportEstimate", &ExportEstimate);
  emscripten::function("diagnose", &Diagnose);
  emscripten::function("readOom", &ReadOom);
  emscripten::function("readRun", &llmmem::bindings::ReadRunJson);  // background_calls.h
  emscripten::function("importProgramFile", &llmmem::bindings::ImportProgramFileJson);  // --from FILE
  emscripten::function("exportLaunch", &ExportLaunch);
  emscripten::function("fitServing", &FitServing);
  emscripten::function("fit", &Fit);
  emscripten::function("plan", &llmmem::core::PlanJson);  // a plan request's JSON in, llmmem.plan/1 out
  emscripten::function("planServing", &llmmem::core::ServePlanJson);  // llmmem.serve_plan/1
  emscripten::function("planJobs", &llmmem::core::JobsJson);           // llmmem.jobs/1
  emscripten::function("compat", &Compat);
  emscripten::function("configSchema", &ConfigSchemaJson);
  // JS passes a Uint8Array (File.slice's bytes): Embind copies typed arrays into a
  // std::string byte for byte.
  emscripten::function("inspectWeightHeader", &InspectWeightHeader);
  // Any network, layer by layer (issue 17).
  emscripten::function("estimateNetwork", &llmmem::core::EstimateNetworkJson);
  emscripten::function("networks", &llmmem::core::NetworkPresetsJson);
  emscripten::function("torchReprToNetwork", &llmmem::core::TorchReprToNetworkJson);
}
