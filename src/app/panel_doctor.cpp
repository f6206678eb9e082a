// The OOM doctor: core::Diagnose's remedies for the current configuration (each one
// re-estimated by the core, best first), with the saving, the total it leads to, whether
// that fits, the trade-off on hover and a mark on those that change the workload. One
// click applies a remedy as an undoable step (Ctrl+Z or the toolbar's Undo).
#include <string>

#include "app/panels.h"
#include "app/theme.h"
#include "core/units.h"
#include "imgui.h"

namespace llmmem::app {

void DrawDoctor(State& s) {
  const core::Totals& t = s.estimate.totals;
  if (!t.ok) {
    ImGui::TextDisabled("No estimate: fix the inputs marked in red first.");
    return;
  }
  const bool fits = t.Fits();
  ImGui::PushTextWrapPos(0);
  if (fits) {
    ImGui::TextColored(GoodColor(), "It fits. These changes would still lower the per-GPU peak:");
  } else {
    ImGui::TextColored(BadColor(), "Over by %s. Each remedy below was applied alone and re-estimated; "
                                   "those that make it fit come first.",
                       core::FormatBytes(-t.Headroom(), s.units).c_str());
  }
  ImGui::PopTextWrapPos();
  if (s.remedies.empty()) {
    ImGui::TextDisabled("No single change the doctor knows saves memory here: try a larger GPU or more GPUs.");
    return;
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("remedies", 5, flags, ImGui::GetContentRegionAvail())) return;
  const float em = ImGui::GetFontSize();
  const char* unit = UnitLabel(s.units);
  const std::string saves = std::string("Saves (") + unit + ")";
  const std::string total = std::string("Total (") + unit + ")";
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Remedy", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn(saves.c_str(), ImGuiTableColumnFlags_WidthFixed, em * 6);
  ImGui::TableSetupColumn(total.c_str(), ImGuiTableColumnFlags_WidthFixed, em * 6);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, em * 10.5f);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, em * 4);
  ImGui::TableHeadersRow();
  const core::Remedy* apply = nullptr;
  for (const core::Remedy& r : s.remedies) {
    ImGui::PushID(r.id.c_str());
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(r.title.c_str());
    const bool hovered = ImGui::IsItemHovered();
    ImGui::SameLine();
    ImGui::TextDisabled("%s", r.change.c_str());
    if (hovered || ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(em * 28);
      ImGui::Text("Changes: %s", r.change.c_str());
      ImGui::Text("Trade-off: %s", r.tradeoff.c_str());
      if (r.changes_workload) ImGui::TextColored(WarnColor(), "This changes what is run or trained, not only how.");
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    ImGui::TableNextColumn();
    ImGui::AlignTextToFramePadding();
    ImGui::Text("%.2f", InUnits(r.saving_bytes, s.units));
    ImGui::TableNextColumn();
    ImGui::AlignTextToFramePadding();
    ImGui::Text("%.2f", InUnits(r.peak_bytes, s.units));
    ImGui::TableNextColumn();
    ImGui::AlignTextToFramePadding();
    if (r.fits) {
      ImGui::TextColored(GoodColor(), "fits");
    } else {
      ImGui::TextDisabled("still over");
    }
    if (r.changes_workload) {
      ImGui::SameLine();
      ImGui::TextColored(WarnColor(), "workload");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("Changes the workload: %s", r.tradeoff.c_str());
    }
    ImGui::TableNextColumn();
    if (ImGui::SmallButton("Apply")) apply = &r;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Set %s (undo with Ctrl+Z)", r.change.c_str());
    ImGui::PopID();
  }
  ImGui::EndTable();
  if (apply != nullptr) {
    const core::Remedy chosen = *apply;  // ApplyConfig recomputes s.remedies
    ApplyConfig(s, chosen.config, chosen.title);
  }
}

}  // namespace llmmem::app
