// The main window: toolbar on top, the inputs on the left, the results on the right
// (verdict, category bar, then tabs: breakdown table, charts, fit map). Owns the State.
#include "app/app.h"

#include <algorithm>
#include <memory>

#include "app/gl_min.h"
#include "app/panels.h"
#include "app/state.h"
#include "app/theme.h"
#include "core/config_json.h"
#include "core/json.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

std::unique_ptr<State> g_state;

void LoadDiagnosticsBanner(State& s) {
  if (s.load_diagnostics.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, WarnColor());
  ImGui::PushTextWrapPos(0);
  for (const core::Diagnostic& d : s.load_diagnostics)
    ImGui::Text("Link state: %s%s%s", d.field.c_str(), d.field.empty() ? "" : ": ", d.message.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
  if (ImGui::SmallButton("Dismiss")) s.load_diagnostics.clear();
}

}  // namespace

void Init(const PlatformHooks& hooks, float scale) {
  g_state = std::make_unique<State>();
  State& s = *g_state;
  s.hooks = hooks;
  s.scale = scale > 0 ? scale : 1;
  ImGui::GetIO().IniFilename = nullptr;  // nothing persisted: the URL is the state
  core::Config base = core::DefaultConfig();
  const std::string config_query = TakeViewKeys(s, hooks.initial_query);
  if (!config_query.empty()) {
    core::ConfigParse parsed = core::ConfigFromQuery(config_query, base);
    s.config = parsed.config;
    s.load_diagnostics = parsed.diagnostics;
  } else {
    s.config = base;
  }
  if (hooks.gl_loader != nullptr) gl::Load(hooks.gl_loader);
  LoadFonts(s.scale);
  ApplyStyle(s.dark, s.scale);
  // The first estimate: the platform already shows this state, so no state_changed call.
  auto changed = std::move(s.hooks.state_changed);
  Refresh(s);
  s.hooks.state_changed = std::move(changed);
}

bool SetScale(float scale) {
  if (!g_state || scale <= 0 || scale == g_state->scale) return false;
  g_state->scale = scale;
  LoadFonts(scale);
  ApplyStyle(g_state->dark, scale);
  return true;
}

void Frame() {
  if (!g_state) return;
  State& s = *g_state;
  Refresh(s);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("llmmem", nullptr, flags);
  DrawToolbar(s);
  LoadDiagnosticsBanner(s);
  ImGui::Separator();

  const float em = ImGui::GetFontSize();
  const float avail = ImGui::GetContentRegionAvail().x;
  const float inputs_w = std::min(em * 24.0f, avail * 0.42f);
  ImGui::BeginChild("inputs", ImVec2(inputs_w, 0), true);
  DrawModelInputs(s);
  DrawInputs(s);
  ImGui::EndChild();
  Refresh(s);  // the results below show this frame's inputs
  ImGui::SameLine();
  ImGui::BeginChild("results", ImVec2(0, 0), false);
  DrawVerdict(s);
  ImGui::Spacing();
  DrawCategoryBar(s);
  ImGui::Spacing();
  if (ImGui::BeginTabBar("views")) {
    static const char* const kTabs[] = {"Breakdown", "Charts", "Fit map"};
    for (int t = 0; t < 3; ++t) {
      const ImGuiTabItemFlags f = s.select_tab && s.tab == t ? ImGuiTabItemFlags_SetSelected : 0;
      if (!ImGui::BeginTabItem(kTabs[t], nullptr, f)) continue;
      if (s.tab != t && !s.select_tab) {
        s.tab = t;
        s.view_dirty = true;
      }
      if (t == kTabBreakdown) DrawBreakdown(s);
      if (t == kTabCharts) DrawCharts(s);
      if (t == kTabFitMap) DrawFitMap(s);
      ImGui::EndTabItem();
    }
    s.select_tab = false;
    ImGui::EndTabBar();
  }
  ImGui::EndChild();
  ImGui::End();
}

void Shutdown() {
  ShutdownFitMap();
  g_state.reset();
}

void ClearColor(float rgba[4]) {
  const ImVec4 c = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  rgba[0] = c.x;
  rgba[1] = c.y;
  rgba[2] = c.z;
  rgba[3] = 1;
}

std::string TestStateJson() {
  core::Json j;
  if (!g_state) return "{}";
  const core::Totals& t = g_state->estimate.totals;
  j["ok"] = t.ok;
  j["fits"] = t.Fits();
  j["peak_bytes"] = t.peak_bytes;
  j["capacity_bytes"] = t.capacity_bytes;
  j["config"] = g_state->config_query;
  j["url_state"] = g_state->query;
  j["units"] = UnitLabel(g_state->units);
  j["theme"] = g_state->dark ? "dark" : "light";
  return j.Dump();
}

}  // namespace llmmem::app
