#!/usr/bin/python3
"""Launch exports against hostile model names (issue 28 part 1), through the real parsers.

For each export target and each hostile name, `llmmem --name NAME --export TARGET` must give:
  - shell targets: a script `sh -n` accepts; run by bash with the programs replaced by stubs
    that write their argv, in an empty folder, it runs exactly one command whose model
    argument is NAME, byte for byte, and creates nothing else;
  - the Modelfile: commands as ollama's parser (parser/parser.go at 00dc3af8) splits them, one
    FROM and PARAMETERs only;
  - JSON (DeepSpeed), YAML (Accelerate FSDP) and Python (TrainingArguments): valid documents
    of their language; the Python one names the model as a string literal equal to NAME.
Prints "N passed, M failed".
"""
import ast
import json
import os
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "native", "llmmem")

NAMES = [
    "m;touch pwned;#", "$(touch pwned)", "`touch pwned`", "a'b", 'a"b', "a\\b", "m\ntouch pwned",
    "m\r\nSYSTEM evil", "m && touch pwned", "${HOME}", "m|sh", "m > pwned", "\u202etxt.exe",
    "org/\u6a21\u578b", "'", "\\", " lead", "trail ", '"""', "*", "~root", "a#b", "!", "{a,b}",
    "m'; touch pwned; echo '", 'm"; touch pwned; echo "', "x\u0085y", "\x1b]0;title\x07",
]
SHELL_TARGETS = {"vllm": ("vllm", 2), "sglang": ("python", None), "llama.cpp": ("llama-server", None)}
STUB = "%s() { printf '%%s\\0' \"$@\" >> argv; }\n"

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def export(name, target, mode="inference"):
    r = subprocess.run([CLI, "--model", "custom", "--name", name, "--mode", mode, "--dtype",
                        "q4_k_m" if target in ("llama.cpp", "ollama") else "bf16", "--export", target],
                       capture_output=True)
    return r.returncode, r.stdout.decode("utf-8", "surrogateescape")


def modelfile_commands(text):
    """ParseFile's split: a command word, a value to the line's end; # lines are comments."""
    out = []
    for line in text.replace("\r", "\n").split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        word, _, value = line.partition(" ")
        out.append((word.upper(), value))
    return out


for name in NAMES:
    for target, (program, model_index) in SHELL_TARGETS.items():
        rc, text = export(name, target)
        what = "%s %r" % (target, name)
        check(rc == 0, what + ": exit " + str(rc))
        check(subprocess.run(["sh", "-n"], input=text.encode(), capture_output=True).returncode == 0,
              what + ": sh -n refuses it")
        with tempfile.TemporaryDirectory() as d:
            script = STUB % program + text
            subprocess.run(["bash", "-c", script], cwd=d, capture_output=True, timeout=10)
            files = sorted(os.listdir(d))
            check(files == ["argv"], what + ": the command ran other commands or wrote " + repr(files))
            argv = open(os.path.join(d, "argv"), "rb").read().split(b"\0")[:-1] if "argv" in files else []
            args = [a.decode("utf-8", "surrogateescape") for a in argv]
            if target == "vllm":
                model = args[1] if len(args) > 1 else None
            elif target == "sglang":
                model = args[args.index("--model-path") + 1] if "--model-path" in args else None
            else:
                model = None  # llama.cpp names a GGUF file made of file-name characters
                m = args[args.index("-m") + 1] if "-m" in args else ""
                check(m and all(c.isascii() and (c.isalnum() or c in "._+-") for c in m) and m[0] not in "-.",
                      what + ": -m " + repr(m))
            if model_index is not None or target == "sglang":
                # A name with control characters cannot be shown in a terminal as it is: MODEL.
                want = "MODEL" if any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e
                                      for c in name) else name
                check(model == want, what + ": the model argument came back as " + repr(model))
    rc, text = export(name, "ollama")
    commands = modelfile_commands(text)
    check(rc == 0 and commands and commands[0][0] == "FROM" and all(c == "PARAMETER" for c, _ in commands[1:]),
          "ollama %r: Modelfile commands %r" % (name, commands))
    rc, text = export(name, "deepspeed", "full")
    try:
        json.loads(text)
        check(True, "")
    except ValueError as e:
        check(False, "deepspeed %r: %s" % (name, e))
    rc, text = export(name, "fsdp", "full")
    try:
        check(isinstance(yaml.safe_load(text), dict), "fsdp %r: not a mapping" % name)
    except yaml.YAMLError as e:
        check(False, "fsdp %r: %s" % (name, e))
    rc, text = export(name, "hf-trainer", "lora")
    try:
        tree = ast.parse(text)
        ids = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) and
               any(isinstance(t, ast.Name) and t.id == "model_id" for t in n.targets)]
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") not in
                 ("TrainingArguments", "LoraConfig", "BitsAndBytesConfig")]
        check(len(ids) == 1 and isinstance(ids[0], ast.Constant) and ids[0].value == name and not calls,
              "hf-trainer %r: model_id %r, other calls %d" % (name, ids and ast.dump(ids[0]), len(calls)))
    except SyntaxError as e:
        check(False, "hf-trainer %r: %s" % (name, e))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
