// State refresh and diagnostic lookup.
#include "app/state.h"

#include <cstring>

#include "core/config_json.h"

namespace llmmem::app {

namespace {
const char* const kTabIds[] = {"breakdown", "charts", "fitmap"};
}

std::string TakeViewKeys(State& s, const std::string& query) {
  std::string rest;
  size_t i = 0;
  while (i <= query.size()) {
    size_t j = query.find('&', i);
    if (j == std::string::npos) j = query.size();
    const std::string pair = query.substr(i, j - i);
    bool taken = true;
    if (pair == "units=gib") {
      s.units = core::UnitSystem::kBinary;
    } else if (pair == "units=gb") {
      s.units = core::UnitSystem::kDecimal;
    } else if (pair == "theme=light") {
      s.dark = false;
    } else if (pair == "theme=dark") {
      s.dark = true;
    } else if (pair.compare(0, 5, "view=") == 0) {
      for (int t = 0; t < 3; ++t)
        if (pair.compare(5, std::string::npos, kTabIds[t]) == 0) {
          s.tab = t;
          s.select_tab = true;
        }
    } else {
      taken = false;
    }
    if (!taken && !pair.empty()) {
      if (!rest.empty()) rest += '&';
      rest += pair;
    }
    i = j + 1;
  }
  return rest;
}

std::string ViewKeys(const State& s) {
  std::string v;
  if (s.units == core::UnitSystem::kBinary) v += "&units=gib";
  if (!s.dark) v += "&theme=light";
  if (s.tab != kTabBreakdown && s.tab >= 0 && s.tab < 3) v += std::string("&view=") + kTabIds[s.tab];
  return v;
}

void Refresh(State& s) {
  if (!s.dirty && !s.view_dirty) return;
  if (s.dirty) {
    s.estimate = core::Explain(s.config);
    s.config_query = core::ConfigToQuery(s.config);
  }
  s.dirty = false;
  s.view_dirty = false;
  std::string q = s.config_query + ViewKeys(s);
  if (q != s.query) {
    s.query = std::move(q);
    s.copied_link.clear();
    if (s.hooks.state_changed) s.hooks.state_changed(s.query);
  }
}

std::vector<const core::Diagnostic*> DiagnosticsFor(const State& s, const char* field) {
  std::vector<const core::Diagnostic*> out;
  auto matches = [&](const std::string& f) {
    if (f == field) return true;
    return f.size() > 6 && f.compare(0, 6, "model.") == 0 && std::strcmp(f.c_str() + 6, field) == 0;
  };
  for (const core::Diagnostic& d : s.estimate.diagnostics)
    if (matches(d.field)) out.push_back(&d);
  return out;
}

double InUnits(double bytes, core::UnitSystem u) {
  return bytes / (u == core::UnitSystem::kDecimal ? core::kGB : core::kGiB);
}

const char* UnitLabel(core::UnitSystem u) { return u == core::UnitSystem::kDecimal ? "GB" : "GiB"; }

}  // namespace llmmem::app
