#!/usr/bin/python3
"""Measure, on the CPU, what eager PyTorch keeps for backward when it trains torchvision
models (Debian's python3-torch 1.13 and python3-torchvision 0.14), with the collection
machinery of measure.py (saved-tensor hooks + graph walk, storages de-duplicated).

    /usr/bin/python3 tests/truth/measure_cnn.py [--quick] [--only SUBSTRING] [--out PATH]
    /usr/bin/python3 tests/truth/measure_cnn.py --show resnet18       # every saved storage
    /usr/bin/python3 tests/truth/measure_cnn.py --check               # re-measure a few, compare

Per case: the model (random weights, nothing downloaded) in train mode, one forward of a
batch of random images plus the cross-entropy loss, every saved storage collected before
backward (tagged with the module that was running), then backward and one step of SGD with
momentum and of AdamW: parameter, buffer, gradient and optimizer-state bytes.
Each case also carries its layer stack (torchvision_stacks.py) so tests/test_layer_stack.cpp
compares the estimate for exactly that network with what was measured.

Dropout as on CUDA: F.dropout with 0 < p < 1 in training calls torch.native_dropout (a bool
mask, 1 byte per element). On the CPU, torch 1.13's F.dropout multiplies by a noise tensor in
the input's dtype instead (4 bytes per element in fp32): measure.py makes the same choice.
"""

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure as M  # noqa: E402  (Recorder, collect, storage_key)
import torchvision_stacks as TS  # noqa: E402

_ORIG_DROPOUT = F.dropout


def dropout_as_cuda(input, p=0.5, training=True, inplace=False):
    """at::dropout on CUDA: the fused native_dropout (bool mask) when 0 < p < 1; the early
    return of _dropout_impl when p == 0, not training, or empty."""
    if p == 0 or not training or input.numel() == 0:
        return input
    out, _mask = torch.native_dropout(input, p, True)
    if inplace:
        return input.copy_(out)
    return out


def collect_saved(model, x, loss_fn, labels, backbone=False):
    """One train-mode forward + loss under the recorder; the collected storages. A backbone's
    outputs (FPN levels) are summed: sum() keeps nothing, so only the backbone's tensors count."""
    rec = M.Recorder(model, "")
    tags = {M.storage_key(x): "input"}
    F.dropout = dropout_as_cuda
    try:
        with M._ORIG_SAVED_TENSORS_HOOKS(rec.pack, rec.unpack):
            out = model(x)
            if backbone:
                with rec.scope("loss"):
                    loss = sum(o.sum() for o in out.values())
            else:
                if isinstance(out, dict):  # segmentation models
                    out = out["out"]
                with rec.scope("loss"):
                    loss = loss_fn(out, labels)
    finally:
        F.dropout = _ORIG_DROPOUT
    saved, saved_params, saved_buffers, host_only, cross = M.collect(None, [loss.grad_fn], rec, [model], tags)
    rec.remove()
    return loss, out, saved, saved_params, saved_buffers, host_only, cross


def where_of(module_name):
    return module_name if module_name not in ("", "top") else "top"


def state_bytes(opt):
    by_key = {}
    for st in opt.state.values():
        for k, v in st.items():
            d = by_key.setdefault(k, {"bytes": 0, "tensors": 0, "dtypes": []})
            if isinstance(v, torch.Tensor):
                d["bytes"] += M.storage_nbytes(v)
                d["tensors"] += 1
                if M.dname(v.dtype) not in d["dtypes"]:
                    d["dtypes"].append(M.dname(v.dtype))
    return by_key


