// The Fit tab's "Several jobs on one GPU" (app/jobs_view.h) against the planner: the examples
// the page offers are presets/jobs's files, and what the tab shows for each is what
// core::PlanJobs finds (two doors: the worker's JSON, read back, and the core).
#include <doctest.h>

#include "app/jobs_view.h"
#include "bindings/background_calls.h"
#include "core/catalogue/job_examples.h"
#include "core/plan/jobs.h"
#include "core/plan/jobs_json.h"
#include "setups.h"

namespace llmmem::test {

TEST_CASE("jobs view: the examples are one per kind, and each is shown as the planner finds it") {
  std::string error;
  const std::vector<app::JobsExample> examples =
      app::JobsExamplesFromJson(bindings::CallBackground("jobs_examples", "{}"), &error);
  CHECK(error.empty());
  REQUIRE(examples.size() == JobExamples().size());
  REQUIRE(examples.size() >= 4);
  CHECK(examples[0].id == "grpo_colocate");
  CHECK(examples[3].id == "display");
  CHECK(examples[3].bare_list);
  for (const app::JobsExample& e : examples) {
    CAPTURE(e.id);
    CHECK(e.title != e.id);  // every example has its title row
    const std::string request = app::JobsRequestText(e.request, "RTX-4090-24GB");
    const app::JobsAnswer shown = app::JobsAnswerFromJson(7, bindings::CallBackground("jobs", request));
    const JobsRequestParse parsed = JobsRequestFromJsonText(request);
    REQUIRE_FALSE(HasErrors(parsed.diagnostics));
    const JobsPlan direct = PlanJobs(parsed.request);
    REQUIRE(direct.ok);
    REQUIRE(shown.ok);
    CHECK(shown.verdict == VerdictId(direct.verdict));
    CHECK(shown.budget_bytes == doctest::Approx(direct.budget_bytes));
    REQUIRE(shown.phases.size() == direct.totals.size());
    for (size_t i = 0; i < shown.phases.size(); ++i)
      CHECK(shown.phases[i].bytes == doctest::Approx(direct.totals[i].bytes));
    CHECK(shown.peak_phase == JobPhaseId(direct.totals[static_cast<size_t>(direct.peak_phase)].phase));
    REQUIRE(shown.jobs.size() == direct.jobs.size());
    for (size_t j = 0; j < shown.jobs.size(); ++j) {
      CHECK(shown.jobs[j].name == direct.jobs[j].name);
      REQUIRE(shown.jobs[j].bytes.size() == direct.jobs[j].phases.size());
      for (size_t i = 0; i < shown.jobs[j].bytes.size(); ++i)
        CHECK(shown.jobs[j].bytes[i] == doctest::Approx(direct.jobs[j].phases[i].bytes));
    }
    CHECK(shown.changes.size() == direct.changes.size());
  }
}

TEST_CASE("jobs view: a bare list runs on the chosen card; answers are routed by their request") {
  CHECK(app::JobsRequestText(" [{\"name\": \"x\"}]", "L40S-48GB") == "{\"gpu\": \"L40S-48GB\", \"jobs\": [{\"name\": \"x\"}]}");
  CHECK(app::JobsRequestText("{\"gpu\": \"A\"}", "B") == "{\"gpu\": \"A\"}");
  app::JobsView v;
  v.examples_seq = 3;
  v.seq = 5;
  v.running = true;
  CHECK_FALSE(app::JobsAnswered(v, 4, true, "{}"));  // another view's
  CHECK(app::JobsAnswered(v, 3, true, bindings::CallBackground("jobs_examples", "")));
  CHECK(v.chosen == 0);
  CHECK(ParseJson(std::string(v.text.data())).value.Dump() == ParseJson(JobExamples()[0].request).value.Dump());
  CHECK(app::JobsAnswered(v, 5, true, bindings::CallBackground("jobs", "{\"gpu\": \"RTX-4090-24GB\", \"jobs\": 3}")));
  CHECK_FALSE(v.running);
  CHECK_FALSE(v.answer.ok);
  CHECK(v.answer.error.find("jobs") != std::string::npos);
}

}  // namespace llmmem::test
