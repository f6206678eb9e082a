"""What a Gated DeltaNet layer, a Mamba-2 mixer and gpt-oss's sink attention keep for backward.

Runs the replicas of replicas_linear.py (transformers' modules op for op) in train mode on
Debian's torch 1.13 (CPU), one forward on the layer's normalised input (a leaf that requires
grad, as the input norm's output is in a model), and collects every saved storage with
measure.py's saved-tensor hooks and graph walk (de-duplicated by storage, parameters apart).
Each mixer is measured twice where transformers has two paths: the torch fallback (what runs
without flash-linear-attention / mamba_ssm / causal-conv1d) and the fused kernels, replaced by
autograd Functions that save exactly the kernels' ctx.save_for_backward lists. gpt-oss's
attention is measured with and without its 128-token-style sliding window (here 16 of 48), , Kimi-Linear's
KDA layer through its kernels (fla v0.4.0's Functions), and a Qwen3-Next full-attention layer (its (1 + w) fp32 input norm, output gate and (1 + w) q/k norms).
tests/test_linear_layers.cpp compares the estimate's attention group with these figures.

  /usr/bin/python3 tests/truth/measure_linear_layers.py           # writes tests/data/linear_layers_torch-<v>_cpu.json
  /usr/bin/python3 tests/truth/measure_linear_layers.py --check   # re-measures, fails if the committed file differs
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import committed  # noqa: E402
import measure as M  # noqa: E402
import replicas_linear as RL  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
BATCH, TOKENS = 2, 48
GDN = dict(hidden=64, k_heads=2, v_heads=4, k_dim=16, v_dim=16, conv=4)
MAMBA = dict(hidden=64, heads=4, head_dim=16, n_groups=2, d_state=16, conv=4, chunk_size=32)
GPT_OSS = dict(hidden=64, heads=4, kv_heads=2, head_dim=16)
KDA = dict(hidden=64, heads=4, head_dim=16, conv=4)
QWEN3_NEXT = dict(hidden=64, heads=4, kv_heads=2, head_dim=16, partial_rotary=0.25)
WINDOW = 16


def measure_module(module, x, *extra):
    """One forward under the recorder; saved storages of the module's own tensors. Tensors the
    caller passes beside x (rotary cos/sin, shared by every layer of a model) are reported apart."""
    rec = M.Recorder(module, "")
    tags = {M.storage_key(x): "input"}
    for t in extra:
        tags[M.storage_key(t)] = "shared"
    with M._ORIG_SAVED_TENSORS_HOOKS(rec.pack, rec.unpack):
        out = module(x, *extra)
    saved, saved_params, _buffers, host_only, cross = M.collect(None, [out.grad_fn], rec, [module], tags)
    rec.remove()
    own = [s for s in saved if s["where"] != "shared"]
    by_dtype = {}
    for s in own:
        by_dtype[s["dtype"]] = by_dtype.get(s["dtype"], 0) + s["bytes"]
    return {
        "saved_bytes": sum(s["bytes"] for s in own),
        "saved_bytes_by_dtype": dict(sorted(by_dtype.items())),
        "shared_bytes": sum(s["bytes"] for s in saved if s["where"] == "shared"),
        "saved_params_bytes": sum(s["bytes"] for s in saved_params),
        "host_only_bytes": sum(s["bytes"] for s in host_only),
        "storages": len(own),
        "saved": [{k: s[k] for k in ("where", "node", "attr", "shape", "dtype", "bytes")} for s in own],
        "cross_check": {k: cross[k] for k in ("hook_packs", "walk_tensors", "storages", "hooks_only", "walk_only")},
    }


def leaf_input(width, dtype):
    g = torch.Generator().manual_seed(0)
    return torch.randn(BATCH, TOKENS, width, generator=g).to(dtype).requires_grad_(True)


def measure_all():
    cases = {}
    for dname, dtype in DTYPES.items():
        for kernels in (False, True):
            path = "kernels" if kernels else "torch"
            torch.manual_seed(0)
            gdn = RL.GatedDeltaNet(**GDN, kernels=kernels).to(dtype).train()
            cases[f"gated_deltanet_{path}_{dname}"] = measure_module(gdn, leaf_input(GDN["hidden"], dtype))
            torch.manual_seed(0)
            mamba = RL.Mamba2Mixer(**MAMBA, kernels=kernels).to(dtype).train()
            cases[f"mamba2_{path}_{dname}"] = measure_module(mamba, leaf_input(MAMBA["hidden"], dtype))
        torch.manual_seed(0)
        kda = RL.KimiDeltaAttention(**KDA).to(dtype).train()
        cases[f"kda_kernels_{dname}"] = measure_module(kda, leaf_input(KDA["hidden"], dtype))
        for window in (None, WINDOW):
            torch.manual_seed(0)
            attn = RL.GptOssAttention(**GPT_OSS, window=window).to(dtype).train()
            cos, sin = RL.gpt_oss_rotary(GPT_OSS["head_dim"], TOKENS, dtype)
            mask = RL.sliding_window_mask(TOKENS, window, dtype)
            name = f"gpt_oss_attention_eager_{dname}" + (f"_sw{window}" if window else "")
            cases[name] = measure_module(attn, leaf_input(GPT_OSS["hidden"], dtype), cos, sin, mask)
        torch.manual_seed(0)
        block = RL.Qwen3NextAttentionBlock(**QWEN3_NEXT).to(dtype).train()
        cos, sin = RL.qwen3_next_rotary(QWEN3_NEXT["head_dim"], QWEN3_NEXT["partial_rotary"], TOKENS, dtype)
        mask = RL.sliding_window_mask(TOKENS, None, dtype)
        cases[f"qwen3_next_attention_eager_{dname}"] = measure_module(block, leaf_input(QWEN3_NEXT["hidden"], dtype),
                                                                      cos, sin, mask)
    return {"what": "bytes one token mixer keeps for backward (saved-tensor hooks + graph walk, storages de-duplicated, "
                    "parameters apart), its input a leaf that requires grad; 'kernels' cases replace the fused kernels "
                    "by Functions saving their ctx.save_for_backward lists",
            "torch": torch.__version__.split("+")[0],
            "batch": BATCH, "tokens": TOKENS, "gated_deltanet": GDN, "mamba2": MAMBA, "gpt_oss": GPT_OSS,
            "qwen3_next": QWEN3_NEXT, "kda": KDA, "window": WINDOW, "cases": cases}


if __name__ == "__main__":
    raise SystemExit(committed.main(__doc__, "linear layers", "linear_layers", measure_all))
