// `llmmem run` (cli_run.h): the figures read, each with its line, then measured beside
// estimated per category with the ratio, what the estimate does not model and what the log
// does not show.
#include "cli/cli_run.h"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "cli/cli_files.h"
#include "cli/cli_fit.h"
#include "core/report/fit_json.h"
#include "core/run/calibrate.h"
#include "core/config/config_json.h"
#include "core/base/enum_table.h"
#include "core/base/units.h"
#include "core/run/run_json.h"

namespace llmmem::cli {
namespace {

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}
std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}
std::string Gib(double b) { return core::FormatNumber(b / 1073741824.0, 2) + " GiB"; }

std::string Value(const core::MeasuredFigure& f) {
  if (core::IsByteFigure(f.kind)) return Gib(f.value);
  if (f.kind == core::MeasuredKind::kMaxConcurrency) return core::FormatNumber(f.value, 2) + "x";
  std::string v = core::FormatCount(static_cast<int64_t>(f.value));
  if (f.of >= 0) v += "/" + core::FormatCount(static_cast<int64_t>(f.of));
  return v;
}

std::string Lines(const std::vector<size_t>& lines) {
  std::string s;
  for (size_t i = 0; i < lines.size() && i < 4; ++i) s += (i ? "," : "") + std::to_string(lines[i]);
  if (lines.size() > 4) s += ",...";
  return s;
}

void RenderRow(const core::RunComparisonRow& r, std::string& out) {
  out += "  " + Pad(r.label, 44) + PadLeft(r.measured >= 0 ? Gib(r.measured) : "-", 12) +
         PadLeft(r.estimated >= 0 ? Gib(r.estimated) : "-", 12) +
         PadLeft(r.ratio > 0 ? core::FormatNumber(r.ratio, 2) : "-", 7) +
         (r.lines.empty() ? "" : "   line " + Lines(r.lines)) + "\n";
  if (!r.note.empty()) out += "      " + r.note + "\n";
}

}  // namespace

std::string RenderRunReading(const core::RunLog& log, const core::RunComparison* cmp) {
  std::string out;
  for (const std::string& n : log.notes) out += "note: " + n + "\n";
  if (!log.recognised) return out + log.error;
  out += "Read: " + std::string(core::RunSourceName(log.source)) + ", " + std::to_string(log.figures.size()) +
         " figures\n";
  for (const core::MeasuredFigure& f : log.figures) {
    out += "  line " + Pad(std::to_string(f.line), 6) + Pad(core::MeasuredKindName(f.kind), 40) +
           PadLeft(Value(f), 14) + (f.device.empty() ? "" : "  [" + f.device + "]") + "\n";
    out += "      " + f.text.substr(0, 110) + (f.text.size() > 110 ? " ..." : "") + "\n";
  }
  const core::RunSettingsSeen& s = log.settings;
  std::string seen;
  if (s.model_line) seen += " model " + s.model + " (line " + std::to_string(s.model_line) + ");";
  if (s.version_line) seen += " version " + s.version + " (line " + std::to_string(s.version_line) + ");";
  if (s.max_model_len_line)
    seen += " max_model_len " + std::to_string(s.max_model_len) + " (line " + std::to_string(s.max_model_len_line) + ");";
  if (s.utilization_line)
    seen += " gpu_memory_utilization " + core::FormatNumber(s.gpu_memory_utilization, 2) + " (line " +
            std::to_string(s.utilization_line) + ");";
  if (s.n_ctx_line) seen += " n_ctx " + std::to_string(s.n_ctx) + " (line " + std::to_string(s.n_ctx_line) + ");";
  if (s.tensor_parallel_line)
    seen += " tensor_parallel " + std::to_string(s.tensor_parallel) + " (line " + std::to_string(s.tensor_parallel_line) + ");";
  if (!seen.empty()) out += "The log prints its settings:" + seen.substr(0, seen.size() - 1) + "\n";
  if (cmp == nullptr) {
    out += "\nAdd the run's settings (--model KEY --runtime vllm|sglang|llama.cpp|ollama --seq ... --gpu ...) or "
           "--from-log to set these figures beside the estimate.\n";
    return out;
  }
  const core::Config& c = cmp->config;
  out += "\nBeside the estimate (" + c.model.name + ", " + core::Id(c.mode) + ", runtime " + core::Id(c.runtime) +
         ", on " + c.gpu + ")" + (cmp->device.empty() ? "" : ", the figures of " + cmp->device) + ":\n";
  if (!cmp->ok) out += "  the configuration has errors: no estimate\n";
  out += "  " + Pad("", 44) + PadLeft("measured", 12) + PadLeft("estimated", 12) + PadLeft("ratio", 7) + "\n";
  for (const core::RunComparisonRow& r : cmp->rows) RenderRow(r, out);
  for (const core::RunComparisonRow& r : cmp->counts) {
    const bool ratio = r.label == std::string("Maximum concurrency");
    const auto show = [&](double v) {
      return ratio ? core::FormatNumber(v, 2) + "x" : core::FormatCount(static_cast<int64_t>(std::llround(v)));
    };
    out += "  " + Pad(r.label, 44) + PadLeft(show(r.measured), 12) + PadLeft(show(r.estimated), 12) +
           PadLeft(core::FormatNumber(r.ratio, 2), 7) + "   line " + Lines(r.lines) + "\n";
    if (!r.note.empty()) out += "      " + r.note + "\n";
  }
  if (!cmp->not_modelled.empty()) {
    out += "Measured, not modelled (the estimate has no row for it):\n";
    for (const core::RunComparisonRow& r : cmp->not_modelled) RenderRow(r, out);
  }
  if (!cmp->not_measured.empty()) {
    out += "Estimated, not in the log:\n";
    for (const core::RunComparisonRow& r : cmp->not_measured) RenderRow(r, out);
  }
  for (const std::string& n : cmp->notes) out += "  - " + n + "\n";
  out += "  (llmmem " + core::ConfigToQuery(c) + ")\n";
  const core::Calibration cal = core::Calibrate(*cmp);
  if (cal.ok) {
    out += "\nCalibration: " + cal.text + "\n  " + cal.reach + "\n";
    if (cal.carried > 0)
      out += "  Carry it into other settings: --measured-residual-gb " + core::FormatNumber(cal.config.measured_residual_gb, 3) +
             " (or llmmem run FILE ... --calibrate for the fit answers with it)\n";
  }
  return out;
}

