#include "core/catalogue/gpus.h"

#include <cstring>

#include "core/catalogue/embedded.h"
#include "core/parse/json.h"
#include "core/parse/text.h"

namespace llmmem::core {

extern const EmbeddedFile kEmbeddedPresets[];

namespace {

std::vector<Gpu> Load() {
  std::vector<Gpu> out;
  for (const EmbeddedFile* f = kEmbeddedPresets; f->name != nullptr; ++f) {
    if (std::strcmp(f->name, "gpus.json") != 0) continue;
    const JsonParseResult parsed = ParseJson(f->Text());
    const Json* list = parsed.ok ? parsed.value.Find("gpus") : nullptr;
    if (list == nullptr || !list->IsArray()) break;
    for (const Json& row : list->AsArray()) {
      auto text = [&](const char* k) { return StringMember(row, k); };
      auto number = [&](const char* k) { return NumberMember(row, k); };
      Gpu g;
      g.key = text("key");
      g.name = text("name");
      g.vendor = text("vendor");
      g.memory_gb = number("memory_gb");
      g.memory_bytes = number("memory_bytes");
      g.cuda_bytes = number("cuda_bytes");
      g.bandwidth_gbps = number("bandwidth_gbps");
      g.bf16_tflops = number("bf16_tflops");
      g.fp8_tflops = number("fp8_tflops");
      g.int8_tops = number("int8_tops");
      g.compute_capability = number("compute_capability");
      if (const Json* u = row.Find("unified"); u != nullptr && u->IsBool()) g.unified = u->AsBool();
      g.gpu_share = g.unified ? NumberMember(row, "gpu_share", 0.75) : 1.0;
      const std::string budget = text("budget");
      g.budget = !g.unified            ? UnifiedBudget::kNone
                 : budget == "metal"   ? UnifiedBudget::kMetal
                 : budget == "amd-gtt" ? UnifiedBudget::kAmdGtt
                 : budget == "cuda"    ? UnifiedBudget::kCuda
                                       : UnifiedBudget::kNone;
      g.source = text("source");
      g.usable_note = text("usable_note");
      if (!g.key.empty() && g.memory_gb > 0) out.push_back(std::move(g));
    }
  }
  return out;
}

std::vector<Gpu>& Catalogue() {
  static std::vector<Gpu> gpus = Load();  // filled once; AddGpuSources only adds text to rows
  return gpus;
}

}  // namespace

const std::vector<Gpu>& Gpus() { return Catalogue(); }

std::string AddGpuSources(const std::string& gpus_json) {
  const JsonParseResult parsed = ParseJson(gpus_json);
  const Json* list = parsed.ok ? parsed.value.Find("gpus") : nullptr;
  if (list == nullptr || !list->IsArray()) return parsed.ok ? "gpus.json has no \"gpus\" list" : parsed.error;
  for (const Json& row : list->AsArray()) {
    const std::string key = StringMember(row, "key");
    for (Gpu& g : Catalogue()) {
      if (g.key != key) continue;
      if (g.source.empty()) g.source = StringMember(row, "source");
      if (g.usable_note.empty()) g.usable_note = StringMember(row, "usable_note");
    }
  }
  return "";
}

bool GpuSourcesKnown() {
  for (const Gpu& g : Gpus())
    if (g.source.empty()) return false;
  return true;
}

double ComputeCapability(const std::string& key) {
  thread_local std::string last_key;
  thread_local double last = 0;
  thread_local bool known = false;
  if (!known || key != last_key) {
    const Gpu* g = FindGpu(key);
    last = g != nullptr ? g->compute_capability : 0;
    last_key = key;
    known = true;
  }
  return last;
}

const Gpu* FindGpu(const std::string& key) {
  const std::string k = AsciiLower(key);
  for (const Gpu& g : Gpus()) {
    if (AsciiLower(g.key) == k || AsciiLower(g.name) == k) return &g;
  }
  return nullptr;
}

}  // namespace llmmem::core
