#!/usr/bin/python3
"""Measure, on the CPU, exactly which tensors eager PyTorch keeps for backward when it runs
replicas of Hugging Face transformers' decoder models (tests/truth/replicas.py).

    /usr/bin/python3 tests/truth/measure.py [--quick] [--out PATH] [--only SUBSTRING]
    /usr/bin/python3 tests/truth/measure.py --summary [--out PATH]   # markdown tables from the JSON

For each case, one forward in train mode; BEFORE backward, every tensor saved for backward
is collected twice:
  * hooks: torch.autograd.graph.saved_tensors_hooks around the forward see every tensor that
    autograd packs (built-in nodes, custom Functions such as the reentrant checkpoint);
    forward pre/post hooks on every module say which module was running at that moment
    ("where");
  * walk: from the loss's (or block output's) grad_fn through next_functions, each node once,
    reading every `_saved_*` attribute that is a tensor or a list of tensors (node name and
    attribute name), and `saved_tensors` plus the tensors held by the context (closure
    keywords, RNG state) of custom-Function nodes (reentrant checkpoint).
  * non-reentrant checkpoint keeps nothing in autograd's saved slots (its pack hook stores an
    empty Holder); what it keeps alive is referenced by its unpack closure (the layer's
    positional args, the keyword args inside the partial, the RNG state): those tensors are
    read from the closure, and the placeholders are counted.
Storages are de-duplicated (a storage counted once, by its nbytes; `view_of_larger` when the
saved tensor is a view of a larger storage). Parameter storages are not activations: they are
listed apart (saved_params), and so are module buffers (saved_buffers).
Then (model cases) backward and one optimizer step for SGD, SGD momentum 0.9, Adam and AdamW
(torch defaults) record parameter, gradient and optimizer-state bytes.
"""

import argparse
import functools
import json
import os
import platform
import re
import subprocess
import sys
import time
import types

import torch
import torch.nn as nn

sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import replicas as R  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
DTYPE_NAMES = {torch.bfloat16: "bf16", torch.float32: "fp32", torch.float16: "fp16", torch.int64: "int64",
               torch.bool: "bool", torch.uint8: "uint8", torch.int32: "int32", torch.float64: "fp64"}
_ORIG_SAVED_TENSORS_HOOKS = torch.autograd.graph.saved_tensors_hooks


def storage_key(t):
    st = t.storage()
    return (str(t.device), st.data_ptr(), st.nbytes())


def storage_nbytes(t):
    return t.storage().nbytes()


def tensor_nbytes(t):
    return t.numel() * t.element_size()


def dname(dt):
    return DTYPE_NAMES.get(dt, str(dt).replace("torch.", ""))


def short_where(name):
    """'model.layers.0.self_attn.q_proj' -> 'layers.0.self_attn'; 'transformer.h.1.mlp.c_fc' -> 'h.1.mlp'."""
    for prefix in ("model.", "transformer."):
        if name.startswith(prefix):
            name = name[len(prefix):]
    if name in ("model", "transformer"):
        return "model"
    parts = name.split(".")
    if len(parts) >= 2 and parts[0] in ("layers", "h") and parts[1].isdigit():
        return ".".join(parts[:3])
    if name == "loss_function":
        return "loss"
    return parts[0] if parts and parts[0] else "top"


class _WalkSkip(Exception):
    """Raised by a wrapped unpack hook while walking, so that reading `_saved_*` of a node
    inside a non-reentrant checkpoint never triggers its recomputation."""


class Recorder:
    def __init__(self, root: nn.Module, root_name=""):
        self.names = {}
        for n, m in root.named_modules():
            self.names[m] = (root_name + "." + n).strip(".") if n else (root_name or "top")
        self.stack = []
        self.packs = []          # (tensor, module_full_name)
        self.handles = []
        self.walking = False
        self.nonreentrant = []   # (pack, unpack, module_full_name)
        for m in root.modules():
            self.handles.append(m.register_forward_pre_hook(self._pre(m)))
            self.handles.append(m.register_forward_hook(self._post(m)))

    def _pre(self, m):
        def hook(mod, inp):
            self.stack.append(self.names.get(mod, "?"))
        return hook

    def _post(self, m):
        def hook(mod, inp, out):
            if self.stack:
                self.stack.pop()
        return hook

    def current(self):
        return self.stack[-1] if self.stack else "top"

    def scope(self, module_or_name):
        rec = self
        name = module_or_name if isinstance(module_or_name, str) else self.names.get(module_or_name, "?")

        class _S:
            def __enter__(self_):
                rec.stack.append(name)

            def __exit__(self_, *a):
                rec.stack.pop()
                return False
        return _S()

    def pack(self, t):
        self.packs.append((t, self.current()))
        return t

    @staticmethod
    def unpack(t):
        return t

    def remove(self):
        for h in self.handles:
            h.remove()


