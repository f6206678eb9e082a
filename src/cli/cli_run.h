// `llmmem run FILE|- [config flags] [--from-log] [--json]`: reads a serving runtime's start-up
// log (vLLM, SGLang, llama.cpp, Ollama) or a torch.cuda.memory_stats() JSON dump
// (core/run/run_log.h) and, with config flags, sets each measured figure beside the
// estimate's rows of its category (core/run/run_compare.h); --from-log takes the settings the
// log prints (runtime, max_model_len / n_ctx, gpu_memory_utilization) into the estimate.
// Exit: 0 read, 2 nothing recognised or bad input.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "cli/cli_args.h"
#include "core/run/run_compare.h"
#include "core/run/run_log.h"

namespace llmmem::cli {

// `args` start with "run".
int RunRunLog(const std::vector<std::string>& args, const ReadFileFn& read_file, std::ostream& out, std::ostream& err);
std::string RenderRunReading(const core::RunLog& log, const core::RunComparison* cmp);

}  // namespace llmmem::cli
