// The verdict banner: model, mode, per-GPU peak in GB and GiB against the GPU's memory,
// and whether it fits (with headroom) or is over (by how much).
#include <string>

#include "app/panels.h"
#include "app/theme.h"
#include "core/units.h"
#include "imgui.h"

namespace llmmem::app {

const char* ModeLabel(core::Mode m) {
  switch (m) {
    case core::Mode::kInference: return "Inference";
    case core::Mode::kTraining: return "Full training";
    case core::Mode::kLora: return "LoRA fine-tuning";
    case core::Mode::kQlora: return "QLoRA fine-tuning";
    case core::Mode::kRlhf: return "RLHF";
  }
  return "?";
}

void DrawVerdict(const State& s) {
  const core::Totals& t = s.estimate.totals;
  const core::Config& c = s.config;
  const ImVec4 dim = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);

  ImGui::Text("%s", c.model.name.c_str());
  ImGui::SameLine();
  const double params = t.ok ? static_cast<double>(t.params)
                             : static_cast<double>(core::TrainableBase(c.model, core::CountParameters(c.model)));
  ImGui::TextColored(dim, "%s params  ·  %s  ·  per GPU%s", core::FormatParams(params).c_str(),
                     ModeLabel(c.mode), c.tp > 1 ? " (tensor-parallel shard)" : "");

  if (!t.ok) {
    ImGui::TextColored(BadColor(), "No estimate: fix the inputs marked in red.");
    for (const core::Diagnostic& d : s.estimate.diagnostics) {
      if (d.severity != core::Severity::kError) continue;
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(BadColor(), "%s%s%s", d.field.c_str(), d.field.empty() ? "" : ": ", d.message.c_str());
      ImGui::PopTextWrapPos();
    }
    return;
  }

  const std::string gb = core::FormatBytes(t.peak_bytes, core::UnitSystem::kDecimal);
  const std::string gib = core::FormatBytes(t.peak_bytes, core::UnitSystem::kBinary);
  const std::string cap = core::FormatBytes(t.capacity_bytes, core::UnitSystem::kDecimal);
  const std::string cap_gib = core::FormatBytes(t.capacity_bytes, core::UnitSystem::kBinary);
  const bool gib_first = s.units == core::UnitSystem::kBinary;

  ImGui::PushFont(LargeFont());
  const float large_h = ImGui::GetTextLineHeight();
  ImGui::TextUnformatted((gib_first ? gib : gb).c_str());
  ImGui::PopFont();
  ImGui::SameLine();
  // Sit the smaller text on the big number's baseline.
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + (large_h - ImGui::GetTextLineHeight()) * 0.78f);
  ImGui::TextColored(dim, "(%s)  of %s (%s) on %s", (gib_first ? gb : gib).c_str(), (gib_first ? cap_gib : cap).c_str(),
                     (gib_first ? cap : cap_gib).c_str(), c.gpu.c_str());

  const double pct = t.capacity_bytes > 0 ? 100.0 * t.peak_bytes / t.capacity_bytes : 0;
  if (t.Fits()) {
    ImGui::TextColored(GoodColor(), "Fits, with %s headroom (%.0f%% of the GPU used)",
                       core::FormatBytes(t.Headroom(), s.units).c_str(), pct);
  } else {
    ImGui::TextColored(BadColor(), "Does not fit: over by %s (needs %.0f%% of the GPU)",
                       core::FormatBytes(-t.Headroom(), s.units).c_str(), pct);
  }
  if (s.pinned && s.pinned->estimate.totals.ok) {
    const double pinned = s.pinned->estimate.totals.peak_bytes;
    const double delta = t.peak_bytes - pinned;
    ImGui::TextColored(dim, "Pinned: %s = %s", s.pinned->label.c_str(), core::FormatBytes(pinned, s.units).c_str());
    ImGui::SameLine();
    if (delta == 0) {
      ImGui::TextColored(dim, "(no change)");
    } else {
      ImGui::TextColored(delta > 0 ? BadColor() : GoodColor(), "change %s%s (%+.1f%%)", delta > 0 ? "+" : "-",
                         core::FormatBytes(delta > 0 ? delta : -delta, s.units).c_str(),
                         pinned > 0 ? 100.0 * delta / pinned : 0.0);
    }
  }
  if (!s.estimate.peak_note.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(dim, "%s", s.estimate.peak_note.c_str());
    ImGui::PopTextWrapPos();
  }
}

}  // namespace llmmem::app
