// Calibrate and plan from a measured run (core/run/calibrate.h, issue 33 part 3): the residual
// of one run, carried as its own line, makes the estimate read back the run's own figures,
// and the fit answers then include it.
#include <doctest.h>

#include <string>

#include "core/catalogue/gpus.h"
#include "core/catalogue/presets.h"
#include "core/config/config_json.h"
#include "core/estimate/estimate.h"
#include "core/estimate/serving.h"
#include "core/run/calibrate.h"
#include "core/run/run_compare.h"
#include "core/run/run_json.h"
#include "core/solve/fit.h"
#include "run_samples.h"

using namespace llmmem::core;
namespace s = llmmem::test::run_samples;

namespace {

bool HasLeaf(const BreakdownNode& n, const std::string& id) {
  const std::string tail = "." + id;  // ids are dotted paths: "overheads.measured_residual"
  if (n.id == id || (n.id.size() > tail.size() && n.id.compare(n.id.size() - tail.size(), tail.size(), tail) == 0))
    return true;
  for (const BreakdownNode& c : n.children)
    if (HasLeaf(c, id)) return true;
  return false;
}

}  // namespace

TEST_CASE("calibrate: vLLM V1's smaller pool (vllm PR #17122) carried as its own line gives the run's pool back") {
  const RunLog log = ReadRunLog(s::kVllmV1);
  Config c = DefaultConfig();
  c.model = FindPreset("llama-3.1-8b")->model;
  SelectGpu(c, *FindGpu("L40S-48GB"));
  const RunComparison cmp = CompareRun(log, c, true);
  const Calibration cal = Calibrate(cmp);
  REQUIRE(cal.ok);
  CHECK(cal.residual > 5e9);  // 158,656 tokens measured against 203,312 estimated, 128 KiB each
  CHECK(cal.text.find("measured beyond the model: +") == 0);
  CHECK(cal.reach.find("max_num_batched_tokens") != std::string::npos);
  const ServingReport before = Serve(cmp.config), after = Serve(cal.config);
  CHECK(before.pool_tokens == 203312);
  CHECK(after.pool_tokens == 158656);
  CHECK(after.max_concurrency == doctest::Approx(4.84).epsilon(0.002));
  CHECK(HasLeaf(Explain(cal.config).tree, "measured_residual"));
  // The total is the runtime's share either way: the residual sits inside it.
  CHECK(EstimateTotals(cal.config).peak_bytes == doctest::Approx(EstimateTotals(cmp.config).peak_bytes).epsilon(1e-6));
  // Read again with the residual carried: nothing more to carry.
  const Calibration again = Calibrate(CompareRun(log, cal.config, true));
  CHECK(again.carried == doctest::Approx(cal.carried).epsilon(1e-3));
  const Json j = CalibrationToJson(cal);
  CHECK(j.Find("carried_bytes")->AsNumber() == doctest::Approx(cal.carried));
  CHECK(j.Find("query")->AsString().find("measured_residual_gb=") != std::string::npos);
}

TEST_CASE("calibrate: a training run's reserved peak above the estimate is carried, and the fit answers shrink") {
  Config c = DefaultConfig();
  c.model = FindPreset("llama-3.2-1b")->model;
  c.mode = Mode::kLora;
  c.batch = 4;
  c.seq = 1024;
  SelectGpu(c, *FindGpu("RTX-4090-24GB"));
  const Totals t = EstimateTotals(c);
  const double extra = 1.3e9;  // what the run held beyond the rows, say the optimizer's foreach temporaries
  const std::string stats = "{\"allocated_bytes.all.peak\": " + std::to_string(static_cast<int64_t>(t.allocated_bytes + extra)) +
                            ", \"reserved_bytes.all.peak\": " + std::to_string(static_cast<int64_t>(t.reserved_bytes + extra)) + "}";
  const RunComparison cmp = CompareRun(ReadRunLog(stats), c, false);
  const Calibration cal = Calibrate(cmp);
  REQUIRE(cal.ok);
  CHECK(cal.basis == "Peak reserved");
  CHECK(cal.residual == doctest::Approx(extra).epsilon(1e-6));
  CHECK(cal.config.measured_residual_gb == doctest::Approx(1.3).epsilon(1e-6));
  const Totals calibrated = EstimateTotals(cal.config);
  CHECK(calibrated.reserved_bytes == doctest::Approx(t.reserved_bytes + extra).epsilon(1e-9));  // the run's own figure
  CHECK(calibrated.peak_bytes == doctest::Approx(t.peak_bytes + extra).epsilon(1e-9));
  CHECK(HasLeaf(Explain(cal.config).tree, "measured_residual"));
  CHECK(MaxMicroBatch(cal.config, AnswerBudget(cal.config)) <= MaxMicroBatch(c, AnswerBudget(c)));
  CHECK(cal.run_tokens == 4096);
  CHECK(cal.reach_tokens > cal.run_tokens);
  // The reach: carrying it constant errs by at most 5% of the GPU were it to scale with tokens.
  CHECK((cal.reach_tokens / cal.run_tokens - 1) * cal.carried <= kCalibrationReachShare * CapacityBytes(c) + 1);
  // Read again with the residual carried, on the reserved peak or the allocated one: the same.
  CHECK(Calibrate(CompareRun(ReadRunLog(stats), cal.config, false)).carried == doctest::Approx(cal.carried));
  const std::string allocated_only =
      "{\"allocated_bytes.all.peak\": " + std::to_string(static_cast<int64_t>(t.allocated_bytes + extra)) + "}";
  const Calibration first = Calibrate(CompareRun(ReadRunLog(allocated_only), c, false));
  CHECK(first.basis == "Peak allocated");
  CHECK(first.carried == doctest::Approx(extra).epsilon(1e-6));
  CHECK(Calibrate(CompareRun(ReadRunLog(allocated_only), first.config, false)).carried ==
        doctest::Approx(first.carried).epsilon(1e-9));
  // An estimate above the run carries nothing: the estimate stays the safer figure.
  const std::string low = "{\"reserved_bytes.all.peak\": " + std::to_string(static_cast<int64_t>(t.reserved_bytes / 2)) + "}";
  const Calibration none = Calibrate(CompareRun(ReadRunLog(low), c, false));
  REQUIRE(none.ok);
  CHECK(none.residual < 0);
  CHECK(none.carried == 0);
  CHECK(none.config.measured_residual_gb == 0);
  CHECK(none.text.find("nothing carried") != std::string::npos);
}
