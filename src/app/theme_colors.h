// The themes' colours for text and what text sits on, as plain numbers (no ImGui), so
// tests/test_theme.cpp can check every pair against WCAG 2.1's contrast minimum for body
// text (4.5:1, success criterion 1.4.3), backgrounds with alpha blended as ImGui draws
// them. theme.cpp sets ImGui's style from this table; the values not listed keep ImGui
// 1.86's StyleColorsDark/Light (hover and active states are transient).
// Contrast: relative luminance of sRGB colours (WCAG 2.1, "relative luminance").
// May include: standard library only.
#pragma once

#include <cmath>

namespace llmmem::app {

struct Rgba {
  float r = 0, g = 0, b = 0, a = 1;
};

struct ThemeColors {
  Rgba text, text_dim;                               // body text, secondary ("disabled") text
  Rgba window_bg, child_bg, popup_bg, frame_bg;      // where text is drawn
  Rgba button, header, table_row_alt, table_header;  // translucent fills under text
  Rgba good, bad, warn;                              // verdict and diagnostics text
};

// Dark: ImGui's dark style with a lighter grey (0.66: 5.0:1 even on an input's frame, was
// 0.50 at 4.1:1 on the panels) and darker panels. Light: a darker grey (0.36, was 0.60 at 2.7:1) and verdict
// colours deep enough for white-ish panels.
inline const ThemeColors& Colors(bool dark) {
  static const ThemeColors kDark{
      {1.00f, 1.00f, 1.00f, 1},     {0.66f, 0.66f, 0.66f, 1},     {0.10f, 0.11f, 0.13f, 1},
      {0.12f, 0.13f, 0.15f, 1},     {0.08f, 0.08f, 0.08f, 0.94f}, {0.16f, 0.29f, 0.48f, 0.54f},
      {0.26f, 0.59f, 0.98f, 0.40f}, {0.26f, 0.59f, 0.98f, 0.31f}, {1.00f, 1.00f, 1.00f, 0.06f},
      {0.19f, 0.19f, 0.20f, 1},     {0.35f, 0.82f, 0.45f, 1},     {1.00f, 0.45f, 0.43f, 1},
      {0.95f, 0.78f, 0.30f, 1},
  };
  static const ThemeColors kLight{
      {0.00f, 0.00f, 0.00f, 1},     {0.36f, 0.36f, 0.36f, 1},     {0.95f, 0.95f, 0.96f, 1},
      {0.99f, 0.99f, 1.00f, 1},     {0.99f, 0.99f, 1.00f, 1},     {0.87f, 0.88f, 0.91f, 1},
      {0.26f, 0.59f, 0.98f, 0.40f}, {0.26f, 0.59f, 0.98f, 0.31f}, {0.30f, 0.30f, 0.30f, 0.09f},
      {0.78f, 0.87f, 0.98f, 1},     {0.00f, 0.42f, 0.12f, 1},     {0.75f, 0.08f, 0.08f, 1},
      {0.50f, 0.34f, 0.00f, 1},
  };
  return dark ? kDark : kLight;
}

// `top` drawn over an opaque `bottom` (ImGui's alpha blending).
inline Rgba Over(Rgba top, Rgba bottom) {
  const float a = top.a;
  return {top.r * a + bottom.r * (1 - a), top.g * a + bottom.g * (1 - a), top.b * a + bottom.b * (1 - a), 1};
}

inline double Luminance(Rgba c) {
  auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

// WCAG contrast ratio of two opaque colours, 1 to 21.
inline double ContrastRatio(Rgba a, Rgba b) {
  const double la = Luminance(a), lb = Luminance(b);
  return (la > lb ? la + 0.05 : lb + 0.05) / (la > lb ? lb + 0.05 : la + 0.05);
}

}  // namespace llmmem::app
