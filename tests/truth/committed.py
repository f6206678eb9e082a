"""Writes a measurement to tests/data, or (--check) fails when the committed file differs from it.

Shared by the small truth scripts (measure_compiled_loss.py, measure_fsdp1_hooks.py,
measure_training_cache.py, measure_linear_layers.py): each measures, then calls main(name, stem, data) with its result."""
import argparse
import json
import os

import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(doc, name, stem, measure):
    """doc: the script's docstring; name: what it measures, for the message; stem: the file's
    name before _torch-<version>_cpu.json; measure: a function returning the JSON-able result."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="fail if the committed file is not what this measures")
    args = ap.parse_args()
    version = torch.__version__.split("+")[0]
    path = os.path.join(REPO, "tests", "data", f"{stem}_torch-{version}_cpu.json")
    text = json.dumps(measure(), indent=1) + "\n"
    if args.check:
        with open(path) as fh:
            same = fh.read() == text
        print(f"{name}: committed file " + ("matches" if same else "DIFFERS from") + " this measurement")
        return 0 if same else 1
    with open(path, "w") as fh:
        fh.write(text)
    print(f"{name} -> {path}")
    return 0
