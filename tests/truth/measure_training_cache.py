"""What GPTBigCode's KV cache keeps alive in training under gradient checkpointing.

transformers' GPTBigCodeModel.forward (v4.48.1 src/transformers/models/gpt_bigcode/
modeling_gpt_bigcode.py) takes use_cache from the config (santacoder's: true) and, unlike Llama
or GPT-2, does not turn it off under gradient checkpointing: every checkpointed block returns
`present = key_value`, and `presents.append(outputs[1])` keeps them in the model's output until
the caller drops it after the loss. key_value comes from
`self.c_attn(hidden_states).split((self.embed_dim, 2 * self.kv_dim), dim=2)`: a view, so each
present keeps the fused projection's whole output (queries included) alive, s x b x (h + 2 kv)
per layer, in the projection's output format.

This runs a stack of blocks written as GPTBigCode's (multi-query c_attn, the split, the present,
attention, c_proj, LayerNorms, MLP) under torch.utils.checkpoint, reentrant and not, on Debian's
torch 1.13 (CPU), and counts the storage the returned presents keep, with use_cache on and off,
in bf16 and fp32. tests/test_training_cache.cpp compares the estimate's leaf with it.

  /usr/bin/python3 tests/truth/measure_training_cache.py           # writes tests/data/training_cache_torch-<v>_cpu.json
  /usr/bin/python3 tests/truth/measure_training_cache.py --check   # re-measures, fails if the committed file differs
"""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

import committed

LAYERS, BATCH, TOKENS, HIDDEN, HEADS, FFN = 3, 2, 16, 32, 4, 128
HEAD_DIM = HIDDEN // HEADS
KV_DIM = HEAD_DIM  # multi_query: one K/V head


class Attention(nn.Module):
    """GPTBigCodeAttention.forward's projection and cache (multi_query), attention in plain ops."""

    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(HIDDEN, HIDDEN + 2 * KV_DIM)
        self.c_proj = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, hidden_states, use_cache):
        query, key_value = self.c_attn(hidden_states).split((HIDDEN, 2 * KV_DIM), dim=2)
        present = key_value if use_cache else None
        key, value = key_value.split((HEAD_DIM, HEAD_DIM), dim=-1)
        b, s, _ = query.shape
        q = query.reshape(b, s, HEADS, HEAD_DIM).transpose(1, 2)  # (b, heads, s, d)
        scores = q @ key.unsqueeze(1).transpose(-1, -2) / HEAD_DIM**0.5
        causal = torch.ones(s, s, dtype=torch.bool).tril()
        probs = scores.masked_fill(~causal, torch.finfo(scores.dtype).min).softmax(-1)
        out = (probs @ value.unsqueeze(1)).transpose(1, 2).reshape(b, s, HIDDEN)
        return self.c_proj(out), present


class Block(nn.Module):
    """GPTBigCodeBlock.forward: returns (hidden_states, present) when use_cache, else (hidden_states,)."""

    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(HIDDEN), nn.LayerNorm(HIDDEN)
        self.attn = Attention()
        self.c_fc, self.c_proj = nn.Linear(HIDDEN, FFN), nn.Linear(FFN, HIDDEN)

    def forward(self, hidden_states, use_cache):
        attn_output, present = self.attn(self.ln_1(hidden_states), use_cache)
        hidden_states = attn_output + hidden_states
        mlp = self.c_proj(nn.functional.gelu(self.c_fc(self.ln_2(hidden_states)), approximate="tanh"))
        hidden_states = hidden_states + mlp
        return (hidden_states, present) if use_cache else (hidden_states,)


def measure(dtype, use_cache, reentrant):
    torch.manual_seed(0)
    blocks = [Block().to(dtype) for _ in range(LAYERS)]
    hidden = torch.randn(BATCH, TOKENS, HIDDEN, dtype=dtype, requires_grad=True)
    presents = [] if use_cache else None
    for block in blocks:  # GPTBigCodeModel.forward under gradient checkpointing
        outputs = checkpoint(block, hidden, use_cache, use_reentrant=reentrant)
        hidden = outputs[0]
        if use_cache:
            presents.append(outputs[1])
    storages = {}
    for p in presents or []:
        storages[p.storage().data_ptr()] = p.storage().nbytes()
    kept = sum(storages.values())
    viewed = sum(p.numel() * p.element_size() for p in presents or [])
    hidden.float().sum().backward()  # the caller's loss and backward run as usual
    return {"present_view_bytes": viewed, "kept_storage_bytes": kept,
            "projection_output_bytes_per_layer": BATCH * TOKENS * (HIDDEN + 2 * KV_DIM) * hidden.element_size()}


def measure_all():
    cases = {}
    for dtype in (torch.bfloat16, torch.float32):
        for reentrant in (True, False):
            name = f"{str(dtype).split('.')[-1]}_{'reentrant' if reentrant else 'non_reentrant'}"
            cases[name] = {"use_cache": measure(dtype, True, reentrant),
                           "no_cache": measure(dtype, False, reentrant)}
    return {"what": "GPTBigCode blocks under gradient checkpointing with use_cache: bytes of storage the returned "
                    "presents keep alive after the forward (each a view of its layer's c_attn output)",
            "torch": torch.__version__.split("+")[0],
            "layers": LAYERS, "batch": BATCH, "tokens": TOKENS, "hidden": HIDDEN, "kv_dim": KV_DIM,
            "cases": cases}


if __name__ == "__main__":
    raise SystemExit(committed.main(__doc__, "training cache", "training_cache", measure_all))