def recording_hooks_class(rec: Recorder):
    """A stand-in for torch.autograd.graph.saved_tensors_hooks used by torch.utils.checkpoint
    (non-reentrant): remembers each (pack, unpack) pair and the module running, and makes
    unpack raise while the harness walks the graph."""
    class RecordingHooks(_ORIG_SAVED_TENSORS_HOOKS):
        def __init__(self, pack_hook, unpack_hook):
            def guarded_unpack(x):
                if rec.walking:
                    raise _WalkSkip()
                return unpack_hook(x)
            rec.nonreentrant.append((pack_hook, unpack_hook, rec.current()))
            super().__init__(pack_hook, guarded_unpack)
    return RecordingHooks


def reachable_tensors(obj, path, out, seen, depth=0):
    """Tensors referenced by tuples, lists, dicts, functools.partial objects and function
    closures (modules are skipped: their parameters and buffers are not activations)."""
    if depth > 6 or id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        out.append((path, obj))
    elif isinstance(obj, nn.Module):
        return
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            reachable_tensors(v, f"{path}[{i}]", out, seen, depth + 1)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            reachable_tensors(v, f"{path}[{k!r}]", out, seen, depth + 1)
    elif isinstance(obj, functools.partial):
        reachable_tensors(obj.args, f"{path}.args", out, seen, depth + 1)
        reachable_tensors(obj.keywords, f"{path}.keywords", out, seen, depth + 1)
        reachable_tensors(obj.func, f"{path}.func", out, seen, depth + 1)
    elif isinstance(obj, types.MethodType):
        reachable_tensors(obj.__func__, f"{path}.__func__", out, seen, depth + 1)
    elif isinstance(obj, types.FunctionType) and obj.__closure__:
        for name, cell in zip(obj.__code__.co_freevars, obj.__closure__):
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            reachable_tensors(v, f"{path}.<{name}>", out, seen, depth + 1)


def walk_graph(roots, rec: Recorder):
    """Visit each autograd node once; return [(node_name, attr, tensor)], placeholders, nodes."""
    found, placeholders, ctx_held = [], 0, []
    seen, stack = set(), [r for r in roots if r is not None]
    rec.walking = True
    try:
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            name = node.name()
            attrs = [a for a in dir(node) if a.startswith("_saved_")]
            for a in attrs:
                try:
                    v = getattr(node, a)
                except _WalkSkip:
                    placeholders += 1
                    continue
                except RuntimeError as e:  # autograd re-raises a hook's exception as RuntimeError
                    if "_WalkSkip" in str(e):
                        placeholders += 1
                    continue
                except Exception:  # e.g. a saved variable already freed
                    continue
                if isinstance(v, torch.Tensor):
                    found.append((name, a, v))
                elif isinstance(v, (list, tuple)):
                    for i, x in enumerate(v):
                        if isinstance(x, torch.Tensor):
                            found.append((name, f"{a}[{i}]", x))
            if hasattr(node, "_forward_cls"):  # a custom autograd.Function (e.g. CheckpointFunction)
                try:
                    for i, x in enumerate(node.saved_tensors):
                        if isinstance(x, torch.Tensor):
                            found.append((name, f"saved_tensors[{i}]", x))
                except Exception:
                    pass
                try:
                    own = [storage_key(x) for x in node.saved_tensors if isinstance(x, torch.Tensor)]
                except Exception:
                    own = []
                for attr in ("run_function", "fwd_cpu_state", "fwd_gpu_states", "inputs"):
                    if hasattr(node, attr):
                        out = []
                        reachable_tensors(getattr(node, attr), attr, out, set())
                        for p, x in out:
                            ctx_held.append((name, p, x, own))
            for nxt, _ in node.next_functions:
                if nxt is not None and nxt not in seen:
                    stack.append(nxt)
    finally:
        rec.walking = False
    return found, placeholders, ctx_held, len(seen)


def param_maps(modules):
    params, buffers = {}, {}
    for mod in modules:
        for n, p in mod.named_parameters():
            params.setdefault(storage_key(p), n)
        for n, b in mod.named_buffers():
            buffers.setdefault(storage_key(b), n)
    return params, buffers


