// The breakdown tree as a table: component, GB, GiB, share of the per-GPU total and, for
// per-layer tensors, one layer's size; while a configuration is pinned (compare.h), its
// bytes per component, matched by node id, and the change, in the chosen unit. Formulas
// (values substituted) and sources show under the rows, for all rows ("Show formulas") or
// for one (click it); hovering shows them too, with the size at each moment. A row that
// holds nothing at the peak but something at another moment (the RLHF rollout's KV cache,
// alive only while generating) shows that size in parentheses and names the moment.
#include <cstdio>
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "core/base/units.h"
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
    ImGui::Text(Tr("%s on %s: offloaded, not in the GPU figures"), core::FormatBytesBoth(n.bytes).c_str(),
                core::DeviceName(n.device));
  }
  if (n.device == core::Device::kGpu && n.cpu_bytes > 0)
    ImGui::TextDisabled(Tr("Below it, offloaded to CPU: %s"), core::FormatBytesBoth(n.cpu_bytes).c_str());
  if (n.device == core::Device::kGpu && n.nvme_bytes > 0)
    ImGui::TextDisabled(Tr("Below it, offloaded to NVMe: %s"), core::FormatBytesBoth(n.nvme_bytes).c_str());
  if (!n.formula.empty()) {
    ImGui::TextDisabled("%s", Tr("Formula"));
    ImGui::TextUnformatted(n.formula.c_str());
  }
  if (!n.source.empty()) {
    ImGui::TextDisabled("%s", Tr("Source"));
    ImGui::TextUnformatted(n.source.c_str());
  }
  if (n.per_layer_bytes > 0) ImGui::Text(Tr("One layer: %s"), core::FormatBytesBoth(n.per_layer_bytes).c_str());
  if (n.moment_bytes[0] != n.moment_bytes[1] || n.moment_bytes[0] != n.moment_bytes[3]) {
    for (int m = 0; m < core::kMomentCount; ++m) {
      const bool peak = static_cast<int>(e.totals.peak_moment) == m;
      ImGui::Text(Tr("At the %s: %s%s"), Tr(core::MomentName(static_cast<core::Moment>(m))),
                  core::FormatBytes(n.moment_bytes[m], core::UnitSystem::kDecimal).c_str(), peak ? Tr("  (peak)") : "");
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

// The moment a node is largest at, when it holds nothing at the peak: -1 otherwise.
int OtherMoment(const core::BreakdownNode& n) {
  if (n.bytes > 0) return -1;
  int best = -1;
  for (int m = 0; m < core::kMomentCount; ++m)
    if (n.moment_bytes[m] > 0 && (best < 0 || n.moment_bytes[m] > n.moment_bytes[best])) best = m;
  return best;
}

const char* ShortMoment(int m) {
  switch (static_cast<core::Moment>(m)) {
    case core::Moment::kForwardEnd:
      return Tr("in forward");
    case core::Moment::kOptimizerStep:
      return Tr("at the step");
    case core::Moment::kGeneration:
      return Tr("generating");
    case core::Moment::kLayerBackward:
      return Tr("in a layer's backward");
  }
  return "";
}

bool FormulaOpen(const State& s, const std::string& id) {
  for (const std::string& o : s.open_formulas)
    if (o == id) return true;
  return false;
}

void ToggleFormula(State& s, const std::string& id) {
  for (size_t i = 0; i < s.open_formulas.size(); ++i)
    if (s.open_formulas[i] == id) {
      s.open_formulas.erase(s.open_formulas.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
  s.open_formulas.push_back(id);
}

void Row(const core::BreakdownNode& n, const core::Estimate& e, double total, int depth, State& s) {
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
  const bool open = ImGui::TreeNodeEx(n.id.c_str(), flags, "%s", Tr(n.name));
  if (leaf && ImGui::IsItemClicked() && !n.formula.empty()) ToggleFormula(s, n.id);
  if (ImGui::IsItemHovered()) Tooltip(n, e);
  // Offloaded rows are not in the per-GPU total nor in the GPU rows above them, and a row
  // alive only at another moment is not in it either: dimmed figures in parentheses, and
  // where or when they are instead of a share.
  const bool on_gpu = n.device == core::Device::kGpu;
  const int other = on_gpu ? OtherMoment(n) : -1;
  const bool apart = !on_gpu || other >= 0;
  const double shown = other >= 0 ? n.moment_bytes[other] : n.bytes;
  if (apart) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TableNextColumn();
  Cell(apart ? "(%.2f)" : "%.2f", shown / core::kGB);
  ImGui::TableNextColumn();
  Cell(apart ? "(%.2f)" : "%.2f", shown / core::kGiB);
  ImGui::TableNextColumn();
  if (!on_gpu)
    ImGui::Text(Tr("on %s"), core::DeviceName(n.device));
  else if (other >= 0)
    ImGui::TextUnformatted(ShortMoment(other));
  else if (total > 0)
    Cell("%.1f%%", 100.0 * n.bytes / total);
  if (apart) ImGui::PopStyleColor();
  ImGui::TableNextColumn();
  if (n.per_layer_bytes > 0)
    ImGui::TextDisabled("%s", core::FormatBytes(n.per_layer_bytes, core::UnitSystem::kDecimal).c_str());
  if (s.pinned) {
    const double* pinned = PinnedBytes(*s.pinned, n.id);
    ImGui::TableNextColumn();
    if (pinned != nullptr) Cell("%.2f", InUnits(*pinned, s.units));
    ImGui::TableNextColumn();
    const double delta = n.bytes - (pinned != nullptr ? *pinned : 0.0);
    if (pinned == nullptr) {
      ImGui::TextDisabled("%s", Tr("new"));
    } else if (InUnits(delta, s.units) >= 0.005 || InUnits(delta, s.units) <= -0.005) {
      ImGui::PushStyleColor(ImGuiCol_Text, delta > 0 ? BadColor() : GoodColor());
      Cell("%+.2f", InUnits(delta, s.units));
      ImGui::PopStyleColor();
    }
  }
  if (!n.formula.empty() && (s.formulas || FormulaOpen(s, n.id))) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Indent(ImGui::GetTreeNodeToLabelSpacing());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(("= " + n.formula).c_str());
    if (!n.source.empty()) ImGui::TextUnformatted((std::string(Tr("Source: ")) + n.source).c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    ImGui::Unindent(ImGui::GetTreeNodeToLabelSpacing());
    for (int c = 1; c < ImGui::TableGetColumnCount(); ++c) ImGui::TableNextColumn();
  }
  if (open && !leaf) {
    for (const core::BreakdownNode& c : n.children) Row(c, e, total, depth + 1, s);
    ImGui::TreePop();
  }
}

}  // namespace

void DrawBreakdown(State& s) {
  const core::Estimate& e = s.estimate;
  if (!e.totals.ok) return;
  ImGui::Checkbox(Tr("Show formulas"), &s.formulas);
  MarkItem(s, "formulas");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", Tr("(or click a row for its own)"));
  const float em = ImGui::GetFontSize();
  // On a phone the fixed columns would squeeze the names to nothing: there the table opens
  // with the other unit and "Per layer" hidden (its header's context menu shows them again).
  const bool narrow = ImGui::GetContentRegionAvail().x < em * 30;
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit |
                                (narrow ? ImGuiTableFlags_Hideable : 0);
  const int columns = s.pinned ? 7 : 5;
  const std::string id = std::string(s.pinned ? "breakdown_pinned" : "breakdown") + (narrow ? "_narrow" : "");
  if (!ImGui::BeginTable(id.c_str(), columns, flags, ImGui::GetContentRegionAvail())) return;
  const ImGuiTableColumnFlags hide_narrow = narrow ? ImGuiTableColumnFlags_DefaultHide : 0;
  const bool binary = s.units == core::UnitSystem::kBinary;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn(Tr("Component"), ImGuiTableColumnFlags_WidthStretch | ImGuiTableColumnFlags_NoHide);
  ImGui::TableSetupColumn("GB", ImGuiTableColumnFlags_WidthFixed | (binary ? hide_narrow : 0), em * 4.5f);
  ImGui::TableSetupColumn("GiB", ImGuiTableColumnFlags_WidthFixed | (binary ? 0 : hide_narrow), em * 4.5f);
  ImGui::TableSetupColumn(Tr("Share"), ImGuiTableColumnFlags_WidthFixed, em * 4.5f);
  ImGui::TableSetupColumn(Tr("Per layer"), ImGuiTableColumnFlags_WidthFixed | hide_narrow, em * 6.0f);
  if (s.pinned) {
    const std::string unit = UnitLabel(s.units);
    ImGui::TableSetupColumn(TrF("Pinned %s", unit.c_str()).c_str(), ImGuiTableColumnFlags_WidthFixed, em * 5.5f);
    ImGui::TableSetupColumn(Tr("Change"), ImGuiTableColumnFlags_WidthFixed, em * 4.5f);
  }
  ImGui::TableHeadersRow();
  Row(e.tree, e, e.tree.bytes, 0, s);
  ImGui::EndTable();
}

}  // namespace llmmem::app
