// The JS API's calls as plain C++, JSON text in and JSON text out (embind_api.cpp documents
// each under its JS name): one implementation for two doors, the Embind module (node, the
// page) and the Python module (python_module.cpp, issue 33 part 5), so both answer as the CLI.
// Bad input is reported, never answered for the defaults: the calls that return something
// other than an estimate return {"ok": false, "error", "diagnostics"} instead.
// The training-program and run readers live in background_calls.h (ImportProgramFileJson,
// ReadRunJson), the planners in core/plan (PlanJson, ServePlanJson, JobsJson).
#pragma once

#include <string>

namespace llmmem::bindings {

std::string Estimate(const std::string& config_json);  // estimate: as llmmem --json
std::string EstimateQuery(const std::string& query);    // estimateQuery: "v=1&model=..."
std::string DefaultConfigJson();                        // defaultConfig
std::string ConfigToQuery(const std::string& config_json);  // configToQuery: "v=1&..."
std::string PresetsJson();                                  // presets
std::string ImportHfConfig(const std::string& text);        // importHfConfig: {ok, config, diagnostics}
std::string ExportEstimate(const std::string& config_json, const std::string& format);  // markdown, csv, json
std::string Diagnose(const std::string& config_json);  // diagnose: as llmmem --doctor --json's "doctor"
std::string ReadOom(const std::string& text, const std::string& config_json);  // readOom; config "" for none
std::string ExportLaunch(const std::string& config_json, const std::string& target);  // exportLaunch
std::string FitServing(const std::string& config_json);  // fitServing
std::string Fit(const std::string& config_json);         // fit: as llmmem fit --json
std::string ConfigSchemaJson();                          // configSchema: as llmmem --schema
std::string Compat(const std::string& config_json, const std::string& tool, int gpus_per_node);
std::string InspectWeightHeader(const std::string& bytes, double file_size);

}  // namespace llmmem::bindings