def collect(case, roots, rec: Recorder, modules, tags):
    """Merge hook packs and graph walk into de-duplicated storages.
    tags: {storage_key: where} overriding the module tag (block input, input_ids)."""
    found, placeholders, ctx_held, n_nodes = walk_graph(roots, rec)
    params, buffers = param_maps(modules)
    entries = {}

    def entry(t):
        k = storage_key(t)
        if k not in entries:
            entries[k] = {"key": k, "bytes": storage_nbytes(t), "refs": [], "packed_in": [], "by_hooks": False,
                          "by_walk": False, "by_closure": False, "closure_where": []}
        return entries[k]

    for t, where in rec.packs:
        e = entry(t)
        e["by_hooks"] = True
        if where not in e["packed_in"]:
            e["packed_in"].append(where)
        e.setdefault("first_tensor", t)
    for node, attr, t in found:
        e = entry(t)
        e["by_walk"] = True
        e["refs"].append((node, attr, t))
        e.setdefault("first_tensor", t)
    pack_where = {}
    for t, where in rec.packs:
        pack_where.setdefault(storage_key(t), where)
    for node, attr, t, own in ctx_held:
        e = entry(t)
        e["by_closure"] = True
        e["refs"].append((node, attr, t))
        for k in own:  # the module that ran the checkpointed function = where its inputs were packed
            if k in pack_where and pack_where[k] not in e["closure_where"]:
                e["closure_where"].append(pack_where[k])
        e.setdefault("first_tensor", t)
    # non-reentrant checkpoint: what each unpack closure keeps alive
    for pack_hook, unpack_hook, where in rec.nonreentrant:
        out = []
        reachable_tensors(unpack_hook, "unpack", out, set())
        for path, t in out:
            e = entry(t)
            e["by_closure"] = True
            e["refs"].append(("CheckpointNonReentrant", path, t))
            if where not in e["closure_where"]:
                e["closure_where"].append(where)
            e.setdefault("first_tensor", t)

    saved, saved_params, saved_buffers, host_only = [], [], [], []
    for k, e in entries.items():
        t = e["first_tensor"]
        if e["refs"]:
            node, attr, rt = e["refs"][0]
        else:
            node, attr, rt = "?", "?", t
        if not e["packed_in"] and e["closure_where"]:
            # held by checkpoint closures of several layers (shared mask, cos/sin): first layer
            e["packed_in"] = sorted(e["closure_where"], key=_natural)
        full_where = e["packed_in"][0] if e["packed_in"] else "?"
        where = tags.get(k, short_where(full_where) if full_where != "?" else "?")
        item = {
            "where": where,
            "module": full_where,
            "node": node,
            "attr": attr,
            "shape": list(rt.shape),
            "dtype": dname(rt.dtype),
            "bytes": e["bytes"],
            "view_of_larger": tensor_nbytes(rt) < e["bytes"],
            # a 0-dim tensor saved for `x * python_float`: a wrapped number, on the CPU even on CUDA
            "wrapped_scalar": rt.dim() == 0 and rt.dtype == torch.float64,
            "found_by": "+".join(x for x, f in (("hooks", e["by_hooks"]), ("walk", e["by_walk"]),
                                                ("closure", e["by_closure"])) if f),
        }
        if len(e["refs"]) > 1:
            item["also"] = sorted({f"{n}.{a}" for n, a, _ in e["refs"][1:]})
        if len(e["packed_in"]) > 1:
            item["also_packed_in"] = [short_where(w) for w in e["packed_in"][1:]]
        # host memory even on CUDA: RNG states stashed by checkpoint, python-float wrapped scalars
        if item["wrapped_scalar"] or "fwd_cpu_state" in attr or "fwd_gpu_states" in attr:
            item["host_only"] = True
        if k in params:
            item["param"] = params[k]
            saved_params.append(item)
        elif k in buffers:
            item["buffer"] = buffers[k]
            saved_buffers.append(item)
        elif item.get("host_only"):
            host_only.append(item)
        else:
            saved.append(item)
    saved.sort(key=lambda x: (_natural(x["where"]), -x["bytes"]))
    cross = {
        "graph_nodes": n_nodes,
        "hook_packs": len(rec.packs),
        "walk_tensors": len(found),
        "storages": len(entries),
        "hooks_only": sum(1 for e in entries.values() if e["by_hooks"] and not e["by_walk"]),
        "walk_only": sum(1 for e in entries.values() if e["by_walk"] and not e["by_hooks"]),
        "closure_only": sum(1 for e in entries.values() if e["by_closure"] and not e["by_hooks"] and not e["by_walk"]),
        "nonreentrant_placeholders": placeholders,
    }
    return saved, saved_params, saved_buffers, host_only, cross


def _natural(name):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


# ----------------------------------------------------------------------------- one case

