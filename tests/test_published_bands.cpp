// Honest bands (issue 30 part 4, core/report/published_bands.h): beside the figure, the spread
// of the published runs of the same training program, or a plain statement that none is on
// record. The table is compare.py --write's; compare.py --check fails when it is stale.
#include <doctest.h>

#include <string>

#include "core/config/stacks.h"
#include "core/report/published_bands.h"
#include "setups.h"

using namespace llmmem::test;

TEST_CASE("published bands: every band is a training program's, its figures in order") {
  const PublishedBand* tt = FindPublishedBand("torchtune@0.3");  // the program, whatever the row
  REQUIRE(tt != nullptr);
  CHECK(std::string(tt->stack) == "torchtune");
  for (const char* name : {"hf-trainer", "litgpt", "torchtitan", "torchtune", "trl"}) {
    const PublishedBand* b = FindPublishedBand(name);
    REQUIRE_MESSAGE(b != nullptr, name);
    CHECK(FindStack(b->stack) != nullptr);
    CHECK(b->runs > 0);
    CHECK(b->within10 <= b->runs);
    CHECK(b->min <= b->q1);
    CHECK(b->q1 <= b->median);
    CHECK(b->median <= b->q3);
    CHECK(b->q3 <= b->max);
  }
  CHECK(FindPublishedBand("verl") == nullptr);
}

TEST_CASE("published bands: said beside a training figure, or that none is on record") {
  Config c = DefaultConfig();
  c.stack = "torchtune";
  const PublishedBand* b = FindPublishedBand("torchtune");
  const std::string text = PublishedBandText(c);
  CHECK(text.find("published runs of torchtune (" + std::to_string(b->runs) + ", tests/published") == 0);
  CHECK(text.find("the middle half") != std::string::npos);
  const Json j = PublishedBandJson(c);
  CHECK(j.Find("runs")->AsNumber() == b->runs);
  CHECK(j.Find("median")->AsNumber() == b->median);
  c.stack = "verl";
  CHECK(PublishedBandText(c).find("no published training peak of verl is on record") == 0);
  CHECK(PublishedBandJson(c).Find("runs")->AsNumber() == 0);
  CHECK(PublishedBandJson(c).Find("median") == nullptr);
  c.mode = Mode::kInference;  // the records are training peaks
  CHECK(PublishedBandText(c).empty());
  CHECK(PublishedBandJson(c).IsNull());
}
