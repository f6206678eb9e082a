"""What a reentrant checkpoint's recomputed inputs keep alive under FSDP1's reshard-only hook.

PyTorch FSDP1 (FullyShardedDataParallel) reshards a unit whose flat parameter needs no gradient
(LoRA's frozen base layer) once every gradient that depends on it exists: in the unit's forward
with grad enabled, _register_post_backward_reshard_only_hook puts register_multi_grad_hook on
the unit's inputs that require grad, and the end-of-backward callback (_finalize_params) removes
it (torch v2.4.1 torch/distributed/fsdp/_runtime_utils.py). register_multi_grad_hook's hooks keep
`grad_fns` in their closure: for a leaf input, its AccumulateGrad node, which holds the leaf
(torch/autograd/graph.py). Under a reentrant checkpoint the unit's forward with grad enabled is the
recompute in backward, on detached leaf inputs, and CheckpointFunction.backward accumulates their
gradients into `inp.grad` (torch/utils/checkpoint.py). So each layer's input and its gradient
outlive the layer's backward.

This runs a stack of layers under torch.utils.checkpoint (reentrant) on Debian's torch 1.13
(CPU), each layer's forward registering the hook the way FSDP1 does (torch 1.13 has no
register_multi_grad_hook: its closure structure is reproduced), and counts, while the bottom
layer's backward runs, the earlier layers' recomputed inputs still alive and their gradients;
and the same without the hook. tests/test_fsdp1_hooks.cpp compares the estimate's leaf with it.

  /usr/bin/python3 tests/truth/measure_fsdp1_hooks.py           # writes tests/data/fsdp1_hooks_torch-<v>_cpu.json
  /usr/bin/python3 tests/truth/measure_fsdp1_hooks.py --check   # re-measures, fails if the committed file differs
"""
import weakref

import torch
from torch.utils.checkpoint import checkpoint

import committed

LAYERS, TOKENS, HIDDEN = 6, 32, 16


def grad_fn_or_grad_acc(t):
    """torch/autograd/graph.py _get_grad_fn_or_grad_acc: a leaf's AccumulateGrad, else its grad_fn."""
    if t.requires_grad and t.grad_fn is None:
        with torch.enable_grad():
            return t.view_as(t).grad_fn.next_functions[0][0]
    return t.grad_fn


def register_multi_grad_hook(tensors, fn):
    """torch/autograd/graph.py register_multi_grad_hook (mode "all"), single graph task: the
    hooks' closure keeps grad_fns, as torch 2.x's does."""
    grad_fns = list(map(grad_fn_or_grad_acc, tensors))
    state = {"count": 0, "buffer": [None] * len(tensors)}

    def get_inner_hook(idx):
        def inner_hook(grad):
            nb_calls = sum(1 for g in grad_fns if torch._C._will_engine_execute_node(g))
            state["buffer"][idx] = grad
            state["count"] += 1
            if state["count"] == nb_calls:
                fn(state["buffer"])
                state["count"], state["buffer"] = 0, [None] * len(tensors)
        return inner_hook

    return [t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors)]


class FrozenLayer(torch.nn.Module):
    """A frozen unit (LoRA's base layer) with FSDP1's reshard-only hook on its inputs."""

    def __init__(self, hook, seen):
        super().__init__()
        self.linear = torch.nn.Linear(HIDDEN, HIDDEN)
        self.linear.requires_grad_(False)
        self.hook, self.seen, self.handles = hook, seen, None

    def forward(self, x):
        # _register_post_backward_reshard_only_hook: only with grad enabled, once per backward.
        if self.hook and torch.is_grad_enabled() and self.handles is None:
            inputs = [x] if x.requires_grad else []
            self.handles = register_multi_grad_hook(inputs, lambda grads: None)
        if torch.is_grad_enabled():
            self.seen.append(weakref.ref(x))  # the recompute's detached input
        return torch.tanh(self.linear(x)) + x


def measure(hook):
    torch.manual_seed(0)
    seen = []
    layers = [FrozenLayer(hook, seen) for _ in range(LAYERS)]
    at_bottom = {}

    def probe(grad):  # runs as the bottom layer's output gradient arrives: its backward starts
        alive = [r() for r in seen]  # the layers above: recomputed, through their backward
        alive = [t for t in alive if t is not None]
        at_bottom["inputs"] = len(alive)
        at_bottom["gradients"] = sum(1 for t in alive if t.grad is not None)
        return grad

    x = torch.randn(TOKENS, HIDDEN, requires_grad=True)  # the embedding's output (it requires grad)
    h = x
    for i, layer in enumerate(layers):
        h = checkpoint(layer, h, use_reentrant=True)
        if i == 0:
            h.register_hook(probe)
    h.sum().backward()
    for layer in layers:  # _finalize_params: the hooks go, and with them what they held
        for handle in layer.handles or []:
            handle.remove()
    return {"layers_above_bottom": LAYERS - 1, "inputs_alive": at_bottom.get("inputs", 0),
            "input_gradients_alive": at_bottom.get("gradients", 0)}


def measure_both():
    return {"what": "reentrant checkpoint over frozen layers: while the bottom layer's backward runs, how many of "
                    "the layers above still hold their recomputed input and its gradient",
            "torch": torch.__version__.split("+")[0], "layers": LAYERS,
            "with_fsdp1_reshard_hook": measure(True), "without_hook": measure(False)}


if __name__ == "__main__":
    raise SystemExit(committed.main(__doc__, "FSDP1 hooks", "fsdp1_hooks", measure_both))