def measure_case(c):
    t0 = time.time()
    torch.manual_seed(0)
    if c["model"] in CUSTOM:
        st = CUSTOM[c["model"]]
        model = TS.StackModule(st["layers"], st["input"])
        stack = {"layers": st["layers"]}
    else:
        model, stack = TS.build(c["model"], c)
    model.train()
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[c["dtype"]]
    model.to(dtype)
    g = torch.Generator().manual_seed(0)
    shape = [c["batch"]] + list(c["input"])
    if c.get("ids"):
        x = torch.randint(0, c["ids"], shape, generator=g)
    else:
        x = torch.randn(shape, generator=g).to(dtype)
    classes = c["classes"]
    if c.get("task") == "segmentation":
        labels = torch.randint(0, classes, [c["batch"]] + list(c["input"][1:]), generator=g)
    else:
        labels = torch.randint(0, classes, (c["batch"],), generator=g)
    loss_fn = nn.CrossEntropyLoss()
    backbone = c.get("task") == "backbone"
    loss, out, saved, saved_params, saved_buffers, host_only, cross = collect_saved(model, x, loss_fn, labels, backbone)
    r = dict(c)
    if c["model"] in CUSTOM:
        r["stack"] = stack
    else:  # the preset file must describe exactly the network measured
        r["preset"] = TS.check_preset(c["model"], stack)
    r["output_shape"] = ({k: list(v.shape[1:]) for k, v in out.items()} if backbone else list(out.shape[1:]))
    r["saved_bytes"] = sum(s["bytes"] for s in saved)
    per_module = {}
    for s in saved:
        per_module[s["module"]] = per_module.get(s["module"], 0) + s["bytes"]
    r["saved_bytes_by_module"] = per_module
    r["saved"] = [{k: s[k] for k in ("module", "node", "attr", "shape", "dtype", "bytes", "view_of_larger")}
                  | ({"also": s["also"]} if "also" in s else {}) for s in saved]
    r["saved_params_bytes"] = sum(s["bytes"] for s in saved_params)
    r["saved_buffers_bytes"] = sum(s["bytes"] for s in saved_buffers)
    r["host_only_bytes"] = sum(s["bytes"] for s in host_only)
    r["cross_check"] = cross
    params = {M.storage_key(p): p for p in model.parameters()}
    buffers = {M.storage_key(b): b for b in model.buffers()}
    r["params"] = sum(p.numel() for p in params.values())
    r["param_bytes"] = sum(M.storage_nbytes(p) for p in params.values())
    r["param_tensors"] = len(params)
    r["buffer_bytes"] = sum(M.storage_nbytes(b) for b in buffers.values())
    r["buffers"] = {}
    for n, b in model.named_buffers():
        kind = n.rsplit(".", 1)[-1]
        d = r["buffers"].setdefault(kind, {"bytes": 0, "tensors": 0, "dtype": M.dname(b.dtype)})
        d["bytes"] += M.storage_nbytes(b)
        d["tensors"] += 1
    loss.backward()
    grads = {M.storage_key(p.grad): p.grad for p in model.parameters() if p.grad is not None}
    r["grad_bytes"] = sum(M.storage_nbytes(gr) for gr in grads.values())
    if c.get("optimizers", True):
        opts = {}
        for name, make in (("momentum", lambda ps: torch.optim.SGD(ps, lr=1e-3, momentum=0.9)),
                           ("adamw", lambda ps: torch.optim.AdamW(ps, lr=1e-3))):
            opt = make(list(model.parameters()))
            opt.step()
            st = state_bytes(opt)
            opts[name] = {"state_bytes": sum(d["bytes"] for d in st.values()), "state": st}
            del opt
        r["optimizers"] = opts
    del model
    return r, round(time.time() - t0, 2)


# ----------------------------------------------------------------------------- cases

def case(model, size, batch, dtype="fp32", channels=3, classes=1000, task="classification", optimizers=True,
         **extra):
    cid = f"{model}_{dtype}_b{batch}_{channels}x{size}x{size}"
    c = {"id": cid, "model": model, "dtype": dtype, "batch": batch, "input": [channels, size, size],
         "classes": classes, "task": task, "optimizers": optimizers}
    c.update(extra)
    return c


