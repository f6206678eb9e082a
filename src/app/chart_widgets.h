// ImDrawList chart items: each is one ImGui item (InvisibleButton for layout and hover),
// clipped to its box, with a tooltip under the mouse. Their math (ticks, scales,
// stacking) is in chart_math.h.
// May include: imgui, core, app/chart_math.h.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/estimate/estimate.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {

// Per-GPU bytes by category at each x (a sweep of EstimateTotals).
struct CategorySeries {
  std::vector<int64_t> xs;
  std::vector<std::array<double, core::kCategoryCount>> bytes;  // per x, per category
  std::vector<double> peak;                                     // per x (0: invalid config)
};

// A stacked area chart over a log2 x axis, with the GPU capacity as a dashed line and
// the current x marked. x_label names the axis ("sequence length").
void StackedAreaChart(const char* id, const char* x_label, const CategorySeries& series, double capacity,
                      int64_t current_x, core::UnitSystem units, ImVec2 size);

// Vertical stacked bars, one per label (a '\n' splits a label over two centred lines),
// with the capacity line.
void StackedBarChart(const char* id, const std::vector<std::string>& labels,
                     const std::vector<std::array<double, core::kCategoryCount>>& bytes, double capacity,
                     core::UnitSystem units, ImVec2 size);

// Horizontal bars, one row per term (name, value), sorted as given; colour per row.
struct Term {
  std::string name;
  std::string detail;  // tooltip: formula, source
  double bytes = 0;
  ImU32 color = 0;
};
void TermBars(const char* id, const std::vector<Term>& terms, core::UnitSystem units, float width);

}  // namespace llmmem::app
