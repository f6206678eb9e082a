// The GPU catalogue embedded from presets/gpus.json: nominal (marketed) memory, the
// bytes the device actually reports where known, bandwidth, and the source of each row.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace llmmem::core {

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
  bool unified = false;           // Apple silicon: memory shared with the CPU
  double gpu_share = 1;           // of unified memory, what the GPU may wire by default (macOS: 2/3 or 3/4)
  std::string source;
  std::string usable_note;

  // What the estimate compares against: the reported bytes when known, else nominal GB; on
  // unified memory, the share the GPU may wire.
  double UsableBytes() const {
    const double bytes = memory_bytes > 0 ? memory_bytes : memory_gb * 1e9;
    return unified ? std::floor(bytes * gpu_share) : bytes;
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
