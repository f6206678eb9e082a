// The text forms the OOM reader recognises, one row each: what it looks like and the source
// (file and commit) its wording was read from. Units are as the sources print them: PyTorch's
// format_size (c10/cuda/CUDACachingAllocator.cpp) gives "N bytes" up to 1 KiB, then KiB, MiB,
// GiB with two decimals, all powers of 2; memory_summary's _format_size floors to whole
// B/KiB/MiB/GiB (KB/MB/GB in releases before 1.10, also powers of 2); nvidia-smi prints MiB.
#include <string>

#include "core/oom/oom_evidence.h"

namespace llmmem::core {
namespace {

constexpr const char* kAllocator2 =
    "pytorch/pytorch@001074d25084fdb87a799823e395a50f5ec044d3 c10/cuda/CUDACachingAllocator.cpp: "
    "DeviceCachingAllocator::malloc's TORCH_CHECK_WITH(OutOfMemoryError, ...), reportProcessMemoryInfo "
    "(NVML's compute processes: \"Process N has X memory in use.\", \"Including non-PyTorch memory, this "
    "process has X memory in use.\"), format_size; ROCm builds print HIP for CUDA (hipify) and no process lines";

const EvidenceFormInfo kForms[] = {
    {EvidenceForm::kTorchOom2, "torch_oom_2", "PyTorch 2.1+ out-of-memory message (CUDA or ROCm/HIP)",
     "CUDA out of memory. Tried to allocate 1.22 GiB. GPU 0 has a total capacity of 15.77 GiB of which 959.44 MiB "
     "is free. [Process 12447 has 14.83 GiB memory in use.] [Including non-PyTorch memory, this process has X memory "
     "in use.] [N allowed;] Of the allocated memory 14.01 GiB is allocated by PyTorch, [with X allocated in private "
     "pools (e.g., CUDA Graphs),] and 472.05 MiB is reserved by PyTorch but unallocated.",
     kAllocator2},
    {EvidenceForm::kTorchOom1, "torch_oom_1", "PyTorch 1.4-2.0 out-of-memory message",
     "CUDA out of memory. Tried to allocate 86.00 MiB (GPU 0; 22.20 GiB total capacity; 7.47 GiB already allocated; "
     "51.12 MiB free; [N allowed;] 7.48 GiB reserved in total by PyTorch)",
     "PyTorch 1.8-era c10/cuda/CUDACachingAllocator.cpp as kept in K-Wu/pytorch-direct@"
     "6314cd13877e08e6cc3f9969629e497bac52187a (THCCachingAllocator's DeviceCachingAllocator::malloc; the "
     "\"allowed\" part comes with set_per_process_memory_fraction); 1.10-2.0 append \"If reserved memory is >> "
     "allocated memory try setting max_split_size_mb\""},
    {EvidenceForm::kTorchOom1Cached, "torch_oom_1_cached", "PyTorch 1.0-1.3 out-of-memory message",
     "CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 11.17 GiB total capacity; 10.62 GiB already allocated; "
     "14.81 MiB free; 52.31 MiB cached)",
     "PyTorch 1.0-1.3 c10/cuda/CUDACachingAllocator.cpp (format_size(stats.amount_cached - stats.amount_allocated), "
     "\" cached)\": the cache beyond what is allocated), read in copies of that allocator in the code index; "
     "upstream commit not pinned"},
    {EvidenceForm::kCudaErrorOom, "cuda_error_oom", "CUDA runtime out-of-memory error (no figures)",
     "RuntimeError: CUDA error: out of memory",
     "pytorch/pytorch@0e4c6cd66277444e521c0d3190b00ee3992cff03 c10/cuda/CUDAException.cpp "
     "(c10_cuda_check_implementation: \"CUDA error: \" + cudaGetErrorString); raised by a CUDA call outside the "
     "caching allocator (context creation, cuBLAS/cuDNN workspaces, NCCL)"},
    {EvidenceForm::kNvidiaSmiTable, "nvidia_smi", "nvidia-smi table",
     "|   0  NVIDIA A30   Off | 00000000:00:05.0 Off | ... |  22136MiB / 24576MiB | ... and the Processes: rows "
     "|    0   N/A  N/A     12345      C   python     14980MiB |",
     "nvidia-smi's default output (R450-R570 layouts; the process table with or without the GI/CI columns)"},
    {EvidenceForm::kNvidiaSmiCsv, "nvidia_smi_csv", "nvidia-smi --query-gpu CSV",
     "index, name, memory.total [MiB], memory.used [MiB], memory.free [MiB]\n0, NVIDIA A30, 24576 MiB, 22136 MiB, 2440 "
     "MiB",
     "nvidia-smi --query-gpu=index,name,memory.total,memory.used,memory.free --format=csv (with or without "
     ",nounits; a header line is needed)"},
    {EvidenceForm::kNvidiaSmiAppsCsv, "nvidia_smi_apps_csv", "nvidia-smi --query-compute-apps CSV",
     "pid, process_name, used_gpu_memory [MiB]\n12345, python, 14980 MiB",
     "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"},
    {EvidenceForm::kMemorySummary, "memory_summary", "torch.cuda.memory_summary()",
     "|                  PyTorch CUDA memory summary, device ID 0                 | ... | Allocated memory      |  "
     "14324 MiB |  14324 MiB | ... | GPU reserved memory   | ...",
     "pytorch/pytorch@00b65a04a2d30e498eedcb1e3476abd547f428f1 torch/cuda/memory.py: memory_summary "
     "(metrics_to_display, "
     "_format_size floors to whole units)"},
    {EvidenceForm::kMemGetInfo, "mem_get_info", "torch.cuda.mem_get_info()",
     "torch.cuda.mem_get_info() -> (23456301056, 25434587136)   (free, total) in bytes",
     "pytorch/pytorch@00b65a04a2d30e498eedcb1e3476abd547f428f1 torch/cuda/memory.py: mem_get_info returns "
     "cudaMemGetInfo's (free, total)"},
    {EvidenceForm::kListGpuProcesses, "list_gpu_processes", "torch.cuda.list_gpu_processes()",
     "GPU:0\nprocess      12345 uses    14980.000 MB GPU memory",
     "pytorch/pytorch@00b65a04a2d30e498eedcb1e3476abd547f428f1 torch/cuda/memory.py: list_gpu_processes (NVML "
     "usedGpuMemory / 2^20, printed as \"MB\")"},
};
static_assert(sizeof(kForms) / sizeof(kForms[0]) == kEvidenceFormCount, "one row per EvidenceForm");

}  // namespace

const EvidenceFormInfo& FormInfo(EvidenceForm f) {
  const int i = static_cast<int>(f);
  return kForms[i >= 0 && i < kEvidenceFormCount ? i : 0];
}

std::string RecognisedFormsText() {
  std::string out;
  for (const EvidenceFormInfo& f : kForms) {
    std::string example = f.example;
    for (char& c : example)
      if (c == '\n') c = ' ';
    out += std::string("- ") + f.name + ": " + example + "\n";
  }
  return out;
}

}  // namespace llmmem::core
