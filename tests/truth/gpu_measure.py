#!/usr/bin/env python3
"""Measure GPU memory of real training and inference steps and print it beside llmmem's
estimate for the same inputs.

    python3 tests/truth/gpu_measure.py --out /tmp/gpu_truth                 # on a CUDA machine
    /usr/bin/python3 tests/truth/gpu_measure.py --device cpu --tiny --out /tmp/smoke   # smoke test

What it does, per model (Llama-, Qwen2- and Mistral-style configs below, random weights,
nothing downloaded):
  * train:      one bf16 AdamW step (torch defaults), twice (iteration 2 runs with the
                optimizer states resident), without and with gradient checkpointing
                (transformers' gradient_checkpointing_enable() with its default kwargs);
  * lora:       the same with LoRA r=16 on all linear layers (peft when importable, else
                the replica LoraLinear), with and without gradient checkpointing;
  * infer:      greedy generation with a KV cache (model.generate, or the replicas'
                manual decode loop), no grad.
Models are built with `transformers` when it is importable (AutoModelForCausalLM.from_config,
random init), else with tests/truth/replicas.py (then "sdpa" calls the real
F.scaled_dot_product_attention when torch has it).

Per phase (load, forward, backward, step; prefill+decode for inference) it calls
torch.cuda.reset_peak_memory_stats() before the phase and records memory_allocated,
max_memory_allocated, memory_reserved and max_memory_reserved after it. On the CPU there are
no such counters: it records, for every run and on every device, the bytes of the tensors
autograd saved in forward (saved_tensors_hooks, de-duplicated by storage, parameters
excluded), and the bytes of parameters, gradients and optimizer states, counted from the
tensors themselves. Nothing is estimated here: every number is read from torch.

It then calls build/native/llmmem --json with the matching flags (when the binary exists)
and writes gpu_measure.json and gpu_measure.md to --out.
"""

import argparse
import contextlib
import gc
import json
import os
import platform
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, HERE)
import replicas as R  # noqa: E402

# Hugging Face config.json contents (random weights; sizes chosen to fit one GPU in bf16 with
# AdamW and to make every term visible). Parameter counts are printed by the run.
CONFIGS = {
    # Llama-3.2-1B shape: ~1.24 B parameters (tied embeddings)
    "llama-1.2b": {
        "model_type": "llama", "architectures": ["LlamaForCausalLM"], "vocab_size": 128256,
        "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "hidden_act": "silu",
        "max_position_embeddings": 131072, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
        "tie_word_embeddings": True, "attention_bias": False, "mlp_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "bfloat16",
    },
    # Qwen2.5-0.5B shape: ~0.49 B parameters (q/k/v biases, tied embeddings)
    "qwen2-0.5b": {
        "model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"], "vocab_size": 151936,
        "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
        "num_attention_heads": 14, "num_key_value_heads": 2, "hidden_act": "silu",
        "max_position_embeddings": 32768, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
        "tie_word_embeddings": True, "use_sliding_window": False, "sliding_window": 32768,
        "max_window_layers": 24, "attention_dropout": 0.0, "bos_token_id": 151643,
        "eos_token_id": 151643, "torch_dtype": "bfloat16",
    },
    # Mistral-style, ~1.56 B parameters, untied head, sliding window larger than the runs' seq
    "mistral-1.6b": {
        "model_type": "mistral", "architectures": ["MistralForCausalLM"], "vocab_size": 32768,
        "hidden_size": 2560, "intermediate_size": 6912, "num_hidden_layers": 20,
        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 80, "hidden_act": "silu",
        "max_position_embeddings": 32768, "rms_norm_eps": 1e-5, "rope_theta": 1000000.0,
        "sliding_window": 4096, "tie_word_embeddings": False, "attention_dropout": 0.0,
        "bos_token_id": 1, "eos_token_id": 2, "torch_dtype": "bfloat16",
    },
}

