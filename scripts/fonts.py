#!/usr/bin/env python3
"""Subsets the UI's fonts at build time (fontTools, Debian's python3-fonttools).

  fonts.py latin SRC.ttf OUT.ttf src/app/glyph_ranges.h
      DejaVu Sans cut to the code points the UI loads (kLatinGlyphRanges), without hinting
      or layout tables (Dear ImGui's rasteriser uses neither).
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


def latin(src, out, header):
    text = open(header, encoding="utf-8").read()
    body = text.split("glyph-ranges-begin", 1)[1].split("glyph-ranges-end", 1)[0]
    body = re.sub(r"//[^\n]*", "", body)
    values = [int(v, 16) for v in re.findall(r"0x[0-9A-Fa-f]+", body)]
    pairs = list(zip(values[0::2], values[1::2]))
    if not pairs:
        sys.exit(f"fonts.py: no glyph ranges found in {header}")
    write_subset(src, out, {c for a, b in pairs for c in range(a, b + 1)})


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
    elif len(sys.argv) == 7 and sys.argv[1] == "cjk":
        cjk(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
