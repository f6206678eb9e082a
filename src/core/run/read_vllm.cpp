// vLLM's start-up lines, v0.6 to v0.11 (the forms and where each format string is: run_forms.cpp).
// A worker's lines carry a "(VllmWorkerProcess pid=N)" / "(Worker_TP1 pid=N)" /
// "(EngineCore_DP0 pid=N)" prefix, which names the device; the driver's have none.
#include <cmath>

#include "core/run/run_scan.h"

namespace llmmem::core::run {
namespace {

constexpr RunSource kV = RunSource::kVllm;

void Size(const std::string& line, const char* lit, MeasuredKind k, const char* form, FigureSink& sink,
          size_t from = 0) {
  double bytes = 0, tol = 0;
  if (SizeAfter(line, lit, bytes, tol, nullptr, from)) sink.Bytes(k, kV, form, bytes, tol);
}

// The settings vLLM prints: the engine's config line, the non-default args, "Using max model len".
void ReadSettings(const std::string& line, RunSettingsSeen& seen, size_t number) {
  const size_t engine = Find(line, "LLM engine (v");
  if (engine != std::string::npos && seen.version.empty()) {
    seen.version = WordAfter(line, "LLM engine (", 40);
    seen.version_line = number;
  }
  if (engine != std::string::npos || Find(line, "non-default args:") != std::string::npos) {
    std::string model = WordAfter(line, "model=");
    if (model.empty()) model = WordAfter(line, "'model': ");
    if (!model.empty() && seen.model.empty()) {
      seen.model = model;
      seen.model_line = number;
    }
    int64_t v = 0;
    if (CountAfter(line, "max_seq_len=", v) || CountAfter(line, "'max_model_len': ", v))
      SetOnce(seen.max_model_len, seen.max_model_len_line, v, number);
    if (CountAfter(line, "tensor_parallel_size=", v) || CountAfter(line, "'tensor_parallel_size': ", v))
      SetOnce(seen.tensor_parallel, seen.tensor_parallel_line, v, number);
    double u = 0;
    int dec = 0;
    if (DecimalAfter(line, "'gpu_memory_utilization': ", u, dec))
      SetOnce(seen.gpu_memory_utilization, seen.utilization_line, u, number);
  }
  int64_t len = 0;
  if (CountAfter(line, "Using max model len ", len)) SetOnce(seen.max_model_len, seen.max_model_len_line, len, number);
}

}  // namespace

void ReadVllmLine(const std::string& line, FigureSink& sink, RunSettingsSeen& seen, size_t number) {
  ReadSettings(line, seen, number);
  double bytes = 0, tol = 0;
  // Weights: v0's model_runner "Loading model weights took %.4f GB" (<= v0.7.0), then
  // "Model loading took %.4f GB and %.6f seconds" (v0 model_runner, v0.7.1+), v1's
  // gpu_model_runner "Model loading took %.4f GiB and ..." and, later, "%.2f GiB memory and".
  Size(line, "Loading model weights took", MeasuredKind::kWeights, "vllm_loading_weights", sink);
  Size(line, "Model loading took", MeasuredKind::kWeights, "vllm_model_loading", sink);
  // The v0 worker's profile (v0.6.5 table rows, then one line from v0.7: "model weights take
  // X; non_torch_memory takes Y; PyTorch activation peak memory takes Z; the rest of the
  // memory reserved for KV Cache is W.").
  Size(line, "model weights take", MeasuredKind::kWeights, "vllm_profile_weights", sink);
  if (SizeAfter(line, "non_torch_memory takes", bytes, tol) || SizeAfter(line, "non_torch_memory", bytes, tol))
    sink.Bytes(MeasuredKind::kNonTorch, kV, "vllm_profile_non_torch", bytes, tol);
  if (SizeAfter(line, "PyTorch activation peak memory takes", bytes, tol) ||
      SizeAfter(line, "PyTorch activation peak memory", bytes, tol))
    sink.Bytes(MeasuredKind::kActivations, kV, "vllm_profile_activation", bytes, tol);
  Size(line, "the rest of the memory reserved for KV Cache is", MeasuredKind::kKvCache, "vllm_profile_kv", sink);
  Size(line, "available_kv_cache_memory", MeasuredKind::kKvCache, "vllm_profile_kv", sink);
  Size(line, "total_gpu_memory (", MeasuredKind::kTotalGpu, "vllm_can_use", sink);
  if (Find(line, "total_gpu_memory (") == std::string::npos)
    Size(line, "total_gpu_memory", MeasuredKind::kTotalGpu, "vllm_profile_table", sink);
  size_t after = 0;
  if (Find(line, "the current vLLM instance can use") != std::string::npos) {
    const size_t eq = Find(line, ") = ");
    if (eq != std::string::npos) {
      Size(line, ") = ", MeasuredKind::kBudget, "vllm_can_use", sink);
    } else {
      Size(line, "the current vLLM instance can use", MeasuredKind::kBudget, "vllm_profile_table", sink);
    }
  }
  double util = 0;
  int dec = 0;
  if ((DecimalAfter(line, "gpu_memory_utilization (", util, dec) ||
       DecimalAfter(line, "gpu_memory_utilization ", util, dec)) &&
      util > 0 && util <= 1)
    SetOnce(seen.gpu_memory_utilization, seen.utilization_line, util, number);
  // v1 gpu_worker: "Available KV cache memory: %.2f GiB".
  Size(line, "Available KV cache memory:", MeasuredKind::kKvCache, "vllm_available_kv", sink);
  // The KV pool in blocks (v0 executor "# GPU blocks: %d, # CPU blocks: %d"; "# CUDA blocks"
  // / "# cuda blocks" from v0.7, the platform's device name) and in tokens (v1 "GPU KV cache size: %s tokens").
  int64_t n = 0;
  for (const char* lit : {"# GPU blocks:", "# CUDA blocks:", "# cuda blocks:"})
    if (CountAfter(line, lit, n)) sink.Count(MeasuredKind::kKvBlocks, kV, "vllm_blocks", static_cast<double>(n));
  if (CountAfter(line, "GPU KV cache size:", n, &after) && Find(line, "tokens", after) == after + 1)
    sink.Count(MeasuredKind::kKvTokens, kV, "vllm_kv_tokens", static_cast<double>(n));
  // "Maximum concurrency for %s tokens per request: %.2fx" (the N is max_model_len).
  if (CountAfter(line, "Maximum concurrency for", n, &after)) {
    double x = 0;
    if (DecimalAfter(line, "tokens per request:", x, dec, nullptr, after)) {
      sink.Count(MeasuredKind::kMaxConcurrency, kV, "vllm_concurrency", x, 0.5 * std::pow(10.0, -dec));
      SetOnce(seen.max_model_len, seen.max_model_len_line, n, number);
    }
  }
  // CUDA graphs: "Graph capturing finished in %.0f secs, took %.2f GiB" (v0.6.4+ and v1).
  if (Find(line, "Graph capturing finished") != std::string::npos)
    Size(line, ", took", MeasuredKind::kCudaGraphs, "vllm_graphs", sink);
  // v1 gpu_worker after capture (v0.10.1+, PR #21489): "Free memory on device (F/T GiB) on
  // startup. Desired GPU memory utilization is (U, B GiB). Actual usage is W GiB for weight,
  // A GiB for peak activation, N GiB for non-torch memory, and G GiB for CUDAGraph memory.
  // ... Current kv cache memory in use is K bytes." (later "GiB"; later still "W GiB for
  // consumed memory (weights + non-torch)" without the non-torch term).
  const size_t free_at = Find(line, "Free memory on device (");
  if (free_at != std::string::npos) {
    size_t p = free_at + 23;
    double free = 0, total = 0;
    int free_dec = 0, total_dec = 0;
    if (DecimalAt(line, p, free, free_dec) && p < line.size() && line[p] == '/') {
      size_t q = p + 1, r = p + 1;
      double total_bytes = 0, total_tol = 0;
      if (DecimalAt(line, r, total, total_dec) && total > 0 && SizeAt(line, q, total_bytes, total_tol)) {
        const double unit = total_bytes / total;  // "(F/T GiB)": one unit for both
        sink.Bytes(MeasuredKind::kFreeAtStart, kV, "vllm_usage", free * unit, 0.5 * std::pow(10.0, -free_dec) * unit);
        sink.Bytes(MeasuredKind::kTotalGpu, kV, "vllm_usage", total_bytes, total_tol);
      }
    }
    if (DecimalAfter(line, "Desired GPU memory utilization is (", util, dec, &after)) {
      if (util > 0 && util <= 1) SetOnce(seen.gpu_memory_utilization, seen.utilization_line, util, number);
      if (after < line.size() && line[after] == ',') {
        size_t q = after + 1;
        if (SizeAt(line, q, bytes, tol)) sink.Bytes(MeasuredKind::kBudget, kV, "vllm_usage", bytes, tol);
      }
    }
    const size_t usage = Find(line, "Actual usage is");
    size_t q = usage == std::string::npos ? std::string::npos : usage + 15;
    // Each "X GiB for <what>" after "Actual usage is", separated by ", " and ", and ".
    for (int guard = 0; q != std::string::npos && guard < 6; ++guard) {
      if (!SizeAt(line, q, bytes, tol)) break;
      const size_t what = Find(line, " for ", q);
      if (what != q) break;
      q = what + 5;
      const auto starts = [&](const char* w) { return line.compare(q, std::char_traits<char>::length(w), w) == 0; };
      if (starts("weight")) {
        sink.Bytes(MeasuredKind::kWeights, kV, "vllm_usage", bytes, tol);
      } else if (starts("consumed memory")) {
        // weights and non-torch together: kept as context, never folded into the weights.
        sink.Bytes(MeasuredKind::kWeightsNonTorch, kV, "vllm_usage", bytes, tol);
      } else if (starts("peak activation")) {
        sink.Bytes(MeasuredKind::kActivations, kV, "vllm_usage", bytes, tol);
      } else if (starts("non-torch memory")) {
        sink.Bytes(MeasuredKind::kNonTorch, kV, "vllm_usage", bytes, tol);
      } else if (starts("CUDAGraph memory")) {
        sink.Bytes(MeasuredKind::kCudaGraphs, kV, "vllm_usage", bytes, tol);
      }
      const size_t comma = Find(line, ",", q);
      const size_t stop = Find(line, ".", q);
      if (comma == std::string::npos || (stop != std::string::npos && stop < comma)) break;
      q = comma + 1;
      if (line.compare(q, 5, " and ") == 0) q += 4;
    }
    Size(line, "Current kv cache memory in use is", MeasuredKind::kKvCache, "vllm_usage", sink);
  }
}

}  // namespace llmmem::core::run
