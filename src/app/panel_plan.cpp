// The Fit tab's layout search (issue 34 part 5; issue 32 part 2: "how many GPUs, laid out how"
// answered with combinations, not one remedy at a time): the training planner over every layout
// for the model, card and tokens per step, run off the UI thread (hooks.background), with the
// fastest layouts that fit, each one click (undoable) from being the configuration.
// Logic in plan_view.h. May include: imgui, core, app/state.h.
#include <cstdio>
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/widgets.h"
#include "core/base/units.h"
#include "core/config/config_json.h"
#include "core/config/gpu_count.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

constexpr int kPlanTop = 5;

void Wrapped(const std::string& text, bool disabled) {
  if (disabled) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  if (disabled) ImGui::PopStyleColor();
}

void StartSearch(State& s) {
  PlanView& v = s.plan;
  v.seq = ++s.background_seq;
  v.running = true;
  v.asked_for = s.config_query;
  s.hooks.background(v.seq, "plan", PlanRequestJson(s.config, v, kPlanTop));
}

void Results(State& s) {
  const PlanAnswer& a = s.plan.answer;
  if (!a.ok) {
    Wrapped(a.error, false);
    return;
  }
  char line[400];
  std::snprintf(line, sizeof line, Tr("Searched %s layouts in %.0f ms: %s estimated, %s ruled out by a bound, %s refused; %s fit in %s per GPU."),
                core::FormatNumber(static_cast<double>(a.considered), 0).c_str(), a.ms,
                core::FormatNumber(static_cast<double>(a.evaluated), 0).c_str(),
                core::FormatNumber(static_cast<double>(a.pruned), 0).c_str(),
                core::FormatNumber(static_cast<double>(a.invalid), 0).c_str(),
                core::FormatNumber(static_cast<double>(a.feasible), 0).c_str(),
                core::FormatBytes(a.budget_bytes, s.units).c_str());
  Wrapped(line, true);
  if (s.plan.asked_for != s.config_query) Wrapped(Tr("(searched for the configuration before your last change)"), true);
  if (a.best.empty()) {
    Wrapped(Tr("No layout fits: more GPUs, a larger card, or fewer tokens per step."), false);
    return;
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  const float em = ImGui::GetFontSize();
  if (!ImGui::BeginTable("plan_best", 4, flags)) return;
  ImGui::TableSetupColumn(Tr("Layout"), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn(Tr("Per GPU"), ImGuiTableColumnFlags_WidthFixed, em * 5);
  ImGui::TableSetupColumn(Tr("Step"), ImGuiTableColumnFlags_WidthFixed, em * 4);
  ImGui::TableSetupColumn("##apply", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize(Tr("Apply")).x + em);
  ImGui::TableHeadersRow();
  const PlanRow* chosen = nullptr;
  for (const PlanRow& row : a.best) {
    ImGui::PushID(row.rank);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushTextWrapPos(0);
    ImGui::Text("%d. %s", row.rank, row.layout.c_str());
    ImGui::PopTextWrapPos();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(core::FormatBytes(row.peak_bytes, s.units).c_str());
    ImGui::TableNextColumn();
    ImGui::Text(Tr("%.2f s"), row.step_s);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(Tr("%s tokens a second (the speed model's step time)"),
                        core::FormatNumber(row.tokens_per_s, 0).c_str());
    ImGui::TableNextColumn();
    if (ImGui::SmallButton(Tr("Apply"))) chosen = &row;
    if (row.rank == 1) MarkItem(s, "plan_apply_1");
    ImGui::PopID();
  }
  ImGui::EndTable();
  if (chosen != nullptr) {
    char label[64];
    std::snprintf(label, sizeof label, Tr("plan layout %d"), chosen->rank);
    ApplyConfig(s, chosen->config, label);
  }
  const PlanRow& best = a.best.front();
  if (!best.neighbours.empty() && ImGui::TreeNode(Tr("Why not the layouts next to the fastest"))) {
    for (const std::string& n : best.neighbours) Wrapped(n, true);
    ImGui::TreePop();
  }
}

}  // namespace

void DrawPlanSearch(State& s) {
  PlanView& v = s.plan;
  ImGui::Spacing();
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", Tr("Search every layout: tp, pp, cp, ep, dp, ZeRO/FSDP, recompute, micro-batch, offload"));
  ImGui::PopTextWrapPos();
  ImGui::Separator();
  if (!s.hooks.background) {
    Wrapped(Tr("The layout search runs in the CLI here: llmmem plan."), true);
    return;
  }
  const float em = ImGui::GetFontSize();
  int gpus = v.gpus > 0 ? v.gpus : static_cast<int>(core::TotalGpus(s.config));
  ImGui::SetNextItemWidth(em * 6);
  if (ImGui::InputInt(Tr("GPUs"), &gpus, 1, 8)) v.gpus = gpus < 1 ? 1 : gpus > 1000000 ? 1000000 : gpus;
  ImGui::SameLine();
  ImGui::Checkbox(Tr("or fewer"), &v.up_to);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", Tr("Every count up to it: powers of two and whole nodes of 8"));
  double tokens = static_cast<double>(v.global_batch_tokens > 0 ? v.global_batch_tokens : GlobalBatchTokens(s.config));
  ImGui::SetNextItemWidth(em * 8);
  if (ImGui::InputDouble(Tr("tokens per step"), &tokens, 0, 0, "%.0f") && tokens >= 1 && tokens <= 1099511627776.0)
    v.global_batch_tokens = static_cast<int64_t>(tokens);
  ImGui::SameLine();
  ImGui::BeginDisabled(v.running);
  const bool search = ImGui::Button(v.running ? Tr("Searching...") : Tr("Search"));
  MarkItem(s, "plan_search");
  ImGui::EndDisabled();
  if (search) StartSearch(s);
  if (v.answer.seq > 0 && v.answer.seq == v.seq && !v.running) Results(s);
}

}  // namespace llmmem::app
