// Input arithmetic with no ImGui or browser in it, so doctest covers it
// (tests/test_input_math.cpp): browser wheel deltas to Dear ImGui's wheel units, and the
// steps of the parallel sizes' "-"/"+" buttons (divisors only).
//
// A WheelEvent carries deltaX/deltaY in one of three units (deltaMode): 0 pixels
// (Chrome, Safari, every trackpad), 1 lines (Firefox with a mouse wheel, usually 3 per
// notch), 2 pages. Its sign is the page's: positive deltaY scrolls the content up (the
// view moves down). Dear ImGui 1.86 takes io.MouseWheel > 0 as "scroll up" and moves a
// window by 5 font heights per unit vertically, 2 horizontally (imgui.cpp,
// UpdateMouseWheel). So one 100-pixel notch must become 100 / (5 x font) units, not
// 100 units backwards (what Emscripten's GLFW layer passed on).
// May include: standard library only.
#pragma once

#include <cstdint>

namespace llmmem::app {

struct WheelDelta {
  float x = 0;  // io.MouseWheelH: > 0 scrolls left
  float y = 0;  // io.MouseWheel:  > 0 scrolls up
};

enum class WheelMode : int { kPixel = 0, kLine = 1, kPage = 2 };

// dx, dy: the event's deltas; line_px, page_px: one line and one page of the scrolled
// view in CSS pixels; font_px: ImGui's font height in CSS pixels. The result scrolls by
// the distance the browser meant, never more than one page per event (a page-mode delta
// or a fast fling of many accumulated lines stays one page).
inline WheelDelta WheelToImGui(double dx, double dy, WheelMode mode, double line_px, double page_px, double font_px) {
  if (font_px <= 0) font_px = 15;
  if (line_px <= 0) line_px = font_px * 1.25;
  if (page_px <= line_px) page_px = line_px * 20;
  const double unit = mode == WheelMode::kLine ? line_px : mode == WheelMode::kPage ? page_px : 1.0;
  auto clamp_page = [&](double px) { return px > page_px ? page_px : px < -page_px ? -page_px : px; };
  const double px_x = clamp_page(dx * unit), px_y = clamp_page(dy * unit);
  WheelDelta d;
  d.x = static_cast<float>(-px_x / (2 * font_px));
  d.y = static_cast<float>(-px_y / (5 * font_px));
  return d;
}

// The distance, in CSS pixels, Dear ImGui scrolls a window for a WheelToImGui result
// (the inverse, for tests and for the browser test's expectations).
inline double ImGuiWheelPixels(float units_y, double font_px) { return -static_cast<double>(units_y) * 5 * font_px; }

// The "-"/"+" step of a size that must divide `n` (tensor parallel: the heads; pipeline:
// the layers; expert parallel: the experts; context parallel: the sequence; a ZeRO group:
// dp): the next divisor of n after `current` in direction dir (> 0 up, < 0 down), within
// [1, max]. When there is none, `current` (a value that does not divide n steps to the
// nearest one that does). n <= 0 (unknown): plain steps of one.
inline int64_t NextDivisor(int64_t n, int64_t current, int dir, int64_t max) {
  if (max < 1) max = 1;
  if (dir == 0) return current;
  const int64_t step = dir > 0 ? 1 : -1;
  for (int64_t v = current + step; v >= 1 && v <= max; v += step) {
    if (n <= 0 || n % v == 0) return v;
    if (v - current > 1'000'000 || current - v > 1'000'000) break;  // bounded search
  }
  return current;
}

}  // namespace llmmem::app
