// The Fit tab's "Several jobs on one GPU" (issue 34 part 3): a request (one of the examples of
// presets/jobs, or the user's own JSON) planned off the UI thread (hooks.background "jobs",
// the core's llmmem.jobs/1, as the CLI's plan --jobs and the JS API's planJobs), its answer
// read back from that JSON. Without ImGui, so the tests cover it.
// May include: core (no imgui).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llmmem::app {

struct JobsExample {
  std::string id, title, request;
  bool bare_list = false;
};

struct JobsPhase {
  std::string id, name, driver;
  double bytes = 0, over_bytes = 0;
  bool fits = true;
};

struct JobsJob {
  std::string name, kind, model, runtime;
  double peak_bytes = 0;
  std::vector<std::string> states;  // per phase, as the answer's phases
  std::vector<double> bytes;        // per phase
  bool start_checked = false, starts = true;
  double start_free_bytes = 0, requested_bytes = 0, cpu_bytes = 0;
};

struct JobsAnswer {
  int64_t seq = 0;
  bool ok = false;
  std::string error;
  std::string gpu;
  double capacity_bytes = 0, held_bytes = 0, free_bytes = 0, headroom = 0, budget_bytes = 0;
  std::vector<JobsPhase> phases;
  std::vector<JobsJob> jobs;  // held memory included (kind "held")
  std::string peak_phase, peak_driver, verdict;
  double peak_bytes = 0, peak_headroom_bytes = 0;
  std::vector<std::string> reasons, changes;  // in words
};

struct JobsView {
  int64_t examples_seq = 0;  // the examples' request (0: not asked yet)
  std::vector<JobsExample> examples;
  std::string examples_error;
  int chosen = -1;  // the example the text started from
  std::vector<char> text = std::vector<char>(size_t{1} << 14, '\0');  // the request, editable
  int64_t seq = 0;
  bool running = false;
  JobsAnswer answer;
};

// The text as the planner takes it: a bare list of jobs runs on `gpu` (the configuration's card).
std::string JobsRequestText(const std::string& text, const std::string& gpu);
// Puts an example's request in the box.
void ChooseJobsExample(JobsView& v, int index);

JobsAnswer JobsAnswerFromJson(int64_t seq, const std::string& text);
std::vector<JobsExample> JobsExamplesFromJson(const std::string& text, std::string* error);

// An answer to hooks.background for this view (its examples or its plan); false when `seq` is
// neither (another view's, or stale).
bool JobsAnswered(JobsView& v, int64_t seq, bool ok, const std::string& text);

}  // namespace llmmem::app
