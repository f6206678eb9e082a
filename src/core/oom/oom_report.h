// Reading the evidence (oom_evidence.h) against the estimate: the GPU at the moment of failure
// as one bar whose every segment is derived from the text with its arithmetic shown
// (oom_bar.cpp), a ranked diagnosis in plain words (oom_diagnose.cpp), the catalogue cards the
// reported capacity matches and, when a configuration is loaded, the observed figures beside
// the estimate and the doctor's remedies for the card as it was (oom_compare.cpp).
// Sizes are shown as PyTorch prints them (GiB/MiB, powers of 2: FormatTorchSize).
#pragma once

#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/solve/doctor.h"
#include "core/catalogue/gpus.h"
#include "core/oom/oom_evidence.h"

namespace llmmem::core {

// "7.48 GiB", "51.12 MiB", "512 bytes": PyTorch's format_size (two decimals, powers of 2).
std::string FormatTorchSize(double bytes);

//-----------------------------------------------------------------------------
// The bar
//-----------------------------------------------------------------------------

enum class SegmentKind : uint8_t {
  kAllocated,       // allocated by PyTorch (tensors alive)
  kCached,          // reserved by PyTorch but unallocated: the cache, fragmented
  kNonPytorch,      // this process outside PyTorch's allocator: CUDA context, cuBLAS/NCCL workspaces
  kOutside,         // outside PyTorch's allocator when the message cannot split it: this process's
                    // context and libraries, other processes, the driver
  kOtherProcess,    // another process (NVML / nvidia-smi lists it)
  kUnattributed,    // in use but not accounted for by the processes listed
  kDriverReserved,  // nvidia-smi's total - used - free (R535+ drivers count it in the total)
  kFree,
  kCount
};
const char* SegmentKindId(SegmentKind k);    // "allocated", "cached", ... (JSON)
const char* SegmentKindName(SegmentKind k);  // "Allocated by PyTorch", ...

struct BarSegment {
  SegmentKind kind = SegmentKind::kFree;
  std::string label;       // "Allocated by PyTorch", "Process 19239"
  double bytes = 0;        // never negative
  std::string arithmetic;  // "22.20 GiB total - 51.12 MiB free - 7.48 GiB reserved = 14.67 GiB"
  bool stated = false;     // printed in the text as it is (not derived)
};

struct OomBar {
  bool drawable = false;      // the text gives a capacity and what fills it
  bool consistent = true;     // the figures agree within their printed rounding
  double capacity_bytes = 0;  // as the text states it
  double total_bytes = 0;     // the segments' sum: the capacity within rounding_bytes when consistent
  double rounding_bytes = 0;  // how far the printed figures' rounding lets the sum stray from the capacity
  std::vector<BarSegment> segments;
  double request_bytes = -1;       // the allocation that failed (drawn against the free segment)
  std::vector<std::string> notes;  // rounding, contradictions and what is missing, in words
};
OomBar BuildOomBar(const Observation& o);

//-----------------------------------------------------------------------------
// The diagnosis
//-----------------------------------------------------------------------------

struct Finding {
  std::string id;       // "held_elsewhere", "fragmentation", "shortfall", "fraction_limit", "outside_allocator",
                        // "request_over_capacity", "missing_figures", "shared_gpu", "cache"
  std::string title;    // "Memory held elsewhere"
  std::string text;     // what the figures say, in words, with the figures
  std::string summary;  // one sentence for a headline
  std::vector<std::string> actions;  // what to do about it
  double bytes = 0;                  // what it accounts for
  bool sufficient = false;           // recovering it alone would have let the failed allocation succeed
};

// The causes in order: those that alone explain the failure first, then by size. `context_bytes`
// is the estimate's CUDA context (cuda_context_gb) when a configuration is loaded, else < 0.
std::vector<Finding> DiagnoseOom(const Observation& o, const OomBar& bar, double context_bytes);

//-----------------------------------------------------------------------------
// The card, the estimate beside the observation, the doctor
//-----------------------------------------------------------------------------

struct GpuMatch {
  const Gpu* gpu = nullptr;
  double gap_bytes = 0;  // the catalogue's reported bytes minus the capacity observed
  std::string why;       // "capacity", "name and capacity"
};
// Catalogue cards whose memory matches `capacity_bytes`: a CUDA total (PyTorch's message,
// mem_get_info) is below the card's nvidia-smi total by the driver's share, so up to 10%
// below is a match; an nvidia-smi total must equal the catalogue's. `name` (nvidia-smi's)
// ranks cards that share its words first. Best first; at most six.
std::vector<GpuMatch> MatchGpus(double capacity_bytes, bool cuda_total, const std::string& name);

// What the configuration should say to describe the card as it was: the matched card (or the
// observed capacity as a custom one) and other_processes_gb for the memory held elsewhere.
Config ConfigForCard(const Config& base, const Observation& o, const std::vector<GpuMatch>& matches);
// Memory the text shows held by others: T - F - (this process) when NVML listed this process,
// else T - F - reserved - context_bytes (context_bytes >= 0). 0 when not known.
double HeldElsewhereBytes(const Observation& o, double context_bytes);

struct ComparisonRow {
  std::string label;      // "Allocated by PyTorch"
  double observed = -1;   // bytes; < 0 not in the text
  double estimated = -1;  // bytes; < 0 not estimated
  std::string note;
};
struct Comparison {
  bool available = false;
  std::string stage;  // how far the run had got, in words
  std::vector<ComparisonRow> rows;
  std::vector<std::string> differences;  // where the estimate and the observation part
};
// `c` is the configuration as loaded; the comparison is against its estimate per GPU.
Comparison CompareWithEstimate(const Observation& o, const Config& c);

//-----------------------------------------------------------------------------
// The whole reading
//-----------------------------------------------------------------------------

struct DeviceReport {
  size_t observation = 0;  // index into evidence.observations
  OomBar bar;
  std::vector<Finding> findings;  // ranked
  std::vector<GpuMatch> matches;
  bool has_config = false;  // a configuration was loaded
  Config suggested;         // the loaded one with the card as it was (ConfigForCard)
  Comparison comparison;
  bool suggested_fits = false;   // the estimate fits the card as it was
  std::vector<Remedy> remedies;  // the OOM doctor for `suggested`, when it does not fit
};

struct OomReport {
  Evidence evidence;
  std::vector<DeviceReport> devices;  // one per observation, failures first
  std::string headline;               // the first failure's first finding, one sentence
};

// `loaded` may be null: no comparison, no remedies.
OomReport ReadOomReport(const std::string& text, const Config* loaded);
// The same from the text's evidence (ReadEvidence's): ReadOomReport is
// OomReportFromEvidence(ReadEvidence(text), loaded). The page reads the text in its worker
// (oom_wire.h) and builds the rest here.
OomReport OomReportFromEvidence(Evidence evidence, const Config* loaded);

}  // namespace llmmem::core
