// llama.cpp / llama-server start-up lines (src/llama-model.cpp load_tensors, src/llama-context.cpp,
// src/llama-kv-cache*.cpp, common's memory breakdown; the forms and their sources: run_forms.cpp).
// The buffer lines name their device ("CUDA0", "ROCm1", "Metal", "CPU_Mapped", "CUDA_Host").
// Ollama's runner printed the same lines before v0.12, so they are read in its logs too.
#include <cmath>
#include <sstream>

#include "core/oom/oom_scan.h"
#include "core/run/run_scan.h"

namespace llmmem::core::run {
namespace {

constexpr RunSource kL = RunSource::kLlamaCpp;

std::vector<std::string> Words(const std::string& s) {
  std::vector<std::string> w;
  std::istringstream in(s);
  std::string t;
  while (in >> t && w.size() < 64) w.push_back(t);
  return w;
}

// "<device> <what> buffer size = X MiB": model (load_tensors, b4000+), KV, compute, output;
// "llm_load_tensors:      CUDA0 buffer size = X MiB" before the "model" word (to b3900s).
void ReadBufferLine(const std::string& line, FigureSink& sink) {
  const size_t at = Find(line, " buffer size =");
  if (at == std::string::npos) return;
  double bytes = 0, tol = 0;
  size_t p = at + 14;
  if (!SizeAt(line, p, bytes, tol)) return;
  std::string head = line.substr(0, at);
  const size_t colon = head.rfind(':');
  if (colon != std::string::npos) head = head.substr(colon + 1);
  const std::vector<std::string> w = Words(head);
  if (w.empty()) return;
  const std::string& last = w.back();
  const std::string device = w.size() >= 2 ? w[w.size() - 2] : "";
  if (last == "model") {
    sink.SetDevice(device);
    sink.Bytes(MeasuredKind::kWeights, kL, "llama_model_buffer", bytes, tol);
  } else if (last == "KV" || last == "RS") {  // RS: the recurrent state of Mamba-like layers
    sink.SetDevice(device);
    sink.Bytes(MeasuredKind::kKvCache, kL, "llama_kv_buffer", bytes, tol);
  } else if (last == "compute") {
    sink.SetDevice(device);
    sink.Bytes(MeasuredKind::kActivations, kL, "llama_compute_buffer", bytes, tol);
  } else if (last == "output") {
    sink.SetDevice(device);
    sink.Bytes(MeasuredKind::kOutputBuffer, kL, "llama_output_buffer", bytes, tol);
  } else if (w.size() == 1 && (Find(line, "load_tensors:") != std::string::npos)) {
    sink.SetDevice(last);
    sink.Bytes(MeasuredKind::kWeights, kL, "llama_model_buffer", bytes, tol);
  }
}

// The KV cache as a whole: "llama_kv_cache_unified: size = 256.00 MiB (4096 cells, 32 layers,
// 1/1 seqs), K (f16): 128.00 MiB, V (f16): 128.00 MiB" (b5500s+; "llama_kv_cache:" from b6300s)
// and before it "KV self size  = X MiB, K (f16): ..., V (f16): ...". Summed over every device.
void ReadKvSizeLine(const std::string& line, FigureSink& sink) {
  double bytes = 0, tol = 0;
  if (SizeAfter(line, "KV self size  =", bytes, tol) || SizeAfter(line, "KV self size =", bytes, tol)) {
    sink.SetDevice("");
    sink.Bytes(MeasuredKind::kKvCache, kL, "llama_kv_total", bytes, tol);
    return;
  }
  const size_t kv = Find(line, "llama_kv_cache");
  if (kv == std::string::npos) return;
  size_t after = 0;
  if (!SizeAfter(line, ": size =", bytes, tol, &after, kv)) return;
  if (Find(line, "K (", after) == std::string::npos) return;
  sink.SetDevice("");
  sink.Bytes(MeasuredKind::kKvCache, kL, "llama_kv_total", bytes, tol);
  int64_t cells = 0;
  if (line.size() > after && CountAfter(line, "(", cells, nullptr, after) && Find(line, "cells", after) != std::string::npos)
    sink.Count(MeasuredKind::kKvTokens, kL, "llama_kv_total", static_cast<double>(cells));
}

// One integer of the breakdown table (MiB, may be negative for "unaccounted").
bool Int(const std::string& s, size_t& p, double& v) {
  oom::SkipSpaces(s, p);
  bool neg = false;
  if (p < s.size() && s[p] == '-') {
    neg = true;
    ++p;
  }
  int64_t n = 0;
  if (!oom::ReadInt(s, p, n, 9)) return false;
  v = neg ? -static_cast<double>(n) : static_cast<double>(n);
  return true;
}

bool Lit(const std::string& s, size_t& p, char c) {
  oom::SkipSpaces(s, p);
  if (p >= s.size() || s[p] != c) return false;
  ++p;
  return true;
}

// common_memory_breakdown_print / llama_memory_breakdown_print (b6400s+, PR #15860):
// "|   - CUDA0 (RTX 4090)   | 24080 = 17340 + ( 6246 =  4403 +    1280 +     562) +   493 |"
//   total = free + (self = model + context + compute) + unaccounted, in MiB;
// "|   - Host               |                  527 =   410 +       0 +     117                |".
void ReadBreakdownLine(const std::string& line, FigureSink& sink) {
  if (Find(line, "memory_breakdown") == std::string::npos && Find(line, "print_memory_breakdown") == std::string::npos)
    return;
  const size_t dash = Find(line, "- ");
  if (dash == std::string::npos) return;
  size_t p = dash + 2;
  size_t end = p;
  while (end < line.size() && line[end] != '|' && line[end] != '(' && line[end] != ':') ++end;
  const std::string device = oom::Trim(line.substr(p, end - p));
  if (device.empty() || device.size() > 40) return;
  // Past the device's name and "(RTX 4090)", to the first figure.
  p = end;
  if (p < line.size() && line[p] == '(') {
    const size_t close = line.find(')', p);
    if (close == std::string::npos) return;
    p = close + 1;
  }
  oom::SkipSpaces(line, p);
  if (p < line.size() && (line[p] == '|' || line[p] == ':')) ++p;
  constexpr double kMiB = 1048576.0;
  constexpr double kTol = 0.5 * kMiB;  // whole MiB printed
  double a = 0, b = 0;
  if (!Int(line, p, a) || !Lit(line, p, '=')) return;
  if (!Int(line, p, b) || !Lit(line, p, '+')) return;
  sink.SetDevice(device);
  size_t q = p;
  if (Lit(line, q, '(')) {  // a device: total = free + (self = model + context + compute) + unaccounted
    double self = 0, model = 0, context = 0, compute = 0, unaccounted = 0;
    p = q;
    if (!Int(line, p, self) || !Lit(line, p, '=') || !Int(line, p, model) || !Lit(line, p, '+') ||
        !Int(line, p, context) || !Lit(line, p, '+') || !Int(line, p, compute) || !Lit(line, p, ')'))
      return;
    const bool has_unaccounted = Lit(line, p, '+') && Int(line, p, unaccounted);
    sink.Bytes(MeasuredKind::kTotalGpu, kL, "llama_memory_breakdown", a * kMiB, kTol);
    sink.Bytes(MeasuredKind::kFreeAtStart, kL, "llama_memory_breakdown", b * kMiB, kTol);
    sink.Bytes(MeasuredKind::kWeights, kL, "llama_memory_breakdown", model * kMiB, kTol);
    sink.Bytes(MeasuredKind::kKvCache, kL, "llama_memory_breakdown", context * kMiB, kTol);
    sink.Bytes(MeasuredKind::kActivations, kL, "llama_memory_breakdown", compute * kMiB, kTol);
    // Negative when other programs freed memory since the free figure was read: not a size.
    if (has_unaccounted && unaccounted >= 0)
      sink.Bytes(MeasuredKind::kUnaccounted, kL, "llama_memory_breakdown", unaccounted * kMiB, kTol);
  } else {  // the host: self = model + context + compute
    double context = 0, compute = 0;
    if (!Int(line, p, context) || !Lit(line, p, '+') || !Int(line, p, compute)) return;
    sink.Bytes(MeasuredKind::kWeights, kL, "llama_memory_breakdown", b * kMiB, kTol);
    sink.Bytes(MeasuredKind::kKvCache, kL, "llama_memory_breakdown", context * kMiB, kTol);
    sink.Bytes(MeasuredKind::kActivations, kL, "llama_memory_breakdown", compute * kMiB, kTol);
  }
}

}  // namespace

// "offloaded N/M layers to GPU": llama.cpp's load_tensors, and Ollama's own engine
// (ml/backend/ggml/ggml.go) since v0.12.
bool ReadOffloaded(const std::string& line, FigureSink& sink, RunSource source) {
  int64_t n = 0, m = 0;
  size_t after = 0;
  if (!CountAfter(line, "offloaded ", n, &after) || after >= line.size() || line[after] != '/') return false;
  ++after;
  if (!CountAt(line, after, m) || Find(line, " layers to GPU", after) != after) return false;
  sink.Count(MeasuredKind::kLayersOffloaded, source, source == RunSource::kOllama ? "ollama_offloaded" : "llama_offloaded",
             static_cast<double>(n), 0, static_cast<double>(m));
  return true;
}

void ReadLlamaCppLine(const std::string& line, FigureSink& sink, RunSettingsSeen& seen, size_t number) {
  ReadBufferLine(line, sink);
  ReadKvSizeLine(line, sink);
  ReadBreakdownLine(line, sink);
  if (Find(line, "msg=") == std::string::npos) {
    sink.SetDevice("");
    ReadOffloaded(line, sink, kL);
  }
  // "llama_context: n_ctx         = 32768" (llama_new_context_with_model before b5000s).
  int64_t n = 0;
  if (Find(line, "llama_context:") != std::string::npos || Find(line, "llama_new_context_with_model:") != std::string::npos) {
    const size_t at = Find(line, "n_ctx ");
    if (at != std::string::npos) {
      size_t p = line.find('=', at);
      if (p != std::string::npos && p < at + 20) {
        ++p;
        if (CountAt(line, p, n)) SetOnce(seen.n_ctx, seen.n_ctx_line, n, number);
      }
    }
  }
  // "llama_model_loader: - kv   2:   general.name   str   = Meta Llama 3.1 8B Instruct".
  const size_t name = Find(line, "general.name");
  if (name != std::string::npos) {
    const size_t eq = line.find("= ", name);
    if (eq != std::string::npos && eq < name + 60) {
      std::string v = oom::Trim(line.substr(eq + 2, 120));
      if (!v.empty()) SetOnce(seen.model, seen.model_line, v, number);
    }
  }
}

}  // namespace llmmem::core::run
