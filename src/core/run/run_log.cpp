// ReadRunLog (run_log.h): the text bounded and made UTF-8, then read as a memory_stats() dump
// or line by line by every runtime's reader (read_*.cpp).
#include "core/run/run_log.h"

#include <algorithm>

#include "core/base/units.h"
#include "core/oom/oom_evidence.h"
#include "core/oom/oom_scan.h"
#include "core/run/run_scan.h"
#include "core/run/snapshot.h"

namespace llmmem::core {
namespace {

struct KindInfo {
  MeasuredKind kind;
  const char* id;
  const char* name;
  RunCategory category;
  bool bytes;
};
// One row per kind: its JSON id, its name, the estimate's side it is set beside.
constexpr KindInfo kKinds[] = {
    {MeasuredKind::kWeights, "weights", "Weights", RunCategory::kWeights, true},
    {MeasuredKind::kKvCache, "kv_cache", "KV cache", RunCategory::kKvCache, true},
    {MeasuredKind::kActivations, "activations", "Activations / compute buffer", RunCategory::kActivations, true},
    {MeasuredKind::kCudaGraphs, "cuda_graphs", "CUDA graphs", RunCategory::kCudaGraphs, true},
    {MeasuredKind::kNonTorch, "non_torch", "Non-torch memory (NCCL, cuBLAS, ...)", RunCategory::kNonTorch, true},
    {MeasuredKind::kWeightsNonTorch, "weights_and_non_torch", "Weights and non-torch memory together",
     RunCategory::kNone, true},
    {MeasuredKind::kOutputBuffer, "output_buffer", "Output (logits) buffer", RunCategory::kActivations, true},
    {MeasuredKind::kUnaccounted, "unaccounted", "Unaccounted (driver, CUDA context, other programs)",
     RunCategory::kCudaContext, true},
    {MeasuredKind::kPeakAllocated, "peak_allocated", "Peak allocated (max_memory_allocated)",
     RunCategory::kAllocatorPeak, true},
    {MeasuredKind::kPeakReserved, "peak_reserved", "Peak reserved (max_memory_reserved)", RunCategory::kAllocatorPeak,
     true},
    {MeasuredKind::kPeakActive, "peak_active", "Peak active", RunCategory::kNone, true},
    {MeasuredKind::kCurrentAllocated, "current_allocated", "Allocated now", RunCategory::kNone, true},
    {MeasuredKind::kCurrentReserved, "current_reserved", "Reserved now", RunCategory::kNone, true},
    {MeasuredKind::kTotalGpu, "total_gpu", "GPU memory (as the runtime read it)", RunCategory::kNone, true},
    {MeasuredKind::kFreeAtStart, "free_at_start", "Free at start", RunCategory::kNone, true},
    {MeasuredKind::kBudget, "budget", "Budget (memory the runtime may fill)", RunCategory::kNone, true},
    {MeasuredKind::kKvTokens, "kv_tokens", "KV pool (tokens)", RunCategory::kNone, false},
    {MeasuredKind::kKvBlocks, "kv_blocks", "KV pool (blocks)", RunCategory::kNone, false},
    {MeasuredKind::kMaxConcurrency, "max_concurrency", "Maximum concurrency", RunCategory::kNone, false},
    {MeasuredKind::kLayersOffloaded, "layers_offloaded", "Layers on the GPU", RunCategory::kNone, false},
    {MeasuredKind::kAllocRetries, "alloc_retries", "Allocation retries (cache flushes)", RunCategory::kNone, false},
    {MeasuredKind::kOoms, "ooms", "Out-of-memory errors", RunCategory::kNone, false},
};
static_assert(sizeof(kKinds) / sizeof(kKinds[0]) == static_cast<size_t>(MeasuredKind::kCount), "one row per kind");

const KindInfo& Info(MeasuredKind k) {
  for (const KindInfo& i : kKinds)
    if (i.kind == k) return i;
  return kKinds[0];
}

// vLLM's worker prefix "(VllmWorkerProcess pid=521) " / "(EngineCore_DP0 pid=3021) ".
std::string VllmPrefix(const std::string& line) {
  size_t p = 0;
  while (p < line.size() && line[p] == ' ') ++p;
  if (p >= line.size() || line[p] != '(') return "";
  const size_t close = line.find(')', p);
  if (close == std::string::npos || close > p + 60) return "";
  const std::string inside = line.substr(p + 1, close - p - 1);
  return inside.find("pid=") != std::string::npos ? inside : "";
}

}  // namespace

const char* RunSourceId(RunSource s) {
  switch (s) {
    case RunSource::kVllm: return "vllm";
    case RunSource::kSglang: return "sglang";
    case RunSource::kLlamaCpp: return "llama.cpp";
    case RunSource::kOllama: return "ollama";
    case RunSource::kMemoryStats: return "memory_stats";
    case RunSource::kSnapshot: return "snapshot";
    default: return "unknown";
  }
}
const char* RunSourceName(RunSource s) {
  switch (s) {
    case RunSource::kVllm: return "vLLM";
    case RunSource::kSglang: return "SGLang";
    case RunSource::kLlamaCpp: return "llama.cpp";
    case RunSource::kOllama: return "Ollama";
    case RunSource::kMemoryStats: return "torch.cuda.memory_stats()";
    case RunSource::kSnapshot: return "torch.cuda.memory._snapshot() pickle";
    default: return "unknown";
  }
}

const char* MeasuredKindId(MeasuredKind k) { return Info(k).id; }
const char* MeasuredKindName(MeasuredKind k) { return Info(k).name; }
bool IsByteFigure(MeasuredKind k) { return Info(k).bytes; }
RunCategory RunCategoryOf(MeasuredKind k) { return Info(k).category; }

const char* RunCategoryId(RunCategory c) {
  switch (c) {
    case RunCategory::kWeights: return "weights";
    case RunCategory::kKvCache: return "kv_cache";
    case RunCategory::kActivations: return "activations";
    case RunCategory::kCudaGraphs: return "cuda_graphs";
    case RunCategory::kNonTorch: return "non_torch";
    case RunCategory::kCudaContext: return "cuda_context";
    case RunCategory::kAllocatorPeak: return "allocator_peak";
    default: return "none";
  }
}
const char* RunCategoryName(RunCategory c) {
  switch (c) {
    case RunCategory::kWeights: return "Weights";
    case RunCategory::kKvCache: return "KV cache";
    case RunCategory::kActivations: return "Activations and workspaces";
    case RunCategory::kCudaGraphs: return "CUDA graphs";
    case RunCategory::kNonTorch: return "Non-torch memory (NCCL, cuBLAS, ...)";
    case RunCategory::kCudaContext: return "CUDA context and memory outside the runtime";
    case RunCategory::kAllocatorPeak: return "Allocator peak";
    default: return "Context";
  }
}

namespace {

// A snapshot pickle (PROTO first) or a gzip of one: its figures at the moment it was taken.
bool ReadSnapshotInto(const std::string& bytes, RunLog& log) {
  if (bytes.size() < 2) return false;
  const unsigned char b0 = static_cast<unsigned char>(bytes[0]), b1 = static_cast<unsigned char>(bytes[1]);
  if (!(b0 == 0x80 && b1 >= 2 && b1 <= 5) && !(b0 == 0x1f && b1 == 0x8b)) return false;
  log.source = RunSource::kSnapshot;
  const SnapshotSummary s = ReadSnapshot(bytes);
  if (!s.ok) {
    log.error = s.error;
    return true;
  }
  run::FigureSink sink(log);
  sink.SetLine(1, std::to_string(s.segments) + " segments, " + std::to_string(s.blocks) + " blocks, " +
                      std::to_string(s.trace_entries) + " trace entries",
               "");
  const char* f = "torch_snapshot";
  sink.Bytes(MeasuredKind::kCurrentReserved, RunSource::kSnapshot, f, s.reserved_bytes, 0);
  sink.Bytes(MeasuredKind::kCurrentAllocated, RunSource::kSnapshot, f, s.allocated_bytes, 0);
  // The trace's high-water mark (a lower bound of max_memory_allocated: the history may have
  // begun after the peak) and what held memory there, by each allocation's frames.
  if (s.traced && s.trace_peak_bytes > 0) {
    sink.Bytes(MeasuredKind::kPeakAllocated, RunSource::kSnapshot, "torch_snapshot_trace", s.trace_peak_bytes, 0);
    std::string causes;
    for (const SnapshotCause& c : s.peak_causes) {
      causes += (causes.empty() ? "" : "; ") + c.label + " " + FormatBytesBoth(c.bytes);
      if (c.high_water > c.bytes) causes += " (its own high-water " + FormatBytesBoth(c.high_water) + ")";
      if (!c.frame.empty()) causes += " [" + c.frame + "]";
    }
    log.notes.push_back("the trace of device " + std::to_string(s.trace_device) + " peaks at " +
                        FormatBytesBoth(s.trace_peak_bytes) + " after entry " + std::to_string(s.trace_peak_entry + 1) +
                        " (from " + FormatBytesBoth(s.trace_start_bytes) + " when the history began); held there, by "
                        "stack frame: " + causes);
  }
  log.notes.push_back("the snapshot's cached blocks: " + std::to_string(s.blocks_inactive) + " (" +
                      std::to_string(static_cast<int64_t>(s.inactive_bytes)) + " bytes; the largest " +
                      std::to_string(static_cast<int64_t>(s.largest_inactive_block)) + ")" +
                      (s.trace_ooms > 0 ? "; its trace records " + std::to_string(s.trace_ooms) + " OOM(s)" : ""));
  log.recognised = !log.figures.empty();
  return true;
}

}  // namespace

RunLog ReadRunLog(const std::string& input) {
  RunLog log;
  if (ReadSnapshotInto(input, log)) return log;
  std::string note;
  std::string text = OomTextAsUtf8(input, &note);
  if (!note.empty()) log.notes.push_back("the text " + note);
  if (text.size() > kRunMaxTextBytes) {
    text = text.substr(text.size() - kRunMaxTextBytes);
    log.notes.push_back("the text is longer than 8 MiB: its last 8 MiB were read");
  }
  if (run::ReadMemoryStatsJson(text, log)) {
    log.source = RunSource::kMemoryStats;
    log.recognised = !log.figures.empty();
    if (!log.recognised) log.error = "the memory_stats() dump holds none of its peak or counter keys as numbers";
    return log;
  }
  run::FigureSink sink(log);
  const std::vector<std::string> lines = oom::SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    // A line of more than 64 KiB is read to there (vLLM's config line is a few KiB).
    const std::string line = lines[i].size() > (64u << 10) ? lines[i].substr(0, 64u << 10) : lines[i];
    if (line.empty()) continue;
    const std::string prefix = VllmPrefix(line);
    sink.SetLine(i + 1, line, prefix);
    run::ReadVllmLine(line, sink, log.settings, i + 1);
    sink.SetDevice(prefix);
    run::ReadSglangLine(line, sink, log.settings, i + 1);
    sink.SetDevice(prefix);
    run::ReadLlamaCppLine(line, sink, log.settings, i + 1);
    sink.SetDevice(prefix);
    run::ReadOllamaLine(line, sink, log.settings, i + 1);
  }
  log.recognised = !log.figures.empty();
  if (log.dropped > 0)
    log.notes.push_back(std::to_string(log.dropped) + " more figures were read than the " +
                        std::to_string(kRunMaxFigures) + " kept; the first ones are shown");
  if (!log.recognised) {
    log.error =
        "nothing in the text was recognised: no start-up line of vLLM, SGLang, llama.cpp or Ollama and no "
        "torch.cuda.memory_stats() JSON. Expected lines like:\n" +
        run::ExpectedFormsText();
    return log;
  }
  // The runtime most figures came from (Ollama's lines win over the llama.cpp lines its runner prints).
  int counts[static_cast<int>(RunSource::kCount)] = {};
  for (const MeasuredFigure& f : log.figures) ++counts[static_cast<int>(f.source)];
  int best = 0;
  for (int s = 1; s < static_cast<int>(RunSource::kCount); ++s)
    if (counts[s] > counts[best]) best = s;
  if (counts[static_cast<int>(RunSource::kOllama)] > 0) best = static_cast<int>(RunSource::kOllama);
  log.source = static_cast<RunSource>(best);
  return log;
}

const MeasuredFigure* LastFigure(const RunLog& log, MeasuredKind k) {
  // The device: the driver's (no prefix) or rank 0's when the log has them, else the first seen.
  const std::string* device = nullptr;
  for (const MeasuredFigure& f : log.figures) {
    if (f.kind != k) continue;
    if (f.device.empty() || f.device.find("TP0") != std::string::npos) {
      device = &f.device;
      break;
    }
    if (device == nullptr) device = &f.device;
  }
  const MeasuredFigure* last = nullptr;
  for (const MeasuredFigure& f : log.figures)
    if (f.kind == k && f.device == *device) last = &f;
  return last;
}

}  // namespace llmmem::core
