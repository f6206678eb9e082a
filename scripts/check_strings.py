#!/usr/bin/env python3
"""Fails when a UI string in src/app is drawn without going through the translation table
(src/app/i18n.h; issue 32 part 7). Run by scripts/test; prints one line per string it finds.

Two checks, over every src/app/*.cpp but the table itself (strings.cpp, i18n.cpp):
  1. calls: each string literal among the arguments of a call that draws text (Dear ImGui's
     Text*, buttons, headers, tooltips, table columns, combos, dl->AddText, and the app's own
     widgets and helpers that take a label: DRAW_CALLS) is inside Tr(...), TrF(...),
     core::Say(...) or ChartText(...), or is not words (a format like "%s: %s", an id like
     "##launch", a field's id like "batch" for the Field* widgets), or is in ALLOWED;
  2. sentences: any other literal that reads as English (two words or more, or one
     capitalised word) is inside one of those, or is a key of the table held in a list or
     passed as an argument (looked up where it is drawn: Tr(row.label)), or is a file name or
     an id, or is on a statement marked `// not UI text` (a log, a sample, a formula), or in a
     static_assert.
Each Tr / TrF / Say key has a row in the table: scripts/fonts.py checks that at build time.
usage: check_strings.py [SRC_APP_DIR]
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fonts import strip_comments, table_rows, unescape  # noqa: E402  (the table's one reader)

# Calls whose string arguments are drawn (the name as written, with or without ImGui::).
DRAW_CALLS = {
    # Dear ImGui
    "Text", "TextUnformatted", "TextWrapped", "TextDisabled", "TextColored", "BulletText", "LabelText",
    "Button", "SmallButton", "Checkbox", "RadioButton", "CollapsingHeader", "TreeNode", "TreeNodeEx",
    "BeginTabItem", "BeginCombo", "Selectable", "MenuItem", "BeginMenu", "SetTooltip", "TableSetupColumn",
    "InputText", "InputTextWithHint", "InputTextMultiline", "InputInt", "InputDouble", "InputFloat",
    "SliderInt", "SliderFloat", "DragInt", "DragFloat", "Combo", "PlotLines", "PlotHistogram",
    "ProgressBar", "SetItemDefaultFocus",
    # the app's own (widgets.h, panels' helpers)
    "RowLabel", "FieldInt", "FieldIntDivisor", "FieldDouble", "FieldBool", "FieldCombo", "FieldEnum",
    "Heading", "Help", "HelpMarker", "Note", "Hint", "DimText", "WrappedDisabled", "Section",
    "AddBanner", "ReportError", "ButtonWidth", "Int64", "EnumCombo", "EditInt", "EditPair",
    # ImDrawList (called as dl->AddText)
    "AddText",
}

# The app's helpers above take a field's or section's id ("batch", "section_lora") before
# their label: a lower-case identifier there is an id, not text.
APP_HELPERS = {"FieldInt", "FieldIntDivisor", "FieldDouble", "FieldBool", "FieldCombo", "FieldEnum", "Section"}


def is_identifier(s, app_helper):
    """An id or a key, not drawn: "serving_report" anywhere, "batch" as an app helper's field."""
    if re.fullmatch(r"[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+", s):
        return True
    return app_helper and re.fullmatch(r"[a-z][a-z0-9_]*", s) is not None


# Literals that are drawn as they are in both languages. Each with why.
ALLOWED = {
    # names and units that read the same in Chinese UIs (the table keeps them as they are)
    "MFU", "GPU", "GPUs", "KV", "RAM", "GB", "GiB", "MB", "MiB", "KB", "TB", "TFLOPS", "GB/s",
    "vLLM", "SGLang", "llama.cpp", "DeepSpeed", "Megatron", "ZeRO", "LoRA", "QLoRA", "RLHF",
    "JSON", "CSV", "Markdown", "nvidia-smi", "PyTorch", "bf16", "fp16", "fp32", "fp8", "int8", "int4",
    "dp", "tp", "pp", "cp", "ep", "x", "-", "+", "?", "...", "…", "CPU", "NVMe", "HF",
    # the arguments of PyTorch's modules and of a layer stack, named as PyTorch names them
    # (panel_network.cpp's layer editor): nn.Conv2d(kernel_size, stride, padding, ...)
    "H", "W", "dtype", "PyTorch", "out", "kernel", "padding", "dilation", "groups", "heads", "window",
    "shift", "size", "scale", "p", "start_dim", "end_dim", "bias", "ceil_mode",
}

# A literal that is not words: formats, ids, numbers, punctuation.
CONVERSION = re.compile(r"%[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGaAcspn%]")


LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def is_words(s):
    """Whether a literal's text has letters a user reads (not a format, id or unit)."""
    s = CONVERSION.sub(" ", s)
    if "##" in s:
        s = s.split("##", 1)[0]  # "Label##id": the label is drawn
    s = s.replace("\\n", " ").replace("\\t", " ").replace('\\"', " ")
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", s)
    return bool(words) and s.strip() not in ALLOWED and not all(w in ALLOWED for w in words)


