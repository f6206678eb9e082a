// Fonts and colours. The fonts are embedded at build time (scripts/embed.py), subset by
// scripts/fonts.py: DejaVu Sans cut to glyph_ranges.h, with "中文" merged in for the
// language button; for Chinese, WenQuanYi Micro Hei cut to the characters strings.cpp
// uses, merged over it (embedded on the desktop; fetched by the web page, AddCjkFont).
#include "app/theme.h"

#include <cstring>
#include <vector>

#include "app/glyph_ranges.h"
#include "app/i18n.h"
#include "app/theme_colors.h"
#include "core/catalogue/embedded.h"

namespace llmmem::app {

extern const core::EmbeddedFile kEmbeddedAssets[];

namespace {

bool g_dark = true;
ImFont* g_large = nullptr;
std::vector<unsigned char> g_cjk;  // the CJK subset the platform handed over
bool g_fonts_dirty = false;

const core::EmbeddedFile* FindAsset(const char* name) {
  for (const core::EmbeddedFile* f = kEmbeddedAssets; f->name != nullptr; ++f)
    if (std::strcmp(f->name, name) == 0) return f;
  return nullptr;
}

// The CJK font's bytes: the platform's, else an embedded one (desktop); null when neither.
const unsigned char* CjkData(int* size) {
  if (!g_cjk.empty()) {
    *size = static_cast<int>(g_cjk.size());
    return g_cjk.data();
  }
  if (const core::EmbeddedFile* f = FindAsset("ui-cjk.ttf")) {
    *size = static_cast<int>(f->size);
    return f->data;
  }
  return nullptr;
}

// The glyphs the Chinese strings use (and ASCII, which DejaVu draws first anyway): those of
// the table as it is now (on the page, once llmmem-zh.json has arrived; AddStrings asks for
// the atlas to be rebuilt then).
const ImWchar* ChineseRanges() {
  static ImVector<ImWchar> ranges;
  static int built_for = -1;
  if (ranges.empty() || built_for != TranslationsVersion()) {
    ranges.clear();
    ImFontGlyphRangesBuilder b;
    b.AddText(ChineseText().c_str());
    b.AddText("中文");
    b.BuildRanges(&ranges);
    built_for = TranslationsVersion();
  }
  return ranges.Data;
}

}  // namespace

void LoadFonts(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  static_assert(sizeof(ImWchar) == sizeof(kLatinGlyphRanges[0]), "ImWchar is 16 bits");
  const ImWchar* latin = reinterpret_cast<const ImWchar*>(kLatinGlyphRanges);
  const ImWchar* button = reinterpret_cast<const ImWchar*>(kLanguageButtonGlyphs);
  static const ImWchar kDigits[] = {0x0020, 0x00FF, 0};  // the headline: numbers and units
  ImFontConfig cfg;
  cfg.FontDataOwnedByAtlas = false;  // the bytes live in the binary
  cfg.OversampleH = 2;
  ImFontConfig merge = cfg;
  merge.MergeMode = true;
  merge.OversampleH = 1;  // CJK glyphs are dense: no horizontal oversampling (a smaller atlas)
  const core::EmbeddedFile* font = FindAsset("ui-latin.ttf");
  const core::EmbeddedFile* mini = FindAsset("ui-cjk-mini.ttf");
  int cjk_size = 0;
  const unsigned char* cjk = CurrentLang() == Lang::kZh ? CjkData(&cjk_size) : nullptr;
  if (font != nullptr) {
    void* data = const_cast<unsigned char*>(font->data);
    const int size = static_cast<int>(font->size);
    const float px = kBaseFontPx * scale;
    io.Fonts->AddFontFromMemoryTTF(data, size, px, &cfg, latin);
    if (cjk != nullptr) {
      io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(cjk), cjk_size, px, &merge, ChineseRanges());
    } else if (mini != nullptr) {
      io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(mini->data), static_cast<int>(mini->size), px, &merge,
                                     button);
    }
    g_large = io.Fonts->AddFontFromMemoryTTF(data, size, kBaseFontPx * 1.7f * scale, &cfg, kDigits);
  } else {
    ImFontConfig fallback;
    fallback.SizePixels = 13.0f * scale;
    io.Fonts->AddFontDefault(&fallback);
    g_large = io.Fonts->AddFontDefault(&fallback);
  }
  io.Fonts->Build();
  g_fonts_dirty = false;
}

