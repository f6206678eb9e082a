#!/usr/bin/env python3
"""Measure GPU memory of real training and inference steps (what PyTorch's allocator and the
driver report), for tests/truth/gpu_table.py to set beside llmmem's estimate.

    python3 tests/truth/gpu_measure.py --out /tmp/gpu                     # on a CUDA machine
    python3 tests/truth/gpu_measure.py --plan linear-layers --out /tmp/gpu   # issue 31's mixers, only when asked
    /usr/bin/python3 tests/truth/gpu_measure.py --device cpu --tiny --plan linear-layers --out /tmp/smoke
    /usr/bin/python3 tests/truth/gpu_measure.py --device cpu --tiny --out /tmp/smoke   # smoke test

The runs are gpu_plan.py's (models built from config dicts with random weights, nothing
downloaded; transformers and peft where importable, else replicas.py). Per run and phase
(load, forward, backward, step, twice, so that the second iteration runs with the optimizer
states resident; generate for inference) it reads memory_allocated before and after,
max_memory_allocated, memory_reserved and max_memory_reserved, and counts from the tensors
themselves the bytes autograd saved in forward (de-duplicated by storage, parameters
apart), the gradients, the optimizer states and the KV cache. Once per process it reads
what the CUDA context and cuBLAS hold outside the allocator (cudaMemGetInfo, nvidia-smi).

The JSON is rewritten after every run, so a run stopped at a time limit keeps what it
measured. On the CPU torch has no memory counters: only the counted bytes are recorded.
"""

import argparse
import contextlib
import json
import os
import platform
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, HERE)
import gpu_build as B  # noqa: E402
import gpu_counters as C  # noqa: E402
import gpu_mixers as X  # noqa: E402
import gpu_plan as P  # noqa: E402


def try_import(name):
    try:
        mod = __import__(name)
        return mod, getattr(mod, "__version__", "?")
    except Exception as e:  # noqa: BLE001 - any failure means "not usable here"
        return None, f"not importable: {type(e).__name__}: {e}"[:200]


def device_info(device):
    info = {"device": str(device), "torch": torch.__version__, "python": platform.python_version()}
    if device.type == "cuda":
        p = torch.cuda.get_device_properties(device)
        info.update({"name": p.name, "total_memory_bytes": p.total_memory, "cuda": torch.version.cuda,
                     "capability": f"{p.major}.{p.minor}"})
    return info


def make_adamw(params, impl):
    """torch.optim.AdamW with the implementation named: foreach (the default on CUDA),
    fused, or forloop (foreach=False). Returns (optimizer, what was asked, note)."""
    kwargs = {"foreach": {"foreach": True}, "fused": {"fused": True}, "forloop": {"foreach": False}}[impl]
    try:
        return torch.optim.AdamW(params, lr=1e-4, **kwargs), kwargs, ""
    except (TypeError, RuntimeError) as e:  # torch 1.13's AdamW has no fused; CPU fused may be missing
        return torch.optim.AdamW(params, lr=1e-4, foreach=True), {"foreach": True}, f"{impl} unavailable: {e}"[:200]


def state_summary(opt):
    state = [v for st in opt.state.values() for v in st.values() if torch.is_tensor(v)]
    steps = [st["step"] for st in opt.state.values() if "step" in st]
    return {"optimizer_state_bytes": C.unique_bytes(state),
            "step_tensors": {"count": len(steps), "dtypes": sorted({str(s.dtype) for s in steps if torch.is_tensor(s)}),
                             "devices": sorted({str(s.device) for s in steps if torch.is_tensor(s)})}}


def autocast(run, device):
    """HF Trainer's bf16=True: the forward (and the loss) under torch.autocast in bf16."""
    if not run.get("amp"):
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


