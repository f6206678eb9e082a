// torch.cuda.memory_stats() dumped as JSON (json.dumps(torch.cuda.memory_stats())): a flat
// object of "<stat>.<pool>.<metric>" keys (torch/cuda/memory.py memory_stats docstring,
// pytorch v2.5.0: allocated_bytes / reserved_bytes / active_bytes . all|small_pool|large_pool
// . current|peak|allocated|freed) plus the counters num_alloc_retries and num_ooms.
#include <algorithm>

#include "core/parse/json.h"
#include "core/run/run_scan.h"

namespace llmmem::core::run {
namespace {

struct StatKey {
  const char* key;
  MeasuredKind kind;
};
constexpr StatKey kStatKeys[] = {
    {"allocated_bytes.all.peak", MeasuredKind::kPeakAllocated},
    {"reserved_bytes.all.peak", MeasuredKind::kPeakReserved},
    {"active_bytes.all.peak", MeasuredKind::kPeakActive},
    {"allocated_bytes.all.current", MeasuredKind::kCurrentAllocated},
    {"reserved_bytes.all.current", MeasuredKind::kCurrentReserved},
    {"num_alloc_retries", MeasuredKind::kAllocRetries},
    {"num_ooms", MeasuredKind::kOoms},
};

size_t LineOf(const std::string& text, size_t pos) {
  size_t line = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

}  // namespace

bool ReadMemoryStatsJson(const std::string& text, RunLog& log) {
  size_t first = 0;
  while (first < text.size() && (text[first] == ' ' || text[first] == '\n' || text[first] == '\r' || text[first] == '\t'))
    ++first;
  if (first >= text.size() || text[first] != '{') return false;
  JsonLimits limits;
  limits.what = "a memory_stats() dump";
  const JsonParseResult parsed = ParseJson(text, limits);
  if (!parsed.ok || !parsed.value.IsObject()) return false;
  bool any = false;
  for (const StatKey& k : kStatKeys) any |= parsed.value.Find(k.key) != nullptr;
  if (!any) return false;
  FigureSink sink(log);
  for (const StatKey& k : kStatKeys) {
    const Json* v = parsed.value.Find(k.key);
    if (v == nullptr) continue;
    const std::string quoted = std::string("\"") + k.key + "\"";
    const size_t at = text.find(quoted);
    const size_t line_number = at == std::string::npos ? 1 : LineOf(text, at);
    // The key and its value as written ("\"num_ooms\": 0"), for the excerpt.
    std::string excerpt = k.key;
    if (at != std::string::npos) {
      const size_t stop = text.find_first_of(",}\n", at);
      excerpt = text.substr(at, std::min((stop == std::string::npos ? text.size() : stop) - at, size_t{120}));
    }
    sink.SetLine(line_number, excerpt, "");
    if (!v->IsNumber()) {
      log.notes.push_back(std::string("memory_stats: \"") + k.key + "\" is not a number; not read");
      continue;
    }
    sink.Count(k.kind, RunSource::kMemoryStats, "torch_memory_stats", v->AsNumber());
  }
  return true;
}

}  // namespace llmmem::core::run
