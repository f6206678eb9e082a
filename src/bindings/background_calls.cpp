#include "bindings/background_calls.h"

#include "core/catalogue/job_examples.h"
#include "core/config/config_json.h"
#include "core/oom/oom_evidence.h"
#include "core/oom/oom_wire.h"
#include "core/parse/json.h"
#include "core/plan/jobs_json.h"
#include "core/plan/plan_json.h"
#include "core/plan/serve_plan_json.h"
#include "core/program_files/program_file.h"
#include "core/report/result_json.h"
#include "core/run/run_compare.h"
#include "core/run/run_json.h"
#include "core/run/run_log.h"

namespace llmmem::bindings {
namespace {

std::string JobExamplesJson() {
  core::Json::Array list;
  for (const core::JobExample& e : core::JobExamples()) {
    core::Json x(core::Json::Object{});
    x["id"] = core::Json(e.id);
    x["title"] = core::Json(e.title);
    // Indented for the page's text box (the embedded file is compact).
    const core::JsonParseResult r = core::ParseJson(e.request);
    x["request"] = core::Json(r.ok ? r.value.Dump(1) : e.request);
    x["bare_list"] = core::Json(e.bare_list);
    list.push_back(std::move(x));
  }
  core::Json j(core::Json::Object{});
  j["ok"] = core::Json(true);
  j["examples"] = core::Json(std::move(list));
  return j.Dump();
}

// {"text", "config" (optional), "from_log" (optional)}: ReadRunJson's arguments as one document.
std::string ReadRunRequest(const std::string& request_json) {
  const core::JsonParseResult parsed = core::ParseJson(request_json);
  const core::Json* text = parsed.ok ? parsed.value.Find("text") : nullptr;
  if (text == nullptr || !text->IsString()) {
    core::Json j(core::Json::Object{});
    j["ok"] = core::Json(false);
    j["error"] = core::Json(parsed.ok ? "read_run needs {\"text\": the log's text}" : parsed.error);
    return j.Dump();
  }
  const core::Json* config = parsed.value.Find("config");
  const core::Json* from_log = parsed.value.Find("from_log");
  return ReadRunJson(text->AsString(), config != nullptr ? config->Dump() : std::string(),
                     from_log != nullptr && from_log->IsBool() && from_log->AsBool());
}

}  // namespace

std::string ReadRunJson(const std::string& text, const std::string& config_json, bool from_log) {
  const core::RunLog log = core::ReadRunLog(text);
  if (config_json.empty() || !log.recognised) return core::RunReadingToJson(log, nullptr).Dump();
  const core::ConfigParse parsed = core::ConfigFromJsonText(config_json, core::DefaultConfig());
  const core::RunComparison cmp = core::CompareRun(log, parsed.config, from_log);
  core::Json j = core::RunReadingToJson(log, &cmp);
  j["config_diagnostics"] = core::DiagnosticsToJson(parsed.diagnostics);
  return j.Dump();
}

std::string CallBackground(const std::string& fn, const std::string& request_json) {
  if (fn == "plan") return core::PlanJson(request_json);
  if (fn == "serve_plan") return core::ServePlanJson(request_json);
  if (fn == "jobs") return core::JobsJson(request_json);
  if (fn == "jobs_examples") return JobExamplesJson();
  if (fn == "read_run") return ReadRunRequest(request_json);
  if (fn == "oom_evidence") {  // {"text"}: ReadEvidence's, whole (core/oom/oom_wire.h)
    const core::JsonParseResult parsed = core::ParseJson(request_json);
    const core::Json* text = parsed.ok ? parsed.value.Find("text") : nullptr;
    if (text != nullptr && text->IsString()) return core::EvidenceToWire(core::ReadEvidence(text->AsString())).Dump();
  }
  if (fn == "program_file") {  // {"text", "name"}: ImportProgramFileJson's arguments
    const core::JsonParseResult parsed = core::ParseJson(request_json);
    const core::Json* text = parsed.ok ? parsed.value.Find("text") : nullptr;
    const core::Json* name = parsed.ok ? parsed.value.Find("name") : nullptr;
    if (text != nullptr && text->IsString())
      return ImportProgramFileJson(text->AsString(), name != nullptr && name->IsString() ? name->AsString() : "");
  }
  core::Json j(core::Json::Object{});
  j["ok"] = core::Json(false);
  j["error"] = core::Json("no background call is named \"" + fn + "\" (known: plan, serve_plan, jobs, jobs_examples, read_run, oom_evidence, program_file)");
  return j.Dump();
}

std::string ImportProgramFileJson(const std::string& text, const std::string& file_name) {
  const core::ProgramFileImport file = core::ImportProgramFile(text, file_name);
  core::Json::Object out;
  out["import"] = core::ProgramFileToJson(file, file_name);
  if (file.ok) {
    core::Config c = core::DefaultConfig();
    core::Diagnostics notes;
    core::ApplyProgramFile(c, file, notes);
    out["config"] = core::ConfigToJson(c);
  }
  return core::Json(std::move(out)).Dump();
}

}  // namespace llmmem::bindings
