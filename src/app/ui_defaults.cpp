// The UI's defaults; see ui_defaults.h.
#include "app/ui_defaults.h"

#include "core/config/config_json.h"
#include "core/config/stacks.h"
#include "core/catalogue/gpus.h"

namespace llmmem::app {

core::Config FirstScreenConfig() {
  core::Config c = core::DefaultConfig();
  c.mode = core::Mode::kInference;
  if (const core::Gpu* g = core::FindGpu("RTX-4090-24GB"); g != nullptr) {
    core::SelectGpu(c, *g);
  }
  if (const core::Preset* p = core::FindPreset(c.model.preset); p != nullptr) c.dtype = PresetDtype(*p, c.mode);
  return c;
}

core::Dtype PresetDtype(const core::Preset& p, core::Mode mode) {
  if (mode == core::Mode::kInference) return p.shipped_dtype;
  // Training keeps 16-bit weights: the checkpoint's when it is 16-bit, else bf16.
  return p.shipped_dtype == core::Dtype::kFp16 ? core::Dtype::kFp16 : core::Dtype::kBf16;
}

void SwitchMode(core::Config& c, core::Mode mode) {
  const core::Mode before = c.mode;
  c.mode = mode;
  // What the mode starts with is the training program's (core/config/stacks.h), as in the CLI,
  // JSON and links: settings the user changed stay.
  core::FollowStack(c, c.stack, before);
  const core::Preset* p = c.model.preset.empty() ? nullptr : core::FindPreset(c.model.preset);
  if (p != nullptr && p->ok) {
    c.dtype = PresetDtype(*p, mode);
  } else if (mode != core::Mode::kInference && !core::Info(c.dtype).trainable) {
    // QLoRA's dtype is its adapters' precision; the core stores QLoRA's base in NF4 itself.
    c.dtype = core::Dtype::kBf16;
  }
}

void PickPreset(core::Config& c, const core::Preset& p) {
  c.model = p.model;
  c.dtype = PresetDtype(p, c.mode);
  core::Diagnostics notes;
  core::StartAtModelContext(c, notes);
}

bool ApplyLinkDefaults(core::Config& c, const std::string& query) {
  auto has_key = [&](const char* key) {
    const std::string k = std::string(key) + "=";
    for (size_t i = 0; i < query.size();) {
      size_t j = query.find('&', i);
      if (j == std::string::npos) j = query.size();
      if (query.compare(i, k.size(), k) == 0) return true;
      i = j + 1;
    }
    return false;
  };
  if (!has_key("model") || has_key("dtype")) return false;
  const core::Preset* p = core::FindPreset(c.model.preset);
  if (p == nullptr || !p->ok) return false;
  const core::Dtype d = PresetDtype(*p, c.mode);
  if (d == c.dtype) return false;
  c.dtype = d;
  return true;
}

}  // namespace llmmem::app
