// The verdict's inputs and words (verdict.h).
#include "core/estimate/verdict.h"

#include "core/estimate/serving.h"
#include "core/report/units.h"

namespace llmmem::core {

const char* VerdictId(Verdict v) {
  switch (v) {
    case Verdict::kFits:
      return "fits";
    case Verdict::kDoesNotFit:
      return "does_not_fit";
    case Verdict::kIncomplete:
      return "incomplete";
  }
  return "?";
}

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

std::string HostShortNote(const Config& c, const Totals& t) {
  if (!t.host_short) return std::string();
  return "the host RAM set (ram_gb " + FormatNumber(c.ram_gb) + " GB) cannot hold the " +
         FormatBytesBoth(t.host_bytes) + " kept there" +
         (IsGgml(c.runtime) && UsesServingRuntime(c) ? " (the layers left on the CPU, their KV cache, host buffers)"
                                                     : " (this GPU's share of the offloaded states)");
}

std::string VerdictNote(const Config& c, const Totals& t) {
  if (!t.ok) return std::string();
  std::string note;
  auto add = [&](const std::string& s) {
    if (!s.empty()) note += (note.empty() ? "" : "; ") + s;
  };
  add(HostShortNote(c, t));
  add(NotCountedNote(c, t.not_counted));
  if (t.not_counted & kNotCountedRuntime)
    add(std::string(Id(c.runtime)) + "'s allocation for a GGUF checkpoint is not modelled (experimental)");
  return note;
}

}  // namespace llmmem::core
