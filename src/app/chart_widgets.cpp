// ImDrawList charts; see chart_widgets.h.
// [SECTION] Axes   [SECTION] Stacked area   [SECTION] Stacked bars   [SECTION] Term bars
#include "app/chart_widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/chart_math.h"
#include "app/i18n.h"
#include "app/state.h"
#include "app/theme.h"

namespace llmmem::app {
namespace {

// [SECTION] Axes ------------------------------------------------------------------------

struct Plot {
  ImVec2 p0, p1;    // the item's box
  ImVec2 a0, a1;    // the plotting area inside the axes
  chart::Linear y;  // value (in display units) -> screen y
  double unit = 1;  // bytes per display unit (GB or GiB)
};

ImU32 TextColor() { return ImGui::GetColorU32(ImGuiCol_Text); }
const char* ChartText(const char* en) { return Tr(en); }
ImU32 DimColor() { return ImGui::GetColorU32(ImGuiCol_TextDisabled); }
ImU32 GridColor() { return ImGui::GetColorU32(ImGuiCol_Separator, 0.45f); }

// Lays out the item and draws the y axis (bytes in units, nice ticks) with grid lines.
Plot BeginPlot(const char* id, ImVec2 size, double y_max_units, const char* unit_label, float bottom_extra) {
  Plot p;
  const float em = ImGui::GetFontSize();
  p.p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  p.p1 = ImVec2(p.p0.x + size.x, p.p0.y + size.y);
  const chart::Ticks t = chart::NiceTicks(0, y_max_units > 0 ? y_max_units : 1, 5);
  const double top = t.first + t.step * (t.count - 1);
  char buf[32];
  const int dec = chart::TickDecimals(t.step);
  std::snprintf(buf, sizeof buf, "%.*f", dec, top);
  const float label_w = ImGui::CalcTextSize(buf).x + em * 0.5f;
  p.a0 = ImVec2(p.p0.x + label_w, p.p0.y + em * 1.8f);
  p.a1 = ImVec2(p.p1.x - em * 0.5f, p.p1.y - em * 2.7f - bottom_extra);
  p.y = chart::Linear{0, top, p.a1.y, p.a0.y};
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int i = 0; i < t.count; ++i) {
    const double v = t.first + t.step * i;
    const float y = static_cast<float>(p.y(v));
    dl->AddLine(ImVec2(p.a0.x, y), ImVec2(p.a1.x, y), GridColor());
    std::snprintf(buf, sizeof buf, "%.*f", dec, v);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    dl->AddText(ImVec2(p.a0.x - ts.x - em * 0.3f, y - ts.y * 0.5f), DimColor(), buf);
  }
  dl->AddText(ImVec2(p.p0.x, p.p0.y), DimColor(), unit_label);
  return p;
}

// The capacity as a dashed horizontal line with its value; returns the label's box (empty
// when off the plot), so other labels can keep clear of it.
ImVec4 CapacityLine(const Plot& p, double capacity_units, const char* label) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float y = static_cast<float>(p.y(capacity_units));
  if (y < p.a0.y - 1 || y > p.a1.y + 1) return ImVec4(0, 0, 0, 0);
  const ImU32 col = ImGui::ColorConvertFloat4ToU32(BadColor());
  const float dash = ImGui::GetFontSize() * 0.5f;
  for (float x = p.a0.x; x < p.a1.x; x += dash * 2)
    dl->AddLine(ImVec2(x, y), ImVec2(std::min(x + dash, p.a1.x), y), col, 2);
  const ImVec2 ts = ImGui::CalcTextSize(label);
  // A backing in the window colour keeps the label readable over bars and bands.
  const ImVec2 t0(p.a1.x - ts.x, y - ts.y - 2);
  dl->AddRectFilled(ImVec2(t0.x - 3, t0.y), ImVec2(p.a1.x, y - 1), ImGui::GetColorU32(ImGuiCol_WindowBg, 0.85f), 2);
  dl->AddText(t0, col, label);
  return ImVec4(t0.x - 3, t0.y, p.a1.x, y - 1);
}

bool Overlaps(ImVec4 a, ImVec4 b) { return a.x < b.z && b.x < a.z && a.y < b.w && b.y < a.w; }

