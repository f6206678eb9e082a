// libFuzzer: URL state from any link. Every input yields a config (the base with the
// valid fields applied) and diagnostics; estimating it never crashes, never gives NaN,
// and a config that validates re-encodes to a query that reads back to the same state.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/config/config_json.h"
#include "core/estimate/estimate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmmem::core;
  static const Config base = DefaultConfig();
  const std::string query(reinterpret_cast<const char*>(data), size);
  const ConfigParse parsed = ConfigFromQuery(query, base);
  const Totals t = EstimateTotals(parsed.config);
  if (t.ok) {
    if (!std::isfinite(t.peak_bytes) || t.peak_bytes < 0) std::abort();
    const std::string q = ConfigToQuery(parsed.config);
    const ConfigParse back = ConfigFromQuery(q, base);
    if (ConfigToQuery(back.config) != q) std::abort();
    if (EstimateTotals(back.config).peak_bytes != t.peak_bytes) std::abort();
  }
  return 0;
}
