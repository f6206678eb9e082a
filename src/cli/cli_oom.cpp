// `llmmem oom`: the evidence read, the GPU at the failure as a text bar with each segment's
// arithmetic, the ranked diagnosis, the matching catalogue cards and, with a configuration,
// the observed figures beside the estimate and the doctor's remedies (cli_oom.h).
#include "cli/cli_oom.h"

#include <algorithm>
#include <cmath>
#include <istream>
#include <ostream>

#include "cli/cli_files.h"
#include "cli/cli_fit.h"
#include "core/config/config_json.h"
#include "core/oom/oom_json.h"
#include "core/base/units.h"

namespace llmmem::cli {
namespace {

using core::FormatTorchSize;

std::string Pad(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}
std::string PadLeft(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// Wraps `text` at `width` columns, each line after the first indented by `indent`.
std::string Wrap(const std::string& text, size_t width, const std::string& indent) {
  std::string out, line;
  size_t p = 0;
  while (p < text.size()) {
    const size_t space = text.find(' ', p);
    const std::string word = text.substr(p, space == std::string::npos ? std::string::npos : space - p);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n" + indent;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    if (space == std::string::npos) break;
    p = space + 1;
  }
  return out + line;
}

char SegmentChar(core::SegmentKind k) {
  switch (k) {
    case core::SegmentKind::kAllocated:
      return '#';
    case core::SegmentKind::kCached:
      return '+';
    case core::SegmentKind::kNonPytorch:
      return 'c';
    case core::SegmentKind::kOutside:
      return 'x';
    case core::SegmentKind::kOtherProcess:
      return 'o';
    case core::SegmentKind::kUnattributed:
      return '?';
    case core::SegmentKind::kDriverReserved:
      return 'd';
    default:
      return '.';
  }
}

void RenderBar(const core::OomBar& bar, std::string& out) {
  const double axis = std::max(bar.total_bytes, bar.capacity_bytes);
  if (!(axis > 0)) return;
  constexpr int kWidth = 64;
  std::string cells;
  double done = 0;
  for (const core::BarSegment& s : bar.segments) {
    done += s.bytes;
    const int until = static_cast<int>(std::lround(done / axis * kWidth));
    while (static_cast<int>(cells.size()) < until) cells += SegmentChar(s.kind);
  }
  cells.resize(kWidth, '.');
  out += "  [" + cells + "]\n";
  for (const core::BarSegment& s : bar.segments) {
    out += "  " + std::string(1, SegmentChar(s.kind)) + " " + Pad(s.label, 58) + PadLeft(FormatTorchSize(s.bytes), 11) +
           PadLeft(core::FormatNumber(100.0 * s.bytes / axis, 0) + "%", 6) + "\n";
    out += "      " + Wrap(s.arithmetic, 92, "      ") + "\n";
  }
  if (bar.request_bytes >= 0) {
    double free = 0;
    for (const core::BarSegment& s : bar.segments)
      if (s.kind == core::SegmentKind::kFree) free += s.bytes;
    out += "  ! " + Pad("The request that failed", 58) + PadLeft(FormatTorchSize(bar.request_bytes), 11) + "\n";
    out += "      " +
           (bar.request_bytes > free
                ? "more than the " + FormatTorchSize(free) + " free, by " + FormatTorchSize(bar.request_bytes - free)
                : "no more than the " + FormatTorchSize(free) + " free") +
           "\n";
  }
  for (const std::string& n : bar.notes) out += "  note: " + Wrap(n, 92, "        ") + "\n";
}

void RenderDevice(const core::OomReport& r, const core::DeviceReport& d, bool with_config, std::string& out) {
  const core::Observation& o = r.evidence.observations[d.observation];
  out += "Read: " + std::string(core::FormInfo(o.form).name) + ", line " + std::to_string(o.line) +
         (o.device >= 0 ? ", GPU " + std::to_string(o.device) : "") +
         (o.gpu_name.empty() ? "" : " (" + o.gpu_name + ")") +
         (o.repeats > 1 ? ", printed " + std::to_string(o.repeats) + " times" : "") + "\n";
  out += "  " + Wrap(o.excerpt, 96, "  ") + "\n";
  for (const std::string& n : o.notes) out += "  note: " + Wrap(n, 92, "        ") + "\n";
  if (d.bar.drawable) {
    out += "\nThe GPU " + std::string(o.IsOom() ? "at the failure" : "as reported") + ": " +
           FormatTorchSize(d.bar.capacity_bytes) + (d.bar.consistent ? "" : " (the figures contradict each other)") +
           "\n";
    RenderBar(d.bar, out);
  } else {
    for (const std::string& n : d.bar.notes) out += "  note: " + Wrap(n, 92, "        ") + "\n";
  }
  if (!d.findings.empty()) {
    out += o.IsOom() ? "\nDiagnosis, most likely cause first:\n" : "\nWhat it shows:\n";
    int i = 0;
    for (const core::Finding& f : d.findings) {
      out += " " + std::to_string(++i) + ". " + f.title + (f.bytes > 0 ? " (" + FormatTorchSize(f.bytes) + ")" : "") +
             (f.sufficient && o.IsOom() ? ": explains the failure alone" : "") + "\n";
      out += "    " + Wrap(f.text, 92, "    ") + "\n";
      for (const std::string& a : f.actions) out += "    - " + Wrap(a, 90, "      ") + "\n";
    }
  }
  if (!d.matches.empty()) {
    out += "\nThe card: " + FormatTorchSize(d.bar.capacity_bytes) + " matches ";
    for (size_t i = 0; i < d.matches.size(); ++i) {
      const core::GpuMatch& m = d.matches[i];
      out += (i ? ", " : "") + m.gpu->key + " (" +
             core::FormatCount(static_cast<int64_t>(m.gpu->UsableBytes() / 1048576.0)) + " MiB)";
    }
    out += d.matches.size() > 1 && d.matches.front().why == "capacity"
               ? ": the capacity alone cannot tell them apart (an nvidia-smi table in the paste names the card).\n"
               : ".\n";
    if (o.IsOom())
      out += "  For the estimate: --gpu " + d.matches.front().gpu->key + " --other-processes-gb " +
             core::FormatNumber(core::HeldElsewhereBytes(o, 1.3e9) / core::kGB, 2) + " (or --gpu-memory-gb " +
             core::FormatNumber(d.bar.capacity_bytes / core::kGB, 3) + " for exactly this capacity)\n";
  } else if (d.bar.capacity_bytes > 0 && o.IsOom()) {
    out += "\nThe card: no catalogue GPU has " + FormatTorchSize(d.bar.capacity_bytes) + "; use --gpu-memory-gb " +
           core::FormatNumber(d.bar.capacity_bytes / core::kGB, 3) + "\n";
  }
  if (with_config && d.has_config) {
    out += "\nBeside the estimate (" + d.suggested.model.name + ", " + core::Id(d.suggested.mode) + ", on " +
           d.suggested.gpu + " with " + core::FormatNumber(d.suggested.other_processes_gb) + " GB used by others):\n";
    if (!d.comparison.stage.empty()) out += "  How far the run had got: " + Wrap(d.comparison.stage, 90, "    ") + "\n";
    out += "  " + Pad("", 46) + PadLeft("observed", 12) + PadLeft("estimated", 12) + "\n";
    for (const core::ComparisonRow& row : d.comparison.rows) {
      out += "  " + Pad(row.label, 46) + PadLeft(row.observed >= 0 ? FormatTorchSize(row.observed) : "-", 12) +
             PadLeft(row.estimated >= 0 ? FormatTorchSize(row.estimated) : "-", 12) + "\n";
    }
    for (const std::string& diff : d.comparison.differences) out += "  - " + Wrap(diff, 90, "    ") + "\n";
    out += "  The estimate on the card as it was: " + std::string(d.suggested_fits ? "fits" : "does not fit") + "\n";
    out += "  (llmmem " + core::ConfigToQuery(d.suggested) + ")\n";
    if (!d.suggested_fits) {
      if (!d.findings.empty() && d.findings.front().id == "held_elsewhere")
        out += "\nIf the memory held elsewhere cannot be freed, the run has to fit beside it:\n";
      out += "\n" + RenderDoctor(d.remedies);
    }
  }
}

}  // namespace

std::string RenderOomReport(const core::OomReport& r, bool with_config) {
  std::string out;
  for (const std::string& n : r.evidence.notes) out += n + "\n";
  if (!r.headline.empty()) out += "In short: " + Wrap(r.headline, 86, "  ") + "\n";
  for (size_t i = 0; i < r.devices.size(); ++i) {
    out += "\n";
    RenderDevice(r, r.devices[i], with_config, out);
  }
  if (!with_config && !r.devices.empty())
    out +=
        "\nAdd the run's settings (--model KEY --mode ... --batch ... --seq ...) to put the observed figures beside "
        "the estimate and get the OOM doctor's remedies for this card.\n";
  return out;
}

int RunOom(const std::vector<std::string>& args, const ReadFileFn& read_file, std::ostream& out, std::ostream& err) {
  const LogCommand cmd = ReadLogCommand(args, read_file, "oom",
                                        "llmmem oom FILE|- [--model KEY --mode ... and other settings] [--json]", {}, err);
  if (cmd.exit_code >= 0) return cmd.exit_code;
  const std::string& path = cmd.path;
  const CliParse& parsed = cmd.parsed;
  const bool settings = cmd.settings;
  const std::string& text = cmd.text;
  const core::OomReport report = core::ReadOomReport(text, settings ? &parsed.options.config : nullptr);
  if (parsed.options.json) {
    out << core::OomReportToJson(report).Dump(2) << "\n";
  } else {
    out << RenderOomReport(report, settings);
  }
  if (!report.evidence.recognised) {
    if (!parsed.options.json) err << "llmmem oom: nothing in \"" << path << "\" was recognised\n";
    return 2;
  }
  return 0;
}

}  // namespace llmmem::cli
