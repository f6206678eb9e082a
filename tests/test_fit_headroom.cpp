// The fit answers the UI gives: solved with 2% of the card kept free (FitBudget) and, for
// the sequence, within the model's context (MaxSequenceInContext).
#include <doctest.h>

#include "core/config/config_json.h"
#include "core/estimate/estimate.h"
#include "core/solve/fit.h"
#include "core/catalogue/presets.h"

using namespace llmmem::core;

TEST_CASE("Fit: answers keep 2% of the card free") {
  Config c = DefaultConfig();
  c.mode = Mode::kInference;
  const double cap = CapacityBytes(c);
  const int64_t b = MaxMicroBatch(c, FitBudget(cap));
  REQUIRE(b > 0);
  Config at = c;
  at.batch = b;
  const Totals t = EstimateTotals(at);
  CHECK(t.peak_bytes <= cap * 0.98);
  CHECK(cap - t.peak_bytes >= kFitHeadroom * cap);
}

TEST_CASE("Fit: the longest sequence stays within the model's context") {
  Config c = DefaultConfig();
  c.mode = Mode::kInference;
  c.seq = 512;
  // Learned positions: a longer sequence is an error, so both searches stop at the table.
  const Preset* gpt2 = FindPreset("gpt2");
  REQUIRE(gpt2 != nullptr);
  c.model = gpt2->model;  // 1024 learned positions; a 1024-token sequence fits many times over
  const double cap = CapacityBytes(c);
  CHECK(MaxSequence(c, cap) == 1024);
  CHECK(MaxSequenceInContext(c, cap) == 1024);
  // Rotary positions: longer is allowed (with a warning); the UI's answer stays within the
  // context the model was trained for.
  const Preset* qwen = FindPreset("qwen2.5-0.5b");
  REQUIRE(qwen != nullptr);
  c.model = qwen->model;
  REQUIRE(c.model.max_positions == 32768);
  CHECK(MaxSequence(c, cap) > 32768);
  CHECK(MaxSequenceInContext(c, cap) == 32768);
  // A model without a known context keeps the plain search.
  c.model.max_positions = 0;
  CHECK(MaxSequenceInContext(c, cap) == MaxSequence(c, cap));
}
