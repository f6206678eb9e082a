#include "cli/cli_table.h"

#include <cctype>

#include "core/config/model_changes.h"
#include "core/estimate/serving.h"
#include "core/estimate/speed.h"
#include "core/estimate/verdict.h"
#include "core/catalogue/presets.h"
#include "core/report/published_bands.h"
#include "core/base/units.h"

namespace llmmem::cli {
namespace {

using core::FormatNumber;
using core::kGB;
using core::kGiB;

std::string Pad(const std::string& s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

// What a GPU group holds off the GPU below it: " + 12.05 GB on CPU"; empty when nothing.
std::string OffGpuNote(const core::BreakdownNode& n) {
  std::string note;
  if (n.cpu_bytes > 0) note += "  + " + FormatNumber(n.cpu_bytes / kGB, 3) + " GB on CPU";
  if (n.nvme_bytes > 0) note += "  + " + FormatNumber(n.nvme_bytes / kGB, 3) + " GB on NVMe";
  return note;
}

void Rows(const core::BreakdownNode& n, int depth, double total, bool formulas, std::string& out) {
  if (depth > 0 && n.bytes == 0 && n.children.empty()) return;
  const std::string name = std::string(static_cast<size_t>(depth) * 2, ' ') + n.name;
  // Offloaded rows are not in the per-GPU total nor in the GPU rows above them: their
  // figures in parentheses, and where they are instead of a share.
  const bool on_gpu = n.device == core::Device::kGpu;
  const auto figure = [&](double v) { return on_gpu ? FormatNumber(v, 3) : "(" + FormatNumber(v, 3) + ")"; };
  const std::string share = !on_gpu     ? "on " + std::string(core::DeviceName(n.device))
                            : total > 0 ? FormatNumber(100 * n.bytes / total, 1) + "%"
                                        : "";
  out += Pad(name, 52) + Pad(figure(n.bytes / kGB), 12, true) + Pad(figure(n.bytes / kGiB), 12, true) +
         Pad(share, 9, true) + (on_gpu && !n.children.empty() ? OffGpuNote(n) : "") + "\n";
  if (formulas && !n.formula.empty()) {
    out += std::string(static_cast<size_t>(depth) * 2 + 4, ' ') + "= " + n.formula + "\n";
    if (!n.source.empty()) out += std::string(static_cast<size_t>(depth) * 2 + 4, ' ') + "  [" + n.source + "]\n";
  }
  for (const core::BreakdownNode& c : n.children) Rows(c, depth + 1, total, formulas, out);
}

}  // namespace

std::string VerdictLine(const core::Config& c, const core::Totals& t) {
  const std::string where = c.gpu + " (" + core::FormatBytesBoth(t.capacity_bytes) + "): ";
  const std::string headroom = core::FormatBytesBoth(t.Headroom()) + " headroom";
  const std::string note = core::VerdictNote(c, t);
  switch (t.Judge()) {
    case core::Verdict::kFits:
      return "FITS " + where + headroom;
    case core::Verdict::kIncomplete:
      return "INCOMPLETE " + where + "the counted " + core::FormatBytesBoth(t.peak_bytes) + " fits (" + headroom +
             "), but " + note;
    case core::Verdict::kDoesNotFit:
      if (!t.GpuHolds())
        return "DOES NOT FIT " + where + "over by " + core::FormatBytesBoth(-t.Headroom()) +
               (note.empty() ? "" : "; and " + note);
      return "DOES NOT FIT " + where + "the GPU holds it (" + headroom + "), but " + note;
  }
  return std::string();
}

std::string RenderTable(const core::Config& c, const core::Estimate& e, bool formulas) {
  const core::Totals& t = e.totals;
  std::string out;
  const std::string preset = core::PresetNote(c.model);  // "llama-3.1-8b, customised: hidden"
  out += "Model: " + c.model.name + (preset.empty() ? "" : " (" + preset + ")") + ", " + core::FormatCount(t.params) +
         " parameters (" + core::FormatParams(static_cast<double>(t.params)) + ")";
  if (t.active_params != t.params && t.active_params > 0)
    out += ", " + core::FormatParams(static_cast<double>(t.active_params)) + " active";
  out += "\nWorkload: " + std::string(core::Id(c.mode)) + ", micro-batch " + std::to_string(c.batch) + " x " +
         std::to_string(c.seq) + " tokens, " + core::Info(c.dtype).label;
  if (c.autocast != core::Dtype::kCount) out += std::string(" weights, autocast ") + core::Info(c.autocast).label;
  if (t.trainable_params > 0 && t.trainable_params != t.params)
    out += ", " + core::FormatCount(t.trainable_params) + " trainable";
  if (c.pp > 1) {
    out += "\nPer GPU on pipeline stage " + std::to_string(t.pipeline_stage + 1) + " of " + std::to_string(c.pp) +
           (t.pipeline_stage == 0 ? " (the first" : " (the last") + ", the more loaded end; why: below the table)";
  }
  out += "\n\n";
  out += Pad("Component", 52) + Pad("GB", 12, true) + Pad("GiB", 12, true) + Pad("share", 9, true) + "\n";
  out += std::string(85, '-') + "\n";
  Rows(e.tree, 0, t.peak_bytes, formulas, out);
  out += std::string(85, '-') + "\n";
  if (e.tree.cpu_bytes > 0 || e.tree.nvme_bytes > 0) {
    out += "(Figures in parentheses are offloaded: they live off the GPU and are not in the GPU figures.)\n";
  }
  out += e.peak_note + "\n";
  out += "What PyTorch and nvidia-smi would report: torch.cuda.max_memory_allocated " + core::FormatBytesBoth(t.allocated_bytes) +
         ", max_memory_reserved " + core::FormatBytesBoth(t.reserved_bytes) + ", nvidia-smi " +
         core::FormatBytesBoth(t.nvidia_smi_bytes) + "\n";
  // Beside the figure, how far published runs of the same program were from it (issue 30).
  if (std::string band = core::PublishedBandText(c); !band.empty()) {
    band[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(band[0])));
    out += band + "\n";
  }

