// `llmmem plan --serve`: the serving planner (core/plan/serve_plan.h) from the command line.
// Its own flags are --gpus N (up to N GPUs), --goal concurrency|context and --top K; every
// other flag is the estimate's (cli_args.h) and sets the base (--model, --runtime, --gpu,
// --seq: the context, --batch: the concurrency, --dtype, ...), in inference. Prints the
// options as a table, or llmmem.serve_plan/1 with --json. Exit: 0 an option fits, 1 none,
// 2 bad input.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "core/plan/serve_plan.h"

namespace llmmem::cli {

bool IsServePlanCommand(const std::vector<std::string>& args);  // "plan" ... "--serve"
int RunServePlan(const std::vector<std::string>& args, const ReadFileFn& read_file, const HubLoadFn& hub,
                 std::ostream& out, std::ostream& err);
std::string RenderServePlan(const core::ServePlanRequest& r, const core::ServePlan& plan);

}  // namespace llmmem::cli
