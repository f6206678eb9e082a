// The verdict's inputs and words (verdict.h).
#include "core/estimate/verdict.h"

#include <cmath>

#include "core/catalogue/gpu_budget.h"
#include "core/estimate/serving.h"
#include "core/base/units.h"

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

std::string HostShortNote(const Config& c, const Totals& t) {
  if (!t.host_short) return std::string();
  return "the host RAM set (ram_gb " + FormatNumber(c.ram_gb) + " GB) cannot hold the " +
         FormatBytesBoth(t.host_bytes) + " kept there" +
         (IsGgml(c.runtime) && UsesServingRuntime(c) ? " (the layers left on the CPU, their KV cache, host buffers)"
                                                     : " (this GPU's share of the offloaded states)");
}

Phrase GpuBudgetNote(const Config& c) {
  const Gpu* g = FindGpu(c.gpu);
  if (g == nullptr || !g->unified) return Phrase();
  if (std::fabs(c.gpu_memory_gb - g->UsableBytes(c.wired_limit_mb) / 1e9) > 1e-9 * c.gpu_memory_gb) return Phrase();
  return UnifiedBudgetNote(*g, c.wired_limit_mb);
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
