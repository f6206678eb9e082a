#!/usr/bin/env python3
"""Markdown table of the layer-stack estimate against the committed torchvision
measurements, with the estimate taken from the llmmem CLI (so the table also checks the
CLI's numbers):
  /usr/bin/python3 tests/truth/cnn_table.py [build/native/llmmem] > table.md
Per case: what PyTorch kept (tests/data/cnn_truth_*.json: saved tensors, the loss's
included), the torch 1.13 / CPU profile's estimate and the ratio, and the PyTorch 2.x CUDA
estimate beside it with the named differences. tests/test_layer_stack.cpp asserts the same
comparison (within 2%) and parameters, buffers, gradients and optimizer states exactly."""
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cli, case, profile):
    args = [cli, "--json", "--profile", profile, "--batch", str(case["batch"]), "--dtype", case["dtype"],
            "--input", ",".join(str(d) for d in case["input"])]
    tmp = None
    if "preset" in case:
        args += ["--model", case["preset"]]
    else:
        tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump({"layers": case["stack"]["layers"]}, tmp)
        tmp.close()
        args += ["--network", tmp.name]
    out = subprocess.run(args, capture_output=True, text=True)
    if tmp:
        os.unlink(tmp.name)
    d = json.loads(out.stdout)
    assert d["ok"], d["diagnostics"]
    fixed = sum(t["bytes"] for t in d["terms"] if t["id"] == "saved_fixed")
    per = d["per_sample"]
    return case["batch"] * (per["saved_bytes"] + per["loss_bytes"]) + fixed, d


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/native/llmmem")
    path = sorted(glob.glob(os.path.join(ROOT, "tests/data/cnn_truth_*.json")))[-1]
    with open(path) as fh:
        doc = json.load(fh)
    print("| case | params | measured (B) | estimate, torch 1.13 CPU (B) | estimate / measured | "
          "estimate, PyTorch 2.x CUDA (B) | what differs (per sample) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    worst = 0.0
    for c in doc["cases"]:
        old, d_old = run(cli, c, "torch1.13-cpu")
        new, d_new = run(cli, c, "torch2-cuda")
        ratio = old / c["saved_bytes"]
        worst = max(worst, abs(ratio - 1))
        diffs = "; ".join(f"{x['bytes_per_sample'] / 1e3:+,.1f} KB" +
                          (f" ({x['bytes_per_step'] / 1e3:+,.1f} KB per step)" if x["bytes_per_step"] else "") +
                          f": {x['what'].split(':')[0]}" for x in d_old["profile_differences"]) or "none"
        print(f"| {c['id']} | {d_old['network']['params']:,} | {c['saved_bytes']:,} | {old:,.0f} | {ratio:.4f} | "
              f"{new:,.0f} | {diffs} |")
    print(f"\nLargest departure: {100 * worst:.3f}% over {len(doc['cases'])} cases.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
