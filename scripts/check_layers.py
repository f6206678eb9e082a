#!/usr/bin/env python3
"""Folders are layers (issue 29): every `#include "..."` under src/ must point to its own
folder or to a layer below it. Prints each include that climbs back up and exits 1 if
there is one; prints the layer order and the number of includes read otherwise.

  /usr/bin/python3 scripts/check_layers.py [--graph]

--graph also prints how many includes go from each folder to each other folder.

The order, lowest first. Folders on one line are peers: neither may include the other.
A new folder under src/ must be placed here, or the check fails naming it."""
import collections
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

LAYERS = [
    # src/core: the pure estimator, bottom to top.
    ["core/base"],       # units, diagnostics, enum tables, safe text, citations
    ["core/parse"],      # readers of bytes and text: JSON, GGUF and safetensors headers
    ["core/model"],      # a model's dimensions, formats and tensors
    ["core/import"],     # config.json and quantization_config onto a model (model-type table)
    ["core/catalogue"],  # GPUs and model presets
    ["core/config"],     # one configuration: fields, enums, validation rules
    ["core/program_files"],  # a training program's own config file or command, as settings
    ["core/estimate"],   # the accounting: every byte, per stage; serving runtimes
    ["core/solve"],      # inverse questions: fit, doctor, compat modes
    ["core/report"],     # JSON, text and launch exports of results
    ["core/oom", "core/hub", "core/network", "core/plan"],  # tools on top of the core
    ["core/run"],        # a run's logs and snapshots beside the estimate (reads oom's text scan)
    # Around the core: platform code with I/O, then the programs.
    ["io"],
    ["net"],
    ["bindings"],
    ["app", "cli"],
    ["platform"],
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(folder):
    """The layer index and name of a folder relative to src/ (deepest match)."""
    best = None
    for i, names in enumerate(LAYERS):
        for name in names:
            if folder == name or folder.startswith(name + "/"):
                if best is None or len(name) > len(best[1]):
                    best = (i, name)
    return best


def main():
    graph = "--graph" in sys.argv[1:]
    problems, count = [], 0
    edges = collections.Counter()
    for dirpath, _, files in os.walk(ROOT):
        for name in sorted(files):
            if not name.endswith((".h", ".cpp", ".inc")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, ROOT)
            src = layer_of(os.path.dirname(rel))
            if src is None:
                problems.append(f"src/{rel}: its folder is in no layer (add it to LAYERS in scripts/check_layers.py)")
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    # Includes are written from src/ ("core/base/units.h"); a bare name is a
                    # file beside this one.
                    if "/" not in target:
                        target = os.path.join(os.path.dirname(rel), target)
                    if not os.path.exists(os.path.join(ROOT, target)):
                        continue  # generated, or a library's header
                    count += 1
                    dst = layer_of(os.path.dirname(target))
                    if dst is None or dst[1] == src[1]:
                        continue
                    edges[(src[1], dst[1])] += 1
                    if dst[0] >= src[0]:
                        how = "a peer" if dst[0] == src[0] else "a layer above"
                        problems.append(f"src/{rel}:{lineno}: includes {m.group(1)}, {how} ({dst[1]} over {src[1]})")
    if graph:
        for (a, b), n in sorted(edges.items()):
            print(f"{a} -> {b}: {n}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) climb back up; the order is in scripts/check_layers.py")
        return 1
    print(f"check_layers: {count} includes read, none climbs back up: " +
          " < ".join("|".join(names) for names in LAYERS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
