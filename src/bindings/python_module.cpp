// The Python module _llmmem (issue 33 part 5): the JS API's calls (api_calls.h,
// background_calls.h, core/plan) behind pybind11, JSON text in and JSON text out, under the
// names python/llmmem/ wraps with json.dumps / json.loads. The same functions as the Embind
// module, so Python, node, the page and the CLI give the same figures.
// May include: bindings/, core/ and pybind11 (Debian's pybind11-dev); nothing of the UI.
#include <pybind11/pybind11.h>

#include <string>

#include "bindings/api_calls.h"
#include "bindings/background_calls.h"
#include "core/plan/jobs_json.h"
#include "core/plan/plan_json.h"
#include "core/plan/serve_plan_json.h"

namespace py = pybind11;
using namespace llmmem;

PYBIND11_MODULE(_llmmem, m) {
  m.doc() = "llmmem's core: JSON text in, JSON text out (python/llmmem wraps it in dicts)";
  // The core never calls back into Python: each call lets other threads run (a plan search
  // takes seconds). pybind11 converts the arguments before and the answer after the guard.
  using Release = py::call_guard<py::gil_scoped_release>;
  m.def("estimate", &bindings::Estimate, py::arg("config_json"), Release(),
        "the estimate of a configuration's JSON, as llmmem --json prints it");
  m.def("estimate_query", &bindings::EstimateQuery, py::arg("query"), Release(), "the estimate of a link's query");
  m.def("default_config", &bindings::DefaultConfigJson, "the configuration the apps open with");
  m.def("config_to_query", &bindings::ConfigToQuery, py::arg("config_json"), "the link's query (v=1&...)");
  m.def("config_schema", &bindings::ConfigSchemaJson, "the configuration's JSON Schema (llmmem --schema)");
  m.def("presets", &bindings::PresetsJson, "the model presets");
  m.def("import_hf_config", &bindings::ImportHfConfig, py::arg("config_json_text"), Release(),
        "a Hugging Face config.json read onto the default configuration: {ok, config, diagnostics}");
  m.def("import_program_file", &bindings::ImportProgramFileJson, py::arg("text"), py::arg("name"), Release(),
        "a training program's file read as llmmem --from FILE --json reads it: {import, config}");
  m.def("read_run", &bindings::ReadRunJson, py::arg("text"), py::arg("config_json"), py::arg("from_log"), Release(),
        "a runtime's log or a torch.cuda.memory_stats() JSON dump, beside a configuration's estimate (config \"\": none)");
  m.def("read_oom", &bindings::ReadOom, py::arg("text"), py::arg("config_json"), Release(),
        "a CUDA out-of-memory message read, beside a configuration (config \"\": none)");
  m.def("fit", &bindings::Fit, py::arg("config_json"), Release(), "every fit answer, as llmmem fit --json");
  m.def("fit_serving", &bindings::FitServing, py::arg("config_json"), Release(), "the serving fit answers");
  m.def("diagnose", &bindings::Diagnose, py::arg("config_json"), Release(),
        "the remedies when it does not fit, as llmmem --doctor --json's \"doctor\"");
  m.def("export_estimate", &bindings::ExportEstimate, py::arg("config_json"), py::arg("format"), Release(),
        "the estimate as markdown, csv or json text");
  m.def("export_launch", &bindings::ExportLaunch, py::arg("config_json"), py::arg("target"), Release(),
        "the launch command or config for a configuration (as llmmem --export)");
  m.def("compat", &bindings::Compat, py::arg("config_json"), py::arg("tool"), py::arg("gpus_per_node"), Release(),
        "DeepSpeed's or Megatron-LM's own estimate for the same inputs");
  m.def("plan", &core::PlanJson, py::arg("request_json"), Release(), "the training plan (llmmem.plan/1)");
  m.def("plan_serving", &core::ServePlanJson, py::arg("request_json"), Release(), "the serving plan");
  m.def("plan_jobs", &core::JobsJson, py::arg("request_json"), Release(), "several jobs on one GPU (llmmem.jobs/1)");
}
