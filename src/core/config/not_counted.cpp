#include "core/config/not_counted.h"

#include "core/base/units.h"
#include "core/config/runtime_rules.h"

namespace llmmem::core {

uint8_t NotCountedParts(const Config& c) {
  uint8_t bits = 0;
  if (!c.model.HasArchitecture()) {
    bits |= kNotCountedActivations;
    if (c.mode == Mode::kInference || c.mode == Mode::kRlhf) bits |= kNotCountedKvCache;
  }
  if (RuntimePathUnchecked(c)) bits |= kNotCountedRuntime;
  return bits;
}

std::string NotCountedNote(const Config& c, uint8_t not_counted) {
  const bool kv = (not_counted & kNotCountedKvCache) != 0;
  const bool activations = (not_counted & kNotCountedActivations) != 0;
  if (!kv && !activations) return std::string();
  const std::string what = kv && activations ? "the KV cache and activations are" : kv ? "the KV cache is"
                                                                                       : "activations are";
  return "weights only: " + what + " unknown because the model has no architecture, only a parameter count (" +
         FormatParams(static_cast<double>(c.model.params_override)) +
         "): no layers, hidden size or heads were read (a config.json the importer could not read gives this); "
         "enter its dimensions or a readable config.json to count them";
}

}  // namespace llmmem::core