double MaxStack(const std::vector<std::array<double, core::kCategoryCount>>& bytes) {
  double m = 0;
  for (const auto& row : bytes) {
    double sum = 0;
    for (double v : row) sum += v > 0 ? v : 0;
    m = std::max(m, sum);
  }
  return m;
}

// A plot of per-GPU bytes: the y axis in GB or GiB, tall enough for the largest stack
// and the GPU's capacity line.
Plot BeginBytesPlot(const char* id, ImVec2 size, double max_bytes, double capacity, core::UnitSystem units) {
  const double unit = units == core::UnitSystem::kDecimal ? core::kGB : core::kGiB;
  char unit_label[48];
  std::snprintf(unit_label, sizeof unit_label, ChartText("%s per GPU"), UnitLabel(units));
  Plot p = BeginPlot(id, size, std::max(max_bytes, capacity) * 1.05 / unit, unit_label, 0);
  p.unit = unit;
  return p;
}

void CategoryTooltip(const char* title, const std::array<double, core::kCategoryCount>& row, core::UnitSystem units) {
  ImGui::BeginTooltip();
  ImGui::TextUnformatted(title);
  double sum = 0;
  for (int c = core::kCategoryCount - 1; c >= 0; --c) {
    if (row[c] <= 0) continue;
    sum += row[c];
    ImGui::ColorButton("##c", ImGui::ColorConvertU32ToFloat4(CategoryColor(static_cast<core::Category>(c))),
                       ImGuiColorEditFlags_NoTooltip, ImVec2(ImGui::GetFontSize() * 0.7f, ImGui::GetFontSize() * 0.7f));
    ImGui::SameLine();
    ImGui::Text("%s: %s", ChartText(core::CategoryName(static_cast<core::Category>(c))),
                core::FormatBytes(row[c], units).c_str());
  }
  ImGui::Separator();
  ImGui::Text(ChartText("Total: %s"), core::FormatBytes(sum, units).c_str());
  ImGui::EndTooltip();
}

}  // namespace

// [SECTION] Stacked area ------------------------------------------------------------------

