// The per-GPU total as one stacked horizontal bar, a segment per memory category, with
// the GPU's capacity marked, and a legend (colour, name, size, share). Segment layout
// comes from chart_math.h (StackSegments).
#include <string>

#include "app/chart_math.h"
#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {

void DrawCategoryBar(const State& s) {
  const core::Totals& t = s.estimate.totals;
  if (!t.ok || t.peak_bytes <= 0) return;
  const float em = ImGui::GetFontSize();
  const float width = ImGui::GetContentRegionAvail().x;
  const float height = em * 1.6f;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("##category_bar", ImVec2(width, height));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();

  // The axis spans the larger of the peak and the capacity, so the capacity mark shows.
  const double axis = t.peak_bytes > t.capacity_bytes ? t.peak_bytes : t.capacity_bytes;
  double values[core::kCategoryCount];
  for (int i = 0; i < core::kCategoryCount; ++i) values[i] = t.category_bytes[i];
  chart::Segment segs[core::kCategoryCount];
  chart::StackSegments(values, core::kCategoryCount, axis, segs);

  dl->AddRectFilled(p0, ImVec2(p0.x + width, p0.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg), 3);
  int hovered_cat = -1;
  const float mx = ImGui::GetIO().MousePos.x;
  for (int i = 0; i < core::kCategoryCount; ++i) {
    if (segs[i].end <= segs[i].begin) continue;
    const float x0 = p0.x + static_cast<float>(segs[i].begin) * width;
    const float x1 = p0.x + static_cast<float>(segs[i].end) * width;
    dl->AddRectFilled(ImVec2(x0, p0.y), ImVec2(x1, p0.y + height), CategoryColor(static_cast<core::Category>(i)));
    if (hovered && mx >= x0 && mx < x1) hovered_cat = i;
  }
  // Capacity mark.
  const float cx = p0.x + static_cast<float>(t.capacity_bytes / axis) * width;
  const ImU32 mark = ImGui::ColorConvertFloat4ToU32(t.Fits() ? ImGui::GetStyleColorVec4(ImGuiCol_Text) : BadColor());
  dl->AddLine(ImVec2(cx, p0.y - em * 0.25f), ImVec2(cx, p0.y + height + em * 0.25f), mark, 2.0f * s.scale);

  if (hovered) {
    ImGui::BeginTooltip();
    if (hovered_cat >= 0) {
      const auto c = static_cast<core::Category>(hovered_cat);
      ImGui::Text(Tr("%s: %s (%s), %.1f%% of the total"), Tr(core::CategoryName(c)),
                  core::FormatBytes(t.category_bytes[hovered_cat], core::UnitSystem::kDecimal).c_str(),
                  core::FormatBytes(t.category_bytes[hovered_cat], core::UnitSystem::kBinary).c_str(),
                  100.0 * t.category_bytes[hovered_cat] / t.peak_bytes);
    }
    ImGui::Text(Tr("GPU capacity (line): %s"), core::FormatBytes(t.capacity_bytes, s.units).c_str());
    ImGui::EndTooltip();
  }

  // Legend, wrapping onto new lines as needed.
  const float box = em * 0.8f;
  float line_start = ImGui::GetCursorPosX();
  for (int i = 0; i < core::kCategoryCount; ++i) {
    if (t.category_bytes[i] <= 0) continue;
    const auto c = static_cast<core::Category>(i);
    char text[128];
    snprintf(text, sizeof text, "%s %s (%.0f%%)", Tr(core::CategoryName(c)),
             core::FormatBytes(t.category_bytes[i], s.units).c_str(), 100.0 * t.category_bytes[i] / t.peak_bytes);
    const float w = box + em * 0.4f + ImGui::CalcTextSize(text).x;
    if (ImGui::GetCursorPosX() > line_start && ImGui::GetCursorPosX() + w > line_start + width) ImGui::NewLine();
    const ImVec2 q = ImGui::GetCursorScreenPos();
    const float dy = (ImGui::GetTextLineHeight() - box) * 0.5f;
    dl->AddRectFilled(ImVec2(q.x, q.y + dy), ImVec2(q.x + box, q.y + dy + box), CategoryColor(c), 2);
    ImGui::Dummy(ImVec2(box, ImGui::GetTextLineHeight()));
    ImGui::SameLine(0, em * 0.4f);
    ImGui::TextUnformatted(text);
    ImGui::SameLine(0, em * 1.2f);
  }
  ImGui::NewLine();
}

}  // namespace llmmem::app
