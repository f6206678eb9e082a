// The "Read an OOM" tab's other reading (issue 33 part 4): a serving runtime's start-up log
// (vLLM, SGLang, llama.cpp, Ollama) or a memory_stats() JSON, pasted or dropped, read by the
// core's run readers off the UI thread (hooks.background "read_run": the JS API's readRun and
// `llmmem run --json`'s document) and set beside the estimate of the configuration on screen,
// category by category; what the estimate has no row for is named, never folded in.
// Without ImGui, so the tests cover it. May include: core (no imgui).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"

namespace llmmem::app {

struct RunRow {
  std::string category, label, note;
  bool bytes = true;            // false: a count (tokens, blocks)
  double measured = -1, estimated = -1, ratio = 0;  // < 0: not there
  std::vector<int64_t> lines;   // where the log says it
};

struct RunAnswer {
  int64_t seq = 0;
  bool recognised = false;
  std::string source;       // "vllm", "sglang", ...
  std::string source_name;  // "vLLM", "SGLang", ...
  std::string error;
  std::vector<std::string> notes;
  std::vector<RunRow> rows, not_modelled, not_measured, counts;
  // What the run held beyond the estimate (core/run/calibrate.h), to carry into it.
  bool calibrated = false;
  std::string calibration, reach;
  double carried_gb = 0;
};

struct RunView {
  std::string asked;  // the text and configuration of the last request (its key)
  int64_t seq = 0;
  bool running = false;
  RunAnswer answer;
};

// The request for `text` beside `c` (read_run's JSON).
std::string RunRequestJson(const std::string& text, const core::Config& c);
RunAnswer RunAnswerFromJson(int64_t seq, const std::string& text);
// The answer for this view; false when `seq` is not its last request's.
bool RunAnswered(RunView& v, int64_t seq, bool ok, const std::string& text);

}  // namespace llmmem::app