void StackedAreaChart(const char* id, const char* x_label, const CategorySeries& series, double capacity,
                      int64_t current_x, core::UnitSystem units, ImVec2 size) {
  const int n = static_cast<int>(series.xs.size());
  if (n < 2) return;
  const Plot p = BeginBytesPlot(id, size, MaxStack(series.bytes), capacity, units);
  const double unit = p.unit;
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float em = ImGui::GetFontSize();
  const chart::Log2 x{static_cast<double>(series.xs.front()), static_cast<double>(series.xs.back()), p.a0.x, p.a1.x};

  dl->PushClipRect(p.a0, p.a1, true);
  // Bands bottom-up: each category's band between the running sums.
  std::vector<double> lower(n, 0.0);
  for (int c = 0; c < core::kCategoryCount; ++c) {
    bool any = false;
    for (int i = 0; i < n; ++i) any = any || series.bytes[i][c] > 0;
    if (!any) continue;
    const ImU32 col = CategoryColor(static_cast<core::Category>(c));
    for (int i = 0; i + 1 < n; ++i) {
      const float x0 = static_cast<float>(x(static_cast<double>(series.xs[i])));
      const float x1 = static_cast<float>(x(static_cast<double>(series.xs[i + 1])));
      const double l0 = lower[i], l1 = lower[i + 1];
      const double u0 = l0 + std::max(0.0, series.bytes[i][c]), u1 = l1 + std::max(0.0, series.bytes[i + 1][c]);
      const ImVec2 q[4] = {
          ImVec2(x0, static_cast<float>(p.y(l0 / unit))), ImVec2(x0, static_cast<float>(p.y(u0 / unit))),
          ImVec2(x1, static_cast<float>(p.y(u1 / unit))), ImVec2(x1, static_cast<float>(p.y(l1 / unit)))};
      dl->AddQuadFilled(q[0], q[1], q[2], q[3], col);
    }
    for (int i = 0; i < n; ++i) lower[i] += std::max(0.0, series.bytes[i][c]);
  }
  // Outline of the total.
  for (int i = 0; i + 1 < n; ++i)
    dl->AddLine(
        ImVec2(static_cast<float>(x(static_cast<double>(series.xs[i]))), static_cast<float>(p.y(lower[i] / unit))),
        ImVec2(static_cast<float>(x(static_cast<double>(series.xs[i + 1]))),
               static_cast<float>(p.y(lower[i + 1] / unit))),
        TextColor(), 1.5f);
  dl->PopClipRect();

  char cap[48];
  std::snprintf(cap, sizeof cap, "GPU %s", core::FormatBytes(capacity, units).c_str());
  const ImVec4 cap_box = CapacityLine(p, capacity / unit, cap);

  // X ticks: every sample (powers of two), labels thinned to fit.
  char buf[24];
  float last_right = -1e9f;
  for (int i = 0; i < n; ++i) {
    const float xx = static_cast<float>(x(static_cast<double>(series.xs[i])));
    chart::FormatTokens(series.xs[i], buf, sizeof buf);
    const ImVec2 ts = ImGui::CalcTextSize(buf);
    dl->AddLine(ImVec2(xx, p.a1.y), ImVec2(xx, p.a1.y + em * 0.25f), DimColor());
    // Centred under its tick, kept inside the chart's box at both ends.
    const float lx = std::max(p.p0.x, std::min(xx - ts.x * 0.5f, p.p1.x - ts.x));
    if (lx > last_right + em * 0.4f) {
      dl->AddText(ImVec2(lx, p.a1.y + em * 0.3f), DimColor(), buf);
      last_right = lx + ts.x;
    }
  }
  {
    const ImVec2 ts = ImGui::CalcTextSize(x_label);
    dl->AddText(ImVec2((p.a0.x + p.a1.x - ts.x) * 0.5f, p.p1.y - ts.y), DimColor(), x_label);
  }
  // Current value: its label right of the line, or left of it at the right edge, and
  // moved down out of the capacity label's way.
  if (current_x >= series.xs.front() && current_x <= series.xs.back()) {
    const float xx = static_cast<float>(x(static_cast<double>(current_x)));
    dl->AddLine(ImVec2(xx, p.a0.y), ImVec2(xx, p.a1.y), TextColor(), 1.0f);
    const char* cur = ChartText("current");
    const ImVec2 ts = ImGui::CalcTextSize(cur);
    const float lx = xx + 3 + ts.x > p.a1.x ? xx - 3 - ts.x : xx + 3;
    float ly = p.a0.y;
    for (int i = 0; i < 6 && Overlaps(ImVec4(lx, ly, lx + ts.x, ly + ts.y), cap_box); ++i)
      ly = cap_box.w + 2 + ts.y * i;
    dl->AddText(ImVec2(lx, ly), TextColor(), cur);
  }

  if (hovered) {
    const float mx = ImGui::GetIO().MousePos.x;
    int best = 0;
    for (int i = 1; i < n; ++i)
      if (std::fabs(x(static_cast<double>(series.xs[i])) - mx) <
          std::fabs(x(static_cast<double>(series.xs[best])) - mx))
        best = i;
    const float bx = static_cast<float>(x(static_cast<double>(series.xs[best])));
    dl->AddLine(ImVec2(bx, p.a0.y), ImVec2(bx, p.a1.y), DimColor(), 1.0f);
    char title[96];
    std::snprintf(title, sizeof title, "%s = %lld%s", x_label, static_cast<long long>(series.xs[best]),
                  series.peak[best] > capacity ? ChartText("  (does not fit)") : "");
    CategoryTooltip(title, series.bytes[best], units);
  }
}

// [SECTION] Stacked bars ------------------------------------------------------------------

