#!/usr/bin/python3
"""Writes tests/snapshot_pickles.h: torch.cuda.memory._snapshot() dicts built by hand after the
structure torch/cuda/memory.py's _snapshot docstring documents (PyTorch v2.1.0+: Segment,
Block, Frame, TraceEntry), pickled as torch.cuda.memory._dump_snapshot does (pickle.dump at
the default protocol: 4 on Python 3.8-3.13), and once at protocol 2 (BINPUT memo). Plus one
pickle that would run a command if unpickled (GLOBAL + REDUCE): the reader must refuse it.
torch.cuda is not usable on a CPU machine, so no real allocator made these; the sizes follow
the caching allocator's rules (2 MiB small segments, 20 MiB large ones, 512-byte rounding).
Usage: /usr/bin/python3 tests/truth/make_snapshot_pickles.py > tests/snapshot_pickles.h"""
import os
import pickle

MiB = 1 << 20


def frame(name, line):
    return {"filename": "/work/train.py", "line": line, "name": name}


def snapshot():
    frames = [frame("forward", 42), frame("<module>", 7)]
    small = {"device": 0, "address": 0x7F0000000000, "total_size": 2 * MiB, "stream": 0, "segment_type": "small",
             "allocated_size": 1024 * 512, "active_size": 1024 * 512, "requested_size": 1024 * 500,
             "blocks": [
                 {"address": 0x7F0000000000, "size": 1024 * 512, "requested_size": 1024 * 500,
                  "state": "active_allocated", "frames": frames},
                 {"address": 0x7F0000080000, "size": 2 * MiB - 1024 * 512, "requested_size": 0,
                  "state": "inactive", "frames": []},
             ]}
    large = {"device": 0, "address": 0x7F0001000000, "total_size": 20 * MiB, "stream": 0, "segment_type": "large",
             "allocated_size": 12 * MiB, "active_size": 16 * MiB, "requested_size": 12 * MiB,
             "blocks": [
                 {"address": 0x7F0001000000, "size": 12 * MiB, "requested_size": 12 * MiB,
                  "state": "active_allocated", "frames": frames},
                 {"address": 0x7F0001C00000, "size": 4 * MiB, "requested_size": 4 * MiB,
                  "state": "active_awaiting_free", "frames": frames},
                 {"address": 0x7F0002000000, "size": 4 * MiB, "requested_size": 0, "state": "inactive", "frames": []},
             ]}
    traces = [[
        {"action": "segment_alloc", "addr": 0x7F0001000000, "frames": frames, "size": 20 * MiB, "stream": 0},
        {"action": "alloc", "addr": 0x7F0001000000, "frames": frames, "size": 12 * MiB, "stream": 0},
        {"action": "alloc", "addr": 0x7F0000000000, "frames": frames, "size": 1024 * 512, "stream": 0},
        {"action": "oom", "addr": 0, "frames": frames, "size": 64 * MiB, "stream": 0, "device_free": 3 * MiB},
    ]]
    return {"segments": [small, large], "device_traces": traces}


