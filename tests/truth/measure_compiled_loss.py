"""What torchtune's chunked cross-entropy keeps for the backward, eager and compiled.

torchtune's CEWithChunkedOutputLoss.compute_cross_entropy is F.cross_entropy(logits.float(),
labels, reduction="sum") on one 16-bit chunk; with compile=True the recipe compiles that
method alone (training/_compile.py compile_loss @1814feb). Eager, log_softmax keeps its fp32
output. Compiled, AOTAutograd splits the joint graph with min_cut_rematerialization_partition
under Inductor's policy (compiler="inductor": casts and pointwise ops may be recomputed in the
backward, a reduction whose output is 4x smaller than its input may not): it keeps the 16-bit
chunk, the per-row max and log-sum-exp and the labels, and recomputes the softmax. This runs
both on Debian's torch 1.13 (CPU; functorch's AOTAutograd, networkx for the min cut) and
writes what is kept per logit and per row. tests/test_loss_paths.cpp compares HfLoss with it.

  /usr/bin/python3 tests/truth/measure_compiled_loss.py           # writes tests/data/compiled_loss_torch-<v>_cpu.json
  /usr/bin/python3 tests/truth/measure_compiled_loss.py --check   # re-measures, fails if the committed file differs
"""
from functools import partial

import torch
import torch.nn.functional as F
from functorch.compile import aot_function, make_boxed_func, min_cut_rematerialization_partition
from torch._decomp import get_decompositions

import committed

ROWS, VOCAB = 64, 1000  # one chunk: (batch x tokens / chunks) rows of the vocabulary
aten = torch.ops.aten
# Inductor lowers these through their decompositions (torch._decomp), so its partitioner sees
# the max, exp, sum and log they are made of.
DECOMPOSITIONS = get_decompositions(
    [aten._log_softmax, aten._log_softmax_backward_data, aten.nll_loss_forward, aten.nll_loss_backward])


def compute_cross_entropy(logits, labels):  # torchtune ce_chunked_output_loss.py @1814feb
    return F.cross_entropy(logits.float(), labels, ignore_index=-100, reduction="sum")


def describe(tensors):
    """Saved tensors by storage, each once, split into logit-sized and per-row bytes."""
    seen, rows = {}, []
    for name, t in tensors:
        key = (t.storage().data_ptr(), t.dtype) if t.numel() else (id(t), t.dtype)
        if key in seen:
            continue
        seen[key] = True
        rows.append({"name": name, "shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""),
                     "bytes": t.storage().nbytes() if t.numel() else 0})
    per_logit = sum(r["bytes"] for r in rows if r["shape"] == [ROWS, VOCAB]) / (ROWS * VOCAB)
    per_row = sum(r["bytes"] for r in rows if r["shape"] != [ROWS, VOCAB]) / ROWS
    return {"saved": rows, "per_logit": per_logit, "per_row": per_row}


def inputs():
    torch.manual_seed(0)
    x = torch.randn(ROWS, VOCAB, dtype=torch.bfloat16, requires_grad=True)
    y = torch.randint(0, VOCAB, (ROWS,))
    return x, y


def eager():
    x, y = inputs()
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        compute_cross_entropy(x, y)
    return describe((f"saved {i}", t) for i, t in enumerate(packed))


def compiled():
    x, y = inputs()
    graphs = {}

    def forward_compiler(gm, _):
        graphs["forward"] = gm
        return make_boxed_func(gm)

    def backward_compiler(gm, _):
        graphs["backward"] = gm
        return make_boxed_func(gm)

    fn = aot_function(compute_cross_entropy, forward_compiler, backward_compiler,
                      partition_fn=partial(min_cut_rematerialization_partition, compiler="inductor"),
                      decompositions=DECOMPOSITIONS)
    loss = fn(x, y)
    # The forward graph returns the loss, then what it saves for the backward: run it once
    # more on its own to hold those tensors.
    node = [n for n in graphs["forward"].graph.nodes if n.op == "output"][0]
    names = [a.name for a in node.args[0][1:]]
    results = graphs["forward"](x.detach(), y)
    saved = list(zip(names, results[1:]))
    loss.backward()
    grad = x.grad
    x2, y2 = inputs()
    compute_cross_entropy(x2, y2).backward()
    r = describe(saved)
    r["backward_output_dtype"] = str(grad.dtype).replace("torch.", "")
    r["gradient_matches_eager"] = bool(torch.allclose(grad.float(), x2.grad.float(), atol=1e-2))
    return r


def measure():
    return {"what": "torchtune CEWithChunkedOutputLoss.compute_cross_entropy on one bf16 chunk: tensors kept "
                    "for the backward, eager (saved-tensor hooks) and compiled (AOTAutograd, Inductor's "
                    "min-cut partition)",
            "torch": torch.__version__.split("+")[0], "rows": ROWS, "vocab": VOCAB,
            "eager": eager(), "compiled": compiled()}


if __name__ == "__main__":
    raise SystemExit(committed.main(__doc__, "compiled loss", "compiled_loss", measure))
