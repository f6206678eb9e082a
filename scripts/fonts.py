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
      Also checks that every Tr("..."), TrF("...") and Say("...") in src/app, and every
      phrase the core builds with core::Say("...") (core/base/phrase.h), has a row in the
      table: a missing one is listed and fails the build, so no UI string is left out.
  fonts.py strings-json src/app/strings.cpp OUT.json
      The table's Chinese column as one JSON object {English: 简体中文} (rows in the file's
      order, those without a translation left out): the web page compiles no table in and
      fetches this file beside the CJK font when Chinese is first shown (i18n.h
      AddTranslations). Fails on a key given twice.
"""
import io
import json
import os
import re
import sys


def options():
    from fontTools import subset  # imported here: the table's readers need no fontTools
    o = subset.Options()
    o.hinting = False
    o.layout_features = []
    o.drop_tables += ["GSUB", "GPOS", "GDEF", "kern", "FFTM", "BASE", "JSTF", "MATH", "vhea", "vmtx"]
    o.name_IDs = [0, 1, 2, 3, 4, 5, 6]
    o.notdef_outline = True
    return o


def write_subset(src, out, unicodes, font_number=0):
    from fontTools import subset
    from fontTools.ttLib import TTFont
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


def table_pairs(strings_cpp):
    """The table's rows in the file's order, as (English, Chinese), read as the compiler
    reads them (adjacent literals joined, escapes decoded); comments are skipped."""
    text = open(strings_cpp, encoding="utf-8").read()
    text = re.sub(r"^\s*//[^\n]*$", "", text, flags=re.M)
    pairs = []
    for m in re.finditer(r"\{\s*((?:" + LITERAL + r"\s*)+),\s*((?:" + LITERAL + r"\s*)+)\}", text):
        en = "".join(unescape(x) for x in re.findall(LITERAL, m.group(1)))
        zh = "".join(unescape(x) for x in re.findall(LITERAL, m.group(3)))
        pairs.append((en, zh))
    return pairs


def table_rows(strings_cpp):
    return dict(table_pairs(strings_cpp))


def strings_json(strings_cpp, out):
    rows, twice = {}, []
    for en, zh in table_pairs(strings_cpp):
        if en in rows:
            twice.append(en)
        rows[en] = zh
    if twice:
        for en in twice:
            print(f"fonts.py: {strings_cpp}: {en!r} has two rows (Tr() takes the first)", file=sys.stderr)
        sys.exit(f"fonts.py: {len(twice)} keys of the table are given twice")
    text = json.dumps({en: zh for en, zh in rows.items() if zh}, ensure_ascii=False, separators=(",", ":"))
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, out)


def strip_comments(text):
    """The text with its comments blanked (string and char literals kept), at the same offsets."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def literal_keys(path, call):
    """The first string argument of each call(...) in a source: Tr("...") or Say("...", ...)."""
    text = strip_comments(open(path, encoding="utf-8").read())
    return ["".join(unescape(x) for x in re.findall(LITERAL, m.group(1)))
            for m in re.finditer(r"\b" + call + r"\(\s*((?:" + LITERAL + r"\s*)+)[,)]", text)]


def tr_keys(src_dir):
    """Every key the UI looks up by a literal: Tr("..."), TrF("...", ...) and Say("...") in
    src/app, core::Say("...") (the core's phrases the UI translates, core/base/phrase.h) in
    src/core."""
    keys = {}
    for name in sorted(os.listdir(src_dir)):
        if not name.endswith(".cpp") or name == "strings.cpp":
            continue
        for call in ("Tr", "TrF", "Say", "ChartText"):
            for key in literal_keys(os.path.join(src_dir, name), call):
                keys.setdefault(key, name)
    core = os.path.join(os.path.dirname(os.path.abspath(src_dir)), "core")
    for dirpath, _, names in sorted(os.walk(core)):
        for name in sorted(names):
            if name.endswith((".cpp", ".h")):
                path = os.path.join(dirpath, name)
                for key in literal_keys(path, "Say"):
                    keys.setdefault(key, os.path.relpath(path, os.path.dirname(core)))
    return keys


def cjk(src, out, out_mini, strings_cpp, src_dir):
    rows = table_rows(strings_cpp)
    missing = [(k, f) for k, f in tr_keys(src_dir).items() if k not in rows]
    if missing:
        for k, f in missing:
            print(f"fonts.py: {f}: {k!r} has no row in {strings_cpp}", file=sys.stderr)
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
    elif len(sys.argv) == 4 and sys.argv[1] == "strings-json":
        strings_json(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