TINY = {
    "llama-tiny": {**CONFIGS["llama-1.2b"], "vocab_size": 512, "hidden_size": 64, "intermediate_size": 176,
                   "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16},
    "qwen2-tiny": {**CONFIGS["qwen2-0.5b"], "vocab_size": 640, "hidden_size": 96, "intermediate_size": 344,
                   "num_hidden_layers": 2, "num_attention_heads": 6, "num_key_value_heads": 2,
                   "max_window_layers": 2, "sliding_window": 64},
    "mistral-tiny": {**CONFIGS["mistral-1.6b"], "vocab_size": 500, "hidden_size": 64, "intermediate_size": 160,
                     "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
                     "sliding_window": 16},
}

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


# ----------------------------------------------------------------------------- environment

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


# ----------------------------------------------------------------------------- measuring

def storage_key(t):
    st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return (str(t.device), st.data_ptr())


def storage_bytes(t):
    st = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return st.nbytes()


def unique_bytes(tensors):
    seen = {}
    for t in tensors:
        if t is not None:
            seen.setdefault(storage_key(t), storage_bytes(t))
    return sum(seen.values())


class SavedBytes:
    """saved_tensors_hooks that remember what autograd packs (same tensor returned: no copy).
    Tensors inside a non-reentrant checkpoint are packed by checkpoint's own hooks and are
    not seen here (they are not kept either)."""

    def __init__(self, params):
        self.param_keys = {storage_key(p) for p in params}
        self.packed = []
        self.ctx = None

    def __enter__(self):
        self.ctx = torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t)
        self.ctx.__enter__()
        return self

    def __exit__(self, *a):
        self.ctx.__exit__(*a)
        return False

    def _pack(self, t):
        self.packed.append(t)
        return t

    def result(self):
        acts, params = {}, {}
        for t in self.packed:
            k = storage_key(t)
            (params if k in self.param_keys else acts).setdefault(k, storage_bytes(t))
        out = {"saved_activation_bytes": sum(acts.values()), "saved_activation_storages": len(acts),
               "saved_param_bytes": sum(params.values()), "packs": len(self.packed)}
        self.packed = []  # drop the references before backward
        return out


class Phases:
    def __init__(self, device):
        self.device = device
        self.rows = []
        self.t0 = time.time()

    @contextlib.contextmanager
    def phase(self, name, **extra):
        if self.device.type == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t = time.time()
        row = {"phase": name}
        yield row
        if self.device.type == "cuda":
            torch.cuda.synchronize()
            row.update({
                "allocated": torch.cuda.memory_allocated(),
                "max_allocated": torch.cuda.max_memory_allocated(),
                "reserved": torch.cuda.memory_reserved(),
                "max_reserved": torch.cuda.max_memory_reserved(),
            })
        else:
            row["memory_counters"] = "unavailable on cpu (saved-tensor and state bytes recorded instead)"
        row["seconds"] = round(time.time() - t, 3)
        row.update(extra)
        self.rows.append(row)


def clear(device):
    gc.collect()
    if device.type == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


# ----------------------------------------------------------------------------- building

def replica_config(cfg, attn):
    fam = cfg["model_type"]
    heads = cfg["num_attention_heads"]
    return R.Config(
        family=fam if fam in ("llama", "qwen2", "mistral") else "llama",
        hidden_size=cfg["hidden_size"], intermediate_size=cfg["intermediate_size"],
        num_attention_heads=heads, num_key_value_heads=cfg.get("num_key_value_heads", heads),
        head_dim=cfg.get("head_dim") or cfg["hidden_size"] // heads, vocab_size=cfg["vocab_size"],
        num_hidden_layers=cfg["num_hidden_layers"], rms_norm_eps=cfg.get("rms_norm_eps", 1e-6),
        rope_theta=cfg.get("rope_theta", 10000.0), attention_dropout=cfg.get("attention_dropout", 0.0),
        attention_bias=cfg.get("attention_bias", False), mlp_bias=cfg.get("mlp_bias", False),
        sliding_window=cfg.get("sliding_window") if fam == "mistral" else None,
        max_position_embeddings=cfg.get("max_position_embeddings", 4096),
        attn_implementation=attn, tie_word_embeddings=cfg.get("tie_word_embeddings", False),
    )


