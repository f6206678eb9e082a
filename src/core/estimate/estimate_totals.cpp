// EstimateTotals: the numeric fast path (account.h run with TotalsSink), no strings, no
// allocation. Explain, with the tree and formulas, is estimate.cpp.
#include <cmath>

#include "core/estimate/account.h"
#include "core/estimate/estimate_stages.h"
#include "core/config/gpu_count.h"
#include "core/estimate/serving.h"
#include "core/config/validate.h"
#include "core/estimate/verdict.h"
#include "core/base/units.h"

namespace llmmem::core {

namespace {

// Seed 002's quick rule: P (parameters) x Q/8 (bytes per parameter) x 1.2.
double QuickRuleBytes(const Derived& d) { return WholeBytes(NaiveModelBytes(d.P, d.c.dtype, d.c.quant) * 1.2); }

void FillCommon(const Derived& d, Totals& t) {
  t.ok = true;
  t.capacity_bytes = ServingCapacityBytes(d.c, d.stage);  // the GPU, or a serving runtime's share (serving.h)
  t.params = static_cast<int64_t>(d.P);
  t.active_params = static_cast<int64_t>(d.P_active);
  t.trainable_params = static_cast<int64_t>(d.T);
  t.quick_rule_bytes = QuickRuleBytes(d);
  t.gpus = TotalGpus(d.c);
  t.pipeline_stage = d.stage;
}

}  // namespace

void FillTotals(const Derived& d, const TotalsSink& sink, Totals& t) {
  FillCommon(d, t);
  int peak = 0;
  for (int m = 0; m < kMomentCount; ++m) {
    t.moment_bytes[m] = sink.Moment(m);
    if (t.moment_bytes[m] > t.moment_bytes[peak]) peak = m;
    t.cpu_bytes = std::fmax(t.cpu_bytes, sink.Offloaded(Device::kCpu, m));
    t.nvme_bytes = std::fmax(t.nvme_bytes, sink.Offloaded(Device::kNvme, m));
  }
  t.peak_moment = static_cast<Moment>(peak);
  t.peak_bytes = t.moment_bytes[peak];
  for (int i = 0; i < kCategoryCount; ++i) t.category_bytes[i] = sink.CategoryAt(i, peak);
  t.allocated_bytes = t.peak_bytes - t.category_bytes[static_cast<int>(Category::kOverheads)];
  // Serving runtimes preallocate: no caching-allocator margin on top (account_inference.h).
  const double margin = 1 + (UsesServingRuntime(d.c) ? 0 : d.c.fragmentation_pct) / 100.0;
  // The allocator's high-water mark: at the peak, or at the loss (the forward's end) with the
  // logits' block it keeps cached there, whichever is more.
  const int at_loss = static_cast<int>(Moment::kForwardEnd);
  const double overheads_at_loss = sink.CategoryAt(static_cast<int>(Category::kOverheads), at_loss);
  t.loss_cached_bytes = LossCachedBytes(d);
  const double reserved_at_peak = WholeBytes(t.allocated_bytes * margin);
  t.reserved_bytes = WholeBytes(
      std::fmax(reserved_at_peak, (t.moment_bytes[at_loss] - overheads_at_loss) * margin + t.loss_cached_bytes));
  t.nvidia_smi_bytes = t.peak_bytes + (t.reserved_bytes - reserved_at_peak);
  // A calibrated residual (its own Overheads line) was measured on the allocator's figures:
  // the reserved peak carries it too, so the run's own figure reads back as measured.
  if (!UsesServingRuntime(d.c)) t.reserved_bytes += WholeBytes(d.c.measured_residual_gb * kGB);
  // The verdict's other inputs (verdict.h): what is not counted, and the host RAM the
  // placement needs (llama.cpp's with the first GPU; else the offloaded share of this GPU).
  t.not_counted = NotCountedParts(d.c);
  t.host_bytes = UsesServingRuntime(d.c) && IsGgml(d.c.runtime) ? HostRamBytes(d.c) : t.cpu_bytes;
  t.host_short = d.c.ram_gb > 0 && t.host_bytes > d.c.ram_gb * kGB;
}

namespace {

Totals TotalsForStage(const Config& c, int stage) {
  Totals t;
  const Derived d(c, stage);
  TotalsSink sink;
  Account(d, sink);
  FillTotals(d, sink, t);
  return t;
}

}  // namespace

EndStages EstimateEndStages(const Config& c) {
  EndStages ends;
  ends.first = TotalsForStage(c, 0);
  ends.last = LastStage(c) == 0 ? ends.first : TotalsForStage(c, LastStage(c));
  return ends;
}

double CapacityBytes(const Config& c) { return ServingCapacityBytes(c, 0); }

Totals EstimateTotals(const Config& c) {
  if (!IsValid(c)) return Totals{};
  return EstimateEndStages(c).MoreLoaded();
}

}  // namespace llmmem::core
