// Ollama's server log (Go slog's text handler: key=value, values with spaces quoted).
//  - To v0.11, llm/server.go logs its plan before starting the runner: msg="offload to cuda"
//    (v0.3-v0.5) / msg=offload (v0.6-v0.11) with layers.model, layers.offload and
//    memory.required.{full,partial,kv}, memory.weights.total, memory.graph.{full,partial}
//    (llm/memory.go MemoryEstimate.LogValue, v0.6.8). These are Ollama's own estimate, not
//    what was allocated: form "ollama_offload_plan".
//  - Its own engine (v0.12+) logs what the backend allocated: msg="model weights" /
//    "kv cache" / "compute graph" device=CUDA0 size="4.0 GiB", msg="total memory"
//    (ml/device.go BackendMemory.Log, v0.12.11 and v0.33.0-rc2), and msg="offloaded N/M
//    layers to GPU" (ml/backend/ggml/ggml.go); v0.6-v0.11's engine logged the same sizes as
//    msg="model weights" buffer=CUDA0 / msg="compute graph" backend=CUDA0 (ollama/ollama
//    PR #11090's pasted log). Sizes are format.HumanBytes2: %.1f GiB/MiB.
#include "core/run/run_scan.h"

namespace llmmem::core::run {
namespace {

constexpr RunSource kO = RunSource::kOllama;

// The value of ` key=` (quoted or bare), empty when absent.
std::string Value(const std::string& line, const char* key) {
  std::string k = std::string(" ") + key + "=";
  size_t at = line.find(k);
  if (at == std::string::npos) return "";
  size_t p = at + k.size();
  std::string out;
  if (p < line.size() && line[p] == '"') {
    ++p;
    while (p < line.size() && line[p] != '"' && out.size() < 200) out += line[p++];
  } else {
    while (p < line.size() && line[p] != ' ' && out.size() < 200) out += line[p++];
  }
  return out;
}

void SizeValue(const std::string& line, const char* key, MeasuredKind k, const char* form, FigureSink& sink) {
  std::string v = Value(line, key);
  if (!v.empty() && v[0] == '[') v = v.substr(1);  // memory.available="[23.3 GiB]": the first GPU's
  size_t p = 0;
  double bytes = 0, tol = 0;
  if (SizeAt(v, p, bytes, tol)) sink.Bytes(k, kO, form, bytes, tol);
}

}  // namespace

void ReadOllamaLine(const std::string& line, FigureSink& sink, RunSettingsSeen& seen, size_t number) {
  if (Find(line, "msg=") == std::string::npos) return;
  const std::string msg = Value(line, "msg");
  // The device: device= (v0.12+ BackendMemory.Log), buffer= / backend= (v0.6-v0.11 ggml.go).
  std::string device = Value(line, "device");
  if (device.empty()) device = Value(line, "buffer");
  if (device.empty()) device = Value(line, "backend");
  sink.SetDevice(device);
  if (msg == "offload" || msg.compare(0, 11, "offload to ") == 0) {
    const char* f = "ollama_offload_plan";
    int64_t layers = 0, offload = 0;
    size_t p = 0, q = 0;
    const std::string lm = Value(line, "layers.model"), lo = Value(line, "layers.offload");
    if (CountAt(lm, p, layers) && CountAt(lo, q, offload))
      sink.Count(MeasuredKind::kLayersOffloaded, kO, f, static_cast<double>(offload), 0, static_cast<double>(layers));
    SizeValue(line, "memory.weights.total", MeasuredKind::kWeights, f, sink);
    SizeValue(line, "memory.required.kv", MeasuredKind::kKvCache, f, sink);
    // The graph of the placement chosen: "full" when every layer is on the GPU, else "partial".
    SizeValue(line, offload >= layers && layers > 0 ? "memory.graph.full" : "memory.graph.partial",
              MeasuredKind::kActivations, f, sink);
    SizeValue(line, "memory.available", MeasuredKind::kFreeAtStart, f, sink);
    return;
  }
  const char* f = "ollama_backend_memory";
  if (msg == "model weights") SizeValue(line, "size", MeasuredKind::kWeights, f, sink);
  if (msg == "kv cache") SizeValue(line, "size", MeasuredKind::kKvCache, f, sink);
  if (msg == "compute graph") SizeValue(line, "size", MeasuredKind::kActivations, f, sink);
  if (msg.compare(0, 10, "offloaded ") == 0) ReadOffloaded(" " + msg, sink, kO);
  (void)seen;
  (void)number;
}

}  // namespace llmmem::core::run
