// The UI's state: the configuration being edited, its estimate (recomputed only when the
// configuration changed), and the view settings. One instance, owned by app.cpp and
// passed to each panel.
// May include: core (no imgui).
#pragma once

#include <string>
#include <vector>

#include "app/app.h"
#include "core/config.h"
#include "core/diagnostics.h"
#include "core/estimate.h"
#include "core/units.h"

namespace llmmem::app {

struct State {
  core::Config config;
  core::Estimate estimate;
  core::Diagnostics load_diagnostics;  // from the initial URL state or an import
  std::string config_query;            // ConfigToQuery(config) as of the last recompute
  std::string query;                   // the URL state: config_query plus the view keys below
  bool dirty = true;                   // config changed since the last Explain
  bool view_dirty = false;             // units, theme or tab changed

  // View.
  core::UnitSystem units = core::UnitSystem::kDecimal;
  bool dark = true;
  int tab = 0;                         // kTabBreakdown, kTabCharts, kTabFitMap
  bool select_tab = false;             // open `tab` on the next frame (from the URL)
  float scale = 1;
  std::string copied_link;             // shown after "Copy link"
  bool copy_failed = false;

  PlatformHooks hooks;
};

enum Tab { kTabBreakdown, kTabCharts, kTabFitMap };

// View keys kept in the URL beside the config's: units=gib, theme=light, view=charts|fitmap
// (defaults are not written). Removes them from `query` and applies them to `s`.
std::string TakeViewKeys(State& s, const std::string& query);
std::string ViewKeys(const State& s);

// Runs Explain when the config is dirty, refreshes the query, tells the platform.
void Refresh(State& s);

// The diagnostics about one input: `field` matches "seq" or "model.seq" style names.
std::vector<const core::Diagnostic*> DiagnosticsFor(const State& s, const char* field);

// Bytes in the chosen unit and its label ("GB" / "GiB").
double InUnits(double bytes, core::UnitSystem u);
const char* UnitLabel(core::UnitSystem u);

}  // namespace llmmem::app
