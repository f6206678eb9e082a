// SGLang's start-up lines (python/sglang/srt: model_executor/model_runner.py,
// mem_cache/memory_pool.py, model_executor/cuda_graph_runner.py, managers/scheduler.py;
// the forms and their sources: run_forms.cpp). SGLang's "GB" is 1024**3 (memory_pool.py
// GB = 1024 * 1024 * 1024; utils.get_available_gpu_memory divides by 1 << 30). A line's
// "[2025-10-16 09:06:22 TP5]" prefix names the rank.
#include "core/run/run_scan.h"

namespace llmmem::core::run {
namespace {

constexpr RunSource kS = RunSource::kSglang;

// "TP5" / "DP0 TP0 EP0" from "[2025-10-16 09:06:22 TP5] ..."; empty when the prefix has none.
std::string RankOf(const std::string& line) {
  if (line.empty() || line[0] != '[') return "";
  const size_t close = line.find(']');
  if (close == std::string::npos || close > 80) return "";
  const std::string inside = line.substr(1, close - 1);
  // Past the date and the time.
  size_t p = inside.find(' ');
  if (p == std::string::npos) return "";
  p = inside.find(' ', p + 1);
  return p == std::string::npos ? "" : inside.substr(p + 1);
}

}  // namespace

void ReadSglangLine(const std::string& line, FigureSink& sink, RunSettingsSeen& seen, size_t number) {
  const std::string rank = RankOf(line);
  if (!rank.empty()) sink.SetDevice(rank);
  double bytes = 0, tol = 0;
  int64_t n = 0;
  size_t after = 0;
  // model_runner.load_model: "Load weight end. type=%s, dtype=%s, avail mem=%.2f GB, mem usage=%.2f GB."
  if (Find(line, "Load weight end.") != std::string::npos && SizeAfter(line, "mem usage=", bytes, tol))
    sink.Bytes(MeasuredKind::kWeights, kS, "sglang_load_weight", bytes, tol);
  // memory_pool: "KV Cache is allocated. #tokens: %d, K size: %.2f GB, V size: %.2f GB" (MHA),
  // "... #tokens: %d, KV size: %.2f GB" (MLA).
  if (Find(line, "KV Cache is allocated.") != std::string::npos) {
    if (CountAfter(line, "#tokens:", n)) sink.Count(MeasuredKind::kKvTokens, kS, "sglang_kv_allocated", static_cast<double>(n));
    double k = 0, ktol = 0, v = 0, vtol = 0;
    if (SizeAfter(line, "K size:", k, ktol, &after) && SizeAfter(line, "V size:", v, vtol, nullptr, after))
      sink.Bytes(MeasuredKind::kKvCache, kS, "sglang_kv_allocated", k + v, ktol + vtol);
    else if (SizeAfter(line, "KV size:", bytes, tol))
      sink.Bytes(MeasuredKind::kKvCache, kS, "sglang_kv_allocated", bytes, tol);
  }
  // cuda_graph_runner: "Capture cuda graph end. Time elapsed: %.2f s. mem usage=%.2f GB. avail mem=%.2f GB."
  if (Find(line, "Capture cuda graph end.") != std::string::npos && SizeAfter(line, "mem usage=", bytes, tol))
    sink.Bytes(MeasuredKind::kCudaGraphs, kS, "sglang_graph_end", bytes, tol);
  // scheduler: "max_total_num_tokens=%d, chunked_prefill_size=..., max_prefill_tokens=...,
  // max_running_requests=..., context_len=%d, available_gpu_mem=%.2f GB".
  if (CountAfter(line, "max_total_num_tokens=", n)) {
    sink.Count(MeasuredKind::kKvTokens, kS, "sglang_scheduler", static_cast<double>(n));
    int64_t len = 0;
    if (CountAfter(line, "context_len=", len)) SetOnce(seen.max_model_len, seen.max_model_len_line, len, number);
    if (SizeAfter(line, "available_gpu_mem=", bytes, tol))
      sink.Bytes(MeasuredKind::kBudget, kS, "sglang_scheduler", bytes, tol);
  }
  // server_args: "model_path='...'", "mem_fraction_static=0.8", "tp_size=4".
  if (Find(line, "server_args") != std::string::npos || Find(line, "ServerArgs(") != std::string::npos) {
    const std::string model = WordAfter(line, "model_path=");
    if (!model.empty()) SetOnce(seen.model, seen.model_line, model, number);
    double f = 0;
    int dec = 0;
    if (DecimalAfter(line, "mem_fraction_static=", f, dec) && f > 0 && f <= 1)
      SetOnce(seen.gpu_memory_utilization, seen.utilization_line, f, number);
    if (CountAfter(line, "tp_size=", n)) SetOnce(seen.tensor_parallel, seen.tensor_parallel_line, n, number);
  }
}

}  // namespace llmmem::core::run
