// `llmmem oom FILE|- [config flags] [--json]`: reads a pasted CUDA out-of-memory message,
// nvidia-smi output, memory_summary() or mem_get_info() (core/oom_report.h) and explains it;
// with config flags (--model, --mode, ...) also puts the observed figures beside the estimate.
// Exit: 0 read, 2 nothing recognised or bad input.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "core/oom/oom_report.h"

namespace llmmem::cli {

// `args` start with "oom". `read_file` reads the path, or standard input for "-".
int RunOom(const std::vector<std::string>& args, const ReadFileFn& read_file, std::ostream& out, std::ostream& err);
std::string RenderOomReport(const core::OomReport& r, bool with_config);

}  // namespace llmmem::cli
