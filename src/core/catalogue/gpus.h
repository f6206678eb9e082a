// The GPU catalogue embedded from presets/gpus.json: nominal (marketed) memory, the
// bytes the device actually reports where known, bandwidth, and the source of each row.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace llmmem::core {

// Unified memory (issue 31): what bounds the share of RAM the GPU may use, by default and
// raised; each kind's rule and its sources are in gpu_budget.h.
enum class UnifiedBudget {
  kNone,    // not unified, or unknown
  kMetal,   // macOS: Metal's recommendedMaxWorkingSetSize; sudo sysctl iogpu.wired_limit_mb raises it
  kAmdGtt,  // Linux amdgpu APU: the BIOS carve-out plus GTT (amdgpu.gttsize, ttm.pages_limit)
  kCuda,    // NVIDIA GB10: CUDA reports the OS's MemTotal, shared with the OS; nothing raises it
};
constexpr bool BudgetRaisable(UnifiedBudget b) { return b == UnifiedBudget::kMetal || b == UnifiedBudget::kAmdGtt; }

struct Gpu {
  std::string key;  // "H100-SXM-80GB"; used in URLs and --gpu
  std::string name;
  std::string vendor;
  double memory_gb = 0;     // as marketed
  double memory_bytes = 0;  // as the device reports (nvidia-smi / torch total_memory); 0: unknown
  double cuda_bytes = 0;    // as CUDA reports it (torch total_memory; vLLM/SGLang size from it); 0: unknown
  double bandwidth_gbps = 0;
  double bf16_tflops = 0;         // dense 16-bit tensor throughput; 0: not confirmed
  double fp8_tflops = 0;          // dense FP8 tensor throughput where the cited document gives it; 0: none/unknown
  double int8_tops = 0;           // dense INT8 tensor throughput likewise
  double compute_capability = 0;  // NVIDIA's CUDA compute capability (9.0: Hopper); 0: not NVIDIA
  bool unified = false;           // memory shared with the CPU (Apple silicon, Strix Halo, GB10)
  double gpu_share = 1;           // of unified memory, what the GPU may use by default (gpu_budget.h)
  UnifiedBudget budget = UnifiedBudget::kNone;  // who sets that share and how it is raised
  std::string source;
  std::string usable_note;

  // The memory as the device (or, unified, the OS) reports it: memory_bytes, else nominal GB.
  double RamBytes() const { return memory_bytes > 0 ? memory_bytes : memory_gb * 1e9; }
  // What the estimate compares against: the reported bytes; on unified memory, the share the
  // GPU may use by default, or the raised limit the user gives (wired_limit_mb, MiB: the value
  // of macOS's iogpu.wired_limit_mb; 0: the default), never above the memory itself. A
  // budget nothing raises (GB10's) ignores the limit.
  double UsableBytes(double wired_limit_mb = 0) const {
    const double bytes = RamBytes();
    if (!unified) return bytes;
    if (wired_limit_mb > 0 && BudgetRaisable(budget)) return std::min(std::floor(wired_limit_mb * 1048576.0), bytes);
    return std::floor(bytes * gpu_share);
  }
};

const std::vector<Gpu>& Gpus();
// The page embeds the catalogue without each row's source and usable_note (scripts/embed.py
// --drop-in-rows: 4.6 KB of its first load) and fetches presets/gpus.json when a card's
// details are first shown: this fills them in from that file's text. Returns "" or why not.
std::string AddGpuSources(const std::string& gpus_json);
// True when every card has its source (always, but on the page before AddGpuSources).
bool GpuSourcesKnown();
// The compute capability of the catalogue's card with this key (0: not NVIDIA, or not in the
// catalogue). Remembers the last key asked for, so the per-estimate path stays a string compare.
double ComputeCapability(const std::string& key);
// The card the apps open with.
constexpr const char* kDefaultGpu = "H100-SXM-80GB";
const Gpu* FindGpu(const std::string& key);  // case-insensitive; also matches the name

}  // namespace llmmem::core