def install_real_sdpa():
    """For the replicas on torch >= 2: 'sdpa' calls F.scaled_dot_product_attention (the fused
    kernels where they apply) after repeat_kv, as transformers' sdpa_attention_forward does."""
    if not hasattr(F, "scaled_dot_product_attention"):
        return False

    def sdpa(module, query, key, value, attention_mask, dropout=0.0, scaling=None, is_causal=None, **kw):
        key = R.repeat_kv(key, module.num_key_value_groups)
        value = R.repeat_kv(value, module.num_key_value_groups)
        if attention_mask is not None and attention_mask.ndim == 4:
            attention_mask = attention_mask[:, :, :, : key.shape[-2]]
        if is_causal is None:
            is_causal = query.shape[2] > 1 and attention_mask is None
        out = F.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask, dropout_p=dropout,
                                             scale=scaling, is_causal=is_causal)
        return out.transpose(1, 2).contiguous(), None
    R.ATTENTION_FUNCTIONS["sdpa"] = sdpa
    return True


def build(name, cfg, device, dtype, attn, tf):
    """Returns (model, backend). Random weights, built on the device."""
    if tf is not None:
        from transformers import AutoConfig, AutoModelForCausalLM
        hf_cfg = AutoConfig.for_model(**cfg)
        kwargs = {"attn_implementation": attn}
        # build on the device (torch >= 2: torch.device is a context manager) in the dtype
        ctx = torch.device(device) if hasattr(torch.device, "__enter__") else contextlib.nullcontext()
        old_default = torch.get_default_dtype()
        torch.set_default_dtype(dtype)
        try:
            with ctx:
                try:
                    model = AutoModelForCausalLM.from_config(hf_cfg, dtype=dtype, **kwargs)
                except TypeError:
                    model = AutoModelForCausalLM.from_config(hf_cfg, torch_dtype=dtype, **kwargs)
        finally:
            torch.set_default_dtype(old_default)
        model = model.to(device=device, dtype=dtype)
        model.config.use_cache = False
        return model, "transformers"
    rattn = attn
    if attn == "sdpa":
        rattn = "sdpa" if "sdpa" in R.ATTENTION_FUNCTIONS else "sdpa_math"
    model = R.build_model(replica_config(cfg, rattn), dtype).to(device)
    return model, "replicas"


def forward_loss(model, backend, ids):
    if backend == "transformers":
        return model(input_ids=ids, labels=ids).loss
    loss, _ = model(ids, labels=ids)
    return loss


def enable_gc(model, backend, mode):
    """mode: 'default' (transformers' own default kwargs), 'reentrant' or 'non_reentrant'."""
    if backend == "transformers":
        kw = None if mode == "default" else {"use_reentrant": mode == "reentrant"}
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kw)
        used = None
        for m in model.modules():
            f = getattr(m, "_gradient_checkpointing_func", None)
            if f is not None:
                used = dict(getattr(f, "keywords", {}) or {})
                break
        return {"gradient_checkpointing_kwargs": used}
    R.set_gradient_checkpointing(model, "reentrant" if mode in ("default", "reentrant") else "non_reentrant")
    return {"gradient_checkpointing_kwargs": {"use_reentrant": mode in ("default", "reentrant")},
            "note": "replicas: 'default' taken as use_reentrant=True (transformers 4.x default)"}


def add_lora(model, backend, peft, gc_on, r=16, alpha=32):
    if backend == "transformers" and peft is not None:
        from peft import LoraConfig, get_peft_model
        if gc_on:
            model.enable_input_require_grads()
        lcfg = LoraConfig(r=r, lora_alpha=alpha, lora_dropout=0.0, target_modules=LORA_TARGETS, bias="none",
                          task_type="CAUSAL_LM")
        return get_peft_model(model, lcfg), "peft"
    R.apply_lora(model, r=r, alpha=alpha, dropout=0.0, targets=tuple(LORA_TARGETS))
    if gc_on:
        if backend == "transformers":
            model.enable_input_require_grads()
        else:  # PreTrainedModel.enable_input_require_grads: the embedding output requires grad
            model.model.embed_tokens.register_forward_hook(lambda m, i, o: o.requires_grad_(True))
    return model, "replica LoraLinear"


