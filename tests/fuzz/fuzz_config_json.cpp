// libFuzzer: a saved configuration or preset file (the JSON of --config and the JS API).
// Tolerant loading: any input yields a config; explaining a valid one never crashes and
// its leaves add up to the total.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/config/config_json.h"
#include "core/estimate/estimate.h"
#include "core/report/result_json.h"

namespace {

double SumLeaves(const llmmem::core::BreakdownNode& n) {
  if (n.children.empty()) return n.device == llmmem::core::Device::kGpu ? n.bytes : 0;
  double sum = 0;
  for (const auto& c : n.children) sum += SumLeaves(c);
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmmem::core;
  static const Config base = DefaultConfig();
  const std::string text(reinterpret_cast<const char*>(data), size);
  const ConfigParse parsed = ConfigFromJsonText(text, base);
  const Estimate e = Explain(parsed.config);
  if (e.totals.ok) {
    const double sum = SumLeaves(e.tree);
    if (!std::isfinite(sum) || std::fabs(sum - e.totals.peak_bytes) > 1e-6 * (1 + e.totals.peak_bytes)) std::abort();
    (void)EstimateToJson(parsed.config, e).Dump();
  }
  return 0;
}
