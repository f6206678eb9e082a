// The run beside the estimate (issue 33 part 2): each measured figure of a start-up log or a
// memory_stats() dump matched to the estimate's rows by category (weights, KV cache,
// activations and workspaces, CUDA graphs, non-torch memory, CUDA context, allocator peak),
// measured vs estimated and their ratio. A measured category the estimate has no row for is
// listed as not modelled, never folded into another row. The estimate is the serving one
// (serving.h, --runtime) or, for memory_stats, the allocator's peaks (Totals::allocated_bytes,
// reserved_bytes). Pure: no I/O.
#pragma once

#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/run/run_log.h"

namespace llmmem::core {

struct RunComparisonRow {
  RunCategory category = RunCategory::kNone;
  std::string label;              // "Weights", "Peak reserved"
  double measured = -1;           // bytes; < 0 when the log gives none
  double measured_tolerance = 0;  // the printed digits' rounding, summed
  std::vector<size_t> lines;      // the lines the measured figure was read from
  std::string measured_from;      // the first of them, as printed
  double estimated = -1;          // bytes; < 0 when the estimate has no row for it
  std::vector<std::string> estimate_rows;  // the estimate's row ids summed ("serving.kv_cache")
  double ratio = 0;               // measured / estimated when both > 0
  std::string note;               // "Ollama's own plan, not an allocation", ...
};

struct RunComparison {
  bool ok = false;                       // the estimate was made (the config has no errors)
  std::string device;                    // the device the measured figures are of ("CUDA0", "TP0", "")
  std::vector<RunComparisonRow> rows;    // measured and estimated
  std::vector<RunComparisonRow> not_modelled;  // measured, no estimate row
  std::vector<RunComparisonRow> not_measured;  // estimated, the log says nothing of it
  // Counts beside the serving report's (serving.h Serve): the KV pool in tokens, the maximum
  // concurrency, the layers on the GPU; measured and estimated hold the counts, not bytes.
  std::vector<RunComparisonRow> counts;
  std::vector<std::string> notes;        // settings read from the log, how the figures were chosen
  Config config;                         // the configuration estimated (with the log's settings when applied)
};

// What the log prints of the settings (RunSettingsSeen) written into `c`: seq from vLLM's
// max_model_len / SGLang's context_len / llama.cpp's n_ctx (per slot), mem_fraction from
// gpu_memory_utilization, and the runtime from the log's source. `notes` says each change.
Config ApplyLogSettings(const Config& c, const RunLog& log, std::vector<std::string>& notes);

// `c` is the estimate's configuration as given. With apply_log_settings, ApplyLogSettings first;
// without, a setting the log prints that differs from `c` is noted.
RunComparison CompareRun(const RunLog& log, const Config& c, bool apply_log_settings);

}  // namespace llmmem::core
