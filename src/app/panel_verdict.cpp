// The verdict: the per-GPU peak in large type against the card's memory, whether it fits
// (and with how much to spare) or by how much it is over, and then, only when it does not
// fit, a button naming how many single changes would make it fit: the OOM doctor opens
// when asked, never by itself. GB and GiB both shown, the chosen unit first.
#include <cstdio>
#include <string>

#include "app/i18n.h"
#include "app/mirror.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "core/config/gpu_count.h"
#include "core/estimate/verdict.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {

namespace {

int FittingRemedies(const State& s) {
  int n = 0;
  for (const core::Remedy& r : s.remedies) n += r.fits ? 1 : 0;
  return n;
}

}  // namespace

void DrawVerdict(State& s) {
  const core::Totals& t = s.estimate.totals;
  const core::Config& c = s.config;
  const ImVec4 dim = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);

  const double params = t.ok ? static_cast<double>(t.params)
                             : static_cast<double>(core::TrainableBase(c.model, core::CountParameters(c.model)));
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(dim, "%s  ·  %s %s  ·  %s  ·  %s%s", c.model.name.c_str(), core::FormatParams(params).c_str(),
                     Tr("params"), ModeLabel(c.mode), Tr("per GPU"), c.tp > 1 ? Tr(" (tensor-parallel shard)") : "");
  ImGui::PopTextWrapPos();

  if (!t.ok) {
    ImGui::TextColored(BadColor(), "%s", Tr("No estimate: fix the inputs marked in red."));
    for (const core::Diagnostic& d : s.estimate.diagnostics) {
      if (d.severity != core::Severity::kError) continue;
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(BadColor(), "%s%s%s", d.field.c_str(), d.field.empty() ? "" : ": ", d.message.c_str());
      ImGui::PopTextWrapPos();
    }
    return;
  }

  const bool gib_first = s.units == core::UnitSystem::kBinary;
  const core::UnitSystem first = gib_first ? core::UnitSystem::kBinary : core::UnitSystem::kDecimal;
  const core::UnitSystem second = gib_first ? core::UnitSystem::kDecimal : core::UnitSystem::kBinary;
  const std::string peak = core::FormatBytes(t.peak_bytes, first);
  const std::string peak2 = core::FormatBytes(t.peak_bytes, second);
  const std::string cap = core::FormatBytes(t.capacity_bytes, first);
  const std::string cap2 = core::FormatBytes(t.capacity_bytes, second);

  ImGui::PushFont(LargeFont());
  const float large_h = ImGui::GetTextLineHeight();
  ImGui::TextUnformatted(peak.c_str());
  ImGui::PopFont();
  MarkItem(s, "verdict_total");
  // Beside the big number, sat on its baseline, when it fits there; under it otherwise.
  char of[160];
  const long long gpus = static_cast<long long>(core::TotalGpus(c));
  if (gpus > 1) {
    std::snprintf(of, sizeof of, Tr("(%s)  of %s (%s) on each of %lld x %s"), peak2.c_str(), cap.c_str(), cap2.c_str(),
                  gpus, c.gpu.c_str());
  } else {
    std::snprintf(of, sizeof of, Tr("(%s)  of %s (%s) on %s"), peak2.c_str(), cap.c_str(), cap2.c_str(), c.gpu.c_str());
  }
  ImGui::SameLine();
  if (ImGui::CalcTextSize(of).x <= ImGui::GetContentRegionAvail().x) {
    ImGui::SetCursorPosY(ImGui::GetCursorPosY() + (large_h - ImGui::GetTextLineHeight()) * 0.78f);
  } else {
    ImGui::NewLine();
  }
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(dim, "%s", of);
  ImGui::PopTextWrapPos();
  // Issue 31: on unified memory, what the OS lets the GPU use (the figure above) and how to raise it.
  if (const core::Phrase budget = core::GpuBudgetNote(c); !budget.text.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(dim, "%s", TrPhrase(budget).c_str());
    ImGui::PopTextWrapPos();
    MarkItem(s, "gpu_budget");
  }

  const double pct = t.capacity_bytes > 0 ? 100.0 * t.peak_bytes / t.capacity_bytes : 0;
  if (t.Fits()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(GoodColor(), Tr("Fits, with %s to spare (%.0f%% of the GPU used)"),
                       core::FormatBytes(t.Headroom(), s.units).c_str(), pct);
    ImGui::PopTextWrapPos();
  } else if (t.GpuHolds()) {
    // Issue 28: what is counted fits, but a part is unknown or the host RAM is short.
    const bool incomplete = t.Judge() == core::Verdict::kIncomplete;
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(incomplete ? WarnColor() : BadColor(),
                       incomplete ? Tr("Incomplete: what is counted fits (%s to spare), but a part is unknown")
                                  : Tr("Does not fit: the GPU holds it (%s to spare), but the host RAM is short"),
                       core::FormatBytes(t.Headroom(), s.units).c_str());
    ImGui::TextColored(dim, "%s", core::VerdictNote(c, t).c_str());
    ImGui::PopTextWrapPos();
  } else {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(BadColor(), Tr("Does not fit: over by %s (needs %.0f%% of the GPU)"),
                       core::FormatBytes(-t.Headroom(), s.units).c_str(), pct);
    ImGui::PopTextWrapPos();
    const int ways = FittingRemedies(s);
    std::string label = ways > 1    ? std::to_string(ways) + Tr(" ways to make it fit")
                        : ways == 1 ? std::string(Tr("1 way to make it fit"))
                                    : std::string(Tr("What would help?"));
    label += "###ways";
    ImGui::SameLine();
    if (ImGui::CalcTextSize(label.c_str(), nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2 >
        ImGui::GetContentRegionAvail().x)
      ImGui::NewLine();
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(BadColor().x, BadColor().y, BadColor().z, 0.35f));
    if (ImGui::SmallButton(label.c_str())) {
      s.tab = kTabDoctor;
      s.select_tab = true;
      s.view_dirty = true;
    }
    ImGui::PopStyleColor();
    MarkItem(s, "ways");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", Tr("Open the OOM doctor: each single change, re-estimated, best first"));
  }
  if (s.pinned && s.pinned->estimate.totals.ok) {
    const double pinned = s.pinned->estimate.totals.peak_bytes;
    const double delta = t.peak_bytes - pinned;
    ImGui::TextColored(dim, "%s: %s = %s", Tr("Pinned"), s.pinned->label.c_str(),
                       core::FormatBytes(pinned, s.units).c_str());
    ImGui::SameLine();
    if (delta == 0) {
      ImGui::TextColored(dim, "%s", Tr("(no change)"));
    } else {
      ImGui::TextColored(delta > 0 ? BadColor() : GoodColor(), "%s %s%s (%+.1f%%)", Tr("change"), delta > 0 ? "+" : "-",
                         core::FormatBytes(delta > 0 ? delta : -delta, s.units).c_str(),
                         pinned > 0 ? 100.0 * delta / pinned : 0.0);
    }
  }
  const std::string measured = MeasuredLine(s);
  if (!measured.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(dim, "%s", measured.c_str());
    ImGui::PopTextWrapPos();
    MarkItem(s, "measured");
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", Tr("allocated: the tensors alive at the peak. reserved: plus what PyTorch's caching "
                                 "allocator keeps cached (the fragmentation reserve, blocks it could not reuse). "
                                 "nvidia-smi: plus the CUDA context and memory outside PyTorch. The fit is judged on "
                                 "the total above, since the allocator frees its cache before it fails."));
  }
  if (!s.estimate.peak_phrases.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(dim, "%s", TrSentences(s.estimate.peak_phrases).c_str());
    // The allocator's behaviour and its C++ source only with the formulas (issue 32 part 7).
    if (s.formulas && !s.estimate.peak_detail_phrases.empty())
      ImGui::TextColored(dim, "%s", TrSentences(s.estimate.peak_detail_phrases).c_str());
    ImGui::PopTextWrapPos();
  }
}

}  // namespace llmmem::app
