// The toolbar: the app's name, the GB/GiB switch, the light/dark theme and "Copy link"
// (the configuration as a URL query, the same state the web page keeps in its hash).
#include <algorithm>

#include "app/panels.h"
#include "app/theme.h"
#include "imgui.h"

namespace llmmem::app {

void DrawToolbar(State& s) {
  const float em = ImGui::GetFontSize();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("llmmem");
  ImGui::SameLine();
  ImGui::TextDisabled("LLM GPU memory calculator: per-GPU peak for inference, training and (Q)LoRA");

  // Right-aligned controls.
  const float right_w = em * 22.0f;
  ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - right_w));
  ImGui::TextUnformatted("Units");
  ImGui::SameLine();
  int units = s.units == core::UnitSystem::kDecimal ? 0 : 1;
  if (ImGui::RadioButton("GB", &units, 0)) {
    s.units = core::UnitSystem::kDecimal;
    s.view_dirty = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Decimal gigabytes: 1 GB = 10^9 bytes (what GPU spec sheets use)");
  ImGui::SameLine();
  if (ImGui::RadioButton("GiB", &units, 1)) {
    s.units = core::UnitSystem::kBinary;
    s.view_dirty = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Binary gibibytes: 1 GiB = 2^30 bytes (what nvidia-smi and PyTorch report)");
  ImGui::SameLine();
  if (ImGui::Button(s.dark ? "Light theme" : "Dark theme")) {
    s.dark = !s.dark;
    s.view_dirty = true;
    ApplyStyle(s.dark, s.scale);
  }
  ImGui::SameLine();
  if (ImGui::Button("Copy link")) {
    s.copied_link = s.hooks.copy_link ? s.hooks.copy_link(s.query) : std::string();
    s.copy_failed = s.copied_link.empty();
    if (s.copy_failed) s.copied_link = s.query;
    ImGui::OpenPopup("link");
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Copy a link that reopens this exact configuration");
  if (ImGui::BeginPopup("link")) {
    ImGui::TextUnformatted(s.copy_failed ? "Copy this link by hand:" : "Copied to the clipboard:");
    ImGui::SetNextItemWidth(em * 30);
    ImGui::InputText("##link", s.copied_link.data(), s.copied_link.size() + 1, ImGuiInputTextFlags_ReadOnly);
    ImGui::EndPopup();
  }
}

}  // namespace llmmem::app
