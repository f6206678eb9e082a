// Fonts, style and the colours the panels share (one colour per memory category, the
// verdict colours), for the light and dark themes, scaled for HiDPI.
// May include: imgui, core.
#pragma once

#include <cstddef>

#include "core/estimate/estimate.h"
#include "imgui.h"

namespace llmmem::app {

constexpr float kBaseFontPx = 15.0f;

// Rebuilds the font atlas at kBaseFontPx * scale: the embedded Latin subset, and for
// Chinese the CJK subset merged over it (when the platform has handed it over or it is
// embedded).
void LoadFonts(float scale);
// The CJK subset's bytes (the web page fetches them when Chinese is first shown); the
// atlas is rebuilt on the next frame.
void SetCjkFont(const unsigned char* data, size_t size);
bool HasCjkFont();
// The atlas must be rebuilt (the language changed, a font arrived): app::SetScale does it.
void RequestFontRebuild();
bool FontRebuildRequested();
// The headline font (1.7x), loaded with the regular one. It holds Latin-1 only (figures and
// units): a translated word drawn in it shows as boxes, so words go in the text font.
ImFont* LargeFont();
// Resets ImGui's style to the theme, then scales every size by `scale`.
void ApplyStyle(bool dark, float scale);

ImU32 CategoryColor(core::Category c);
ImVec4 GoodColor();  // fits
ImVec4 BadColor();   // over capacity, errors
ImVec4 WarnColor();  // warnings
bool IsDark();

}  // namespace llmmem::app