def make_config(c):
    return R.Config(
        family=c["family"], hidden_size=c["hidden"], intermediate_size=c["ffn"],
        num_attention_heads=c["heads"], num_key_value_heads=c["kv_heads"], head_dim=c["head_dim"],
        vocab_size=c["vocab"] or 1000, num_hidden_layers=c["layers"], attn_implementation=c["attention"],
        math_upcast=c.get("math_upcast", True),
        attention_dropout=c["dropout"] if c["family"] != "gpt2" else 0.0,
        resid_pdrop=c["dropout"] if c["family"] == "gpt2" else 0.0,
        embd_pdrop=c["dropout"] if c["family"] == "gpt2" else 0.0,
        attn_pdrop=c["dropout"] if c["family"] == "gpt2" else 0.0,
        sliding_window=c.get("sliding_window"),
        max_position_embeddings=c["max_positions"],
        tie_word_embeddings=c["family"] == "gpt2",
    )


def build_case_model(c, config, dtype):
    """The whole model of a case, with PEFT-style LoRA when the case has one."""
    mod = R.build_model(config, dtype)
    if c.get("lora"):
        lo = c["lora"]
        targets = R.LORA_TARGETS if lo["targets"] == "all" else tuple(t + "_proj" for t in lo["targets"].split(","))
        R.apply_lora(mod, r=lo["r"], alpha=2 * lo["r"], dropout=lo["dropout"], targets=targets,
                     adapter_dtype=DTYPES[lo["adapter_dtype"]])
        if c["checkpointing"] != "none":  # peft's enable_input_require_grads for reentrant checkpoints
            mod.model.embed_tokens.register_forward_hook(lambda m, i, o: o.requires_grad_(True))
    return mod


def run_forward(c, config, seed=0):
    """Build, run one train-mode forward under the recorder; return everything needed."""
    dtype = DTYPES[c["dtype"]]
    torch.manual_seed(seed)
    b, s = c["b"], c["s"]
    if c["kind"] == "block":
        mod = R.build_block(config, dtype)
        if c["frozen_base"]:
            for p in mod.parameters():
                p.requires_grad_(False)
        mod.train()
        R.set_gradient_checkpointing(mod, c["checkpointing"])
        name_root = "model.layers.0" if c["family"] != "gpt2" else "transformer.h.0"
        x, kwargs = R.block_inputs(config, mod, b, s, dtype, seed=seed)
        rec = Recorder(mod, name_root)
        tags = {storage_key(x): "input"}
        keep = [x, kwargs]
    else:
        mod = build_case_model(c, config, dtype)
        mod.train()
        R.set_gradient_checkpointing(mod, c["checkpointing"])
        g = torch.Generator().manual_seed(seed)
        input_ids = torch.randint(0, c["vocab"], (b, s), generator=g)
        labels = input_ids.clone()
        rec = Recorder(mod, "")
        tags = {storage_key(input_ids): "input_ids"}
        keep = [input_ids, labels]
    R.GradientCheckpointingLayer._scope_hook = staticmethod(lambda m: rec.scope(m))
    torch.autograd.graph.saved_tensors_hooks = recording_hooks_class(rec)
    try:
        with _ORIG_SAVED_TENSORS_HOOKS(rec.pack, rec.unpack):
            if c["kind"] == "block":
                out = mod(x, **kwargs)
                root = out
            else:
                loss, logits = mod(input_ids, labels=labels)
                root = loss
                keep.append(logits)
    finally:
        torch.autograd.graph.saved_tensors_hooks = _ORIG_SAVED_TENSORS_HOOKS
        R.GradientCheckpointingLayer._scope_hook = None
    return mod, rec, root, tags, keep


def measure_case(c):
    t0 = time.time()
    config = make_config(c)
    mod, rec, root, tags, keep = run_forward(c, config)
    modules = [mod]
    saved, saved_params, saved_buffers, host_only, cross = collect(c, [root.grad_fn], rec, modules, tags)
    rec.remove()
    result = dict(c)
    result.pop("math_upcast", None)
    if c["attention"] == "sdpa_math":
        result["math_sdp_upcast"] = c.get("math_upcast", True)
    sbh = c["s"] * c["b"] * c["hidden"]
    result["saved_bytes"] = sum(x["bytes"] for x in saved)
    result["saved_bytes_per_sbh"] = round(result["saved_bytes"] / sbh, 4)
    if c["kind"] == "model":
        per = [0] * c["layers"]
        for x in saved:
            m = re.match(r"^(layers|h)\.(\d+)", x["where"])
            if m:
                per[int(m.group(2))] += x["bytes"]
        result["saved_bytes_per_layer"] = per
        result["saved_bytes_outside_layers"] = result["saved_bytes"] - sum(per)
    for x in saved:
        x["bytes_per_sbh"] = round(x["bytes"] / sbh, 4)
    result["saved"] = saved
    result["saved_params_bytes"] = sum(x["bytes"] for x in saved_params)
    result["saved_params"] = saved_params
    result["saved_buffers_bytes"] = sum(x["bytes"] for x in saved_buffers)
    result["saved_buffers"] = saved_buffers
    result["host_only_bytes"] = sum(x["bytes"] for x in host_only)
    result["host_only"] = host_only
    result["cross_check"] = cross
    params = {storage_key(p): p for p in mod.parameters()}
    result["params"] = sum(p.numel() for p in params.values())
    result["param_bytes"] = sum(storage_nbytes(p) for p in params.values())
    result["trainable_params"] = sum(p.numel() for p in params.values() if p.requires_grad)
    # backward works (the graph was not damaged by the walk)
    root.float().sum().backward() if root.dim() else root.backward()
    grads = {storage_key(p.grad): p.grad for p in mod.parameters() if p.grad is not None}
    result["grad_bytes"] = sum(storage_nbytes(g) for g in grads.values())
    if c["kind"] == "model":
        result["optimizers"] = measure_optimizers(c, config)
    del keep
    return result, round(time.time() - t0, 3)


