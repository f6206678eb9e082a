#include "core/gpus.h"

#include <cctype>
#include <cstring>

#include "core/embedded.h"
#include "core/json.h"

namespace llmmem::core {

extern const EmbeddedFile kEmbeddedPresets[];

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<Gpu> Load() {
  std::vector<Gpu> out;
  for (const EmbeddedFile* f = kEmbeddedPresets; f->name != nullptr; ++f) {
    if (std::strcmp(f->name, "gpus.json") != 0) continue;
    const JsonParseResult parsed = ParseJson(f->Text());
    const Json* list = parsed.ok ? parsed.value.Find("gpus") : nullptr;
    if (list == nullptr || !list->IsArray()) break;
    for (const Json& row : list->AsArray()) {
      auto text = [&](const char* k) {
        const Json* v = row.Find(k);
        return v && v->IsString() ? v->AsString() : std::string();
      };
      auto number = [&](const char* k) {
        const Json* v = row.Find(k);
        return v && v->IsNumber() ? v->AsNumber() : 0.0;
      };
      Gpu g;
      g.key = text("key");
      g.name = text("name");
      g.vendor = text("vendor");
      g.memory_gb = number("memory_gb");
      g.memory_bytes = number("memory_bytes");
      g.bandwidth_gbps = number("bandwidth_gbps");
      g.bf16_tflops = number("bf16_tflops");
      g.source = text("source");
      g.usable_note = text("usable_note");
      if (!g.key.empty() && g.memory_gb > 0) out.push_back(std::move(g));
    }
  }
  return out;
}

}  // namespace

const std::vector<Gpu>& Gpus() {
  static const std::vector<Gpu> gpus = Load();
  return gpus;
}

const Gpu* FindGpu(const std::string& key) {
  const std::string k = Lower(key);
  for (const Gpu& g : Gpus()) {
    if (Lower(g.key) == k || Lower(g.name) == k) return &g;
  }
  return nullptr;
}

}  // namespace llmmem::core
