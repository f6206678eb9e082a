// libFuzzer: any text given to `llmmem run` / readRun (core/run/run_log.h). The reading must
// keep its promises: a text with no figure is an error naming what was expected; every
// figure is finite and non-negative, has a line within the text and a known form; the
// figures stay within kRunMaxFigures; the JSON is written. Inputs starting with '!' are also
// set beside the default configuration's estimate under vLLM (run_compare.h): every ratio
// is finite (0 only for a measured zero) and a row is measured, estimated or both as its list says.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/config/config_json.h"
#include "core/run/run_compare.h"
#include "core/run/run_json.h"
#include "core/run/run_log.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmmem::core;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const RunLog log = ReadRunLog(text);
  Check(log.recognised == !log.figures.empty());
  if (!log.recognised) Check(!log.error.empty());
  Check(log.figures.size() <= kRunMaxFigures);
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  for (const MeasuredFigure& f : log.figures) {
    Check(std::isfinite(f.value) && f.value >= 0);
    Check(std::isfinite(f.tolerance) && f.tolerance >= 0);
    Check(f.line >= 1 && f.line <= lines + 1);  // UTF-16 text is read as its UTF-8
    Check(!f.form.empty());
    Check(f.text.size() <= kRunMaxLineChars + 4);
  }
  if (size > 0 && data[0] == '!' && log.recognised) {
    Config c = DefaultConfig();
    c.mode = Mode::kInference;
    c.runtime = Runtime::kVllm;
    const RunComparison cmp = CompareRun(log, c, true);
    for (const RunComparisonRow& r : cmp.rows) {
      // A measured zero (vLLM's "activation peak memory 0.00GiB") is a figure: its ratio is 0.
      Check(r.measured >= 0 && r.estimated > 0 && std::isfinite(r.ratio) && r.ratio >= 0 &&
            (r.ratio > 0) == (r.measured > 0));
    }
    for (const RunComparisonRow& r : cmp.not_modelled) Check(r.measured >= 0 && r.estimated < 0);
    for (const RunComparisonRow& r : cmp.not_measured) Check(r.measured < 0 && r.estimated > 0);
    Check(!RunReadingToJson(log, &cmp).Dump().empty());
  }
  Check(!RunLogToJson(log).Dump().empty());
  return 0;
}