# Custom stacks (the JSON format, run by torchvision_stacks.StackModule) cover the kinds the
# torchvision presets do not: Conv1d, ConvTranspose2d, GroupNorm, LeakyReLU, Tanh, ceil-mode
# pooling, adaptive max pooling, upsampling by scale, Embedding, attention dropout.
CUSTOM = {
    "custom_convs": {"input": [3, 32, 32], "classes": 10, "layers": [
        {"type": "conv2d", "in": 3, "out": 16, "kernel": 3, "padding": 1, "bias": False, "name": "stem"},
        {"type": "batchnorm", "in": 16, "name": "stem_bn"},
        {"type": "relu6", "inplace": True, "name": "stem_act"},
        {"type": "conv2d", "in": 16, "out": 16, "kernel": 3, "stride": 2, "padding": 1, "groups": 16, "name": "dw"},
        {"type": "batchnorm", "in": 16, "name": "dw_bn"},
        {"type": "hardswish", "name": "dw_act"},
        {"type": "conv2d", "in": 16, "out": 24, "kernel": 1, "name": "pw"},
        {"type": "groupnorm", "groups": 4, "in": 24, "name": "pw_gn"},
        {"type": "silu", "inplace": True, "name": "pw_act"},
        {"type": "add", "name": "res", "branches": [[
            {"type": "conv2d", "in": 24, "out": 24, "kernel": 3, "padding": 1, "name": "res.conv1"},
            {"type": "gelu", "name": "res.gelu"},
            {"type": "conv2d", "in": 24, "out": 24, "kernel": 1, "name": "res.conv2"}], []]},
        {"type": "leaky_relu", "inplace": True, "name": "leaky"},
        {"type": "mul", "name": "se", "branches": [[], [
            {"type": "adaptive_avgpool2d", "size": 1, "name": "se.pool"},
            {"type": "conv2d", "in": 24, "out": 8, "kernel": 1, "name": "se.fc1"},
            {"type": "relu", "name": "se.relu"},
            {"type": "conv2d", "in": 8, "out": 24, "kernel": 1, "name": "se.fc2"},
            {"type": "hardsigmoid", "inplace": True, "name": "se.gate"}]]},
        {"type": "maxpool2d", "kernel": 3, "stride": 2, "padding": 1, "ceil_mode": True, "name": "pool"},
        {"type": "concat", "name": "dense", "branches": [[], [
            {"type": "conv2d", "in": 24, "out": 8, "kernel": 3, "padding": 1, "name": "dense.conv"},
            {"type": "tanh", "name": "dense.tanh"}]]},
        {"type": "conv_transpose2d", "in": 32, "out": 16, "kernel": 2, "stride": 2, "name": "up"},
        {"type": "sigmoid", "name": "up_act"},
        {"type": "avgpool2d", "kernel": 2, "stride": 2, "name": "avg"},
        {"type": "upsample", "scale": 2, "name": "interp"},
        {"type": "dropout", "p": 0.3, "name": "drop"},
        {"type": "adaptive_maxpool2d", "size": 2, "name": "amax"},
        {"type": "flatten", "name": "flatten"},
        {"type": "linear", "in": 64, "out": 10, "name": "fc"}]},
    "custom_conv1d": {"input": [4, 64], "classes": 5, "layers": [
        {"type": "conv1d", "in": 4, "out": 8, "kernel": 5, "stride": 2, "padding": 2, "name": "c1"},
        {"type": "batchnorm", "in": 8, "name": "bn1"},
        {"type": "relu", "name": "r1"},
        {"type": "conv1d", "in": 8, "out": 8, "kernel": 3, "dilation": 2, "bias": False, "name": "c2"},
        {"type": "tanh", "name": "t2"},
        {"type": "flatten", "name": "flatten"},
        {"type": "linear", "in": 224, "out": 32, "name": "fc1"},
        {"type": "dropout", "p": 0.5, "name": "drop"},
        {"type": "linear", "in": 32, "out": 5, "name": "fc2"}]},
    "custom_tokens": {"input": [12], "ids": 100, "classes": 10, "layers": [
        {"type": "embedding", "vocab": 100, "out": 32, "name": "embed"},
        {"type": "layernorm", "in": 32, "name": "ln"},
        {"type": "attention", "in": 32, "heads": 4, "p": 0.1, "name": "attn"},
        {"type": "add", "name": "mlp_res", "branches": [[
            {"type": "layernorm", "in": 32, "name": "ln2"},
            {"type": "linear", "in": 32, "out": 64, "name": "fc1"},
            {"type": "gelu", "name": "gelu"},
            {"type": "dropout", "p": 0.1, "name": "drop"},
            {"type": "linear", "in": 64, "out": 32, "name": "fc2"}], []]},
        {"type": "permute", "dims": [0, 2, 1], "name": "to_channels"},
        {"type": "permute", "dims": [0, 2, 1], "name": "back"},
        {"type": "linear", "in": 32, "out": 16, "name": "proj_permuted"},
        {"type": "select_token", "name": "first"},
        {"type": "linear", "in": 16, "out": 10, "name": "head"}]},
}


def all_cases():
    C = []
    for m in ("resnet18", "resnet50", "resnet152", "vgg16", "vgg16_bn", "mobilenet_v2", "mobilenet_v3_large",
              "mobilenet_v3_small", "efficientnet_b0", "efficientnet_b4", "densenet121", "convnext_tiny"):
        C.append(case(m, 64, 2))
    C.append(case("resnet50", 96, 3, optimizers=False))
    C.append(case("vit_b_16", 64, 2))
    C.append(case("vit_b_16", 224, 1, optimizers=False))
    C.append(case("swin_t", 64, 2))
    C.append(case("swin_t", 112, 1, optimizers=False))
    C.append(case("fcn_resnet50", 64, 2, classes=21, task="segmentation"))
    C.append(case("deeplabv3_resnet50", 64, 2, classes=21, task="segmentation"))
    C.append(case("lraspp_mobilenet_v3_large", 64, 2, classes=21, task="segmentation"))
    C.append(case("fasterrcnn_resnet50_fpn", 96, 2, task="backbone"))
    # 16-bit (model.to(torch.bfloat16)): BatchNorm's statistics stay fp32, LayerNorm's are
    # bf16 on the CPU, buffers and optimizer states follow the parameters
    C.append(case("resnet18", 64, 2, dtype="bf16"))
    C.append(case("convnext_tiny", 64, 2, dtype="bf16", optimizers=False))
    for k, st in CUSTOM.items():
        for dt in ("fp32", "bf16") if k == "custom_tokens" else ("fp32",):
            c = case(k, st["input"][-1], 2, dtype=dt, channels=st["input"][0] if len(st["input"]) > 1 else 0,
                     classes=st["classes"])
            c["id"] = f"{k}_{dt}_b2_" + "x".join(str(x) for x in st["input"])
            c["input"] = st["input"]
            if "ids" in st:
                c["ids"] = st["ids"]
            C.append(c)
    return C


