// The OOM doctor: core::Diagnose's remedies for the current configuration (each one
// re-estimated by the core, best first), with the saving, the total it leads to, whether
// that fits, the trade-off on hover and a mark on those that change the workload. One
// click applies a remedy as an undoable step (Ctrl+Z or the toolbar's Undo). Remedy names
// wrap in their column (with the change under them), so they stay whole at any width.
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {

void DrawDoctor(State& s) {
  EnsureRemedies(s);
  const core::Totals& t = s.estimate.totals;
  if (!t.ok) {
    ImGui::TextDisabled("%s", Tr("No estimate: fix the inputs marked in red first."));
    return;
  }
  const bool fits = t.GpuHolds();  // the doctor is about the GPU's memory
  ImGui::PushTextWrapPos(0);
  if (fits) {
    ImGui::TextColored(GoodColor(), "%s", Tr("It fits. These changes would still lower the per-GPU peak:"));
  } else {
    ImGui::TextColored(BadColor(),
                       Tr("Over by %s. Each remedy below was applied alone and re-estimated; "
                          "those that make it fit come first."),
                       core::FormatBytes(-t.Headroom(), s.units).c_str());
  }
  ImGui::PopTextWrapPos();
  if (s.remedies.empty()) {
    ImGui::TextDisabled("%s",
                        Tr("No single change the doctor knows saves memory here: try a larger GPU or more GPUs."));
    return;
  }
  const ImGuiTableFlags flags =
      ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  const float em = ImGui::GetFontSize();
  // Narrow (a phone): two columns, the figures under each remedy's name.
  const bool narrow = ImGui::GetContentRegionAvail().x < em * 36;
  if (!ImGui::BeginTable(narrow ? "remedies_narrow" : "remedies", narrow ? 2 : 5, flags,
                         ImGui::GetContentRegionAvail()))
    return;
  const char* unit = UnitLabel(s.units);
  const std::string saves = std::string(Tr("Saves")) + " (" + unit + ")";
  const std::string total = std::string(Tr("Total")) + " (" + unit + ")";
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn(Tr("Remedy"), ImGuiTableColumnFlags_WidthStretch);
  if (!narrow) {
    ImGui::TableSetupColumn(saves.c_str(), ImGuiTableColumnFlags_WidthFixed, em * 6);
    ImGui::TableSetupColumn(total.c_str(), ImGuiTableColumnFlags_WidthFixed, em * 6);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, em * 6.5f);
  }
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize(Tr("Apply")).x + em);
  ImGui::TableHeadersRow();
  const core::Remedy* apply = nullptr;
  for (const core::Remedy& r : s.remedies) {
    ImGui::PushID(r.id.c_str());
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(Tr(r.title));
    const bool hovered = ImGui::IsItemHovered();
    ImGui::TextDisabled("%s", r.change.c_str());
    ImGui::PopTextWrapPos();
    if (hovered || ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(em * 28);
      ImGui::Text(Tr("Changes: %s"), r.change.c_str());
      ImGui::Text(Tr("Trade-off: %s"), r.tradeoff.c_str());
      if (r.changes_workload)
        ImGui::TextColored(WarnColor(), "%s", Tr("This changes what is run or trained, not only how."));
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
    if (narrow) {
      ImGui::Text(Tr("saves %s, total %s"), core::FormatBytes(r.saving_bytes, s.units).c_str(),
                  core::FormatBytes(r.peak_bytes, s.units).c_str());
      ImGui::SameLine();
    } else {
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", InUnits(r.saving_bytes, s.units));
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", InUnits(r.peak_bytes, s.units));
      ImGui::TableNextColumn();
    }
    if (r.fits) {
      ImGui::TextColored(GoodColor(), "%s", Tr("fits"));
    } else {
      ImGui::TextDisabled("%s", Tr("still over"));
    }
    if (r.changes_workload) {
      if (narrow) ImGui::SameLine();
      ImGui::TextColored(WarnColor(), "%s", Tr("workload"));
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s: %s", Tr("Changes the workload"), r.tradeoff.c_str());
    }
    ImGui::TableNextColumn();
    if (ImGui::SmallButton(Tr("Apply"))) apply = &r;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(Tr("Set %s (undo with Ctrl+Z)"), r.change.c_str());
    ImGui::PopID();
  }
  ImGui::EndTable();
  if (apply != nullptr) {
    const core::Remedy chosen = *apply;  // ApplyConfig recomputes s.remedies
    ApplyConfig(s, chosen.config, chosen.title);
  }
}

}  // namespace llmmem::app
