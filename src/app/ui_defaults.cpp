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
  if (const core::Preset* p = core::FindPreset(c.model.preset); p != nullptr) c.dtype = core::PresetDtype(*p, c.mode);
  return c;
}

void SwitchMode(core::Config& c, core::Mode mode) {
  const core::Mode before = c.mode;
  c.mode = mode;
  // What the mode starts with is the training program's (core/config/stacks.h), as in the CLI,
  // JSON and links: settings the user changed stay.
  core::FollowStack(c, c.stack, before);
  const core::Preset* p = c.model.preset.empty() ? nullptr : core::FindPreset(c.model.preset);
  if (p != nullptr && p->ok) {
    c.dtype = core::PresetDtype(*p, mode);
  } else if (mode != core::Mode::kInference && !core::Info(c.dtype).trainable) {
    // QLoRA's dtype is its adapters' precision; the core stores QLoRA's base in NF4 itself.
    c.dtype = core::Dtype::kBf16;
  }
}

void PickPreset(core::Config& c, const core::Preset& p) {
  c.model = p.model;
  c.dtype = core::PresetDtype(p, c.mode);
  core::Diagnostics notes;
  core::StartAtModelContext(c, notes);
}

}  // namespace llmmem::app
