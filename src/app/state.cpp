// State refresh and diagnostic lookup.
#include "app/state.h"

#include <algorithm>
#include <cstring>

#include "app/i18n.h"
#include "app/mirror.h"
#include "app/tabs.h"
#include "app/ui_defaults.h"
#include "core/config/config_json.h"
#include "core/hub/hub_ref.h"
#include "core/parse/percent_encoding.h"
#include "core/network/network_json.h"
#include "core/network/network_request.h"
#include "core/solve/field_effect.h"

namespace llmmem::app {

namespace {
constexpr size_t kUndoMax = 50;
}

std::string TakeViewKeys(State& s, const std::string& query_in) {
  core::Diagnostics network_notes;
  std::string query;
  std::string without_network;
  const bool names_network = !core::NetworkRequestFromQuery(query_in, &without_network).AsObject().empty();
  if (names_network && core::NetworkPresets().empty() && s.hooks.need_networks) {
    // A link that names a network before the page has its presets: its net_ keys wait for them.
    s.network.pending_query = query_in;
    RequestNetworks(s);
    query = without_network;
  } else {
    query = TakeNetworkKeys(s.network, query_in, &network_notes);
  }
  if (!network_notes.empty())
    AddBanner(s, {core::Say("Network in the link"), core::Say("not used"), network_notes, false});
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
    } else if (pair.compare(0, 5, "lang=") == 0) {
      Lang l;
      if (ParseLang(pair.substr(5), l)) SetLang(l);
    } else if (pair.compare(0, 3, "hf=") == 0) {
      // A link that names a Hub model loads it (once the platform can fetch).
      s.hub.pending_link = core::PercentDecode(pair.substr(3), false);
    } else if (pair.compare(0, 5, "view=") == 0) {
      if (ParseTab(pair.substr(5), s.tab)) s.select_tab = true;
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
  if (s.dark == s.browser_light) v += s.dark ? "&theme=dark" : "&theme=light";  // not the platform's
  if (s.tab != kTabBreakdown && s.tab >= 0 && s.tab < kTabCount) v += std::string("&view=") + TabOf(s.tab).id;
  const std::string hf = HubLinkKey(s);
  if (!hf.empty()) v += "&" + hf;
  const std::string net = NetworkViewQuery(s.network);
  if (!net.empty()) v += "&" + net;
  Lang browser = Lang::kEn;
  ParseLang(s.browser_lang, browser);
  if (CurrentLang() != browser) v += std::string("&lang=") + LangId(CurrentLang());
  return v;
}

void Refresh(State& s) {
  if (!s.dirty && !s.view_dirty) return;
  if (s.dirty) {
    s.estimate = core::Explain(s.config);
    s.in_effect = core::FieldsInEffect(s.config);
    s.config_query = core::ConfigToQuery(s.config);
    // The doctor is there when asked (the verdict's "ways to make it fit"), never by itself.
    // Its remedies (dozens of estimates) are needed now only when the config does not fit.
    s.remedies.clear();
    s.remedies_fresh = false;
    s.dirty = false;
    if (s.estimate.totals.ok && !s.estimate.totals.GpuHolds()) EnsureRemedies(s);
  }
  s.dirty = false;
  s.view_dirty = false;
  std::string q = s.config_query + ViewKeys(s) + (s.link_kept.empty() ? "" : "&" + s.link_kept);
  if (q != s.query) {
    s.query = std::move(q);
    s.copied_link.clear();
    if (s.hooks.state_changed) s.hooks.state_changed(s.query);
    if (s.hooks.mirror_changed) s.hooks.mirror_changed(MirrorJson(s));
  }
}

void EnsureRemedies(State& s) {
  if (s.remedies_fresh || s.dirty) return;
  s.remedies = s.estimate.totals.ok ? core::Diagnose(s.config) : std::vector<core::Remedy>{};
  s.remedies_fresh = true;
}

void ApplyConfig(State& s, const core::Config& c, const std::string& label) {
  Refresh(s);
  CommitEdit(s, false);  // what was typed before stays its own step
  s.config = c;
  s.dirty = true;
  s.pending_label = label;
  Refresh(s);
  CommitEdit(s, false);
}

void CommitEdit(State& s, bool editing) {
  if (editing || s.dirty || s.config_query == s.undo_base_query) return;
  s.undo.push_back({s.pending_label.empty() ? std::string("edit") : s.pending_label, s.undo_base});
  if (s.undo.size() > kUndoMax) s.undo.erase(s.undo.begin());
  s.redo.clear();
  s.undo_base = s.config;
  s.undo_base_query = s.config_query;
  s.pending_label.clear();
}

namespace {
// Moves one step from `from` to `to`: the current configuration goes to `to`.
bool Step(State& s, std::vector<UndoStep>& from, std::vector<UndoStep>& to) {
  Refresh(s);
  CommitEdit(s, false);
  if (from.empty()) return false;
  to.push_back({from.back().label, s.config});
  s.config = from.back().config;
  from.pop_back();
  s.dirty = true;
  Refresh(s);
  s.undo_base = s.config;
  s.undo_base_query = s.config_query;
  s.pending_label.clear();
  return true;
}
}  // namespace

bool Undo(State& s) { return Step(s, s.undo, s.redo); }
bool Redo(State& s) { return Step(s, s.redo, s.undo); }

void ResetHistory(State& s) {
  Refresh(s);
  s.undo.clear();
  s.redo.clear();
  s.undo_base = s.config;
  s.undo_base_query = s.config_query;
  s.pending_label.clear();
}

void RequestNetworks(State& s) {
  if (s.network.presets_asked || !s.hooks.need_networks || !core::NetworkPresets().empty()) return;
  s.network.presets_asked = true;
  s.hooks.need_networks();
}

void AddBanner(State& s, Banner b) {
  // One banner per title: a newer message replaces the older one.
  const std::string title = core::Render(b.title);
  for (Banner& old : s.banners)
    if (core::Render(old.title) == title) {
      old = std::move(b);
      return;
    }
  s.banners.push_back(std::move(b));
}

namespace {
// The link banner's title when none is showing (the same as Init's for a link).
core::Phrase LinkBannerTitle() { return core::Say("Link state"); }

std::string JoinItems(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : "&") + item;
  return out;
}

// The banner that holds what the link kept, its field filled with the kept text.
void ShowKeptLink(State& s, const core::Phrase& title, core::Diagnostics notes) {
  const size_t n = std::min(s.link_kept.size(), s.link_edit.size() - 1);
  std::memcpy(s.link_edit.data(), s.link_kept.data(), n);
  s.link_edit[n] = '\0';
  Banner b{title,
           s.link_kept.empty() ? core::Say("some values were not used")
                               : core::Say("some values were not used; they stay in the link until you fix or drop them"),
           std::move(notes), false, !s.link_kept.empty()};
  AddBanner(s, std::move(b));
}
}  // namespace

