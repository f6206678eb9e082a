// `llmmem plan`: the training planner (core/plan/train_plan.h) from the command line. The
// plan's own flags are taken here; every other flag is the estimate's (cli_args.h) and sets
// the base configuration (model, GPU, precision, optimizer, framework).
#pragma once

#include <string>
#include <vector>

#include "core/base/diagnostics.h"
#include "core/plan/train_plan.h"

namespace llmmem::cli {

struct PlanArgs {
  core::TrainPlanRequest request;  // base still to be set from ParseCli(rest)
  std::vector<std::string> rest;   // the estimate's flags
  core::Diagnostics diagnostics;
};

bool IsPlanCommand(const std::vector<std::string>& args);
// args: the whole command line after the program name ("plan", ...).
PlanArgs SplitPlanArgs(const std::vector<std::string>& args);
std::string RenderPlan(const core::TrainPlanRequest& r, const core::TrainPlan& plan);
std::string PlanHelp();

}  // namespace llmmem::cli
