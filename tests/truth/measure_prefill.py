"""What HF's eager attention holds at its peak in a prefill (no autograd), per score element.

transformers' eager_attention_forward (eval): scores = q @ k^T * scaling, + the causal mask,
softmax(dim=-1, dtype=float32).to(q.dtype), @ v. Measured with the profiler's allocation
events on Debian's torch 1.13 (CPU): the live bytes' maximum over the ops, divided by the
heads x s x s score elements. account_inference.h PrefillWorkspace counts this per score;
tests/test_serving.cpp pins it.

  /usr/bin/python3 tests/truth/measure_prefill.py      # prints bf16 8.0, fp32 8.0
"""
import torch
from torch.profiler import ProfilerActivity, profile


def peak_per_score(dtype, heads=8, s=512, d=64):
    q, k, v = (torch.randn(1, heads, s, d, dtype=dtype) for _ in range(3))
    mask = torch.zeros(1, 1, s, s, dtype=dtype)
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        w = torch.matmul(q, k.transpose(2, 3)) * 0.125
        w = w + mask
        w = torch.nn.functional.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        torch.matmul(w, v)
    live = peak = 0
    for e in sorted(prof.events(), key=lambda e: e.time_range.start):
        if e.cpu_memory_usage != 0 and e.cpu_parent is None:  # top-level allocations and frees
            live += e.cpu_memory_usage
            peak = max(peak, live)
    return peak / (heads * s * s)


if __name__ == "__main__":
    for dtype in (torch.bfloat16, torch.float32):
        print(f"{str(dtype).replace('torch.', ''):9s} {peak_per_score(dtype):.1f} B per score element at the peak")