def quick_cases():
    return [c for c in all_cases() if c["id"].startswith(("resnet18_", "custom_convs_"))]


def show(r):
    lines = [f"{r['id']}: saved {r['saved_bytes']} B, params {r['params']}"]
    for s in r["saved"]:
        also = " also " + ",".join(s["also"]) if "also" in s else ""
        lines.append(f"  {s['module']:40s} {s['node']:30s} {s['attr']:18s} {str(s['shape']):22s} {s['dtype']:5s} "
                     f"{s['bytes']:10d}{' VIEW' if s['view_of_larger'] else ''}{also}")
    return "\n".join(lines)


CHECK_PREFIXES = ("resnet18_", "custom_convs_", "custom_tokens_")


def check_committed(path):
    """The committed file must still be what this harness measures (same torch, torchvision)."""
    with open(path) as fh:
        committed = {c["id"]: c for c in json.load(fh)["cases"]}
    failed = set()
    checked = [c for c in all_cases() if c["id"].startswith(CHECK_PREFIXES)]
    for c in checked:
        r, _ = measure_case(c)
        for key in ("saved_bytes", "saved_bytes_by_module", "params", "grad_bytes", "buffer_bytes"):
            if r.get(key) != committed[c["id"]].get(key):
                print(f"MISMATCH {c['id']} {key}: measured {r.get(key)}, committed {committed[c['id']].get(key)}")
                failed.add(c["id"])
    print(f"{len(checked) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def compact(r):
    """What is committed: totals and bytes per module, not every storage (--show lists those)."""
    r = dict(r)
    r.pop("saved", None)
    if isinstance(r.get("optimizers"), bool):  # the case's flag, when no step was measured
        r.pop("optimizers")
    return r


def document(results):
    try:
        deb = {p: subprocess.run(["dpkg-query", "-W", "-f=${Version}", p], capture_output=True, text=True,
                                 timeout=10).stdout.strip() or None for p in ("python3-torch", "python3-torchvision")}
    except Exception:
        deb = {}
    import torchvision
    return {
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "debian_packages": deb,
        "python": platform.python_version(),
        "device": "cpu",
        "generated_by": "tests/truth/measure_cnn.py",
        "assumptions": [
            "dropout as on CUDA: torch.native_dropout (bool mask, 1 byte/element); p == 0 returns its input",
            "saved storages de-duplicated by storage; parameters and buffers listed apart (saved_params_bytes, "
            "saved_buffers_bytes); 0-dim wrapped scalars are host_only",
            "the loss is nn.CrossEntropyLoss on the output (segmentation: per pixel), tagged 'loss'",
            "optimizers: one step of SGD(momentum=0.9) and AdamW (torch 1.13 defaults) after one backward",
        ],
        "units": "bytes",
        "cases": [compact(r) for r in results],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--show", default=None, help="measure the cases whose id contains this and print every storage")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--update", action="store_true",
                    help="with --only: measure those cases and put them into the committed file (case order kept)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    version = torch.__version__.split("+")[0]
    default_out = os.path.join(repo, "tests", "data", f"cnn_truth_torch-{version}_cpu.json")
    if args.check:
        return check_committed(args.out or default_out)
    cases = quick_cases() if args.quick else all_cases()
    if args.show:
        for c in cases:
            if args.show in c["id"]:
                r, _ = measure_case(c)
                print(show(r))
        return 0
    if args.only:
        cases = [c for c in cases if args.only in c["id"]]
    results = []
    for c in cases:
        r, secs = measure_case(c)
        results.append(r)
        print(f"{secs:7.2f}s {r['id']}: saved {r['saved_bytes']} B, params {r['params']}, "
              f"check {r['cross_check']}", flush=True)
    out = args.out or (default_out if not (args.quick or args.only) or args.update else "/tmp/cnn_truth_quick.json")
    if args.update:  # the other cases as committed (a full run gives the same bytes: deterministic)
        with open(out) as fh:
            old = {c["id"]: c for c in json.load(fh)["cases"]}
        new = {r["id"]: r for r in results}
        results = [new.get(c["id"]) or old[c["id"]] for c in all_cases() if c["id"] in new or c["id"] in old]
    data = document(results)
    with open(out, "w") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