# ----------------------------------------------------------------------------- optimizers

def _which_impl(module, names):
    called = []
    originals = {n: getattr(module, n) for n in names if hasattr(module, n)}

    def wrap(n, f):
        def g(*a, **k):
            called.append(n)
            return f(*a, **k)
        return g
    for n, f in originals.items():
        setattr(module, n, wrap(n, f))
    return called, originals


def measure_optimizers(c, config):
    import torch.optim.adam as adam_mod
    import torch.optim.adamw as adamw_mod
    import torch.optim.sgd as sgd_mod
    specs = {
        "sgd": (lambda ps: torch.optim.SGD(ps, lr=1e-3), sgd_mod, ["_single_tensor_sgd", "_multi_tensor_sgd"]),
        "momentum": (lambda ps: torch.optim.SGD(ps, lr=1e-3, momentum=0.9), sgd_mod,
                     ["_single_tensor_sgd", "_multi_tensor_sgd"]),
        "adam": (lambda ps: torch.optim.Adam(ps, lr=1e-3), adam_mod,
                 ["_single_tensor_adam", "_multi_tensor_adam", "_fused_adam"]),
        "adamw": (lambda ps: torch.optim.AdamW(ps, lr=1e-3), adamw_mod,
                  ["_single_tensor_adamw", "_multi_tensor_adamw"]),
    }
    out = {}
    dtype = DTYPES[c["dtype"]]
    for name, (make, module, impls) in specs.items():
        torch.manual_seed(0)
        model = build_case_model(c, config, dtype)
        model.train()
        R.set_gradient_checkpointing(model, c["checkpointing"])
        g = torch.Generator().manual_seed(0)
        ids = torch.randint(0, c["vocab"], (c["b"], c["s"]), generator=g)
        loss, _ = model(ids, labels=ids.clone())
        loss.backward()
        params = list(model.parameters())
        opt = make([p for p in params if p.requires_grad])  # as the HF Trainer builds it
        called, originals = _which_impl(module, impls)
        try:
            opt.step()
        finally:
            for n, f in originals.items():
                setattr(module, n, f)
        by_key = {}
        for p, st in opt.state.items():
            for k, v in st.items():
                d = by_key.setdefault(k, {"bytes": 0, "tensors": 0, "dtypes": [], "non_tensor": 0})
                if isinstance(v, torch.Tensor):
                    d["bytes"] += storage_nbytes(v)
                    d["tensors"] += 1
                    if dname(v.dtype) not in d["dtypes"]:
                        d["dtypes"].append(dname(v.dtype))
                    if k == "step":
                        d["shape"] = list(v.shape)
                else:
                    d["non_tensor"] += 1
                    d.setdefault("non_tensor_values", sorted({repr(v)}))
        grads = {storage_key(p.grad): p.grad for p in params if p.grad is not None}
        group = opt.param_groups[0]
        out[name] = {
            "class": type(opt).__name__,
            "defaults": {k: (v if isinstance(v, (int, float, bool, type(None))) else repr(v))
                         for k, v in opt.defaults.items()},
            "foreach_param": group.get("foreach"),
            "implementation_called": sorted(set(called)),
            "params": sum(p.numel() for p in params),
            "param_bytes": sum(storage_nbytes(p) for p in params),
            "grad_bytes": sum(storage_nbytes(g) for g in grads.values()),
            "state_bytes": sum(d["bytes"] for d in by_key.values()),
            "state": by_key,
        }
    return out


# ----------------------------------------------------------------------------- cases