void StackedBarChart(const char* id, const std::vector<std::string>& labels,
                     const std::vector<std::array<double, core::kCategoryCount>>& bytes, double capacity,
                     core::UnitSystem units, ImVec2 size) {
  const int n = static_cast<int>(labels.size());
  if (n == 0) return;
  const Plot p = BeginBytesPlot(id, size, MaxStack(bytes), capacity, units);
  const double unit = p.unit;
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float em = ImGui::GetFontSize();
  const float slot = (p.a1.x - p.a0.x) / static_cast<float>(n);
  const float bar_w = std::min(slot * 0.6f, em * 8);
  const float mx = ImGui::GetIO().MousePos.x;
  for (int i = 0; i < n; ++i) {
    const float cx = p.a0.x + slot * (static_cast<float>(i) + 0.5f);
    double acc = 0;
    for (int c = 0; c < core::kCategoryCount; ++c) {
      const double v = std::max(0.0, bytes[i][c]);
      if (v <= 0) continue;
      dl->AddRectFilled(ImVec2(cx - bar_w * 0.5f, static_cast<float>(p.y((acc + v) / unit))),
                        ImVec2(cx + bar_w * 0.5f, static_cast<float>(p.y(acc / unit))),
                        CategoryColor(static_cast<core::Category>(c)));
      acc += v;
    }
    // The total over the bar, where the slot is wide enough for it.
    const std::string total = core::FormatBytes(acc, units);
    const ImVec2 ts = ImGui::CalcTextSize(total.c_str());
    if (ts.x <= slot - em * 0.3f)
      dl->AddText(ImVec2(cx - ts.x * 0.5f, static_cast<float>(p.y(acc / unit)) - ts.y - 2), TextColor(), total.c_str());
    // Labels may have two lines ("ZeRO-1\n(current)"), each centred under the bar; a line
    // wider than the slot is left out rather than run into its neighbours.
    std::string one_line = labels[i];
    float ly = p.a1.y + em * 0.3f;
    for (size_t start = 0; start <= labels[i].size();) {
      size_t end = labels[i].find('\n', start);
      if (end == std::string::npos) end = labels[i].size();
      const char* b = labels[i].c_str() + start;
      const char* e = labels[i].c_str() + end;
      const ImVec2 ls = ImGui::CalcTextSize(b, e);
      if (ls.x <= slot - em * 0.2f) dl->AddText(ImVec2(cx - ls.x * 0.5f, ly), TextColor(), b, e);
      ly += ImGui::GetTextLineHeight();
      if (end < one_line.size()) one_line[end] = ' ';
      start = end + 1;
    }
    if (hovered && mx >= cx - slot * 0.5f && mx < cx + slot * 0.5f) CategoryTooltip(one_line.c_str(), bytes[i], units);
  }
  char cap[48];
  std::snprintf(cap, sizeof cap, "GPU %s", core::FormatBytes(capacity, units).c_str());
  CapacityLine(p, capacity / unit, cap);
}

// [SECTION] Term bars ---------------------------------------------------------------------

void TermBars(const char* id, const std::vector<Term>& terms, core::UnitSystem units, float width) {
  if (terms.empty()) return;
  const float em = ImGui::GetFontSize();
  const float row_h = ImGui::GetTextLineHeightWithSpacing();
  float name_w = 0;
  double max_bytes = 0;
  for (const Term& t : terms) {
    name_w = std::max(name_w, ImGui::CalcTextSize(t.name.c_str()).x);
    max_bytes = std::max(max_bytes, t.bytes);
  }
  name_w = std::min(name_w + em, width * 0.45f);
  const float value_w = em * 6;
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const ImVec2 size(width, row_h * static_cast<float>(terms.size()));
  ImGui::InvisibleButton(id, size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, ImVec2(p0.x + size.x, p0.y + size.y), true);
  const float bar_x0 = p0.x + name_w;
  const float bar_max = std::max(em, width - name_w - value_w);
  const float my = ImGui::GetIO().MousePos.y;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& t = terms[i];
    const float y = p0.y + row_h * static_cast<float>(i);
    dl->PushClipRect(ImVec2(p0.x, y), ImVec2(bar_x0 - em * 0.4f, y + row_h), true);
    dl->AddText(ImVec2(p0.x, y), TextColor(), t.name.c_str());
    dl->PopClipRect();
    const float w = max_bytes > 0 ? static_cast<float>(t.bytes / max_bytes) * bar_max : 0;
    dl->AddRectFilled(ImVec2(bar_x0, y + row_h * 0.15f), ImVec2(bar_x0 + w, y + row_h * 0.8f), t.color, 2);
    const std::string v = core::FormatBytes(t.bytes, units);
    dl->AddText(ImVec2(bar_x0 + w + em * 0.4f, y), DimColor(), v.c_str());
    if (hovered && my >= y && my < y + row_h) {
      ImGui::BeginTooltip();
      ImGui::PushTextWrapPos(em * 32);
      ImGui::Text(Tr("%s: %s per layer"), t.name.c_str(), core::FormatBytes(t.bytes, units).c_str());
      if (!t.detail.empty()) ImGui::TextDisabled("%s", t.detail.c_str());
      ImGui::PopTextWrapPos();
      ImGui::EndTooltip();
    }
  }
  dl->PopClipRect();
}

}  // namespace llmmem::app
