// The test hook (app.h TestStateJson, CaptureText): what the browser and desktop tests read of
// the UI's state, as JSON. Apart from app.cpp so the frame's code stays one job.
#include <algorithm>
#include <string>

#include "app/app.h"
#include "app/i18n.h"
#include "app/panels.h"
#include "app/state.h"
#include "app/tabs.h"
#include "core/catalogue/gpus.h"
#include "core/parse/json.h"
#include "imgui.h"

namespace llmmem::app {

std::string TestStateJson() {
  core::Json j;
  State* st = CurrentState();
  if (st == nullptr) return "{}";
  const core::Totals& t = st->estimate.totals;
  j["ok"] = t.ok;
  j["fits"] = t.Fits();
  j["verdict"] = core::VerdictId(t.Judge());
  j["peak_bytes"] = t.peak_bytes;
  j["capacity_bytes"] = t.capacity_bytes;
  j["config"] = st->config_query;
  j["url_state"] = st->query;
  j["units"] = UnitLabel(st->units);
  j["theme"] = st->dark ? "dark" : "light";
  j["formulas"] = st->formulas;
  j["gpu_sources_known"] = core::GpuSourcesKnown();  // the page: after its first card details
  j["popup_open"] = ImGui::GetCurrentContext() != nullptr &&
                    ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
  j["lang"] = LangId(CurrentLang());
  j["tab"] = TabOf(st->tab).id;  // the open tab (tabs.h)
  j["fitmap_ms"] = LastFitMapMs();
  j["remedies"] = static_cast<int64_t>(st->remedies.size());
  j["pinned"] = st->pinned.has_value();
  j["banners"] = static_cast<int64_t>(st->banners.size());
  j["oom_headline"] = st->oom.report.headline;
  j["oom_devices"] = static_cast<int64_t>(st->oom.report.devices.size());
  const WeightsView& w = st->weights;  // the weights window (a dropped file)
  core::Json weights(core::Json::Object{});
  weights["reading"] = w.stream.reading();
  weights["name"] = w.name;
  weights["ok"] = w.result.ok();
  weights["tensors"] = static_cast<int64_t>(w.result.tensor_count);
  weights["message"] = w.result.message;
  j["weights"] = std::move(weights);
  const HubView& hv = st->hub;  // the model box's Hugging Face part
  core::Json hub(core::Json::Object{});
  hub["loading"] = hv.loading;
  hub["error"] = hv.error;
  hub["loaded"] = hv.loaded.ok ? hv.loaded.ref : std::string();
  hub["approximate"] = hv.loaded.ok && hv.loaded.approximate;
  hub["searching"] = hv.searching;
  hub["hits"] = static_cast<int64_t>(hv.hits.hits.size());
  hub["text"] = std::string(hv.text);
  j["hub"] = std::move(hub);
  // The Fit tab's layout search (plan_view.h): whether it runs, and what it answered.
  const PlanView& pv = st->plan;
  core::Json plan(core::Json::Object{});
  plan["running"] = pv.running;
  plan["answered"] = pv.answer.seq > 0 && pv.answer.seq == pv.seq && !pv.running;
  plan["ok"] = pv.answer.ok;
  plan["error"] = pv.answer.error;
  plan["ms"] = pv.answer.ms;
  plan["considered"] = pv.answer.considered;
  plan["best"] = static_cast<int64_t>(pv.answer.best.size());
  plan["first_layout"] = pv.answer.best.empty() ? std::string() : pv.answer.best.front().layout;
  j["plan"] = std::move(plan);
  // The Fit tab's several jobs on one GPU (jobs_view.h).
  const JobsView& jv = st->jobs;
  core::Json jobs(core::Json::Object{});
  jobs["examples"] = static_cast<int64_t>(jv.examples.size());
  jobs["chosen"] = jv.chosen >= 0 ? jv.examples[static_cast<size_t>(jv.chosen)].id : std::string();
  jobs["answered"] = jv.answer.seq > 0 && jv.answer.seq == jv.seq && !jv.running;
  jobs["ok"] = jv.answer.ok;
  jobs["error"] = jv.answer.error;
  jobs["verdict"] = jv.answer.verdict;
  jobs["peak_phase"] = jv.answer.peak_phase;
  jobs["peak_bytes"] = jv.answer.peak_bytes;
  jobs["budget_bytes"] = jv.answer.budget_bytes;
  j["jobs"] = std::move(jobs);
  // The OOM tab's run reading (run_view.h).
  const RunView& rv = st->run;
  core::Json run(core::Json::Object{});
  run["answered"] = rv.answer.seq > 0 && rv.answer.seq == rv.seq && !rv.running;
  run["recognised"] = rv.answer.recognised;
  run["source"] = rv.answer.source;
  core::Json::Array rows;
  for (const RunRow& r : rv.answer.rows) {
    core::Json x(core::Json::Object{});
    x["category"] = r.category;
    x["measured"] = r.measured;
    x["estimated"] = r.estimated;
    rows.push_back(std::move(x));
  }
  run["rows"] = core::Json(std::move(rows));
  run["not_modelled"] = static_cast<int64_t>(rv.answer.not_modelled.size());
  run["calibrated"] = rv.answer.calibrated;
  run["carried_gb"] = rv.answer.carried_gb;
  run["config_residual_gb"] = st->config.measured_residual_gb;
  j["run"] = std::move(run);
  // Settings that change the figures with no control drawn for them: listed under "Also in
  // effect" (panel_inputs.cpp), so a test can check a link's hidden values are shown.
  core::Json::Array hidden;
  for (const std::string& f : HiddenInEffect(*st)) hidden.push_back(core::Json(f));
  j["also_in_effect"] = core::Json(std::move(hidden));
  // In CSS pixels (ImGui works in device pixels: scale = devicePixelRatio on the web).
  core::Json items = core::Json::Object{};
  const float k = st->scale > 0 ? st->scale : 1;
  for (const ItemMark& m : st->marks) {
    core::Json r = core::Json::Array{};
    for (float v : {m.x / k, m.y / k, m.w / k, m.h / k}) r.MutableArray().push_back(static_cast<double>(v));
    r.MutableArray().push_back(static_cast<int64_t>(m.whole ? 1 : 0));  // [4]: drawn whole (not clipped)
    items[m.name] = std::move(r);
  }
  j["items"] = std::move(items);
  j["inputs_scroll_y"] = static_cast<double>(st->inputs_scroll / st->scale);
  j["inputs_scroll_max"] = static_cast<double>(st->inputs_scroll_max / st->scale);
  if (!st->drawn_text.empty()) {
    j["drawn_text"] = st->drawn_text;
    j["missing_glyphs"] = st->missing_glyphs;
  }
  return j.Dump();
}

void CaptureText() {
  State* st = CurrentState();
  if (st == nullptr) return;
  st->capture_text = true;
  st->drawn_text.clear();
}

}  // namespace llmmem::app