# ----------------------------------------------------------------------------- runs

def run_train(name, cfg, args, device, tf, peft, gc_mode, lora):
    dtype = torch.bfloat16
    clear(device)
    ph = Phases(device)
    info = {"model": name, "run": ("lora" if lora else "train") + ("+gc" if gc_mode != "none" else ""),
            "batch": args.batch, "seq": args.seq, "attn": args.attn, "gc": gc_mode, "lora": lora}
    with ph.phase("load") as row:
        model, backend = build(name, cfg, device, dtype, args.attn, tf)
        model.train()
        if lora:
            model, info["lora_impl"] = add_lora(model, backend, peft, gc_mode != "none")
        if gc_mode != "none":
            info.update(enable_gc(model, backend, gc_mode))
        params = [p for p in model.parameters()]
        trainable = [p for p in params if p.requires_grad]
        row["param_bytes"] = unique_bytes(params)
        row["params"] = sum(p.numel() for p in {storage_key(p): p for p in params}.values())
        row["trainable_params"] = sum(p.numel() for p in trainable)
    info["backend"] = backend
    opt = torch.optim.AdamW(trainable, lr=1e-4)
    info["optimizer"] = {"class": "AdamW", "defaults": {k: (v if isinstance(v, (int, float, bool, type(None)))
                                                            else repr(v)) for k, v in opt.defaults.items()}}
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, cfg["vocab_size"], (args.batch, args.seq), generator=g).to(device)
    for it in (1, 2):
        saved = SavedBytes(params)
        with ph.phase(f"forward_{it}") as row:
            with saved:
                loss = forward_loss(model, backend, ids)
            row.update(saved.result())
        with ph.phase(f"backward_{it}") as row:
            loss.backward()
            del loss
            row["grad_bytes"] = unique_bytes([p.grad for p in params if p.grad is not None])
        with ph.phase(f"step_{it}") as row:
            opt.step()
            state = [v for st in opt.state.values() for v in st.values() if torch.is_tensor(v)]
            row["optimizer_state_bytes"] = unique_bytes(state)
            steps = [st["step"] for st in opt.state.values() if "step" in st]
            row["step_tensors"] = {"count": len(steps), "dtypes": sorted({str(s.dtype) for s in steps if torch.is_tensor(s)}),
                                   "devices": sorted({str(s.device) for s in steps if torch.is_tensor(s)})}
            opt.zero_grad(set_to_none=True)
    info["phases"] = ph.rows
    del model, opt, params, trainable
    clear(device)
    return info


def run_infer(name, cfg, args, device, tf):
    dtype = torch.bfloat16
    clear(device)
    ph = Phases(device)
    info = {"model": name, "run": "infer", "batch": args.batch, "prompt": args.prompt, "new_tokens": args.new_tokens,
            "attn": args.attn}
    with ph.phase("load") as row:
        model, backend = build(name, cfg, device, dtype, args.attn, tf)
        model.eval()
        row["param_bytes"] = unique_bytes(list(model.parameters()))
    info["backend"] = backend
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(3, cfg["vocab_size"], (args.batch, args.prompt), generator=g).to(device)
    with ph.phase("generate") as row:
        with torch.no_grad():
            if backend == "transformers":
                out = model.generate(ids, max_new_tokens=args.new_tokens, min_new_tokens=args.new_tokens,
                                     do_sample=False, use_cache=True, pad_token_id=0)
                row["how"] = "model.generate (greedy, use_cache=True)"
            else:
                out, cache = R.greedy_decode(model, ids, args.new_tokens)
                row["kv_cache_bytes"] = cache.nbytes()
                row["kv_cache_tokens"] = cache.get_seq_length()
                row["how"] = "replicas greedy_decode (KV cache, logits_to_keep=1)"
        row["generated_tokens"] = int(out.shape[1] - ids.shape[1])
    info["phases"] = ph.rows
    del model
    clear(device)
    return info


# ----------------------------------------------------------------------------- llmmem

