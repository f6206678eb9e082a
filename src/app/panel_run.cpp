// The "Read an OOM" tab's run reading (issue 33 part 4): what a serving runtime printed while
// it started (vLLM, SGLang, llama.cpp, Ollama) or a memory_stats() dump, set beside the
// estimate of the configuration on screen: measured and estimated per category, the ratio,
// the line each figure was read from; what the estimate has no row for, and what it counts
// that the log does not print, listed apart. Read off the UI thread (hooks.background
// "read_run"). Logic in run_view.h. May include: imgui, core, app/state.h.
#include <cstdio>
#include <functional>
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

void Wrapped(const std::string& text, bool dim) {
  if (dim) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  if (dim) ImGui::PopStyleColor();
}

std::string Figure(const RunRow& r, double v, const State& s) {
  if (v < 0) return "-";
  return r.bytes ? core::FormatBytes(v, s.units) : core::FormatNumber(v, v == static_cast<int64_t>(v) ? 0 : 2);
}

std::string Lines(const RunRow& r) {
  std::string out;
  for (int64_t n : r.lines) out += (out.empty() ? "line " : ", ") + std::to_string(n);
  return out;
}

void Table(const char* id, const std::vector<RunRow>& rows, const State& s) {
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (rows.empty() || !ImGui::BeginTable(id, 4, flags)) return;
  ImGui::TableSetupColumn(Tr("What"), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn(Tr("Measured"));
  ImGui::TableSetupColumn(Tr("Estimated"));
  ImGui::TableSetupColumn(Tr("Ratio"));
  ImGui::TableHeadersRow();
  for (const RunRow& r : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(Tr(r.label));
    if (ImGui::IsItemHovered() && (!r.note.empty() || !r.lines.empty()))
      ImGui::SetTooltip("%s%s%s", Lines(r).c_str(), r.note.empty() || r.lines.empty() ? "" : ": ", r.note.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(Figure(r, r.measured, s).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(Figure(r, r.estimated, s).c_str());
    ImGui::TableNextColumn();
    if (r.ratio > 0) {
      const bool off = r.ratio < 0.9 || r.ratio > 1.1;
      ImGui::TextColored(off ? WarnColor() : GoodColor(), "%.2f", r.ratio);
    }
  }
  ImGui::EndTable();
}

void List(const char* heading, const std::vector<RunRow>& rows, bool measured, const State& s) {
  if (rows.empty()) return;
  ImGui::TextDisabled("%s", Tr(heading));
  for (const RunRow& r : rows) {
    std::string line = "  " + std::string(Tr(r.label)) + ": " + Figure(r, measured ? r.measured : r.estimated, s);
    if (!r.lines.empty()) line += " (" + Lines(r) + ")";
    if (!r.note.empty()) line += ": " + r.note;
    Wrapped(line, false);
  }
}

}  // namespace

bool DrawRunReading(State& s, const std::string& text) {
  RunView& v = s.run;
  if (!s.hooks.background || text.empty()) return false;
  const std::string key = s.config_query + "\n" + std::to_string(text.size()) + ":" +
                          std::to_string(std::hash<std::string>{}(text));
  if (key != v.asked) {
    v.asked = key;
    v.seq = ++s.background_seq;
    v.running = true;
    s.hooks.background(v.seq, "read_run", RunRequestJson(text, s.config));
  }
  const RunAnswer& a = v.answer;
  if (v.running || a.seq != v.seq || !a.recognised) return false;
  ImGui::Spacing();
  char heading[200];
  std::snprintf(heading, sizeof heading, Tr("Beside the estimate: what the %s log says it holds"), a.source_name.c_str());
  Wrapped(heading, true);
  ImGui::Separator();
  Table("run_rows", a.rows, s);
  Table("run_counts", a.counts, s);
  List("In the log, not modelled by the estimate:", a.not_modelled, true, s);
  List("Estimated, not in the log:", a.not_measured, false, s);
  for (const std::string& n : a.notes) Wrapped(n, true);
  // Calibrate (issue 33 part 3): the residual carried into the estimate as its own line, so
  // the Fit tab's answers (largest batch, sequence, concurrency, context) include it.
  if (a.calibrated) {
    ImGui::Spacing();
    Wrapped(TrF("Calibration: %s", a.calibration.c_str()), false);
    Wrapped(a.reach, true);
    if (a.carried_gb != s.config.measured_residual_gb) {
      char label[96];
      std::snprintf(label, sizeof label, Tr("Carry %s GB into the estimate"), core::FormatNumber(a.carried_gb, 3).c_str());
      if (ImGui::Button(label)) {
        core::Config c = s.config;
        c.measured_residual_gb = a.carried_gb;
        ApplyConfig(s, c, Tr("measured beyond the model, from your run"));
      }
      MarkItem(s, "run_carry");
    }
  }
  return true;
}

}  // namespace llmmem::app