def case(kind, family, attention, dtype, b, s, h, a, kv, f, *, d=None, V=1000, L=1, p=0.0,
         ckpt="none", frozen=False, sw=None, upcast=True, lora=None):
    head_dim = d if d is not None else h // a
    parts = [family, kind, attention, dtype, f"b{b}", f"s{s}", f"h{h}", f"a{a}", f"kv{kv}"]
    if head_dim != h // a:
        parts.append(f"d{head_dim}")
    parts.append(f"f{f}")
    if kind == "model":
        parts += [f"v{V}", f"L{L}"]
    if sw is not None:
        parts.append(f"sw{sw}")
    if p:
        parts.append(f"p{p}")
    if frozen:
        parts.append("frozen")
    if lora:
        parts.append(f"lora-r{lora['r']}-{lora['adapter_dtype']}" + (f"-p{lora['dropout']}" if lora["dropout"] else "")
                     + ("" if lora["targets"] == "all" else "-" + lora["targets"].replace(",", "")))
    if ckpt != "none":
        parts.append("ckpt-" + ckpt.replace("_", "-"))
    if attention == "sdpa_math" and not upcast:
        parts.append("noupcast")
    c = {"id": "_".join(parts), "kind": kind, "family": family, "attention": attention, "dtype": dtype,
         "checkpointing": ckpt, "frozen_base": frozen, "dropout": p, "b": b, "s": s, "hidden": h,
         "heads": a, "kv_heads": kv, "head_dim": head_dim, "ffn": f, "vocab": V if kind == "model" else None,
         "layers": L, "max_positions": max(256, s),
         "math_upcast": upcast}
    if sw is not None:
        c["sliding_window"] = sw
    if lora:
        c["lora"] = lora  # {"r", "targets": "all" | "q,v", "adapter_dtype": "fp32" | "bf16", "dropout"}
    return c


def all_cases():
    C = []
    # (a) single decoder blocks
    for att in ("eager", "sdpa_math"):
        for dt in ("bf16", "fp32"):
            C.append(case("block", "llama", att, dt, 2, 64, 128, 8, 2, 344))
        C.append(case("block", "llama", att, "bf16", 3, 48, 96, 4, 2, 176, d=32))      # head_dim != h/a
        C.append(case("block", "llama", att, "bf16", 1, 128, 256, 8, 8, 688, p=0.1))   # MHA, attention dropout
        C.append(case("block", "qwen2", att, "bf16", 2, 48, 96, 6, 2, 344))
        C.append(case("block", "mistral", att, "bf16", 2, 64, 128, 8, 2, 344, sw=32))
    C.append(case("block", "llama", "sdpa_math", "bf16", 2, 64, 128, 8, 2, 344, upcast=False))
    # MQA (one KV head): at micro-batch 1 eager's repeat_kv is a view that matmul's reshape keeps
    # as a view (merging size-1 dims), so no expanded copy is saved; at 2 the copy returns.
    for b in (1, 2):
        C.append(case("block", "llama", "eager", "bf16", b, 64, 128, 8, 1, 344))
    for dt in ("bf16", "fp32"):
        for p in (0.0, 0.1):
            C.append(case("block", "gpt2", "eager", dt, 2, 64, 128, 4, 4, 344, p=p))
    # (d) frozen base weights (LoRA-like)
    for att in ("eager", "sdpa_math"):
        C.append(case("block", "llama", att, "bf16", 2, 64, 128, 8, 2, 344, frozen=True))
    C.append(case("block", "llama", "eager", "fp32", 2, 64, 128, 8, 2, 344, frozen=True))
    C.append(case("block", "gpt2", "eager", "bf16", 2, 64, 128, 4, 4, 344, p=0.1, frozen=True))
    # block-level checkpointing
    for ck in ("reentrant", "non_reentrant"):
        C.append(case("block", "llama", "eager", "bf16", 2, 64, 128, 8, 2, 344, ckpt=ck))
    # (b) small whole models with loss, (c) the same with checkpointing
    for ck in ("none", "reentrant", "non_reentrant"):
        C.append(case("model", "llama", "eager", "bf16", 2, 64, 128, 8, 2, 344, V=1000, L=3, ckpt=ck))
        C.append(case("model", "gpt2", "eager", "fp32", 2, 64, 128, 4, 4, 344, V=536, L=2, p=0.1, ckpt=ck))
    C.append(case("model", "llama", "sdpa_math", "bf16", 2, 64, 128, 8, 2, 344, V=1000, L=2))
    C.append(case("model", "llama", "eager", "fp32", 1, 128, 64, 4, 2, 176, V=896, L=2))
    C.append(case("model", "llama", "sdpa_math", "fp32", 1, 128, 64, 4, 2, 176, V=896, L=2, ckpt="reentrant"))
    C.append(case("model", "qwen2", "eager", "bf16", 3, 16, 96, 4, 2, 344, V=640, L=2))
    C.append(case("model", "mistral", "sdpa_math", "bf16", 2, 64, 128, 8, 2, 344, V=1000, L=2, sw=32))
    C.append(case("model", "gpt2", "eager", "bf16", 2, 48, 96, 4, 4, 344, V=536, L=2, p=0.0))
    # (e) PEFT LoRA on a frozen bf16 model: fp32 adapters (get_peft_model's default), bf16
    # adapters, lora_dropout, attention-only targets, with gradient checkpointing
    lo = lambda dt="fp32", p=0.0, t="all": {"r": 8, "targets": t, "adapter_dtype": dt, "dropout": p}
    C.append(case("model", "llama", "sdpa_math", "bf16", 2, 64, 128, 8, 2, 344, V=1000, L=2, lora=lo()))
    C.append(case("model", "llama", "sdpa_math", "bf16", 2, 64, 128, 8, 2, 344, V=1000, L=2, lora=lo("bf16")))
    C.append(case("model", "llama", "eager", "bf16", 2, 64, 128, 8, 2, 344, V=1000, L=2, lora=lo(p=0.05)))
    C.append(case("model", "llama", "eager", "bf16", 2, 64, 128, 8, 2, 344, V=1000, L=2, lora=lo("bf16", 0.05)))
    C.append(case("model", "qwen2", "sdpa_math", "bf16", 2, 48, 96, 4, 2, 344, V=640, L=2, lora=lo(t="q,v")))
    C.append(case("model", "llama", "sdpa_math", "bf16", 2, 64, 128, 8, 2, 344, V=1000, L=2, lora=lo(), ckpt="reentrant"))
    return C


