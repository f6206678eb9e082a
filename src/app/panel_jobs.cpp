// The Fit tab's "Several jobs on one GPU" (issue 34 part 3): processes and their phases on one
// card, budgeted from the memory free of what others hold. An example per kind to start from
// (presets/jobs), the request as editable JSON (llmmem.jobs/1, as llmmem plan --jobs reads it),
// planned off the UI thread; the answer as a timeline: each job's bytes in each phase, the
// sums against the budget, the peak, and what would fit. Logic in jobs_view.h.
// May include: imgui, core, app/state.h.
#include <cstdio>
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

void Wrapped(const std::string& text, const ImVec4* color = nullptr) {
  if (color) ImGui::PushStyleColor(ImGuiCol_Text, *color);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  if (color) ImGui::PopStyleColor();
}

std::string Bytes(double b, const State& s) { return core::FormatBytes(b, s.units); }

void Timeline(State& s, const JobsAnswer& a) {
  const int cols = 1 + static_cast<int>(a.phases.size());
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                                ImGuiTableFlags_ScrollX;
  const float h = ImGui::GetTextLineHeightWithSpacing() * (static_cast<float>(a.jobs.size()) + 3.5f);
  if (!ImGui::BeginTable("jobs_timeline", cols, flags, ImVec2(0, h))) return;
  ImGui::TableSetupColumn(Tr("Job"));
  for (const JobsPhase& p : a.phases) ImGui::TableSetupColumn(Tr(p.name));
  ImGui::TableHeadersRow();
  for (const JobsJob& j : a.jobs) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%s (%s)", j.name.c_str(), Tr(j.kind));
    if (ImGui::IsItemHovered() && !j.model.empty())
      ImGui::SetTooltip("%s%s%s", j.model.c_str(), j.runtime.empty() ? "" : ", ", j.runtime.c_str());
    for (size_t i = 0; i < a.phases.size(); ++i) {
      ImGui::TableNextColumn();
      if (i >= j.bytes.size()) continue;
      if (j.kind == "held") {
        ImGui::TextDisabled("%s", Bytes(j.bytes[i], s).c_str());
      } else {
        ImGui::TextUnformatted(Bytes(j.bytes[i], s).c_str());
      }
      if (ImGui::IsItemHovered() && i < j.states.size()) ImGui::SetTooltip("%s", j.states[i].c_str());
    }
  }
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(Tr("Sum"));
  for (const JobsPhase& p : a.phases) {
    ImGui::TableNextColumn();
    const bool peak = p.id == a.peak_phase;
    if (!p.fits) {
      ImGui::TextColored(BadColor(), "%s", Bytes(p.bytes, s).c_str());
    } else if (peak) {
      ImGui::TextColored(WarnColor(), "%s", Bytes(p.bytes, s).c_str());
    } else {
      ImGui::TextUnformatted(Bytes(p.bytes, s).c_str());
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(Tr("driven by %s"), p.driver.c_str());
  }
  ImGui::EndTable();
}