def run_train(run, cfg, device, tf, peft):
    # AMP full fine-tuning keeps fp32 weights (the Trainer's default load); AMP LoRA a bf16 base.
    dtype = torch.float32 if run.get("amp") and run["kind"] == "train" else torch.bfloat16
    C.clear(device)
    ph = C.Phases(device)
    info = {}
    lora, gc_mode = run["kind"] == "lora", run["gc"]
    with ph.phase("load") as row:
        model, backend = B.build(run["model"], cfg, device, dtype, run["attn"], tf)
        model.train()
        if lora:
            model, info["lora_impl"] = B.add_lora(model, backend, peft, gc_mode != "none")
        if gc_mode != "none":
            info.update(B.enable_gc(model, backend, gc_mode))
        params = list(model.parameters())
        trainable = [p for p in params if p.requires_grad]
        row["param_bytes"] = C.unique_bytes(params)
        row["params"] = sum(p.numel() for p in {C.storage_key(p): p for p in params}.values())
        row["trainable_params"] = sum(p.numel() for p in trainable)
        row["trainable_bytes"] = C.unique_bytes(trainable)
        row["trainable_dtypes"] = sorted({str(p.dtype) for p in trainable})
    info["backend"] = backend
    opt, asked, note = make_adamw(trainable, run["optim"])
    info["optimizer"] = {"class": "AdamW", "asked": asked, "note": note,
                         "defaults": {k: (v if isinstance(v, (int, float, bool, type(None))) else repr(v))
                                      for k, v in opt.defaults.items()}}
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, cfg["vocab_size"], (run["batch"], run["seq"]), generator=g).to(device)
    for it in (1, 2):
        saved = C.SavedBytes(params)
        with ph.phase(f"forward_{it}") as row:
            with saved, autocast(run, device):
                loss = B.forward_loss(model, backend, ids)
            row.update(saved.result())
        with ph.phase(f"backward_{it}") as row:
            loss.backward()
            del loss
            row["grad_bytes"] = C.unique_bytes([p.grad for p in params if p.grad is not None])
        with ph.phase(f"step_{it}") as row:
            opt.step()
            row.update(state_summary(opt))
            if it == 2 and device.type == "cuda":
                row["nvidia_smi"] = C.nvidia_smi()  # before anything is freed
            opt.zero_grad(set_to_none=True)
    info["phases"] = ph.rows
    del model, opt, params, trainable
    C.clear(device)
    return info


def run_infer(run, cfg, device, tf):
    dtype = torch.bfloat16
    C.clear(device)
    ph = C.Phases(device)
    info = {}
    with ph.phase("load") as row:
        model, backend = B.build(run["model"], cfg, device, dtype, run["attn"], tf)
        model.eval()
        model.config.use_cache = True  # build() turns it off for training
        row["param_bytes"] = C.unique_bytes(list(model.parameters()))
    info["backend"] = backend
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(3, cfg["vocab_size"], (run["batch"], run["prompt"]), generator=g).to(device)
    with ph.phase("generate") as row:
        with torch.no_grad():
            if backend == "transformers":
                out = model.generate(ids, max_new_tokens=run["new_tokens"], min_new_tokens=run["new_tokens"],
                                     do_sample=False, use_cache=True, pad_token_id=0, return_dict_in_generate=True)
                cache = out.past_key_values
                row["kv_cache_bytes"] = C.cache_bytes(cache)
                row["kv_cache_tokens"] = int(cache.get_seq_length()) if hasattr(cache, "get_seq_length") else None
                row["how"] = "model.generate (greedy, use_cache=True, the default dynamic cache)"
                seqs = out.sequences
            else:
                seqs, cache = B.R.greedy_decode(model, ids, run["new_tokens"])
                row["kv_cache_bytes"] = cache.nbytes()
                row["kv_cache_tokens"] = cache.get_seq_length()
                row["how"] = "replicas greedy_decode (KV cache, logits_to_keep=1)"
        row["generated_tokens"] = int(seqs.shape[1] - ids.shape[1])
        if device.type == "cuda":
            row["nvidia_smi"] = C.nvidia_smi()
    info["phases"] = ph.rows
    del model, cache
    C.clear(device)
    return info


def run_mixer(run, cfg, device, tf):
    """One token mixer (plan linear-layers): load, forward (saved bytes by hooks), backward of
    out.float().sum() (which keeps nothing itself); the path that ran is in info."""
    dtype = torch.bfloat16
    C.clear(device)
    ph = C.Phases(device)
    with ph.phase("load") as row:
        module, call, info = X.build_mixer(cfg, device, dtype, run["layer"], tf)
        params = list(module.parameters())
        row["param_bytes"] = C.unique_bytes(params)
        row["params"] = sum(p.numel() for p in params)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(run["batch"], run["seq"], cfg["hidden_size"], generator=g).to(device=device, dtype=dtype)
    x.requires_grad_(True)  # the input norm's output: a gradient flows into it in a model
    saved = C.SavedBytes(params + [x])
    with ph.phase("forward") as row:
        with saved:
            out = call(x)
        row.update(saved.result())
        row["input_bytes"] = C.unique_bytes([x])
        row["output_bytes"] = C.unique_bytes([out])
    with ph.phase("backward") as row:
        out.float().sum().backward()
        del out
        row["grad_bytes"] = C.unique_bytes([p.grad for p in params if p.grad is not None])
    info["phases"] = ph.rows
    del module, params, x
    C.clear(device)
    return info


