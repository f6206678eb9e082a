// The desktop settings document; see settings_doc.h.
#include "app/settings_doc.h"

#include "app/i18n.h"
#include "core/config/config_json.h"
#include "core/parse/json.h"

namespace llmmem::app {

std::string SettingsToJsonText(const core::Config& config, const std::string& view_query) {
  core::Json j = core::ConfigToJson(config);
  j["ui"] = view_query;
  return j.Dump(2) + "\n";
}

SettingsParse ParseSettingsText(const std::string& text) {
  SettingsParse out;
  core::JsonParseResult parsed = core::ParseJson(text);
  if (!parsed.ok) {
    out.error = parsed.error;
    return out;
  }
  if (!parsed.value.IsObject()) {
    out.error = Tr("the document is not a JSON object");
    return out;
  }
  core::Json::Object& members = parsed.value.MutableObject();
  auto ui = members.find("ui");
  if (ui != members.end()) {
    if (ui->second.IsString()) out.view_query = ui->second.AsString();
    members.erase(ui);
  }
  core::ConfigParse config = core::ConfigFromJson(parsed.value, core::DefaultConfig());
  for (const core::Diagnostic& d : config.diagnostics) {
    if (d.severity != core::Severity::kError) continue;
    out.error = (d.field.empty() ? "" : d.field + ": ") + d.message;
    return out;
  }
  out.ok = true;
  out.config = config.config;
  out.diagnostics = config.diagnostics;
  return out;
}

}  // namespace llmmem::app
