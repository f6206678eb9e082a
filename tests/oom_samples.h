// Out-of-memory messages and tool output as users paste them (tests/fuzz/corpus/oom/ holds the
// same texts as files for the fuzzer and the CLI tests). Verbatim: seed 002's (Baichuan-7B on an
// A30), and public logs quoting PyTorch 2.x messages (container_wrapped, other_process,
// capacty_allowed: 2.1's own spelling) and a documentation page's fragmentation example
// (docs_inconsistent: its free + this process exceed the capacity, kept as printed). Written in
// the sources' exact wording with figures of our own: the others (ROCm, 1.0-1.3's "cached",
// the allowed fraction, two DDP ranks, nvidia-smi, memory_summary, the cut and contradictory ones).
#pragma once

namespace llmmem::test::oom_samples {

inline constexpr const char* kSeed002BaichuanA30 =
    R"OOM(torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 86.00 MiB (GPU 0; 22.20 GiB total capacity; 7.47 GiB already allocated; 51.12 MiB free; 7.48 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
)OOM";

inline constexpr const char* kTorch2ContainerWrapped = R"OOM(Traceback (most recent call last):
  File "train.py", line 212, in <module>
    loss.backward()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.22 GiB. GPU 0 has a total capacity of
15.77 GiB of which 959.44 MiB is free. Process 12447 has 14.83 GiB memory in use. Of the allocated memory 14.01 GiB
is allocated by PyTorch, and 472.05 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory
is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation
for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
)OOM";

inline constexpr const char* kTorch2Fragmented =
    R"OOM(torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.15 GiB. GPU 0 has a total capacity of 39.56 GiB of which 2.80 GiB is free. Including non-PyTorch memory, this process has 36.61 GiB memory in use. Of the allocated memory 31.66 GiB is allocated by PyTorch, and 4.11 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
)OOM";

inline constexpr const char* kTorch2OtherProcess =
    R"OOM(torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.16 GiB. GPU 0 has a total capacity of 31.36 GiB of which 471.69 MiB is free. Including non-PyTorch memory, this process has 16.63 GiB memory in use. Process 19239 has 14.26 GiB memory in use. Of the allocated memory 15.03 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
)OOM";

inline constexpr const char* kTorch21CapactyAllowed =
    R"OOM(RuntimeError: CUDA out of memory. Tried to allocate 8.00 GiB. GPU 0 has a total capacty of 23.69 GiB of which 7.11 GiB is free. Process 2006998 has 256.00 MiB memory in use. Including non-PyTorch memory, this process has 16.31 GiB memory in use. Of the allocated memory 16.01 GiB is allocated by PyTorch, and 7.47 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
)OOM";

inline constexpr const char* kHipRocm =
    R"OOM(torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 63.98 GiB of which 1.52 GiB is free. Of the allocated memory 58.20 GiB is allocated by PyTorch, and 3.96 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
)OOM";

inline constexpr const char* kTorch1Cached =
    R"OOM(RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 11.17 GiB total capacity; 10.62 GiB already allocated; 14.81 MiB free; 52.31 MiB cached)
)OOM";

inline constexpr const char* kTorch1AllowedComment =
    R"OOM(# RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total capacity; 130.35 MiB already
# allocated; 47.06 MiB free; 200.00 MiB allowed; 188.00 MiB reserved in total by PyTorch) If reserved memory is >> allocated memory try
# setting max_split_size_mb to avoid fragmentation.
)OOM";

inline constexpr const char* kDdpTwoRanks =
    R"OOM([rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.03 GiB is free. Including non-PyTorch memory, this process has 78.10 GiB memory in use. Of the allocated memory 74.52 GiB is allocated by PyTorch, and 2.06 GiB is reserved by PyTorch but unallocated.
[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 1 has a total capacity of 79.14 GiB of which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.92 GiB memory in use. Of the allocated memory 74.52 GiB is allocated by PyTorch, and 1.88 GiB is reserved by PyTorch but unallocated.
[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.03 GiB is free. Including non-PyTorch memory, this process has 78.10 GiB memory in use. Of the allocated memory 74.52 GiB is allocated by PyTorch, and 2.06 GiB is reserved by PyTorch but unallocated.
)OOM";

inline constexpr const char* kNvidiaSmiA30 = R"OOM(Wed Aug 30 10:12:01 2023
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.85.12    Driver Version: 525.85.12    CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA A30          Off  | 00000000:00:05.0 Off |                    0 |
| N/A   33C    P0    31W / 165W |  22136MiB / 24576MiB |      0%      Default |
|                               |                      |             Disabled |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| Processes:                                                                  |
|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |
|        ID   ID                                                   Usage      |
|=============================================================================|
|    0   N/A  N/A     31457      C   python                          14980MiB |
|    0   N/A  N/A     31802      C   python                           7154MiB |
+-----------------------------------------------------------------------------+
)OOM";

inline constexpr const char* kNvidiaSmiCsv =
    R"OOM($ nvidia-smi --query-gpu=index,name,memory.total,memory.used,memory.free --format=csv
index, name, memory.total [MiB], memory.used [MiB], memory.free [MiB]
0, NVIDIA A100-SXM4-80GB, 81920 MiB, 40112 MiB, 41298 MiB
1, NVIDIA A100-SXM4-80GB, 81920 MiB, 4 MiB, 81406 MiB
$ nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
pid, process_name, used_gpu_memory [MiB]
4121, /usr/bin/python3, 40102 MiB
)OOM";

inline constexpr const char* kMemorySummary =
    R"OOM(|===========================================================================|
|                  PyTorch CUDA memory summary, device ID 0                 |
|---------------------------------------------------------------------------|
|            CUDA OOMs: 1            |        cudaMalloc retries: 3         |
|===========================================================================|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |  14324 MiB |  20511 MiB |  88211 MiB |  73887 MiB |
|       from large pool |  14320 MiB |  20506 MiB |  87011 MiB |  72691 MiB |
|       from small pool |      4 MiB |      6 MiB |   1200 MiB |   1196 MiB |
|---------------------------------------------------------------------------|
| Active memory         |  14324 MiB |  20511 MiB |  88211 MiB |  73887 MiB |
|---------------------------------------------------------------------------|
| Requested memory      |  14310 MiB |  20490 MiB |  88100 MiB |  73790 MiB |
|---------------------------------------------------------------------------|
| GPU reserved memory   |  21802 MiB |  21802 MiB |  21802 MiB |      0 B   |
|---------------------------------------------------------------------------|
| Non-releasable memory |   1290 MiB |   3102 MiB |  40019 MiB |  38729 MiB |
|---------------------------------------------------------------------------|
| Allocations           |     843    |    1207    |   91244    |   90401    |
|===========================================================================|
>>> torch.cuda.mem_get_info()
(1262485504, 25434587136)
)OOM";

inline constexpr const char* kCutAfterRequest =
    R"OOM(torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB
)OOM";

inline constexpr const char* kContradictory =
    R"OOM(CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 10.00 GiB total capacity; 9.50 GiB already allocated; 3.00 GiB free; 8.00 GiB reserved in total by PyTorch)
)OOM";

inline constexpr const char* kDocsInconsistent =
    R"OOM(torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.15 GiB. GPU 0 has a total capacity of 39.56 GiB of which 6.80 GiB is free. Including non-PyTorch memory, this process has 36.61 GiB memory in use. Of the allocated memory 31.66 GiB is allocated by PyTorch, and 4.11 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.
)OOM";

inline constexpr const char* kCudaError = R"OOM(RuntimeError: CUDA error: out of memory
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
)OOM";

}  // namespace llmmem::test::oom_samples
