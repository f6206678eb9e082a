#!/usr/bin/env python3
"""Subsets the UI's fonts at build time (fontTools, Debian's python3-fonttools).

  fonts.py latin SRC.ttf OUT.ttf src/app/glyph_ranges.h
      DejaVu Sans cut to the code points the UI loads (kLatinGlyphRanges), without hinting
      or layout tables (Dear ImGui's rasteriser uses neither).
  fonts.py check-latin src/app/glyph_ranges.h
      Fails when a character past Latin-1 and below CJK in src/ or presets/ has
      no glyph in the ranges (also run by `latin`, and by scripts/test).
  fonts.py cjk SRC.ttc OUT.ttf OUT_MINI.ttf src/app/strings.cpp src/app
      A CJK font (WenQuanYi Micro Hei, fonts-wqy-microhei) cut to the characters the
      Chinese column of strings.cpp uses (OUT.ttf, loaded only when Chinese is shown), and
      to the language button's "中文" alone (OUT_MINI.ttf, shipped with the Latin font).
      Also checks that every Tr("...") in src/app has a row in the table: a missing one
      is listed and fails the build, so no UI string is left out of the table.
"""
import io
import os
import re
import sys

from fontTools import subset
from fontTools.ttLib import TTFont


def options():
    o = subset.Options()
    o.hinting = False
    o.layout_features = []
    o.drop_tables += ["GSUB", "GPOS", "GDEF", "kern", "FFTM", "BASE", "JSTF", "MATH", "vhea", "vmtx"]
    o.name_IDs = [0, 1, 2, 3, 4, 5, 6]
    o.notdef_outline = True
    return o


def write_subset(src, out, unicodes, font_number=0):
    font = TTFont(src, fontNumber=font_number)
    s = subset.Subsetter(options())
    s.populate(unicodes=sorted(unicodes))
    s.subset(font)
    buf = io.BytesIO()
    font.save(buf)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getvalue())
    os.replace(tmp, out)


def latin_ranges(header):
    text = open(header, encoding="utf-8").read()
    body = text.split("glyph-ranges-begin", 1)[1].split("glyph-ranges-end", 1)[0]
    body = re.sub(r"//[^\n]*", "", body)
    values = [int(v, 16) for v in re.findall(r"0x[0-9A-Fa-f]+", body)]
    pairs = list(zip(values[0::2], values[1::2]))
    if not pairs:
        sys.exit(f"fonts.py: no glyph ranges found in {header}")
    return {c for a, b in pairs for c in range(a, b + 1)}


def latin(src, out, header):
    check_latin(header)
    write_subset(src, out, latin_ranges(header))


def check_latin(header):
    """Every character past Latin-1 that the sources and catalogues hold (what the UI can
    draw: its strings in both languages, the core's explanations, preset and GPU names) has
    a glyph in the Latin subset, or is CJK (>= U+2E80: the Chinese font's)."""
    glyphs = latin_ranges(header)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(header))))
    missing = {}
    for top in ("src", "presets"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if not name.endswith((".cpp", ".h", ".json")):
                    continue
                path = os.path.join(dirpath, name)
                text = open(path, encoding="utf-8", errors="replace").read()
                for ch in text:
                    c = ord(ch)
                    if c > 0xFF and c < 0x2E80 and c not in glyphs and c != 0xFFFD:
                        missing.setdefault(ch, os.path.relpath(path, root))
    if missing:
        for ch, where in sorted(missing.items()):
            print(f"fonts.py: U+{ord(ch):04X} {ch!r} ({where}) has no glyph in {header}", file=sys.stderr)
        sys.exit(f"fonts.py: {len(missing)} characters the UI may draw are missing from the Latin glyph ranges")


# A C++ string literal's text: "..." with escapes; adjacent literals are joined.
LITERAL = r'"((?:[^"\\\n]|\\.)*)"'


def unescape(s):
    return bytes(s, "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8")


def table_rows(strings_cpp):
    text = open(strings_cpp, encoding="utf-8").read()
    rows = {}
    for m in re.finditer(r"\{\s*((?:" + LITERAL + r"\s*)+),\s*((?:" + LITERAL + r"\s*)+)\}", text):
        en = "".join(unescape(x) for x in re.findall(LITERAL, m.group(1)))
        zh = "".join(unescape(x) for x in re.findall(LITERAL, m.group(3)))
        rows[en] = zh
    return rows


def tr_keys(src_dir):
    keys = {}
    for name in sorted(os.listdir(src_dir)):
        if not name.endswith(".cpp") or name == "strings.cpp":
            continue
        text = open(os.path.join(src_dir, name), encoding="utf-8").read()
        for m in re.finditer(r"\bTr\(\s*((?:" + LITERAL + r"\s*)+)\)", text):
            key = "".join(unescape(x) for x in re.findall(LITERAL, m.group(1)))
            keys.setdefault(key, name)
    return keys


def cjk(src, out, out_mini, strings_cpp, src_dir):
    rows = table_rows(strings_cpp)
    missing = [(k, f) for k, f in tr_keys(src_dir).items() if k not in rows]
    if missing:
        for k, f in missing:
            print(f"fonts.py: {f}: Tr({k!r}) has no row in {strings_cpp}", file=sys.stderr)
        if os.environ.get("LLMMEM_STRINGS_STRICT", "1") != "0":
            sys.exit(f"fonts.py: {len(missing)} UI strings are missing from the table")
    chars = {ord(c) for zh in rows.values() for c in zh if ord(c) >= 0x2E80}
    chars |= {ord(c) for c in "中文"}
    write_subset(src, out, chars)
    write_subset(src, out_mini, {ord(c) for c in "中文"})


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "latin":
        latin(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "check-latin":
        check_latin(sys.argv[2])
    elif len(sys.argv) == 7 and sys.argv[1] == "cjk":
        cjk(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
