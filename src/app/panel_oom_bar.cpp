// The GPU at the failure as one bar (oom_widgets.h). Segment layout comes from chart_math.h
// (StackSegments) as in the category bar; the axis spans the larger of the capacity and the
// segments' sum, so contradictory figures show past the capacity mark instead of overlapping.
#include <string>
#include <vector>

#include "app/chart_math.h"
#include "app/i18n.h"
#include "app/oom_widgets.h"
#include "app/theme.h"

namespace llmmem::app {

ImU32 SegmentColor(core::SegmentKind k) {
  switch (k) {
    case core::SegmentKind::kAllocated:
      return IM_COL32(66, 133, 244, 255);
    case core::SegmentKind::kCached:
      return IM_COL32(251, 188, 5, 255);
    case core::SegmentKind::kNonPytorch:
      return IM_COL32(154, 160, 166, 255);
    case core::SegmentKind::kOutside:
      return IM_COL32(219, 68, 55, 255);
    case core::SegmentKind::kOtherProcess:
      return IM_COL32(171, 71, 188, 255);
    case core::SegmentKind::kUnattributed:
      return IM_COL32(121, 85, 72, 255);
    case core::SegmentKind::kDriverReserved:
      return IM_COL32(96, 96, 96, 255);
    default:
      return IM_COL32(52, 168, 83, 255);
  }
}

void OomBarChart(const char* id, const core::OomBar& bar, float scale) {
  if (!bar.drawable) return;
  const float em = ImGui::GetFontSize();
  const float width = ImGui::GetContentRegionAvail().x;
  const float height = em * 1.8f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, ImVec2(width, height + em * 0.6f));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const double axis = bar.total_bytes > bar.capacity_bytes ? bar.total_bytes : bar.capacity_bytes;
  std::vector<double> values;
  for (const core::BarSegment& s : bar.segments) values.push_back(s.bytes);
  std::vector<chart::Segment> segs(values.size());
  chart::StackSegments(values.data(), static_cast<int>(values.size()), axis, segs.data());
  dl->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg), 3);
  const float mx = ImGui::GetIO().MousePos.x;
  int hovered_seg = -1;
  float free_x0 = -1;
  for (size_t i = 0; i < segs.size(); ++i) {
    const float x0 = p0.x + static_cast<float>(segs[i].begin) * width;
    const float x1 = p0.x + static_cast<float>(segs[i].end) * width;
    if (bar.segments[i].kind == core::SegmentKind::kFree && free_x0 < 0) free_x0 = x0;
    if (x1 <= x0) continue;
    dl->AddRectFilled(ImVec2(x0, p0.y), ImVec2(x1, p0.y + height), SegmentColor(bar.segments[i].kind));
    if (hovered && mx >= x0 && mx < x1) hovered_seg = static_cast<int>(i);
  }
  // The failed request: an outlined box from the start of the free memory, its own length.
  bool on_request = false;
  if (bar.request_bytes > 0 && free_x0 >= 0) {
    const float rx1 = free_x0 + static_cast<float>(bar.request_bytes / axis) * width;
    const float y = p0.y + height + em * 0.1f;
    const float right = rx1 > p0.x + width ? p0.x + width : rx1;
    dl->AddRectFilled(ImVec2(free_x0, y), ImVec2(right > free_x0 + 2 ? right : free_x0 + 2, y + em * 0.4f),
                      ImGui::ColorConvertFloat4ToU32(BadColor()));
    on_request = hovered && ImGui::GetIO().MousePos.y > p0.y + height;
  }
  const float cx = p0.x + static_cast<float>(bar.capacity_bytes / axis) * width;
  dl->AddLine(ImVec2(cx, p0.y - em * 0.25f), ImVec2(cx, p0.y + height + em * 0.25f), ImGui::GetColorU32(ImGuiCol_Text),
              2.0f * scale);
  if (hovered) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(em * 34);
    if (on_request) {
      ImGui::Text(Tr("The request that failed: %s"), core::FormatTorchSize(bar.request_bytes).c_str());
    } else if (hovered_seg >= 0) {
      const core::BarSegment& s = bar.segments[static_cast<size_t>(hovered_seg)];
      ImGui::Text("%s: %s (%.1f%%)", Tr(s.label), core::FormatTorchSize(s.bytes).c_str(), 100.0 * s.bytes / axis);
      ImGui::TextDisabled("%s", s.arithmetic.c_str());
    }
    ImGui::Text(Tr("Capacity (line): %s"), core::FormatTorchSize(bar.capacity_bytes).c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void OomBarLegend(const core::OomBar& bar) {
  const double axis = bar.total_bytes > bar.capacity_bytes ? bar.total_bytes : bar.capacity_bytes;
  const float em = ImGui::GetFontSize();
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg;
  if (!ImGui::BeginTable("oom_legend", 4, flags)) return;
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, em);
  ImGui::TableSetupColumn(Tr("Segment"), ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn(Tr("Size"), ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn(Tr("From the text"), ImGuiTableColumnFlags_WidthStretch);
  for (const core::BarSegment& s : bar.segments) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const ImVec2 q = ImGui::GetCursorScreenPos();
    const float box = em * 0.8f;
    const float dy = (ImGui::GetTextLineHeight() - box) * 0.5f;
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(q.x, q.y + dy), ImVec2(q.x + box, q.y + dy + box),
                                              SegmentColor(s.kind), 2);
    ImGui::Dummy(ImVec2(box, ImGui::GetTextLineHeight()));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(Tr(s.label));
    ImGui::TableNextColumn();
    ImGui::Text("%s  %.0f%%", core::FormatTorchSize(s.bytes).c_str(), axis > 0 ? 100.0 * s.bytes / axis : 0.0);
    ImGui::TableNextColumn();
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", s.arithmetic.c_str());
    ImGui::PopTextWrapPos();
  }
  if (bar.request_bytes >= 0) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(BadColor(), "!");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(Tr("The request that failed"));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(core::FormatTorchSize(bar.request_bytes).c_str());
    ImGui::TableNextColumn();
    ImGui::TextDisabled(Tr("printed: Tried to allocate %s"), core::FormatTorchSize(bar.request_bytes).c_str());
  }
  ImGui::EndTable();
}

}  // namespace llmmem::app
