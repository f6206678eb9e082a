// What a pasted log says about GPU memory: PyTorch's out-of-memory messages in every form
// they have had, nvidia-smi's table and --query CSV, torch.cuda.memory_summary(),
// mem_get_info() and list_gpu_processes(). Each block read becomes an Observation of one
// device, with every figure as printed (bytes and the rounding of the printed digits).
// Pure text in, values out: no I/O, errors as notes. The formats and the commits they were
// read at are in kEvidenceForms (oom_forms.cpp); the readers are oom_parse_*.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llmmem::core {

enum class EvidenceForm : uint8_t {
  kTorchOom2,  // 2.1+: "GPU 0 has a total capacity of X of which Y is free. ... Of the allocated memory ..."
  kTorchOom1,  // 1.4-2.0: "(GPU 0; X total capacity; Y already allocated; Z free; W reserved in total by PyTorch)"
  kTorchOom1Cached,   // 1.0-1.3: "(GPU 0; X total capacity; Y already allocated; Z free; W cached)"
  kCudaErrorOom,      // "CUDA error: out of memory": raised outside the caching allocator, no figures
  kNvidiaSmiTable,    // nvidia-smi's default table (GPUs and processes)
  kNvidiaSmiCsv,      // nvidia-smi --query-gpu=...memory.total,memory.used... --format=csv
  kNvidiaSmiAppsCsv,  // nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
  kMemorySummary,     // torch.cuda.memory_summary()
  kMemGetInfo,        // torch.cuda.mem_get_info(): (free, total) in bytes
  kListGpuProcesses,  // torch.cuda.list_gpu_processes()
  kCount
};
constexpr int kEvidenceFormCount = static_cast<int>(EvidenceForm::kCount);

struct EvidenceFormInfo {
  EvidenceForm form;
  const char* id;       // "torch_oom_2", stable (JSON, tests)
  const char* name;     // "PyTorch 2.1+ out-of-memory message"
  const char* example;  // the shape of the text, abridged
  const char* source;   // where the format comes from: file and commit
};
const EvidenceFormInfo& FormInfo(EvidenceForm f);
// The recognised forms, one per line ("- name: example"), for "not recognised" answers.
std::string RecognisedFormsText();

// A figure as printed. PyTorch's format_size prints two decimals of KiB/MiB/GiB, so "7.48 GiB"
// is any value within 0.005 GiB; memory_summary floors to whole units; nvidia-smi whole MiB.
struct Figure {
  double bytes = -1;     // < 0: the text does not give it
  double tolerance = 0;  // the true value lies within bytes +- tolerance
  bool Known() const { return bytes >= 0; }
};

struct GpuProcess {
  std::string pid;   // as printed ("12447"); empty for "this process" without a PID
  std::string name;  // nvidia-smi's process name; empty when not printed
  Figure used;
  bool self = false;           // PyTorch's "Including non-PyTorch memory, this process has ..."
  bool self_inferred = false;  // taken for this process by its size (PIDs differ inside containers)
};

struct Observation {
  EvidenceForm form = EvidenceForm::kTorchOom2;
  std::string backend = "CUDA";  // "CUDA", "HIP" (ROCm builds), as the message names it
  int device = -1;               // the GPU index as printed; -1 when not given
  std::string gpu_name;          // nvidia-smi's name ("NVIDIA A30"); empty otherwise
  size_t line = 0;               // 1-based line of the text where the block starts
  std::string excerpt;           // the text read, whitespace collapsed, at most ~600 characters
  int repeats = 1;               // the same message seen again (tracebacks print it twice)

  Figure capacity;       // torch: total capacity (cudaMemGetInfo total); nvidia-smi: memory.total
  Figure free;           // torch: free per cudaMemGetInfo; nvidia-smi: memory.free or total - used
  Figure used;           // nvidia-smi: memory.used (all processes and the driver)
  Figure request;        // "Tried to allocate"
  Figure allocated;      // allocated by PyTorch (2.x: includes private pools)
  Figure reserved;       // reserved by PyTorch: allocated + cached but unallocated
  Figure private_pools;  // 2.x: allocated in private pools (CUDA Graphs)
  Figure allowed;        // set_per_process_memory_fraction's limit
  Figure process_total;  // 2.x: this process including non-PyTorch memory (NVML's figure)
  Figure peak_allocated, peak_reserved, non_releasable;  // memory_summary
  int oom_count = -1;                                    // memory_summary's "CUDA OOMs"
  std::vector<GpuProcess> processes;                     // other processes (and this one when identified)
  std::vector<std::string> notes;                        // what could not be read, in words

  bool IsOom() const {
    return form == EvidenceForm::kTorchOom2 || form == EvidenceForm::kTorchOom1 ||
           form == EvidenceForm::kTorchOom1Cached || form == EvidenceForm::kCudaErrorOom;
  }
};

struct Evidence {
  std::vector<Observation> observations;  // in the order of the text
  std::vector<std::string> notes;         // about the text as a whole
  bool recognised = false;                // at least one observation
  bool truncated = false;                 // the text was longer than kOomMaxTextBytes
  size_t left_out = 0;                    // observations read but not kept (kOomMaxObservations)
};

// A log pasted or dropped: its last 8 MiB are read (a run's failure is at the end of its log).
constexpr size_t kOomMaxTextBytes = 8u << 20;
// Devices (observations) kept from one text, the failures first and the latest of them; the
// rest are counted in Evidence::left_out, so the report and its JSON stay small whatever the
// log holds (8 MiB of distinct nvidia-smi rows were 70 MB of JSON).
constexpr size_t kOomMaxObservations = 64;
// Names and excerpts kept per observation, cut on a character boundary.
constexpr size_t kOomMaxNameBytes = 120;

// The text as UTF-8: UTF-16 with a byte-order mark (what PowerShell's 2> and Out-File write)
// or without one but plainly UTF-16 (every other byte NUL) is converted, a UTF-8 BOM dropped.
// *note says what was done (empty when the text was UTF-8 already).
std::string OomTextAsUtf8(const std::string& raw, std::string* note);

// Reads every block it recognises. Unknown text gives recognised == false and a note
// listing the forms that are (RecognisedFormsText).
Evidence ReadEvidence(const std::string& text);

}  // namespace llmmem::core
