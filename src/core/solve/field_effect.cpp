// FieldsInEffect (core/field_effect.h): one fast-path estimate per setting that differs
// from the defaults.
#include "core/solve/field_effect.h"

#include <algorithm>

#include "core/config/config_json.h"
#include "core/config/validate.h"
#include "core/estimate/estimate.h"
#include "core/config/fields.h"

namespace llmmem::core {
namespace {

bool SameFigures(const Totals& a, const Totals& b) {
  return a.ok == b.ok && a.peak_bytes == b.peak_bytes && a.cpu_bytes == b.cpu_bytes && a.nvme_bytes == b.nvme_bytes &&
         a.capacity_bytes == b.capacity_bytes && a.trainable_params == b.trainable_params;
}

}  // namespace

std::vector<std::string> FieldsInEffect(const Config& c) {
  std::vector<std::string> out;
  const Config defaults = DefaultConfig();
  const Totals base = EstimateTotals(c);
  // With no estimate, a setting an error names is in effect even when resetting it alone
  // leaves another error standing (two settings refused at once).
  const Diagnostics refused = base.ok ? Diagnostics{} : Validate(c);
  auto named = [&](const char* field) {
    return std::any_of(refused.begin(), refused.end(),
                       [&](const Diagnostic& d) { return d.severity == Severity::kError && d.field == field; });
  };
  for (const FieldDef& f : Fields()) {
    if (f.model_field) continue;  // the model editor shows every dimension
    const std::string def = f.get(defaults);
    if (f.get(c) == def) continue;
    if (named(f.name)) {
      out.push_back(f.name);
      continue;
    }
    Config reset = c;
    if (!f.set(reset, def).empty()) continue;
    if (std::string(f.name) == "gpu") reset.gpu_memory_gb = c.gpu_memory_gb;  // the card alone
    if (!SameFigures(base, EstimateTotals(reset))) out.push_back(f.name);
  }
  return out;
}

}  // namespace llmmem::core
