// The toolbar: the app's name; Undo, Redo (every edit is a step: state.h) and Reset to
// the first screen's defaults; the GB/GiB switch; the light/dark theme; the language;
// "Copy link" (the configuration as a URL query, the same state the web page keeps in
// its hash). Items flow onto the next line when the window is narrow (a phone), so none
// overlaps another.
#include <algorithm>
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/ui_defaults.h"
#include "app/widgets.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

float RadioWidth(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

void Flow(float width) { FlowSameLine(width); }

}  // namespace

void DrawToolbar(State& s) {
  const float em = ImGui::GetFontSize();
  const ImGuiStyle& style = ImGui::GetStyle();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("llmmem");  // not UI text: the program's name
  const char* subtitle = Tr("how much GPU memory will this LLM need?");
  const char* undo = Tr("Undo");
  const char* redo = Tr("Redo");
  const char* reset = Tr("Reset");
  const char* theme = s.dark ? Tr("Light theme") : Tr("Dark theme");
  const Lang other = CurrentLang() == Lang::kZh ? Lang::kEn : Lang::kZh;
  const char* lang = LangName(other);
  const char* link = Tr("Copy link");
  const float sp = style.ItemSpacing.x;
  const float controls = ButtonWidth(undo) + ButtonWidth(redo) + ButtonWidth(reset) + RadioWidth("GB") +
                         RadioWidth("GiB") + ButtonWidth(theme) + ButtonWidth(lang) + ButtonWidth(link) + 8 * sp + em;
  const float avail = ImGui::GetWindowContentRegionMax().x;
  // The subtitle only where it leaves the controls room on the same line.
  if (ImGui::GetCursorPosX() + ImGui::CalcTextSize(subtitle).x + controls + 2 * sp < avail) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", subtitle);
  }
  // Right-aligned when the whole group fits on this line; flowing from the left otherwise.
  ImGui::SameLine();
  const float x = std::max(ImGui::GetCursorPosX(), avail - controls + em);
  if (x + ButtonWidth(undo) > avail) {
    ImGui::NewLine();
  } else {
    ImGui::SameLine(x);
  }
  ImGui::BeginDisabled(s.undo.empty());
  if (ImGui::Button(undo)) Undo(s);
  ImGui::EndDisabled();
  MarkItem(s, "undo");
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", s.undo.empty() ? Tr("Nothing to undo")
                                           : TrF("Undo \"%s\" (Ctrl+Z)", s.undo.back().label.c_str()).c_str());
  Flow(ButtonWidth(redo));
  ImGui::BeginDisabled(s.redo.empty());
  if (ImGui::Button(redo)) Redo(s);
  ImGui::EndDisabled();
  MarkItem(s, "redo");
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", s.redo.empty() ? Tr("Nothing to redo")
                                           : TrF("Redo \"%s\" (Ctrl+Shift+Z)", s.redo.back().label.c_str()).c_str());
  Flow(ButtonWidth(reset));
  if (ImGui::Button(reset)) ApplyConfig(s, FirstScreenConfig(), Tr("reset to defaults"));
  MarkItem(s, "reset");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", Tr("Back to the first screen's defaults (undo brings your settings back)"));

  Flow(RadioWidth("GB") + RadioWidth("GiB") + sp);
  int units = s.units == core::UnitSystem::kDecimal ? 0 : 1;
  if (ImGui::RadioButton("GB", &units, 0)) {
    s.units = core::UnitSystem::kDecimal;
    s.view_dirty = true;
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", Tr("Decimal gigabytes: 1 GB = 10^9 bytes (what GPU spec sheets use)"));
  ImGui::SameLine();
  if (ImGui::RadioButton("GiB", &units, 1)) {
    s.units = core::UnitSystem::kBinary;
    s.view_dirty = true;
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", Tr("Binary gibibytes: 1 GiB = 2^30 bytes (what nvidia-smi and PyTorch report)"));
  Flow(ButtonWidth(theme));
  if (ImGui::Button(theme)) {
    s.dark = !s.dark;
    s.view_dirty = true;
    ApplyStyle(s.dark, s.scale);
  }
  MarkItem(s, "theme");
  Flow(ButtonWidth(lang));
  if (ImGui::Button(lang)) {
    SetLang(other);
    RequestFontRebuild();
    s.view_dirty = true;
    if (s.hooks.language_changed) s.hooks.language_changed(LangId(other));
  }
  MarkItem(s, "language");
  Flow(ButtonWidth(link));
  if (ImGui::Button(link)) {
    s.copied_link = s.hooks.copy_link ? s.hooks.copy_link(s.query) : std::string();
    s.copy_failed = s.copied_link.empty();
    if (s.copy_failed) s.copied_link = s.query;
    ImGui::OpenPopup("link");
  }
  MarkItem(s, "copy_link");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr("Copy a link that reopens this exact configuration"));
  if (ImGui::BeginPopup("link")) {
    ImGui::TextUnformatted(s.copy_failed ? Tr("Copy this link by hand:") : Tr("Copied to the clipboard:"));
    ImGui::SetNextItemWidth(std::min(em * 30, ImGui::GetMainViewport()->WorkSize.x - em * 2));
    ImGui::InputText("##link", s.copied_link.data(), s.copied_link.size() + 1, ImGuiInputTextFlags_ReadOnly);
    ImGui::EndPopup();
  }
}

}  // namespace llmmem::app