void Answer(State& s, const JobsAnswer& a) {
  if (!a.ok) {
    const ImVec4 bad = BadColor();
    Wrapped(a.error, &bad);
    return;
  }
  char line[320];
  std::snprintf(line, sizeof line, Tr("On %s: %s, %s held by others, %s free; %.0f%% kept free: the jobs must fit in %s."),
                a.gpu.c_str(), Bytes(a.capacity_bytes, s).c_str(), Bytes(a.held_bytes, s).c_str(),
                Bytes(a.free_bytes, s).c_str(), a.headroom * 100, Bytes(a.budget_bytes, s).c_str());
  const ImVec4 dim = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
  Wrapped(line, &dim);
  Timeline(s, a);
  std::string peak = a.peak_phase;  // its name, as the timeline's header
  for (const JobsPhase& p : a.phases)
    if (p.id == a.peak_phase) peak = Tr(p.name);
  const bool fits = a.verdict == "fits";
  const ImVec4 color = fits ? GoodColor() : a.verdict == "incomplete" ? WarnColor() : BadColor();
  if (fits) {
    std::snprintf(line, sizeof line, Tr("Fits: the peak is %s in %s (driven by %s), %s to spare."),
                  Bytes(a.peak_bytes, s).c_str(), peak.c_str(), a.peak_driver.c_str(),
                  Bytes(a.peak_headroom_bytes, s).c_str());
  } else {
    std::snprintf(line, sizeof line, Tr("Does not fit: the peak is %s in %s (driven by %s), %s over."),
                  Bytes(a.peak_bytes, s).c_str(), peak.c_str(), a.peak_driver.c_str(),
                  Bytes(-a.peak_headroom_bytes, s).c_str());
  }
  Wrapped(line, &color);
  for (const std::string& r : a.reasons) Wrapped(r, &color);
  for (const JobsJob& j : a.jobs)
    if (j.start_checked && !j.starts) {
      std::snprintf(line, sizeof line, Tr("%s does not start: %s free when it starts, %s asked."), j.name.c_str(),
                    Bytes(j.start_free_bytes, s).c_str(), Bytes(j.requested_bytes, s).c_str());
      const ImVec4 bad = BadColor();
      Wrapped(line, &bad);
    }
  if (!a.changes.empty()) {
    ImGui::TextDisabled("%s", Tr("What fits:"));
    for (const std::string& c : a.changes) Wrapped("  " + c);
  }
}

}  // namespace

void DrawJobs(State& s) {
  JobsView& v = s.jobs;
  ImGui::Spacing();
  const bool open = ImGui::CollapsingHeader(
      Tr("Several jobs on one GPU: a trainer and its rollout engine, an LLM beside an embedder, a draft model, memory others hold"));
  MarkItem(s, "jobs_header");
  if (!open) return;
  if (!s.hooks.background) {
    Wrapped(Tr("Several jobs are planned in the CLI here: llmmem plan --jobs FILE."));
    return;
  }
  if (v.examples_seq == 0) {
    v.examples_seq = ++s.background_seq;
    s.hooks.background(v.examples_seq, "jobs_examples", "{}");
  }
  if (v.examples.empty()) {
    Wrapped(v.examples_error.empty() ? Tr("Loading the examples...") : v.examples_error);
    return;
  }
  ImGui::SetNextItemWidth(-FLT_MIN);
  const char* preview = v.chosen >= 0 ? Tr(v.examples[static_cast<size_t>(v.chosen)].title) : Tr("Your own");
  if (ImGui::BeginCombo("##jobs_example", preview)) {
    for (int i = 0; i < static_cast<int>(v.examples.size()); ++i) {
      ImGui::PushID(i);
      if (ImGui::Selectable(Tr(v.examples[static_cast<size_t>(i)].title), v.chosen == i)) ChooseJobsExample(v, i);
      MarkItem(s, ("jobs_example_" + v.examples[static_cast<size_t>(i)].id).c_str());
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  MarkItem(s, "jobs_example");
  const float em = ImGui::GetFontSize();
  if (ImGui::InputTextMultiline("##jobs_text", v.text.data(), v.text.size(), ImVec2(-FLT_MIN, em * 7)))
    v.chosen = -1;  // edited: the user's own now
  const bool bare = v.chosen >= 0 && v.examples[static_cast<size_t>(v.chosen)].bare_list;
  if (bare) {
    char note[160];
    std::snprintf(note, sizeof note, Tr("A list of jobs without a card: planned on %s, the card chosen above."),
                  s.config.gpu.c_str());
    ImGui::TextDisabled("%s", note);
  }
  ImGui::BeginDisabled(v.running);
  const bool plan = ImGui::Button(v.running ? Tr("Planning...") : Tr("Plan these jobs"));
  MarkItem(s, "jobs_plan");
  ImGui::EndDisabled();
  if (plan) {
    v.seq = ++s.background_seq;
    v.running = true;
    s.hooks.background(v.seq, "jobs", JobsRequestText(std::string(v.text.data()), s.config.gpu));
  }
  if (v.answer.seq > 0 && v.answer.seq == v.seq && !v.running) Answer(s, v.answer);
}

}  // namespace llmmem::app
