// Reading the run (issue 33 part 1): the figures a serving runtime prints while it starts,
// and torch.cuda.memory_stats() dumped as JSON, each with the line it was read from. Pure
// text in, values out: no I/O, no exceptions; a text where nothing is recognised is an
// error that names the lines that would have been. The exact line formats and the source
// (file, tag or commit) each was read at are in kRunLineForms (run_forms.cpp); the readers
// are read_*.cpp. Sizes are powers of 2 as every one of these runtimes computes them
// (vLLM's "GB" before v0.8 divides by 2**30 too, SGLang's GB is 1024**3, Ollama's
// HumanBytes2 and llama.cpp print GiB/MiB).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace llmmem::core {

// Which runtime (or dump) printed a line.
enum class RunSource : uint8_t { kVllm, kSglang, kLlamaCpp, kOllama, kMemoryStats, kSnapshot, kCount };
const char* RunSourceId(RunSource s);    // "vllm", "sglang", "llama.cpp", "ollama", "memory_stats", "snapshot"
const char* RunSourceName(RunSource s);  // "vLLM", "SGLang", ...

// What a figure measures. The category (RunCategoryOf) decides which estimate rows it is set
// beside; the figures of kCategoryNone are context (the budget, the GPU's size, counts).
enum class MeasuredKind : uint8_t {
  kWeights,         // vLLM "Model loading took", SGLang "mem usage", llama.cpp "model buffer size"
  kKvCache,         // vLLM "Available KV cache memory", SGLang K+V size, llama.cpp KV buffer
  kActivations,     // vLLM peak activation (profiling run), llama.cpp compute buffer
  kCudaGraphs,      // vLLM "Graph capturing finished ... took", SGLang "Capture cuda graph end ... mem usage"
  kNonTorch,        // vLLM non_torch_memory: NCCL, cuBLAS workspaces, outside the torch allocator
  kWeightsNonTorch, // vLLM v0.11+ "consumed memory (weights + non-torch)": both together, context only
  kOutputBuffer,    // llama.cpp's logits output buffer
  kUnaccounted,     // llama.cpp memory breakdown "unaccounted": driver, CUDA context, other programs
  kPeakAllocated,   // memory_stats allocated_bytes.all.peak
  kPeakReserved,    // memory_stats reserved_bytes.all.peak
  kPeakActive,      // memory_stats active_bytes.all.peak
  kCurrentAllocated, kCurrentReserved,  // memory_stats *.all.current
  kTotalGpu,        // the GPU's memory as the runtime read it
  kFreeAtStart,     // free memory when the runtime started
  kBudget,          // vLLM total x gpu_memory_utilization; SGLang free after the pool
  kKvTokens,        // tokens the KV pool holds (count)
  kKvBlocks,        // vLLM "# GPU blocks" / "# CUDA blocks" (count)
  kMaxConcurrency,  // vLLM "Maximum concurrency for N tokens per request: Xx" (ratio)
  kLayersOffloaded, // llama.cpp / Ollama "offloaded N/M layers to GPU" (count N; of M in `of`)
  kAllocRetries,    // memory_stats num_alloc_retries (count)
  kOoms,            // memory_stats num_ooms (count)
  kCount
};
const char* MeasuredKindId(MeasuredKind k);    // "weights", "kv_cache", ... (JSON)
const char* MeasuredKindName(MeasuredKind k);  // "Weights", "KV cache", ...
bool IsByteFigure(MeasuredKind k);             // false for the counts and the ratio

// The estimate's side of a figure (issue 33 part 2).
enum class RunCategory : uint8_t {
  kWeights, kKvCache, kActivations, kCudaGraphs, kNonTorch, kCudaContext, kAllocatorPeak, kNone, kCount
};
const char* RunCategoryId(RunCategory c);
const char* RunCategoryName(RunCategory c);
RunCategory RunCategoryOf(MeasuredKind k);

struct MeasuredFigure {
  MeasuredKind kind = MeasuredKind::kWeights;
  RunSource source = RunSource::kVllm;
  double value = 0;       // bytes for byte figures, else the count or ratio
  double tolerance = 0;   // the printed digits' rounding, in the same unit
  double of = -1;         // "offloaded 33/33": 33; else < 0
  std::string device;     // "CUDA0", "TP1", "pid=2607784", "" when the line names none
  std::string form;       // the id of the line form read (kRunLineForms)
  size_t line = 0;        // 1-based
  std::string text;       // the line read, trimmed, at most kRunMaxLineChars
};

// Settings the log prints itself; < 0 / empty when it does not.
struct RunSettingsSeen {
  std::string model;             // vLLM "model='...'", SGLang model_path, llama.cpp general.name
  std::string version;           // "v0.10.2" as vLLM prints it
  int64_t max_model_len = -1;    // vLLM max_seq_len / "Using max model len", SGLang context_len
  double gpu_memory_utilization = -1;  // vLLM, SGLang's mem_fraction_static
  int64_t n_ctx = -1;            // llama.cpp n_ctx
  int64_t tensor_parallel = -1;  // vLLM tensor_parallel_size, SGLang tp_size
  // Where each was read (1-based line; 0: not read).
  size_t model_line = 0, version_line = 0, max_model_len_line = 0, utilization_line = 0, n_ctx_line = 0,
         tensor_parallel_line = 0;
};

struct RunLog {
  bool recognised = false;           // at least one figure
  RunSource source = RunSource::kVllm;  // the runtime most figures came from
  std::vector<MeasuredFigure> figures;  // in the order of the text
  RunSettingsSeen settings;
  std::vector<std::string> notes;    // the text as a whole: truncation, what was ignored
  std::string error;                 // when nothing was recognised: what was expected
  size_t dropped = 0;                // figures beyond kRunMaxFigures, counted only
};

constexpr size_t kRunMaxTextBytes = 8u << 20;  // the last 8 MiB are read (as the OOM reader)
constexpr size_t kRunMaxFigures = 4096;
constexpr size_t kRunMaxLineChars = 400;

// Reads every line form it knows. A torch.cuda.memory._snapshot() pickle (snapshot.h) gives
// the allocator's reserved, allocated and cached bytes at that moment. A memory_stats() dump (a JSON object whose keys are
// "allocated_bytes.all.peak" and the like) is read as such; anything else line by line.
RunLog ReadRunLog(const std::string& text);

// The last figure of one kind (what the runtime ended with) on one device: the driver's
// (lines without a worker prefix) or rank 0's (TP0) when the log has them, else the first
// device seen. Null when the log has none of that kind.
const MeasuredFigure* LastFigure(const RunLog& log, MeasuredKind k);

}  // namespace llmmem::core