def llmmem_flags(run, cfg_path, device_mem_gb):
    f = ["--hf-config", cfg_path, "--dtype", "bf16", "--batch", str(run["batch"]),
         "--framework", "hf-eager" if run["attn"] == "eager" else "hf-sdpa",
         "--cuda-context-gb", "0", "--fragmentation-pct", "0", "--comm-buffer-gb", "0"]
    if device_mem_gb:
        f += ["--gpu-memory-gb", f"{device_mem_gb:.3f}"]
    if run["run"] == "infer":
        f += ["--mode", "infer", "--seq", str(run["prompt"] + run["new_tokens"]), "--kv-dtype", "bf16"]
        return f
    f += ["--seq", str(run["seq"]), "--optimizer", "adamw", "--master-weights", "0", "--optimizer-dtype", "bf16",
          "--grad-dtype", "bf16", "--recompute", "full" if run["gc"] != "none" else "none", "--dropout", "0"]
    if run["lora"]:
        f += ["--mode", "lora", "--lora-rank", "16", "--lora-targets", "all", "--lora-dropout", "0"]
    else:
        f += ["--mode", "train"]
    return f


def call_llmmem(binary, flags):
    if not binary or not os.path.exists(binary):
        return {"available": False, "reason": f"{binary} not found (build the CLI first)"}
    try:
        p = subprocess.run([binary, *flags, "--json"], capture_output=True, text=True, timeout=60)
    except Exception as e:  # noqa: BLE001
        return {"available": False, "reason": f"{type(e).__name__}: {e}"}
    res = {"available": True, "exit_status": p.returncode, "flags": flags}
    try:
        j = json.loads(p.stdout)
        g = j.get("per_gpu", {})
        res.update({"total_bytes": g.get("total_bytes"), "peak_moment": g.get("peak_moment"),
                    "bytes_at_forward_end": g.get("bytes_at_forward_end"),
                    "bytes_at_optimizer_step": g.get("bytes_at_optimizer_step"),
                    "by_category": g.get("by_category"), "parameters": j.get("parameters")})
    except Exception:  # noqa: BLE001
        res["stdout"] = p.stdout[-2000:]
        res["stderr"] = p.stderr[-2000:]
    return res


# ----------------------------------------------------------------------------- report

def gib(x):
    return "" if x is None else f"{x / 2**30:.3f}"


def mib(x):
    return "" if x is None else f"{x / 2**20:.3f}"