def quick_cases():
    return [
        case("block", "llama", "eager", "bf16", 2, 64, 128, 8, 2, 344),
        case("block", "gpt2", "eager", "fp32", 2, 64, 128, 4, 4, 344, p=0.1),
        case("model", "llama", "eager", "bf16", 2, 64, 128, 8, 2, 344, V=1000, L=2),
    ]


# ----------------------------------------------------------------------------- summary

def summary_markdown(data):
    """Per case: saved bytes per layer in units of s*b*h, split into terms linear in s and
    the s^2 terms in units of a*s^2*b."""
    rows = []
    hdr = ("| case | saved/layer (bytes per sbh) | of which s-linear (per sbh) | s² terms (bytes per a·s²·b) | "
           "saved params (bytes) |")
    rows.append(hdr)
    rows.append("|---|---:|---:|---:|---:|")
    for c in data["cases"]:
        s, b, h, a = c["s"], c["b"], c["hidden"], c["heads"]
        sbh, as2b = s * b * h, a * s * s * b
        items = c["saved"]
        if c["kind"] == "model":
            items = [x for x in items if re.match(r"^(layers|h)\.\d+", x["where"])]
            n = c["layers"]
        else:
            n = 1  # the block input counts (as a model's layer i counts its input saved by its norm)
        quad = sum(x["bytes"] for x in items if _has_s2(x["shape"], s))
        lin = sum(x["bytes"] for x in items) - quad
        rows.append(f"| {c['id']} | {(lin + quad) / n / sbh:.3f} | {lin / n / sbh:.3f} | {quad / n / as2b:.3f} | "
                    f"{c['saved_params_bytes']} |")
    return "\n".join(rows)


def show_case(c):
    s, b, h, a = c["s"], c["b"], c["hidden"], c["heads"]
    lines = [f"{c['id']}: {c['saved_bytes']} B = {c['saved_bytes_per_sbh']} x sbh"]
    for x in c["saved"]:
        unit = (f"{x['bytes'] / (a * s * s * b):.3f} as2b" if _has_s2(x["shape"], s)
                else f"{x['bytes'] / (s * b * h):.3f} sbh")
        also = " also " + ",".join(x["also"]) if "also" in x else ""
        lines.append(f"  {x['where']:30s} {x['node']:26s} {x['attr']:24s} {str(x['shape']):20s} {x['dtype']:5s} "
                     f"{x['bytes']:9d} {unit:>12s}{' VIEW' if x['view_of_larger'] else ''}{also}")
    for x in c.get("host_only", []):
        lines.append(f"  [host-only {x['node']}.{x['attr']}] {x['shape']} {x['dtype']} {x['bytes']} B")
    for x in c["saved_params"]:
        lines.append(f"  [param {x['param']}] {x['node']}.{x['attr']} {x['shape']}")
    for x in c["saved_buffers"]:
        lines.append(f"  [buffer {x['buffer']}] {x['node']}.{x['attr']} {x['shape']} {x['bytes']} B"
                     f"{' VIEW' if x['view_of_larger'] else ''}")
    return "\n".join(lines)