def measure(run, cfg, device, tf, peft):
    if run["kind"] == "mixer":
        try:
            return run_mixer(run, cfg, device, tf)
        except Exception as e:  # noqa: BLE001 - record it, go on with the next run
            C.clear(device)
            return {"error": f"{type(e).__name__}: {e}"[:1000], "phases": []}
    """One run; if the transformers path fails, the same run on the replicas, with the error kept."""
    go = run_infer if run["kind"] == "infer" else run_train
    args = (run, cfg, device, tf) if run["kind"] == "infer" else (run, cfg, device, tf, peft)
    try:
        return go(*args)
    except Exception as e:  # noqa: BLE001 - record and try the replicas
        err = f"{type(e).__name__}: {e}"[:1000]
        C.clear(device)
        if tf is None:
            return {"error": err, "phases": []}
    try:
        args = (run, cfg, device, None) if run["kind"] == "infer" else (run, cfg, device, None, None)
        return {**go(*args), "transformers_error": err}
    except Exception as e:  # noqa: BLE001
        C.clear(device)
        return {"error": f"{type(e).__name__}: {e}"[:1000], "transformers_error": err, "phases": []}


def summary_line(rid, r):
    peaks = [p["max_allocated"] for p in r["phases"] if "max_allocated" in p]
    saved = max((p.get("saved_activation_bytes") or 0 for p in r["phases"]), default=0)
    peak = f"peak alloc {max(peaks) / 2**20:10.1f} MiB" if peaks else "peak alloc - (cpu)"
    return (f"{rid:48s} {r.get('backend', '?'):12s} {r['seconds']:7.2f}s  {peak}  saved act {saved} B"
            + (f"  TRANSFORMERS FAILED: {r['transformers_error'][:200]}" if "transformers_error" in r else "")
            + (f"  ERROR {r['error']}" if "error" in r else ""))


def write(report, out):
    tmp = os.path.join(out, "gpu_measure.json.tmp")
    with open(tmp, "w") as fh:
        json.dump(report, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, os.path.join(out, "gpu_measure.json"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--tiny", action="store_true", help="tiny configs and shapes (smoke test)")
    ap.add_argument("--out", required=True, help="directory for gpu_measure.json")
    ap.add_argument("--plan", default="h200", choices=sorted(P.PLANS))
    ap.add_argument("--only", default=None, help="comma list of substrings; runs whose id contains one")
    ap.add_argument("--deadline-s", type=float, default=0, help="start no run after this many seconds (0: none)")
    ap.add_argument("--no-transformers", action="store_true", help="use the replicas even if transformers imports")
    args = ap.parse_args()
    t_start = time.time()
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("no CUDA device; use --device cpu --tiny for the smoke test", file=sys.stderr)
        return 2
    tf, tf_version = (None, "not used (--no-transformers)") if args.no_transformers else try_import("transformers")
    peft, peft_version = try_import("peft") if tf is not None else (None, "not used (replicas)")
    B.install_real_sdpa()  # only used by the replicas
    table, plan = (P.TINY, P.tiny_plan(args.plan)) if args.tiny else (P.CONFIGS, P.PLANS[args.plan]())
    if args.only:
        plan = [r for r in plan if any(s in P.run_id(r) for s in args.only.split(","))]
    os.makedirs(args.out, exist_ok=True)
    report = {"generated_by": "tests/truth/gpu_measure.py", "device": device_info(device),
              "transformers": tf_version, "peft": peft_version, "args": vars(args),
              "cuda_context": C.cuda_context_probe(device), "configs": {}, "runs": []}
    print(json.dumps(report["cuda_context"])[:1500], flush=True)
    torch.manual_seed(0)
    for run in plan:
        if args.deadline_s and time.time() - t_start > args.deadline_s:
            report["stopped"] = f"deadline of {args.deadline_s} s reached before {P.run_id(run)}"
            print(report["stopped"], flush=True)
            break
        cfg = table[run["model"]]
        report["configs"][run["model"]] = cfg
        t0 = time.time()
        r = {"id": P.run_id(run), **run, **measure(run, cfg, device, tf, peft)}
        r["seconds"] = round(time.time() - t0, 2)
        report["runs"].append(r)
        write(report, args.out)
        print(summary_line(r["id"], r), flush=True)
    report["seconds"] = round(time.time() - t_start, 1)
    write(report, args.out)
    print(f"wrote {args.out}/gpu_measure.json ({len(report['runs'])} runs, {report['seconds']} s)")
    return 1 if any("error" in r for r in report["runs"]) else 0


if __name__ == "__main__":
    sys.exit(main())
