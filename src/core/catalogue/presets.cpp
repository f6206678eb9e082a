#include "core/catalogue/presets.h"

#include <algorithm>
#include <cstring>

#include "core/catalogue/embedded.h"
#include "core/import/hf_config.h"
#include "core/parse/json.h"
#include "core/import/quantization_config.h"
#include "core/parse/text.h"

namespace llmmem::core {

extern const EmbeddedFile kEmbeddedPresets[];

namespace {

Dtype TorchDtype(const std::string& dtype) {
  if (dtype == "bfloat16") return Dtype::kBf16;
  if (dtype == "float16") return Dtype::kFp16;
  return Dtype::kFp32;
}

// The checkpoint's storage format (see Preset::shipped_dtype): the preset file's
// checkpoint_dtype where its config.json says otherwise than the weights on the Hub (its
// checkpoint_dtype_source says how we know), else config.json's quantization_config, else its
// torch_dtype (or dtype; a multimodal wrapper's under text_config), else fp32.
Dtype ShippedDtype(const Json& preset, const Json& config) {
  if (const std::string given = StringMember(preset, "checkpoint_dtype"); !given.empty()) return TorchDtype(given);
  Dtype quantised;
  if (DtypeFromQuantConfig(config, &quantised)) return quantised;
  for (const Json* c : {&config, config.Find("text_config")}) {
    if (c == nullptr || !c->IsObject()) continue;
    std::string dtype = StringMember(*c, "torch_dtype");
    if (dtype.empty()) dtype = StringMember(*c, "dtype");
    if (!dtype.empty()) return TorchDtype(dtype);
  }
  return Dtype::kFp32;
}

Preset Load(const EmbeddedFile& file) {
  Preset p;
  p.key = file.name;
  if (p.key.size() > 5) p.key.resize(p.key.size() - 5);  // ".json"
  const JsonParseResult parsed = ParseJson(file.Text());
  if (!parsed.ok || !parsed.value.IsObject()) {
    p.diagnostics.push_back(
        {DiagId::kParse, Severity::kError, p.key, "preset file is not valid JSON: " + parsed.error});
    return p;
  }
  const Json& j = parsed.value;
  auto text = [&](const char* k) { return StringMember(j, k); };
  p.hf_id = text("id");
  p.name = text("name");
  p.family = text("family");
  if (const Json* v = j.Find("published_params"); v && v->IsNumber())
    p.published_params = static_cast<int64_t>(v->AsNumber());
  if (const Json* v = j.Find("published_counts_tied_head"); v && v->IsBool())
    p.published_counts_tied_head = v->AsBool();
  const Json* config = j.Find("config");
  if (config == nullptr) {
    p.diagnostics.push_back({DiagId::kMissingField, Severity::kError, p.key, "preset has no \"config\""});
    return p;
  }
  p.shipped_dtype = ShippedDtype(j, *config);
  HfImport imported = ImportHfConfig(*config, p.name.empty() ? p.key : p.name);
  p.ok = imported.ok;
  p.model = imported.model;
  p.model.preset = p.key;
  p.diagnostics = imported.diagnostics;
  return p;
}

std::vector<Preset> LoadAll() {
  std::vector<Preset> all;
  for (const EmbeddedFile* f = kEmbeddedPresets; f->name != nullptr; ++f) {
    const size_t n = std::strlen(f->name);
    if (n > 5 && std::strcmp(f->name + n - 5, ".json") == 0 && std::strcmp(f->name, "gpus.json") != 0) {
      all.push_back(Load(*f));
    }
  }
  // A total order (the key breaks ties): std::sort leaves equal elements in an order of its
  // own, which differed between libstdc++ (native) and libc++ (WASM) for Mistral 7B v0.1 and
  // v0.3, so the two builds listed, and drew, the presets differently.
  std::sort(all.begin(), all.end(), [](const Preset& a, const Preset& b) {
    const int64_t sa = a.model.hidden * a.model.layers, sb = b.model.hidden * b.model.layers;
    if (a.family != b.family) return a.family < b.family;
    if (sa != sb) return sa < sb;
    return a.key < b.key;
  });
  return all;
}

}  // namespace

const std::vector<Preset>& Presets() {
  static const std::vector<Preset> presets = LoadAll();
  return presets;
}

const Preset* FindPreset(const std::string& key_or_id) {
  const std::string k = AsciiLower(key_or_id);
  for (const Preset& p : Presets()) {
    if (AsciiLower(p.key) == k || AsciiLower(p.hf_id) == k) return &p;
  }
  return nullptr;
}

}  // namespace llmmem::core
