// Calibrate (calibrate.h): the residual of one measured run, carried as its own line.
#include "core/run/calibrate.h"

#include <cmath>

#include "core/base/units.h"
#include "core/estimate/estimate.h"

namespace llmmem::core {
namespace {

const RunComparisonRow* Row(const RunComparison& cmp, RunCategory category, const char* label = nullptr) {
  for (const RunComparisonRow& r : cmp.rows)
    if (r.category == category && (label == nullptr || r.label == label) && r.measured >= 0 && r.estimated > 0)
      return &r;
  return nullptr;
}

const RunComparisonRow* Count(const RunComparison& cmp, const char* label) {
  for (const RunComparisonRow& r : cmp.counts)
    if (r.label == label && r.measured > 0) return &r;
  return nullptr;
}

// The estimate's KV pool in bytes, whether the log gave it in bytes (rows) or not (not_measured).
double EstimatedKvBytes(const RunComparison& cmp) {
  for (const auto* list : {&cmp.rows, &cmp.not_measured})
    for (const RunComparisonRow& r : *list)
      if (r.category == RunCategory::kKvCache && r.estimated > 0) return r.estimated;
  return 0;
}

std::string Gb(double bytes) { return FormatNumber(bytes / kGB, 2) + " GB"; }

}  // namespace

Calibration Calibrate(const RunComparison& cmp) {
  Calibration cal;
  cal.config = cmp.config;
  if (!cmp.ok) {
    cal.why = "the configuration has errors: nothing to calibrate against";
    return cal;
  }
  const Config& c = cmp.config;
  const double already = c.measured_residual_gb * kGB;
  const bool paged = UsesServingRuntime(c) && IsPagedServer(c.runtime);
  // The allocator's peaks decide an out-of-memory error: reserved first, else allocated.
  const RunComparisonRow* peak = Row(cmp, RunCategory::kAllocatorPeak, "Peak reserved");
  if (peak == nullptr) peak = Row(cmp, RunCategory::kAllocatorPeak, "Peak allocated");
  if (peak != nullptr) {
    cal.basis = peak->label;
    cal.measured = peak->measured;
    cal.estimated = peak->estimated;
    // The reserved peak carries a residual already carried (estimate_totals.cpp); the allocated
    // one does not, so what was carried before is taken off: reading a calibrated run again
    // carries the same, not twice.
    cal.residual = peak->measured - peak->estimated - (peak->label == std::string("Peak reserved") ? 0 : already);
  } else if (const RunComparisonRow* kv = paged ? Row(cmp, RunCategory::kKvCache) : nullptr) {
    // A paged server fills its share: what the estimate did not model shows as a smaller pool.
    cal.basis = "KV pool" + (kv->lines.empty() ? std::string() : ", the log's line " + std::to_string(kv->lines.front()));
    cal.measured = kv->measured;
    cal.estimated = kv->estimated;
    cal.residual = kv->estimated - kv->measured;
  } else if (const RunComparisonRow* tokens = paged ? Count(cmp, "KV pool (tokens)") : nullptr;
             tokens != nullptr && EstimatedKvBytes(cmp) > 0 && tokens->estimated > 0) {
    // The pool in tokens (vLLM V1's "GPU KV cache size"): its bytes at the estimate's bytes per token.
    const double per_token = EstimatedKvBytes(cmp) / tokens->estimated;
    cal.basis = "KV pool, " + FormatCount(static_cast<int64_t>(tokens->measured)) + " tokens measured, " +
                FormatCount(static_cast<int64_t>(tokens->estimated)) + " estimated, at " +
                FormatNumber(per_token / 1024, 1) + " KiB per token";
    cal.measured = tokens->measured * per_token;
    cal.estimated = tokens->estimated * per_token;
    cal.residual = cal.estimated - cal.measured;
  } else {
    // llama.cpp, Ollama: fixed buffers; every GPU row the log and the estimate both have.
    for (const RunComparisonRow& r : cmp.rows) {
      if (r.category == RunCategory::kAllocatorPeak || r.measured < 0 || !(r.estimated > 0)) continue;
      cal.measured += r.measured;
      cal.estimated += r.estimated;
    }
    if (!(cal.estimated > 0)) {
      cal.why = "the run gives no figure the estimate also has (a peak, a KV pool or the GPU's buffers)";
      return cal;
    }
    cal.basis = "the GPU's buffers the log lists";
    cal.residual = cal.measured - cal.estimated - already;  // the residual's own line is not among them
  }
  cal.ok = true;
  cal.carried = WholeBytes(std::fmax(0.0, already + cal.residual));
  cal.config.measured_residual_gb = cal.carried / kGB;
  if (already > 0 && std::fabs(cal.residual) <= std::fmax(1e6, 0.001 * cal.measured)) {
    // Read again with the residual carried: the run is accounted for.
    cal.text = "your run is accounted for: the " + Gb(cal.carried) + " carried from it (" + cal.basis +
               ": measured " + Gb(cal.measured) + ", estimated " + Gb(cal.estimated) + ")";
  } else if (cal.residual >= 0) {
    cal.text = "measured beyond the model: +" + Gb(cal.residual) + ", from your run (" + cal.basis + ": measured " +
               Gb(cal.measured) + ", estimated " + Gb(cal.estimated) + ")";
  } else {
    cal.text = "the estimate is above your run by " + Gb(-cal.residual) + " (" + cal.basis + ": measured " +
               Gb(cal.measured) + ", estimated " + Gb(cal.estimated) + "): nothing carried, the estimate stays the "
               "safer figure";
  }
  const double capacity = CapacityBytes(c);
  if (paged) {
    cal.reach = "holds while max_num_seqs, max_num_batched_tokens, the CUDA-graph sizes and the memory share stay as "
                "in the run (they size the runtime's profiling peak); a longer context or more requests only divide "
                "the same pool";
  } else {
    cal.run_tokens = static_cast<double>(c.batch) * static_cast<double>(c.seq);
    if (cal.carried > 0 && capacity > 0) {
      cal.reach_tokens = std::floor(cal.run_tokens * (1 + kCalibrationReachShare * capacity / cal.carried));
      cal.reach = "held constant; were it to grow with the tokens as activations do, it errs by at most " +
                  FormatNumber(kCalibrationReachShare * 100, 0) + "% of the GPU (" +
                  Gb(kCalibrationReachShare * capacity) + ") up to " +
                  FormatCount(static_cast<int64_t>(cal.reach_tokens)) + " tokens per step (batch x sequence; the run " +
                  "had " + FormatCount(static_cast<int64_t>(cal.run_tokens)) + "): beyond that, measure again";
    } else {
      cal.reach = "nothing carried: the estimate alone answers";
    }
  }
  cal.reach += ". Another model, precision, parallelism or training program changes its cause: measure that run.";
  return cal;
}

}  // namespace llmmem::core