def markdown(report):
    lines = [f"# gpu_measure on {report['device'].get('name', report['device']['device'])}", "",
             f"torch {report['device']['torch']}, transformers {report['transformers']}, peft {report['peft']}; "
             f"backend per run in the table. MiB = 2^20 bytes.", ""]
    if report["device"]["device"] == "cpu":
        lines += ["On the CPU torch has no memory counters: the memory columns are empty and the "
                  "saved-tensor bytes (de-duplicated, parameters excluded) are the measurement.", ""]
    lines += ["| model | run | backend | phase | max allocated MiB | max reserved MiB | allocated at end MiB | "
              "saved activations MiB | llmmem total MiB | llmmem activations MiB | llmmem peak moment |",
              "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in report["runs"]:
        est = r.get("llmmem", {})
        cats = est.get("by_category") or {}
        for i, p in enumerate(r["phases"]):
            lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
                r["model"], r["run"], r.get("backend", ""), p["phase"], mib(p.get("max_allocated")),
                mib(p.get("max_reserved")), mib(p.get("allocated")), mib(p.get("saved_activation_bytes")),
                mib(est.get("total_bytes")) if i == 0 else "", mib(cats.get("activations")) if i == 0 else "",
                est.get("peak_moment", "" if est.get("available") else "n/a") if i == 0 else ""))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--tiny", action="store_true", help="tiny configs and shapes (smoke test)")
    ap.add_argument("--out", required=True, help="directory for gpu_measure.json / .md and configs/")
    ap.add_argument("--models", default=None, help="comma list of config names (default: all)")
    ap.add_argument("--runs", default="train,train+gc,lora,lora+gc,infer")
    ap.add_argument("--gc-mode", default="default", choices=["default", "reentrant", "non_reentrant"])
    ap.add_argument("--attn", default="sdpa", choices=["sdpa", "eager"])
    ap.add_argument("--batch", type=int, default=None)
    ap.add_argument("--seq", type=int, default=None)
    ap.add_argument("--prompt", type=int, default=None)
    ap.add_argument("--new-tokens", type=int, default=None)
    ap.add_argument("--no-transformers", action="store_true", help="use the replicas even if transformers imports")
    ap.add_argument("--llmmem", default=os.path.join(REPO, "build", "native", "llmmem"))
    args = ap.parse_args()
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("no CUDA device; use --device cpu --tiny for the smoke test", file=sys.stderr)
        return 2
    defaults = (2, 32, 16, 8) if args.tiny else (4, 1024, 512, 64)
    args.batch = args.batch or defaults[0]
    args.seq = args.seq or defaults[1]
    args.prompt = args.prompt or defaults[2]
    args.new_tokens = args.new_tokens or defaults[3]
    tf, tf_version = (None, "not used (--no-transformers)") if args.no_transformers else try_import("transformers")
    peft, peft_version = try_import("peft") if tf is not None else (None, "not used (replicas)")
    if tf is None:
        install_real_sdpa()
    table = TINY if args.tiny else CONFIGS
    names = args.models.split(",") if args.models else list(table)
    os.makedirs(os.path.join(args.out, "configs"), exist_ok=True)
    dev = device_info(device)
    mem_gb = dev.get("total_memory_bytes", 0) / 1e9 if device.type == "cuda" else None
    torch.manual_seed(0)
    report = {"generated_by": "tests/truth/gpu_measure.py", "device": dev, "transformers": tf_version,
              "peft": peft_version, "args": vars(args), "runs": []}
    for name in names:
        cfg = table[name]
        cfg_path = os.path.join(args.out, "configs", f"{name}.json")
        with open(cfg_path, "w") as fh:
            json.dump(cfg, fh, indent=1)
        for run in args.runs.split(","):
            t0 = time.time()
            try:
                if run == "infer":
                    r = run_infer(name, cfg, args, device, tf)
                else:
                    gc_mode = args.gc_mode if run.endswith("+gc") else "none"
                    r = run_train(name, cfg, args, device, tf, peft, gc_mode, run.startswith("lora"))
            except Exception as e:  # noqa: BLE001 - record and go on with the next run
                r = {"model": name, "run": run, "error": f"{type(e).__name__}: {e}"[:1000], "phases": []}
                clear(device)
            r["llmmem"] = call_llmmem(args.llmmem, llmmem_flags({**r, "batch": args.batch, "seq": args.seq,
                                                               "prompt": args.prompt, "new_tokens": args.new_tokens,
                                                               "attn": args.attn, "gc": r.get("gc", "none"),
                                                               "lora": r.get("lora", False)}, cfg_path, mem_gb))
            r["seconds"] = round(time.time() - t0, 2)
            report["runs"].append(r)
            peaks = [p["max_allocated"] for p in r["phases"] if "max_allocated" in p]
            saved = max((p.get("saved_activation_bytes") or 0 for p in r["phases"]), default=0)
            print(f"{name:14s} {run:9s} {r.get('backend', '?'):12s} {r['seconds']:7.2f}s  "
                  f"peak alloc {mib(max(peaks)) + ' MiB' if peaks else '- (cpu)'}  saved act {saved} B  "
                  f"llmmem {mib(r['llmmem'].get('total_bytes')) + ' MiB' if r['llmmem'].get('total_bytes') else r['llmmem'].get('reason', '')}"
                  + (f"  ERROR {r['error']}" if "error" in r else ""), flush=True)
    with open(os.path.join(args.out, "gpu_measure.json"), "w") as fh:
        json.dump(report, fh, indent=1)
        fh.write("\n")
    with open(os.path.join(args.out, "gpu_measure.md"), "w") as fh:
        fh.write(markdown(report))
    print(f"wrote {args.out}/gpu_measure.json and gpu_measure.md")
    return 1 if any("error" in r for r in report["runs"]) else 0


if __name__ == "__main__":
    sys.exit(main())
