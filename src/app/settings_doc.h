// The desktop settings document: ConfigToJson(config) plus a "ui" member holding the view
// keys as a query ("units=gib&theme=light&view=charts"). Reading is all or nothing: a
// document that is not JSON, not an object, or has a field the core rejects is unusable
// (the caller sets it aside and says why); unknown keys are warnings and load.
// May include: core (no imgui), so tests can cover it.
#pragma once

#include <string>

#include "core/config/config.h"
#include "core/base/diagnostics.h"

namespace llmmem::app {

std::string SettingsToJsonText(const core::Config& config, const std::string& view_query);

struct SettingsParse {
  bool ok = false;
  core::Config config;
  std::string view_query;         // the "ui" member
  std::string error;              // !ok: the parse error or the first rejected field
  core::Diagnostics diagnostics;  // ok: warnings (unknown keys)
};
SettingsParse ParseSettingsText(const std::string& text);

}  // namespace llmmem::app