def _has_s2(shape, s):
    return sum(1 for d in shape if d == s) >= 2


CHECK_IDS = (
    "llama_block_eager_bf16_b2_s64_h128_a8_kv2_f344",
    "gpt2_block_eager_fp32_b2_s64_h128_a4_kv4_f344_p0.1",
    "llama_block_sdpa_math_bf16_b2_s64_h128_a8_kv2_f344_frozen",
    "llama_model_eager_bf16_b2_s64_h128_a8_kv2_f344_v1000_L3_ckpt-reentrant",
)


def check_committed(path):
    """The committed file must still be what this harness measures (same torch)."""
    with open(path) as fh:
        committed = {c["id"]: c for c in json.load(fh)["cases"]}
    failed = set()
    for c in all_cases():
        if c["id"] not in CHECK_IDS:
            continue
        r, _ = measure_case(c)
        for key in ("saved_bytes", "saved_bytes_per_layer", "params", "grad_bytes"):
            if r.get(key) != committed[c["id"]].get(key):
                print(f"MISMATCH {c['id']} {key}: measured {r.get(key)}, committed {committed[c['id']].get(key)}")
                failed.add(c["id"])
    print(f"{len(CHECK_IDS) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3 cases, a few seconds")
    ap.add_argument("--out", default=None, help="JSON path (default tests/data/truth_torch-<version>_cpu.json)")
    ap.add_argument("--only", default=None, help="only cases whose id contains this substring")
    ap.add_argument("--summary", action="store_true", help="print markdown tables from an existing JSON")
    ap.add_argument("--show", default=None, help="print the saved storages of the cases whose id contains this")
    ap.add_argument("--check", action="store_true",
                    help="re-measure a few committed cases and fail if any figure differs (scripts/test runs this)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    version = torch.__version__.split("+")[0]
    if args.out:
        out = args.out
    elif args.quick or args.only:  # never overwrite the committed measurements with a partial run
        import tempfile
        out = os.path.join(tempfile.gettempdir(), f"truth_torch-{version}_cpu_quick.json")
    else:
        out = os.path.join(repo, "tests", "data", f"truth_torch-{version}_cpu.json")
    if args.summary or args.show:
        with open(out) as fh:
            data = json.load(fh)
        if args.summary:
            print(summary_markdown(data))
        if args.show:
            for c in data["cases"]:
                if args.show in c["id"]:
                    print(show_case(c))
        return 0
    torch.set_num_threads(args.threads)
    if args.check:
        return check_committed(out)
    cases = quick_cases() if args.quick else all_cases()
    if args.only:
        cases = [c for c in cases if args.only in c["id"]]
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    t0 = time.time()
    results = []
    for c in cases:
        r, secs = measure_case(c)
        results.append(r)
        x = r["cross_check"]
        if r["checkpointing"] == "none" and (x["hooks_only"] or x["walk_only"]):
            print(f"WARNING {r['id']}: hooks and graph walk disagree: {x}", file=sys.stderr)
        print(f"{secs:7.2f}s  {r['id']}: saved {r['saved_bytes']} B = {r['saved_bytes_per_sbh']} sbh, "
              f"params saved {r['saved_params_bytes']} B, check {r['cross_check']}", flush=True)
    try:
        deb = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-torch"], capture_output=True,
                             text=True, timeout=10).stdout.strip() or None
    except Exception:
        deb = None
    data = {
        "torch": torch.__version__,
        "torch_debian_package": deb,
        "python": platform.python_version(),
        "device": "cpu",
        "transformers_commit": R.TRANSFORMERS_COMMIT,
        "transformers_files": R.TRANSFORMERS_FILES,
        "pytorch_sources_read": {
            "tools/autograd/gen_variable_type.py": "9e69e8210c01ff23aff82df3806f7dbe0ec106d2",
            "aten/src/ATen/native/transformers/attention.cpp": "bc8cb28010a6b27e1817d38e1c1e0ac59b34477e",
        },
        "generated_by": "tests/truth/measure.py" + (" --quick" if args.quick else ""),
        "assumptions": [
            "dropout as on CUDA: torch.native_dropout (bool mask, 1 byte/element)",
            "sdpa_math: aten _scaled_dot_product_attention_math written out after HF repeat_kv; "
            "math_sdp_upcast=true is torch>=2.5 (bf16/fp16 q,k,v upcast to fp32)",
            "saved storages de-duplicated by storage; parameters and buffers listed apart",
            "optimizers: torch 1.13 defaults (foreach=None resolves to the single-tensor loop)",
        ],
        "units": "bytes; bytes_per_sbh = bytes / (s*b*hidden)",
        "cases": results,
    }
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")
    print(f"wrote {out} ({len(results)} cases, {time.time() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