  out += VerdictLine(c, t) + "\n";
  // Issue 31: on unified memory, the budget the verdict used and how it is raised.
  if (const core::Phrase budget = core::GpuBudgetNote(c); !budget.text.empty())
    out += "GPU budget: " + core::Render(budget) + "\n";
  if (core::UsesServingRuntime(c)) {
    const core::ServingReport r = core::Serve(c);
    out += "\n" + std::string(core::Info(c.runtime).label) + ":\n";
    for (const core::ServingLine& l : r.lines) {
      out += "  " + Pad(l.label, 50) + Pad(l.value, 28) + (l.note.empty() ? "" : "  " + l.note) + "\n";
    }
    out += "\n";
  }
  if (const core::SpeedEstimate sp = core::EstimateSpeed(c); sp.ok) {
    out += "Speed (roofline; assumptions adjustable with --bw-efficiency, --mfu, --bandwidth-gbps, --tflops):\n";
    for (const core::SpeedLine& l : sp.lines) {
      out += "  " + Pad(l.label, 28) + Pad(l.value, 26) + (l.note.empty() ? "" : "  " + l.note) + "\n";
    }
    out += "\n";
  }
  if (c.mode == core::Mode::kInference) out += "Quick rule for comparison: " + e.quick_rule_formula + "\n";
  out += "(GB = 1e9 bytes, GiB = 2^30 bytes)\n";
  return out;
}

std::string RenderModelList() {
  std::string out = Pad("key", 22) + Pad("parameters", 18, true) + "  " + Pad("family", 14) + "Hugging Face id\n";
  for (const core::Preset& p : core::Presets()) {
    std::string count = p.ok ? core::FormatCount(core::CountParameters(p.model).total) : "(unsupported)";
    out += Pad(p.key, 22) + Pad(count, 18, true) + "  " + Pad(p.family, 14) + p.hf_id + "\n";
  }
  return out;
}

}  // namespace llmmem::cli
