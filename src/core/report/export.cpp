#include "core/report/export.h"

#include "core/estimate/verdict.h"

#include "core/config/config_json.h"
#include "core/base/safe_text.h"
#include "core/base/units.h"

namespace llmmem::core {
namespace {

// Markdown: names, formulas and messages as text, never markup or raw HTML (a model name
// from a file could carry "<img onerror=...>" or a link); control characters escaped.
std::string Md(const std::string& s) { return MarkdownSafe(s); }

// CSV: quoted, quotes doubled, and a formula's leading = + - @ neutralised (safe_text.h).
std::string CsvField(const std::string& s) {
  std::string out = "\"";
  for (char ch : CsvTextSafe(s)) {
    if (ch == '"')
      out += "\"\"";
    else
      out += ch;
  }
  return out + "\"";
}

void MarkdownRows(const BreakdownNode& n, int depth, double total, std::string& out) {
  if (depth > 0 && n.bytes == 0 && n.children.empty()) return;
  std::string indent;
  for (int i = 0; i < depth; ++i) indent += "&nbsp;&nbsp;";
  // Offloaded rows: in parentheses, on their device, not in the GPU figures above them.
  const bool on_gpu = n.device == Device::kGpu;
  const auto figure = [&](double v) { return on_gpu ? FormatNumber(v, 3) : "(" + FormatNumber(v, 3) + ")"; };
  const std::string share = !on_gpu     ? std::string("on ") + DeviceName(n.device)
                            : total > 0 ? FormatNumber(100 * n.bytes / total, 1) + "%"
                                        : "";
  out += "| " + indent + Md(n.name) + " | " + figure(n.bytes / kGB) + " | " + figure(n.bytes / kGiB) + " | " + share +
         " | " + Md(n.formula) + " |\n";
  for (const BreakdownNode& c : n.children) MarkdownRows(c, depth + 1, total, out);
}

void CsvRows(const BreakdownNode& n, const std::string& parent, std::string& out) {
  const char* device = DeviceId(n.device);
  out += CsvField(n.id) + "," + CsvField(parent) + "," + CsvField(n.name) + "," + FormatJsonNumber(n.bytes) + "," +
         FormatJsonNumber(n.bytes / kGB) + "," + FormatJsonNumber(n.bytes / kGiB) + "," + device + "," +
         CsvField(n.children.empty() ? CategoryId(n.category) : "") + "," + CsvField(n.formula) + "," +
         CsvField(n.source) + "\n";
  for (const BreakdownNode& c : n.children) CsvRows(c, n.id, out);
}

}  // namespace

std::string EstimateToMarkdown(const Config& c, const Estimate& e) {
  std::string out = "### " + Md(c.model.name) + ": " + Id(c.mode) + ", micro-batch " + std::to_string(c.batch) + " x " +
                    std::to_string(c.seq) + " tokens\n\n";
  if (!e.totals.ok) {
    out += "Not computed:\n";
    for (const Diagnostic& d : e.diagnostics) out += "- " + Md(d.message) + "\n";
    return out;
  }
  const Totals& t = e.totals;
  out += "**" + FormatBytesBoth(t.peak_bytes) + " per GPU** on " + Md(c.gpu) + " (" +
         FormatBytesBoth(t.capacity_bytes) + "): " +
         (t.Fits()       ? "fits, " + FormatBytesBoth(t.Headroom()) + " headroom"
          : t.GpuHolds() ? std::string(t.Judge() == Verdict::kIncomplete ? "incomplete" : "does not fit") +
                               ": the GPU holds it (" + FormatBytesBoth(t.Headroom()) + " headroom), but " +
                               Md(VerdictNote(c, t))
                         : "does not fit, over by " + FormatBytesBoth(-t.Headroom())) +
         ". " + Md(e.peak_note) + "\n\n";
  out += "| Component | GB | GiB | Share | Formula |\n|---|---:|---:|---:|---|\n";
  MarkdownRows(e.tree, 0, t.peak_bytes, out);
  out += "\nGB = 1e9 bytes, GiB = 2^30 bytes. Settings: `" + ConfigToQuery(c) + "`\n";
  return out;
}

std::string EstimateToCsv(const Estimate& e) {
  std::string out = "id,parent,name,bytes,gb,gib,device,category,formula,source\n";
  if (e.totals.ok) CsvRows(e.tree, "", out);
  return out;
}

}  // namespace llmmem::core
