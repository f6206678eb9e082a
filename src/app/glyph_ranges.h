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
    // What the UI's strings, the core's explanations and the catalogues use (scanned at the
    // time of writing: nine code points past Latin-1), and a few neighbours for text that
    // comes from files. Whole blocks (Greek, all arrows and operators) cost 16 KB of page
    // for glyphs nothing drew.
    0x0020, 0x00FF,  // Basic Latin + Latin-1 (§, ×, ·, ±, µ, ²)
    0x2010, 0x2016,  // dashes (–, —) and ‖
    0x2018, 0x201D,  // quotation marks
    0x2022, 0x2022,  // bullet
    0x2026, 0x2026,  // …
    0x2190, 0x2193,  // ← ↑ → ↓
    0x221E, 0x221E,  // ∞
    0x2248, 0x2248,  // ≈
    0x2260, 0x2265,  // ≠ ≡ ≤ ≥
    0x25A0, 0x25A0,  // ■
    0x25B2, 0x25B2,  // ▲
    0x25BC, 0x25BC,  // ▼
    0,
};
// glyph-ranges-end

// The language button's "中文", drawn before the Chinese font is loaded: these two
// glyphs come with the Latin font (scripts/fonts.py's mini subset).
constexpr unsigned short kLanguageButtonGlyphs[] = {0x4E2D, 0x4E2D, 0x6587, 0x6587, 0};

}  // namespace llmmem::app
