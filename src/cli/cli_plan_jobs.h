// `llmmem plan --jobs FILE|- [--gpu G] [--json]`: several jobs on one GPU (core/plan/jobs.h)
// from a JSON request (core/plan/jobs_json.h: {"gpu", "jobs": [...]}, or a bare list of
// jobs with --gpu). Prints the phases as a table (or llmmem.jobs/1 with --json). Exit: 0 fits,
// 1 does not fit, 2 bad input, 3 incomplete.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "core/plan/jobs.h"

namespace llmmem::cli {

bool IsJobsPlanCommand(const std::vector<std::string>& args);  // "plan" ... "--jobs"
int RunJobsPlan(const std::vector<std::string>& args, const ReadFileFn& read_file, std::ostream& out, std::ostream& err);
std::string RenderJobsPlan(const core::JobsRequest& r, const core::JobsPlan& plan);

}  // namespace llmmem::cli