def reads_as_sentence(s):
    t = CONVERSION.sub(" ", s).replace("\\n", " ")
    if "##" in t:
        t = t.split("##", 1)[0]
    words = re.findall(r"[A-Za-z][a-z'-]+", t)
    if len(words) >= 2 and re.search(r"[A-Za-z]+[ ,.:;!?()]+[A-Za-z]+", t):
        return True
    return bool(re.fullmatch(r"\s*[A-Z][a-z]+[.:!?]?\s*", t)) and len(words) == 1 and t.strip() not in ALLOWED


def translated_spans(code):
    """[start, end) ranges of the argument lists of Tr(...) / TrF(...) calls."""
    spans = []
    for m in re.finditer(r"\b(?:Tr|TrF|Say|ChartText)\s*\(", code):
        end = matching_paren(code, m.end() - 1)
        spans.append((m.start(), end))
    return spans


def matching_paren(code, open_at):
    depth = 0
    i = open_at
    n = len(code)
    while i < n:
        c = code[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def inside(pos, spans):
    return any(a <= pos < b for a, b in spans)


def line_of(code, pos):
    return code.count("\n", 0, pos) + 1


# A file's name ("ui-cjk.ttf", "llmmem-estimate.md"): the same in every language.
FILE_NAME = re.compile(r"[\w.-]*\.(?:ttf|md|json|csv|glsl|txt|log|out|err|safetensors|gguf|js|wasm|html)")


def held_for_later(blank, pos):
    """Whether the literal at `pos` sits in a brace list or is an argument of a call (a table of
    labels, a helper that translates what it draws), not assigned or returned as it is: the
    innermost bracket open around it, looking through std::string(...)."""
    depth = {")": 0, "}": 0, "]": 0}
    i = pos - 1
    while i >= 0:
        c = blank[i]
        if c in ")}]":
            depth[c] += 1
        elif c in "({[":
            close = {"(": ")", "{": "}", "[": "]"}[c]
            if depth[close] > 0:
                depth[close] -= 1
            elif c == "(" and re.search(r"std::string\s*$", blank[:i]):
                pass  # a conversion, not a call that takes the label
            else:
                return c in "({"
        elif c == ";" and not any(depth.values()):
            return False
        i -= 1
    return False


def check_file(path, keys):
    raw = open(path, encoding="utf-8").read()
    code = strip_comments(raw)
    lines = raw.split("\n")
    spans = translated_spans(code)
    problems = []
    in_calls = []
    # `// not UI text` covers the statement it is written on (to its `;`), or, alone on its
    # line, the statement below; static_assert messages are for the compiler.
    marked = []
    blank = LITERAL.sub(lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', code)  # no ';' inside literals
    offset = 0
    for ln, line in enumerate(lines):
        if "// not UI text" in line:
            start = offset if line.split("//")[0].strip() else offset + len(line) + 1
            end = blank.find(";", start)
            marked.append((offset, len(code) if end < 0 else end))
        offset += len(line) + 1
    for m in re.finditer(r"\bstatic_assert\s*\(", code):
        marked.append((m.start(), matching_paren(code, m.end() - 1)))
    for m in re.finditer(r"(?:(?<![\w.>])(?:ImGui::)?|->)([A-Z]\w*)\s*\(", code):
        if m.group(1) not in DRAW_CALLS or inside(m.start(), marked):
            continue
        end = matching_paren(code, m.end() - 1)
        in_calls.append((m.end(), end))
        app_helper = m.group(1) in APP_HELPERS
        for lit in LITERAL.finditer(code, m.end(), end):
            if inside(lit.start(), spans) or not is_words(lit.group(1)):
                continue
            if is_identifier(lit.group(1), app_helper):
                continue
            problems.append((line_of(code, lit.start()), f"{m.group(1)}(...) draws \"{lit.group(1)}\" without Tr()"))
    for lit in LITERAL.finditer(code):
        if inside(lit.start(), spans) or inside(lit.start(), in_calls) or inside(lit.start(), marked):
            continue
        ln = line_of(code, lit.start())
        if code[max(0, lit.start() - 9):lit.start()].rstrip().endswith("#include"):
            continue
        if lit.group(1) in ALLOWED or not reads_as_sentence(lit.group(1)):
            continue
        if FILE_NAME.fullmatch(lit.group(1)) or is_identifier(lit.group(1), False):
            continue
        if unescape(lit.group(1)) in keys and held_for_later(blank, lit.start()):
            continue  # a key of the table in a list or an argument, looked up where it is drawn (Tr(label))
        problems.append((ln, f"\"{lit.group(1)}\" reads as UI text but is not in Tr() (mark the line `// not UI text` if it is not)"))
    return sorted(set(problems))


SKIP = {"strings.cpp", "i18n.cpp"}


def main():
    args = sys.argv[1:]
    src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "app")
    keys = table_rows(os.path.join(src, "strings.cpp"))
    total = 0
    for name in sorted(os.listdir(src)):
        if not name.endswith(".cpp") or name in SKIP:
            continue
        path = os.path.join(src, name)
        for ln, what in check_file(path, keys):
            total += 1
            print(f"src/app/{name}:{ln}: {what}")
    if total:
        print(f"check_strings.py: {total} UI strings bypass the translation table (src/app/i18n.h)", file=sys.stderr)
        return 1
    print("check_strings.py: every UI string in src/app goes through Tr()")
    return 0


if __name__ == "__main__":
    sys.exit(main())
