// The breakdown tree as a table: component, GB, GiB, share of the per-GPU total and, for
// per-layer tensors, one layer's size; while a configuration is pinned (compare.h), its
// bytes per component, matched by node id, and the change, in the chosen unit. Hovering a
// row shows its formula (values substituted), its source and its size at each moment.
#include <cstdio>
#include <string>

#include "app/panels.h"
#include "app/theme.h"
#include "core/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

void Tooltip(const core::BreakdownNode& n, const core::Estimate& e) {
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
  ImGui::TextUnformatted(n.name.c_str());
  ImGui::TextDisabled("%s", n.id.c_str());
  ImGui::Separator();
  if (n.device == core::Device::kGpu) {
    ImGui::Text("%s", core::FormatBytesBoth(n.bytes).c_str());
  } else {
    ImGui::Text("%s on %s: offloaded, not in the GPU figures", core::FormatBytesBoth(n.bytes).c_str(),
                core::DeviceName(n.device));
  }
  if (n.device == core::Device::kGpu && n.cpu_bytes > 0)
    ImGui::TextDisabled("Below it, offloaded to CPU: %s", core::FormatBytesBoth(n.cpu_bytes).c_str());
  if (n.device == core::Device::kGpu && n.nvme_bytes > 0)
    ImGui::TextDisabled("Below it, offloaded to NVMe: %s", core::FormatBytesBoth(n.nvme_bytes).c_str());
  if (!n.formula.empty()) {
    ImGui::TextDisabled("Formula");
    ImGui::TextUnformatted(n.formula.c_str());
  }
  if (!n.source.empty()) {
    ImGui::TextDisabled("Source");
    ImGui::TextUnformatted(n.source.c_str());
  }
  if (n.per_layer_bytes > 0) ImGui::Text("One layer: %s", core::FormatBytesBoth(n.per_layer_bytes).c_str());
  if (n.moment_bytes[0] != n.moment_bytes[1]) {
    for (int m = 0; m < core::kMomentCount; ++m) {
      const bool peak = static_cast<int>(e.totals.peak_moment) == m;
      ImGui::Text("At the %s: %s%s", core::MomentName(static_cast<core::Moment>(m)),
                  core::FormatBytes(n.moment_bytes[m], core::UnitSystem::kDecimal).c_str(), peak ? "  (peak)" : "");
    }
  }
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

// Right-aligned cell text.
void Cell(const char* fmt, double v) {
  char buf[48];
  snprintf(buf, sizeof buf, fmt, v);
  const float w = ImGui::CalcTextSize(buf).x;
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - w);
  ImGui::TextUnformatted(buf);
}

void Row(const core::BreakdownNode& n, const core::Estimate& e, double total, int depth, const State& s) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  const bool leaf = n.children.empty();
  ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_SpanFullWidth;
  if (leaf) flags |= ImGuiTreeNodeFlags_Leaf | ImGuiTreeNodeFlags_NoTreePushOnOpen;
  if (depth < 2) flags |= ImGuiTreeNodeFlags_DefaultOpen;
  if (leaf) {
    // A chip in the category's colour where the arrow would be.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    dl->AddRectFilled(ImVec2(p.x + h * 0.25f, p.y + h * 0.25f), ImVec2(p.x + h * 0.75f, p.y + h * 0.75f),
                      CategoryColor(n.category), 2);
  }
  const bool open = ImGui::TreeNodeEx(n.id.c_str(), flags, "%s", n.name.c_str());
  if (ImGui::IsItemHovered()) Tooltip(n, e);
  // Offloaded rows are not in the per-GPU total nor in the GPU rows above them: dimmed
  // figures in parentheses, and where they are instead of a share.
  const bool on_gpu = n.device == core::Device::kGpu;
  if (!on_gpu) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TableNextColumn();
  Cell(on_gpu ? "%.2f" : "(%.2f)", n.bytes / core::kGB);
  ImGui::TableNextColumn();
  Cell(on_gpu ? "%.2f" : "(%.2f)", n.bytes / core::kGiB);
  ImGui::TableNextColumn();
  if (!on_gpu) ImGui::Text("on %s", core::DeviceName(n.device));
  else if (total > 0) Cell("%.1f%%", 100.0 * n.bytes / total);
  if (!on_gpu) ImGui::PopStyleColor();
  ImGui::TableNextColumn();
  if (n.per_layer_bytes > 0) ImGui::TextDisabled("%s", core::FormatBytes(n.per_layer_bytes, core::UnitSystem::kDecimal).c_str());
  if (s.pinned) {
    const double* pinned = PinnedBytes(*s.pinned, n.id);
    ImGui::TableNextColumn();
    if (pinned != nullptr) Cell("%.2f", InUnits(*pinned, s.units));
    ImGui::TableNextColumn();
    const double delta = n.bytes - (pinned != nullptr ? *pinned : 0.0);
    if (pinned == nullptr) {
      ImGui::TextDisabled("new");
    } else if (InUnits(delta, s.units) >= 0.005 || InUnits(delta, s.units) <= -0.005) {
      ImGui::PushStyleColor(ImGuiCol_Text, delta > 0 ? BadColor() : GoodColor());
      Cell("%+.2f", InUnits(delta, s.units));
      ImGui::PopStyleColor();
    }
  }
  if (open && !leaf) {
    for (const core::BreakdownNode& c : n.children) Row(c, e, total, depth + 1, s);
    ImGui::TreePop();
  }
}

}  // namespace

void DrawBreakdown(const State& s) {
  const core::Estimate& e = s.estimate;
  if (!e.totals.ok) return;
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  const int columns = s.pinned ? 7 : 5;
  if (!ImGui::BeginTable(s.pinned ? "breakdown_pinned" : "breakdown", columns, flags, ImGui::GetContentRegionAvail()))
    return;
  const float em = ImGui::GetFontSize();
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Component", ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoHide);
  ImGui::TableSetupColumn("GB", ImGuiTableColumnFlags_WidthFixed, em * 4.5f);
  ImGui::TableSetupColumn("GiB", ImGuiTableColumnFlags_WidthFixed, em * 4.5f);
  ImGui::TableSetupColumn("Share", ImGuiTableColumnFlags_WidthFixed, em * 4.0f);
  ImGui::TableSetupColumn("Per layer", ImGuiTableColumnFlags_WidthFixed, em * 6.0f);
  if (s.pinned) {
    const std::string unit = UnitLabel(s.units);
    ImGui::TableSetupColumn(("Pinned " + unit).c_str(), ImGuiTableColumnFlags_WidthFixed, em * 5.5f);
    ImGui::TableSetupColumn("Change", ImGuiTableColumnFlags_WidthFixed, em * 4.5f);
  }
  ImGui::TableHeadersRow();
  Row(e.tree, e, e.tree.bytes, 0, s);
  ImGui::EndTable();
}

}  // namespace llmmem::app
