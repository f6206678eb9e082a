// What a model changed from its preset (model_changes.h): a comparison row by row of the
// field table, so a model field added there is compared here without another list.
#include "core/config/model_changes.h"

#include <cstring>

#include "core/catalogue/presets.h"

namespace llmmem::core {
namespace {

const Preset* UsablePreset(const ModelSpec& m) {
  if (m.preset.empty()) return nullptr;
  const Preset* p = FindPreset(m.preset);
  return p != nullptr && p->ok ? p : nullptr;
}

}  // namespace

ModelSpec PresetBase(const ModelSpec& m) {
  if (const Preset* p = UsablePreset(m)) return p->model;
  ModelSpec custom;
  custom.preset.clear();
  return custom;
}

std::vector<const FieldDef*> ChangedModelFields(const ModelSpec& m) {
  Config now, base;
  now.model = m;
  base.model = PresetBase(m);
  std::vector<const FieldDef*> out;
  for (const FieldDef& f : Fields()) {
    if (f.model_field && f.get(now) != f.get(base)) out.push_back(&f);
  }
  return out;
}

std::vector<std::string> CustomisedFields(const ModelSpec& m) {
  std::vector<std::string> out;
  if (UsablePreset(m) == nullptr) return out;
  for (const FieldDef* f : ChangedModelFields(m)) {
    if (std::strcmp(f->name, "name") != 0) out.push_back(f->name);
  }
  return out;
}

bool IsCustomised(const ModelSpec& m) { return !CustomisedFields(m).empty(); }

std::string PresetNote(const ModelSpec& m) {
  if (UsablePreset(m) == nullptr) return {};
  std::string out = m.preset;
  const std::vector<std::string> changed = CustomisedFields(m);
  for (size_t i = 0; i < changed.size(); ++i) out += (i == 0 ? ", customised: " : ", ") + changed[i];
  return out;
}

}  // namespace llmmem::core
