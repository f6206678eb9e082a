"""What gpu_measure.py reads from torch and the driver: storages de-duplicated, the bytes
autograd saves, per-phase allocator counters, the CUDA context and nvidia-smi. Nothing here
estimates anything: every number is read from torch or the driver."""

import contextlib
import gc
import subprocess
import time

import torch


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
    """Per phase: torch.cuda.reset_peak_memory_stats() before it, then memory_allocated at its
    start and end, max_memory_allocated, memory_reserved and max_memory_reserved after it."""

    def __init__(self, device):
        self.device = device
        self.rows = []

    @contextlib.contextmanager
    def phase(self, name, **extra):
        row = {"phase": name}
        if self.device.type == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            row["allocated_before"] = torch.cuda.memory_allocated()
        t = time.time()
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


def nvidia_smi():
    """memory.used / memory.total in MiB and the driver, as nvidia-smi prints them (None when
    there is no nvidia-smi)."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used,memory.total,driver_version,name",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=20).stdout
        used, total, driver, name = [x.strip() for x in out.strip().splitlines()[0].split(",")]
        return {"used_mib": int(used), "total_mib": int(total), "driver": driver, "name": name}
    except Exception as e:  # noqa: BLE001 - no nvidia-smi: say so
        return {"error": f"{type(e).__name__}: {e}"[:200]}


def cuda_context_probe(device):
    """What the process holds on the GPU beyond PyTorch's allocator: used = total - free
    (cudaMemGetInfo, what nvidia-smi shows for the whole GPU) minus memory_reserved, after
    creating the context, after the first allocation, and after the first bf16 matmul
    (cuBLAS's handle and workspace)."""
    if device.type != "cuda":
        return {"available": False}
    rows = []

    def read(moment):
        torch.cuda.synchronize()
        free, total = torch.cuda.mem_get_info()
        rows.append({"moment": moment, "used_bytes": total - free, "reserved_bytes": torch.cuda.memory_reserved(),
                     "allocated_bytes": torch.cuda.memory_allocated(), "total_bytes": total,
                     "nvidia_smi": nvidia_smi()})

    smi_before = nvidia_smi()
    torch.cuda.init()
    read("context created (torch.cuda.init)")
    x = torch.ones(1 << 20, device=device, dtype=torch.uint8)
    read("first allocation (1 MiB)")
    a = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16)
    (a @ a).sum().item()
    read("after the first bf16 matmul (cuBLAS handle and workspace)")
    del x, a
    torch.cuda.empty_cache()
    read("tensors freed, cache emptied")
    return {"available": True, "nvidia_smi_before_torch": smi_before, "readings": rows}


def cache_bytes(cache):
    """Bytes of a transformers KV cache (DynamicCache's layers[i].keys/values in 4.5x/5.x, or
    key_cache/value_cache lists in older versions), de-duplicated by storage."""
    tensors = []
    for layer in getattr(cache, "layers", None) or []:
        tensors += [getattr(layer, "keys", None), getattr(layer, "values", None)]
    for name in ("key_cache", "value_cache"):
        tensors += [t for t in (getattr(cache, name, None) or []) if torch.is_tensor(t)]
    if not tensors and isinstance(cache, (tuple, list)):
        tensors = [t for kv in cache for t in kv]
    return unique_bytes([t for t in tensors if torch.is_tensor(t)])
