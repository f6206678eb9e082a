// The answer of the "program_file" background call, applied (program_file_view.h).
#include "app/program_file_view.h"

#include "app/i18n.h"
#include "core/config/config_json.h"
#include "core/parse/json.h"
#include "core/parse/text.h"

namespace llmmem::app {
namespace {

core::Diagnostic Line(core::Severity severity, const std::string& message) {
  return {core::DiagId::kIgnoredSetting, severity, "", message};
}

}  // namespace

bool LooksLikeProgramJson(const std::string& text) {
  const core::JsonParseResult j = core::ParseJson(text);
  if (!j.ok || !j.value.IsObject()) return false;
  for (const char* key : {"zero_optimization", "train_micro_batch_size_per_gpu", "per_device_train_batch_size",
                          "log_history", "train_type", "gradient_accumulation_steps"})
    if (j.value.Find(key) != nullptr) return true;
  return false;
}

void AskProgramFile(State& s, const std::string& name, const std::string& text) {
  if (!s.hooks.background) {
    AddBanner(s, {core::Say("Import %s", {name}), core::Say("training programs' files are read by llmmem --from here"),
                  {}, true});
    return;
  }
  s.program_file_seq = ++s.background_seq;
  s.program_file_name = name;
  core::Json request(core::Json::Object{});
  request["text"] = core::Json(text);
  request["name"] = core::Json(name);
  s.hooks.background(s.program_file_seq, "program_file", request.Dump());
}

bool ProgramFileAnswered(State& s, int64_t seq, bool ok, const std::string& text) {
  if (seq != s.program_file_seq) return false;
  s.program_file_seq = -1;
  const std::string& name = s.program_file_name;
  const core::JsonParseResult answer = core::ParseJson(ok ? text : std::string());
  const core::Json* file = answer.ok ? answer.value.Find("import") : nullptr;
  if (!ok || file == nullptr) {
    AddBanner(s, {core::Say("Import %s", {name}), core::Say("not imported; your configuration is unchanged"),
                  {Line(core::Severity::kError, ok ? std::string(Tr("the reader's answer was not understood")) : text)}, true});
    return true;
  }
  core::Diagnostics lines;
  for (const core::Json& e : file->Find("errors") ? file->Find("errors")->AsArray() : core::Json::Array{})
    lines.push_back(Line(core::Severity::kError, e.AsString()));
  const core::Json* config = answer.value.Find("config");
  if (config == nullptr) {
    AddBanner(s, {core::Say("Import %s", {name}), core::Say("not imported; your configuration is unchanged"), lines, true});
    return true;
  }
  // What each key set, then what it assumed, then the warnings (not counted, unknown keys).
  for (const core::Json& x : file->Find("settings")->AsArray()) {
    const std::string set = core::StringMember(x, "field") + " = " + core::StringMember(x, "value");
    const core::Json* assumed = x.Find("assumed");
    if (assumed != nullptr && assumed->IsBool() && assumed->AsBool()) {
      lines.push_back(Line(core::Severity::kInfo, "assumed: " + set + " (" + core::StringMember(x, "note") + ")"));
      continue;
    }
    std::string key = core::StringMember(x, "key") + ": " + core::StringMember(x, "key_value");
    const double line = core::NumberMember(x, "line");
    if (line > 0) key += " (line " + std::to_string(static_cast<int>(line)) + ")";
    lines.push_back(Line(core::Severity::kInfo, key + " -> " + set));
  }
  for (const core::Json& w : file->Find("warnings")->AsArray()) lines.push_back(Line(core::Severity::kWarning, w.AsString()));
  const core::ConfigParse parsed = core::ConfigFromJsonText(config->Dump(), core::DefaultConfig());
  core::Config c = parsed.config;
  // The file names no card: the one on screen stays.
  c.gpu = s.config.gpu;
  c.gpu_memory_gb = s.config.gpu_memory_gb;
  ApplyConfig(s, c, TrF("import %s", name.c_str()));
  const std::string label = core::StringMember(*file, "label");
  AddBanner(s, {core::Say("Import %s", {name}), core::Say("read as %s: each key and what it set", {label}), lines, false});
  return true;
}

}  // namespace llmmem::app
