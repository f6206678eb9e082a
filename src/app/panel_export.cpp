// The row under the verdict: "Pin" keeps the current configuration and estimate for
// comparison (the breakdown then shows Pinned and Change columns, the verdict the delta),
// and "Export" copies or saves the
// estimate as Markdown, JSON or CSV (core/export.h, core/result_json.h: the same text as
// the CLI's --format and the JS API's exportEstimate).
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "core/report/export.h"
#include "core/report/result_json.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

struct ExportFormat {
  const char* label;
  const char* file_name;
  const char* mime;
};
constexpr ExportFormat kFormats[] = {
    {"Markdown", "llmmem-estimate.md", "text/markdown"},
    {"JSON", "llmmem-estimate.json", "application/json"},
    {"CSV", "llmmem-estimate.csv", "text/csv"},
};

std::string ExportText(const State& s, int format) {
  if (format == 0) return core::EstimateToMarkdown(s.config, s.estimate);
  if (format == 1) return core::EstimateToJson(s.config, s.estimate).Dump(2) + "\n";
  return core::EstimateToCsv(s.estimate);
}

void ExportPopup(State& s) {
  if (!ImGui::BeginPopup("export")) return;
  ImGui::TextDisabled("%s", Tr("This estimate as"));
  for (int f = 0; f < 3; ++f) {
    ImGui::PushID(f);
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(kFormats[f].label);
    ImGui::SameLine(ImGui::GetFontSize() * 6);
    if (ImGui::Button(Tr("Copy"))) {
      const bool ok = s.hooks.copy_text && s.hooks.copy_text(ExportText(s, f));
      s.export_message = ok ? TrF("%s copied to the clipboard.", kFormats[f].label)
                            : std::string(Tr("Could not copy to the clipboard; use Save."));
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button(Tr("Save"))) {
      s.export_message = s.hooks.save_text
                             ? s.hooks.save_text(kFormats[f].file_name, kFormats[f].mime, ExportText(s, f))
                             : std::string(Tr("Could not save here."));
      ImGui::CloseCurrentPopup();
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(Tr("Save as %s"), kFormats[f].file_name);
    ImGui::PopID();
  }
  ImGui::EndPopup();
}

}  // namespace

void DrawPinExport(State& s) {
  const bool ok = s.estimate.totals.ok;
  if (!s.pinned) {
    if (!ok) ImGui::BeginDisabled();
    if (ImGui::Button(Tr("Pin"))) {
      s.pinned = MakePinned(s.config, s.estimate, s.config.model.name + ", " + ModeLabel(s.config.mode));
    }
    if (!ok) ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("%s", Tr("Keep this configuration to compare the next changes against"));
  } else {
    if (ImGui::Button(Tr("Unpin"))) s.pinned.reset();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(Tr("Stop comparing against %s"), s.pinned->label.c_str());
    ImGui::SameLine();
    if (ImGui::Button(Tr("Restore pinned"))) ApplyConfig(s, s.pinned->config, Tr("restore pinned"));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr("Go back to the pinned configuration (undo with Ctrl+Z)"));
  }
  ImGui::SameLine();
  if (!ok) ImGui::BeginDisabled();
  if (ImGui::Button(Tr("Export..."))) ImGui::OpenPopup("export");
  if (!ok) ImGui::EndDisabled();
  ExportPopup(s);
  if (!s.export_message.empty()) {
    ImGui::SameLine();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", s.export_message.c_str());
    ImGui::PopTextWrapPos();
  }
}

}  // namespace llmmem::app