std::vector<std::string> HiddenInEffect(const State& s) {
  auto shown = [](const std::vector<std::string>& list, const std::string& f) {
    return std::find(list.begin(), list.end(), f) != list.end();
  };
  std::vector<std::string> hidden;
  for (const std::string& f : s.in_effect)
    if (!shown(s.shown_fields, f) && !shown(s.shown_last_frame, f)) hidden.push_back(f);
  return hidden;
}

void OpenLinkQuery(State& s, const std::string& config_query, const core::Config& base, const core::Phrase& title) {
  core::ConfigParse parsed = core::ConfigFromQuery(config_query, base);
  s.config = parsed.config;
  s.link_kept = JoinItems(parsed.kept_items);
  s.dirty = true;
  s.link_opened = true;
  if (!parsed.diagnostics.empty()) ShowKeptLink(s, title, std::move(parsed.diagnostics));
}

void ApplyKeptLink(State& s, const std::string& text) {
  core::ConfigParse parsed = core::ConfigFromQuery(text, s.config);
  s.link_kept = JoinItems(parsed.kept_items);
  ApplyConfig(s, parsed.config, Tr("link values"));
  core::Phrase title = LinkBannerTitle();
  for (const Banner& b : s.banners)
    if (b.link) title = b.title;
  if (parsed.diagnostics.empty()) {
    s.banners.erase(std::remove_if(s.banners.begin(), s.banners.end(), [](const Banner& b) { return b.link; }),
                    s.banners.end());
  } else {
    ShowKeptLink(s, title, std::move(parsed.diagnostics));
  }
  s.view_dirty = true;
  Refresh(s);
}

void DropKeptLink(State& s) {
  s.link_kept.clear();
  s.banners.erase(std::remove_if(s.banners.begin(), s.banners.end(), [](const Banner& b) { return b.link; }),
                  s.banners.end());
  s.view_dirty = true;
  Refresh(s);
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
