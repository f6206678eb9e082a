// libFuzzer: a pasted or dropped config.json. Import either fails with a named field or
// gives a model whose estimate (if it validates) is finite.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/config/config_json.h"
#include "core/estimate/estimate.h"
#include "core/import/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmmem::core;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const HfImport r = ImportHfConfigText(text, "fuzz");
  if (!r.ok) {
    if (r.diagnostics.empty()) std::abort();
    return 0;
  }
  Config c = DefaultConfig();
  c.model = r.model;
  for (Mode mode : {Mode::kInference, Mode::kTraining, Mode::kLora}) {
    c.mode = mode;
    const Totals t = EstimateTotals(c);
    if (t.ok && (!std::isfinite(t.peak_bytes) || t.peak_bytes < 0)) std::abort();
  }
  return 0;
}
