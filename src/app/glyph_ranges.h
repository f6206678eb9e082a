// The code points the UI draws with its Latin font (DejaVu Sans), as Dear ImGui glyph
// ranges (inclusive pairs, 0-terminated). One list for two readers: theme.cpp loads these
// glyphs into the atlas, and scripts/fonts.py subsets the font to them at build time, so
// the page ships only glyphs it can draw (73 KB instead of DejaVu's 760 KB).
// Chinese is drawn with a second font subset to the characters strings.cpp uses.
// May include: nothing.
#pragma once

namespace llmmem::app {

// glyph-ranges-begin (scripts/fonts.py reads the pairs up to the end mark)
constexpr unsigned short kLatinGlyphRanges[] = {
    0x0020, 0x00FF,  // Basic Latin + Latin-1 (§, ×, ·)
    0x0370, 0x03FF,  // Greek (formulas)
    0x2000, 0x206F,  // General punctuation (–, —, …, ‖)
    0x2070, 0x209F,  // Super/subscripts
    0x2190, 0x21FF,  // Arrows
    0x2200, 0x22FF,  // Mathematical operators (≈, ≤, ×)
    0x25A0, 0x25FF,  // Geometric shapes (▲ ▼ ■)
    0,
};
// glyph-ranges-end

// The language button's "中文", drawn before the Chinese font is loaded: these two
// glyphs come with the Latin font (scripts/fonts.py's mini subset).
constexpr unsigned short kLanguageButtonGlyphs[] = {0x4E2D, 0x4E2D, 0x6587, 0x6587, 0};

}  // namespace llmmem::app
