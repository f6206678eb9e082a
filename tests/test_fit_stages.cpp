// "The fewest GPUs per ZeRO stage" is one solver in the core (fit.h FewestGpusPerZeroStage)
// behind the CLI's fit, its JSON (fit_json.h, also the JS API's) and the UI's table: each
// row either answers or says in words what limits it, never "the unsharded part is 0 B".
#include <doctest.h>

#include <cmath>

#include <string>

#include "core/report/fit_json.h"
#include "core/config/gpu_count.h"
#include "setups.h"

using namespace llmmem::test;

TEST_CASE("Fit stages: with parameter offload, stages below ZeRO-3 are solved without it, and say so") {
  Config c = DefaultConfig();  // Llama 3.1 8B training on an H100
  MixedPrecision(c);           // 16 bytes a parameter
  c.zero = 3;
  c.offload_params = Offload::kCpu;
  const auto rows = FewestGpusPerZeroStage(c, CapacityBytes(c));
  REQUIRE(rows.size() == 4);
  for (const ZeroStageFit& r : rows) {
    CAPTURE(r.stage);
    CHECK(r.error.empty());  // it was refused below ZeRO-3 ("parameter offload needs ZeRO-3"), and read as 0 B
    CHECK(r.offload_params_dropped == (r.stage < 3));
    CHECK(r.config.offload_params == (r.stage < 3 ? Offload::kNone : Offload::kCpu));
    CHECK(r.fit.unsharded_bytes > 0);
    if (!r.fit.possible) {
      CHECK(r.why_not.find("what stays whole on every GPU") != std::string::npos);
      CHECK(r.why_not.find(" 0 B") == std::string::npos);
    } else {
      CHECK(r.fit.min_gpus == r.fit.min_dp * GpusPerReplica(c));
      CHECK(r.peak_at_min_bytes <= CapacityBytes(c));
    }
  }
  CHECK_FALSE(rows[0].fit.possible);  // DDP keeps all 16 bytes a parameter on each GPU: 186.8 GB
  CHECK(rows[3].fit.possible);
  CHECK(rows[3].fit.min_dp == 3);
}

TEST_CASE("Fit stages: a stage refused by validation says why instead of a figure") {
  Config c = DefaultConfig();
  c.batch = 0;  // out of range at every stage
  for (const ZeroStageFit& r : FewestGpusPerZeroStage(c, CapacityBytes(c))) {
    CHECK_FALSE(r.fit.possible);
    CHECK(r.error.rfind("batch: batch = 0 is outside the allowed range", 0) == 0);
    CHECK(r.why_not == "this stage's configuration is refused: " + r.error);
  }
}

TEST_CASE("Fit stages: the JSON (CLI fit --json, JS API fit) is the solver's rows, field for field") {
  Config c = DefaultConfig();
  c.tp = 2;
  const Json j = FitToJson(c);
  // Solved against the one headroom policy (AnswerBudget), as the UI's Fit tab solves them.
  const auto rows = FewestGpusPerZeroStage(c, AnswerBudget(c));
  REQUIRE(j.Find("fewest_gpus")->AsArray().size() == rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(j.Find("fewest_gpus")->AsArray()[i].Dump() == ZeroStageFitToJson(rows[i]).Dump());
  }
  CHECK(j.Find("budget_bytes")->AsNumber() == std::floor(AnswerBudget(c)));
  CHECK(j.Find("headroom")->AsNumber() == kFitHeadroom);
  // The whole card would need no more GPUs than the budget does.
  const auto card = FewestGpusPerZeroStage(c, CapacityBytes(c));
  for (size_t i = 0; i < rows.size(); ++i) CHECK(rows[i].fit.min_dp >= card[i].fit.min_dp);
}

TEST_CASE("GPU count: one replica is tp x pp x cp, the job dp times that (the estimate's gpus)") {
  Config c = DefaultConfig();
  c.tp = 2;
  c.pp = 4;
  c.cp = 2;
  c.dp = 3;
  CHECK(GpusPerReplica(c) == 16);
  CHECK(TotalGpus(c) == 48);
  CHECK(EstimateTotals(c).gpus == TotalGpus(c));
}