int RunRunLog(const std::vector<std::string>& args, const ReadFileFn& read_file, std::ostream& out, std::ostream& err) {
  const LogCommand cmd = ReadLogCommand(
      args, read_file, "run",
      "llmmem run FILE|- [--model KEY --runtime vllm|sglang|llama.cpp|ollama and other settings] [--from-log] "
      "[--calibrate] [--json]",
      {"--from-log", "--calibrate"}, err);
  if (cmd.exit_code >= 0) return cmd.exit_code;
  const std::string& path = cmd.path;
  const CliParse& parsed = cmd.parsed;
  const bool settings = cmd.settings;
  auto seen = [&](const char* flag) { return std::find(cmd.seen.begin(), cmd.seen.end(), flag) != cmd.seen.end(); };
  const bool from_log = seen("--from-log"), calibrate = seen("--calibrate");
  const std::string* file = &cmd.text;
  const core::RunLog log = core::ReadRunLog(*file);
  core::RunComparison cmp;
  const bool compare = log.recognised && (settings || from_log);
  if (compare) cmp = core::CompareRun(log, parsed.options.config, from_log);
  // --calibrate: the fit answers (largest batch, sequence, concurrency, context) of the run's
  // settings with the measured residual carried (core/run/calibrate.h).
  const core::Calibration cal = compare && calibrate ? core::Calibrate(cmp) : core::Calibration{};
  if (parsed.options.json) {
    core::Json j = core::RunReadingToJson(log, compare ? &cmp : nullptr);
    if (cal.ok) j["calibration"]["fit"] = core::FitToJson(cal.config);
    out << j.Dump(2) << "\n";
  } else {
    out << RenderRunReading(log, compare ? &cmp : nullptr);
    if (cal.ok && cal.carried > 0)
      out << "\nWith the residual carried (--measured-residual-gb " << core::FormatNumber(cal.config.measured_residual_gb, 3)
          << "):\n" << RenderFit(cal.config);
    else if (cal.ok)
      out << "\nNothing carried: llmmem fit with the run's settings answers alone.\n";
  }
  if (calibrate && !compare && !parsed.options.json)
    err << "llmmem run: --calibrate needs the run's settings (--model ... or --from-log) to compare with\n";
  if (!log.recognised) {
    if (!parsed.options.json) err << "llmmem run: nothing in \"" << path << "\" was recognised\n";
    return 2;
  }
  return 0;
}

}  // namespace llmmem::cli
