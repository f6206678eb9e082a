// Several jobs on one GPU, one example request per kind (presets/jobs/*.json, embedded at
// build time): what the Fit tab offers to start from, the CLI's and the JS API's tests read.
// Each is an llmmem.jobs/1 request (core/plan/jobs_json.h); display.json is a bare list of
// jobs, which runs on the card the user has (the page's GPU, the CLI's --gpu).
#pragma once

#include <string>
#include <vector>

namespace llmmem::core {

struct JobExample {
  std::string id;       // the file's name without .json: "grpo_colocate"
  std::string title;    // what it shows, in words
  std::string request;  // the file's text
  bool bare_list = false;  // a list of jobs without a GPU
};

// In the order of kinds: RL colocation, serving side by side, a draft model, memory held.
const std::vector<JobExample>& JobExamples();

}  // namespace llmmem::core