def training_step():
    """One training step's history on device 0, the frames as PyTorch and transformers name them:
    weights and optimizer states from before the history (300 MiB, no frames), then forward
    (an MLP output, 40 MiB; repeat_kv's K, 16 MiB), the loss (30 MiB), backward's gradients
    (60 MiB, kept), the loss and activations freed, AdamW's foreach temporaries (50 MiB, freed).
    Live: 300, 340, 356, 386, 370, 430 (the peak, after the gradients), 400, 360, 410, 360."""
    def f(filename, name, line=1):
        return {"filename": filename, "line": line, "name": name}
    fwd = [f("/usr/lib/python3/dist-packages/torch/nn/functional.py", "linear"),
           f("/site-packages/transformers/models/llama/modeling_llama.py", "forward", 180),
           f("/work/train.py", "<module>", 30)]
    rep = [f("/site-packages/transformers/models/llama/modeling_llama.py", "repeat_kv", 210),
           f("/site-packages/transformers/models/llama/modeling_llama.py", "forward", 290)]
    loss = [f("/usr/lib/python3/dist-packages/torch/nn/functional.py", "cross_entropy", 3100),
            f("/site-packages/transformers/loss/loss_utils.py", "ForCausalLMLoss", 60)]
    bwd = [f("/usr/lib/python3/dist-packages/torch/autograd/graph.py", "_engine_run_backward", 744),
           f("/usr/lib/python3/dist-packages/torch/_tensor.py", "backward", 521)]
    opt = [f("/usr/lib/python3/dist-packages/torch/optim/adamw.py", "_multi_tensor_adamw", 480),
           f("/usr/lib/python3/dist-packages/torch/optim/adamw.py", "step", 220)]
    base = 0x7F1000000000
    weights, states, grads = base, base + 100 * MiB, base + 300 * MiB
    act, kv, logits, tmp = base + 360 * MiB, base + 400 * MiB, base + 420 * MiB, base + 450 * MiB
    seg = {"device": 0, "address": base, "total_size": 512 * MiB, "stream": 0, "segment_type": "large",
           "allocated_size": 360 * MiB, "active_size": 360 * MiB, "requested_size": 360 * MiB,
           "blocks": [
               {"address": weights, "size": 100 * MiB, "requested_size": 100 * MiB, "state": "active_allocated",
                "frames": []},
               {"address": states, "size": 200 * MiB, "requested_size": 200 * MiB, "state": "active_allocated",
                "frames": []},
               {"address": grads, "size": 60 * MiB, "requested_size": 60 * MiB, "state": "active_allocated",
                "frames": bwd},
               {"address": act, "size": 152 * MiB, "requested_size": 0, "state": "inactive", "frames": []},
           ]}
    def e(action, addr, size, frames):
        return {"action": action, "addr": addr, "size": size, "stream": 0, "frames": frames}
    trace = [e("alloc", act, 40 * MiB, fwd), e("alloc", kv, 16 * MiB, rep), e("alloc", logits, 30 * MiB, loss),
             e("free_requested", kv, 16 * MiB, rep), e("free_completed", kv, 16 * MiB, rep),
             e("alloc", grads, 60 * MiB, bwd),
             e("free_requested", logits, 30 * MiB, bwd), e("free_completed", logits, 30 * MiB, bwd),
             e("free_requested", act, 40 * MiB, bwd), e("free_completed", act, 40 * MiB, bwd),
             e("alloc", tmp, 50 * MiB, opt), e("free_requested", tmp, 50 * MiB, opt),
             e("free_completed", tmp, 50 * MiB, opt)]
    return {"segments": [seg], "device_traces": [trace]}


class Evil:
    def __reduce__(self):
        return (os.system, ("echo owned",))


def c_string(name, data, note):
    out = "// %s\ninline const std::string %s = std::string(\n" % (note, name)
    for i in range(0, len(data), 24):
        out += '    "' + "".join("\\x%02x" % b for b in data[i:i + 24]) + '"\n'
    return out + "    , %d);\n\n" % len(data)


print("// Generated by tests/truth/make_snapshot_pickles.py (Python %s's pickle); do not edit." % os.sys.version.split()[0])
print("#pragma once\n\n#include <string>\n\nnamespace llmmem::test::snapshot_pickles {\n")
print(c_string("kProtocol4", pickle.dumps(snapshot(), protocol=4), "two segments, five blocks, four trace entries; protocol 4 (FRAME, MEMOIZE)"))
print(c_string("kProtocol2", pickle.dumps(snapshot(), protocol=2), "the same at protocol 2 (BINPUT / BINGET memo)"))
print(c_string("kTrainingStep", pickle.dumps(training_step(), protocol=4), "one training step's history: the peak after backward's gradients, each allocation's cause by its frames"))
print(c_string("kRunsACommand", pickle.dumps(Evil(), protocol=4), "os.system('echo owned') if unpickled: GLOBAL/STACK_GLOBAL + REDUCE"))
print(c_string("kPlainNotSnapshot", pickle.dumps({"model": "llama", "sizes": [1, 2.5, None, True, -3, 2 ** 40]}, protocol=4), "plain data, no segments"))
print("}  // namespace llmmem::test::snapshot_pickles")
