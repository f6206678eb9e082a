// Fonts, style and the colours the panels share (one colour per memory category, the
// verdict colours), for the light and dark themes, scaled for HiDPI.
// May include: imgui, core.
#pragma once

#include "core/estimate.h"
#include "imgui.h"

namespace llmmem::app {

constexpr float kBaseFontPx = 15.0f;

// Rebuilds the font atlas with the embedded DejaVuSans at kBaseFontPx * scale.
void LoadFonts(float scale);
// The headline font (1.7x), loaded with the regular one.
ImFont* LargeFont();
// Resets ImGui's style to the theme, then scales every size by `scale`.
void ApplyStyle(bool dark, float scale);

ImU32 CategoryColor(core::Category c);
ImVec4 GoodColor();   // fits
ImVec4 BadColor();    // over capacity, errors
ImVec4 WarnColor();   // warnings
bool IsDark();

}  // namespace llmmem::app
