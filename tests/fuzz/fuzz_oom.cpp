// libFuzzer: any text pasted into "Read an OOM" (core/oom_report.h). The reading must keep its
// promises: unknown text is said to be unknown with the forms that are; every bar segment is
// finite and non-negative and the segments add up to the bar's total, which is the capacity
// when the figures agree; findings are finite; the JSON is written. Inputs starting with '!'
// are also read beside a configuration (the estimate, the card, the doctor).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/config/config_json.h"
#include "core/oom/oom_json.h"
#include "core/oom/oom_report.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmmem::core;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const Config config = DefaultConfig();
  const bool with_config = size > 0 && data[0] == '!';
  const OomReport r = ReadOomReport(text, with_config ? &config : nullptr);
  Check(r.evidence.recognised == !r.evidence.observations.empty());
  if (!r.evidence.recognised) Check(!r.evidence.notes.empty());
  Check(r.devices.size() == r.evidence.observations.size());
  for (const DeviceReport& d : r.devices) {
    Check(d.observation < r.evidence.observations.size());
    const OomBar& bar = d.bar;
    double sum = 0;
    for (const BarSegment& s : bar.segments) {
      Check(std::isfinite(s.bytes) && s.bytes >= 0);
      sum += s.bytes;
    }
    Check(std::isfinite(bar.total_bytes));
    Check(std::fabs(sum - bar.total_bytes) <= 1e-9 * (1 + sum));
    if (bar.drawable && bar.consistent) {
      // Over by no more than the printed figures' rounding; under only through a difference
      // clamped at zero within that rounding.
      Check(std::fabs(sum - bar.capacity_bytes) <= bar.rounding_bytes + 1e-6 * bar.capacity_bytes);
    }
    for (const Finding& f : d.findings) Check(std::isfinite(f.bytes) && f.bytes >= 0 && !f.title.empty());
  }
  const std::string json = OomReportToJson(r).Dump();
  Check(!json.empty());
  return 0;
}