void SetCjkFont(const unsigned char* data, size_t size) {
  g_cjk.assign(data, data + size);
  g_fonts_dirty = true;
}

bool HasCjkFont() {
  int size = 0;
  return CjkData(&size) != nullptr;
}

void RequestFontRebuild() { g_fonts_dirty = true; }
bool FontRebuildRequested() { return g_fonts_dirty; }

void ApplyStyle(bool dark, float scale) {
  g_dark = dark;
  ImGuiStyle style;
  if (dark) {
    ImGui::StyleColorsDark(&style);
  } else {
    ImGui::StyleColorsLight(&style);
  }
  style.WindowRounding = 0;
  style.FrameRounding = 3;
  style.GrabRounding = 3;
  style.ChildRounding = 4;
  style.PopupRounding = 3;
  style.FramePadding = ImVec2(6, 3);
  style.ItemSpacing = ImVec2(8, 5);
  style.CellPadding = ImVec2(6, 2);
  style.WindowPadding = ImVec2(10, 10);
  style.ScrollbarSize = 13;
  // Text and the surfaces it sits on come from theme_colors.h (contrast-tested).
  const ThemeColors& c = Colors(dark);
  auto set = [&](ImGuiCol i, Rgba v) { style.Colors[i] = ImVec4(v.r, v.g, v.b, v.a); };
  set(ImGuiCol_Text, c.text);
  set(ImGuiCol_TextDisabled, c.text_dim);
  set(ImGuiCol_WindowBg, c.window_bg);
  set(ImGuiCol_ChildBg, c.child_bg);
  set(ImGuiCol_PopupBg, c.popup_bg);
  set(ImGuiCol_FrameBg, c.frame_bg);
  set(ImGuiCol_Button, c.button);
  set(ImGuiCol_Header, c.header);
  set(ImGuiCol_TableRowBgAlt, c.table_row_alt);
  set(ImGuiCol_TableHeaderBg, c.table_header);
  if (!dark) {
    style.Colors[ImGuiCol_FrameBgHovered] = ImVec4(0.80f, 0.84f, 0.92f, 1);
    style.FrameBorderSize = 1;
  }
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
}

ImU32 CategoryColor(core::Category c) {
  // Okabe-Ito based (colour-blind friendly), readable on both themes. A switch, so a new
  // core category fails the build (-Wswitch) until it has a colour.
  switch (c) {
    case core::Category::kWeights:
      return IM_COL32(0, 114, 178, 255);  // blue
    case core::Category::kGradients:
      return IM_COL32(230, 159, 0, 255);  // orange
    case core::Category::kMasterWeights:
      return IM_COL32(86, 180, 233, 255);  // sky blue
    case core::Category::kOptimizerStates:
      return IM_COL32(204, 121, 167, 255);  // purple
    case core::Category::kActivations:
      return IM_COL32(0, 158, 115, 255);  // green
    case core::Category::kKvCache:
      return IM_COL32(213, 94, 0, 255);  // vermillion
    case core::Category::kBuffers:
      return IM_COL32(222, 200, 60, 255);  // yellow
    case core::Category::kOverheads:
      return IM_COL32(150, 150, 150, 255);  // grey
    case core::Category::kCount:
      break;
  }
  return IM_COL32(128, 128, 128, 255);
}

namespace {
ImVec4 Vec(Rgba c) { return ImVec4(c.r, c.g, c.b, c.a); }
}  // namespace

ImVec4 GoodColor() { return Vec(Colors(g_dark).good); }
ImVec4 BadColor() { return Vec(Colors(g_dark).bad); }
ImVec4 WarnColor() { return Vec(Colors(g_dark).warn); }
bool IsDark() { return g_dark; }
ImFont* LargeFont() { return g_large; }

}  // namespace llmmem::app
