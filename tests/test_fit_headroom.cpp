// The fit answers the UI gives: solved with 2% of the card kept free (FitBudget) and, for
// the sequence, within the model's context (MaxSequenceInContext).
#include <doctest.h>

#include "core/config_json.h"
#include "core/estimate.h"
#include "core/fit.h"
#include "core/presets.h"

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
  const Preset* gpt2 = FindPreset("gpt2");
  REQUIRE(gpt2 != nullptr);
  c.model = gpt2->model;  // 1024 learned positions; a 1024-token sequence fits many times over
  c.seq = 512;
  const double cap = CapacityBytes(c);
  CHECK(MaxSequence(c, cap) > 1024);
  CHECK(MaxSequenceInContext(c, cap) == 1024);
  // A model without a known context keeps the plain search.
  c.model.learned_positions = 0;
  c.model.max_positions = 0;
  CHECK(MaxSequenceInContext(c, cap) == MaxSequence(c, cap));
}
