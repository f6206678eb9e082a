// The "Read an OOM" tab: a paste box (the page's paste goes through ImGui's clipboard; a
// dropped .txt/.log lands here too), then for the failure read: the GPU as one bar with each
// segment's arithmetic, the ranked diagnosis, the catalogue cards the capacity matches with a
// button that puts the card as it was into the estimate (undoable), the observed figures
// beside the estimate and the doctor's remedies for that card. The reading is
// core::ReadOomReport, redone when the text or the configuration changes.
#include <string>

#include "app/i18n.h"
#include "app/oom_widgets.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "core/base/units.h"
#include "core/oom/oom_wire.h"
#include "core/parse/json.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

// Seed 002's message: Baichuan-7B (14 GB) on a 24 GB A30 (a sample, shown as PyTorch prints it).
constexpr const char* kSeedExample =  // not UI text
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 86.00 MiB (GPU 0; 22.20 GiB total capacity; "
    "7.47 GiB already allocated; 51.12 MiB free; 7.48 GiB reserved in total by PyTorch) If reserved memory is >> "
    "allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management "
    "and PYTORCH_CUDA_ALLOC_CONF";

int GrowString(ImGuiInputTextCallbackData* data) {
  if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
    auto* text = static_cast<std::string*>(data->UserData);
    text->resize(static_cast<size_t>(data->BufTextLen));
    data->Buf = &(*text)[0];
  }
  return 0;
}

// A titled rule (ImGui 1.86 has no SeparatorText).
void Heading(const char* title) {
  ImGui::Spacing();
  ImGui::TextUnformatted(title);
  ImGui::Separator();
}

void Wrapped(const std::string& text) {
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
}

void Findings(const core::Observation& o, const core::DeviceReport& d) {
  Heading(o.IsOom() ? Tr("Diagnosis, most likely cause first") : Tr("What it shows"));
  int n = 0;
  for (const core::Finding& f : d.findings) {
    ImGui::PushID(++n);
    const bool cause = f.sufficient && o.IsOom();
    // The core's finding: its title translated where the table has it, its text as written.
    ImGui::TextColored(cause ? BadColor() : WarnColor(), "%d. %s%s", n, Tr(f.title),
                       f.bytes > 0 ? (" (" + core::FormatTorchSize(f.bytes) + ")").c_str() : "");
    if (cause) {
      ImGui::SameLine();
      ImGui::TextDisabled("%s", Tr("explains the failure alone"));
    }
    ImGui::Indent();
    Wrapped(f.text);
    for (const std::string& a : f.actions) {
      ImGui::Bullet();
      ImGui::SameLine();
      Wrapped(a);
    }
    ImGui::Unindent();
    ImGui::PopID();
  }
}

void Card(State& s, const core::Observation& o, const core::DeviceReport& d) {
  if (d.matches.empty() && !o.IsOom()) return;
  Heading(Tr("The card"));
  if (d.matches.empty()) {
    ImGui::Text(Tr("No catalogue GPU has %s: the estimate can use it as a custom capacity."),
                core::FormatTorchSize(d.bar.capacity_bytes).c_str());
  } else {
    ImGui::Text(Tr("%s matches:"), core::FormatTorchSize(d.bar.capacity_bytes).c_str());
    for (const core::GpuMatch& m : d.matches) {
      ImGui::SameLine();
      ImGui::TextDisabled("%s", m.gpu->key.c_str());
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(Tr("%s: %s reported (%s)"), m.gpu->name.c_str(),
                          core::FormatTorchSize(m.gpu->UsableBytes()).c_str(), Tr(m.why));
    }
    if (d.matches.size() > 1 && d.matches.front().why == "capacity")
      ImGui::TextDisabled(
          "%s", Tr("The capacity alone cannot tell these apart; an nvidia-smi table in the paste names the card."));
  }
  if (d.has_config && ImGui::Button(Tr("Use the card as it was in the estimate"))) {
    ApplyConfig(s, d.suggested, TrF("read an OOM: %s", d.suggested.gpu.c_str()));
  }
  if (d.has_config && ImGui::IsItemHovered())
    ImGui::SetTooltip(Tr("GPU %s, %s GB used by others (undo with Ctrl+Z)"), d.suggested.gpu.c_str(),
                      core::FormatNumber(d.suggested.other_processes_gb).c_str());
}

void Beside(State& s, const core::DeviceReport& d) {
  if (!d.has_config || !d.comparison.available) return;
  Heading(Tr("Beside the estimate"));
  ImGui::TextDisabled(Tr("%s, %s, on %s with %s GB used by others"), d.suggested.model.name.c_str(),
                      ModeLabel(d.suggested.mode), d.suggested.gpu.c_str(),
                      core::FormatNumber(d.suggested.other_processes_gb).c_str());
  Wrapped(TrF("How far the run had got: %s", d.comparison.stage.c_str()));
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH;
  if (ImGui::BeginTable("oom_compare", 4, flags)) {
    ImGui::TableSetupColumn("");
    ImGui::TableSetupColumn(Tr("Observed"));
    ImGui::TableSetupColumn(Tr("Estimated"));
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (const core::ComparisonRow& r : d.comparison.rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(Tr(r.label));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.observed >= 0 ? core::FormatTorchSize(r.observed).c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.estimated >= 0 ? core::FormatTorchSize(r.estimated).c_str() : "-");
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", Tr(r.note));
    }
    ImGui::EndTable();
  }
  for (const std::string& diff : d.comparison.differences) {
    ImGui::Bullet();
    ImGui::SameLine();
    Wrapped(diff);
  }
  ImGui::TextColored(d.suggested_fits ? GoodColor() : BadColor(), "%s",
                     d.suggested_fits ? Tr("The estimate on the card as it was: fits")
                                      : Tr("The estimate on the card as it was: does not fit"));
  if (d.remedies.empty()) return;
  const bool elsewhere = !d.findings.empty() && d.findings.front().id == "held_elsewhere";
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", elsewhere ? Tr("If the memory held elsewhere cannot be freed, the run has to fit beside it. "
                                           "The OOM doctor on that card (each applied alone and re-estimated):")
                                      : Tr("The OOM doctor on that card (each applied alone and re-estimated):"));
  ImGui::PopTextWrapPos();
  const core::Remedy* apply = nullptr;
  for (const core::Remedy& r : d.remedies) {
    ImGui::PushID(r.id.c_str());
    if (ImGui::SmallButton(Tr("Apply"))) apply = &r;
    ImGui::SameLine();
    ImGui::Text(r.fits ? Tr("%s: saves %s, fits") : Tr("%s: saves %s"), Tr(r.title),
                core::FormatTorchSize(r.saving_bytes).c_str());
    ImGui::PopID();
  }
  if (apply != nullptr) {
    const core::Remedy chosen = *apply;
    ApplyConfig(s, chosen.config, TrF("read an OOM: %s", Tr(chosen.title)));
  }
}

}  // namespace

bool OomAnswered(State& s, int64_t seq, bool ok, const std::string& text) {
  OomView& v = s.oom;
  if (seq == 0 || seq != v.seq) return false;
  v.reading = false;
  v.error.clear();
  v.evidence = core::Evidence{};
  const core::JsonParseResult parsed = ok ? core::ParseJson(text) : core::JsonParseResult{};
  std::string why = ok ? parsed.error : text;
  if (parsed.ok && core::EvidenceFromWire(parsed.value, &v.evidence, &why)) why.clear();
  if (!why.empty()) v.error = TrF("The text could not be read: %s", why.c_str());
  v.report = core::OomReportFromEvidence(v.evidence, &s.config);
  v.config_query = s.config_query;
  return true;
}

void DrawOom(State& s) {
  OomView& v = s.oom;
  ImGui::BeginChild("oom_scroll", ImVec2(0, 0), false);
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled(
      "%s", Tr("Paste a CUDA out-of-memory message, nvidia-smi's output, torch.cuda.memory_summary() or "
               "mem_get_info(), or drop a .txt/.log file. It is read here; nothing leaves the page."));
  ImGui::PopTextWrapPos();
  const float em = ImGui::GetFontSize();
  if (ImGui::InputTextMultiline("##oom_text", &v.text[0], v.text.capacity() + 1, ImVec2(-1, em * 7),
                                ImGuiInputTextFlags_CallbackResize, GrowString, &v.text))
    v.dirty = true;
  MarkItem(s, "oom_text");
  if (ImGui::SmallButton(Tr("Seed 002's example"))) {
    v.text = kSeedExample;
    v.dirty = true;
  }
  ImGui::SameLine();
  if (ImGui::SmallButton(Tr("Clear"))) {
    v.text.clear();
    v.dirty = true;
  }
  // The text is read in the background (the page's worker: none of the readers is in the
  // page's wasm, issue 32); the report is built here from its evidence, again for a new
  // configuration without reading the text again.
  if (v.dirty) {
    v.dirty = false;
    v.error.clear();
    v.evidence = core::Evidence{};
    v.report = core::OomReport{};
    v.reading = false;
    if (!v.text.empty() && s.hooks.background) {
      core::Json request(core::Json::Object{});
      request["text"] = core::Json(v.text);
      v.seq = ++s.background_seq;
      v.reading = true;
      s.hooks.background(v.seq, "oom_evidence", request.Dump());
    }
    v.config_query = s.config_query;
  } else if (v.config_query != s.config_query && !v.reading) {
    v.report = core::OomReportFromEvidence(v.evidence, &s.config);
    v.config_query = s.config_query;
  }
  const core::OomReport& r = v.report;
  if (v.text.empty()) {
    ImGui::EndChild();
    return;
  }
  if (v.reading) {
    ImGui::TextDisabled("%s", Tr("Reading..."));
    ImGui::EndChild();
    return;
  }
  if (!v.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, BadColor());
    Wrapped(v.error);
    ImGui::PopStyleColor();
  }
  // A runtime's start-up log or memory_stats() is read beside the estimate (panel_run.cpp).
  const bool run = DrawRunReading(s, v.text);
  if (!r.evidence.recognised) {
    if (run) {
      ImGui::EndChild();
      return;
    }
    for (const std::string& n : r.evidence.notes) {
      ImGui::PushStyleColor(ImGuiCol_Text, WarnColor());
      Wrapped(n);
      ImGui::PopStyleColor();
    }
    ImGui::EndChild();
    return;
  }
  if (!r.headline.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, WarnColor());
    Wrapped(TrF("In short: %s", r.headline.c_str()));
    ImGui::PopStyleColor();
    MarkItem(s, "oom_headline");
  }
  if (v.device < 0 || v.device >= static_cast<int>(r.devices.size())) v.device = 0;
  if (r.devices.size() > 1) {
    for (size_t i = 0; i < r.devices.size(); ++i) {
      const core::Observation& o = r.evidence.observations[r.devices[i].observation];
      std::string label = (o.device >= 0 ? "GPU " + std::to_string(o.device) : std::string("GPU ?")) + ": " +
                          Tr(core::FormInfo(o.form).name);
      if (label.size() > 48) label = label.substr(0, 46) + "...";
      if (i > 0) ImGui::SameLine();
      if (ImGui::RadioButton((label + "##dev" + std::to_string(i)).c_str(), v.device == static_cast<int>(i)))
        v.device = static_cast<int>(i);
    }
  }
  const core::DeviceReport& d = r.devices[static_cast<size_t>(v.device)];
  const core::Observation& o = r.evidence.observations[d.observation];
  const std::string gpu = o.device >= 0 ? TrF(", GPU %d", o.device) : std::string();
  const std::string repeats = o.repeats > 1 ? TrF(", printed %d times", o.repeats) : std::string();
  ImGui::TextDisabled(Tr("Read: %s, line %zu%s%s"), Tr(core::FormInfo(o.form).name), o.line, gpu.c_str(),
                      repeats.c_str());
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(em * 34);
    ImGui::TextUnformatted(o.excerpt.c_str());
    ImGui::TextDisabled(Tr("Format: %s"), core::FormInfo(o.form).source);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
  for (const std::string& n : o.notes) {
    ImGui::PushStyleColor(ImGuiCol_Text, WarnColor());
    Wrapped(n);
    ImGui::PopStyleColor();
  }
  if (d.bar.drawable) {
    ImGui::Spacing();
    OomBarChart("##oom_bar", d.bar, s.scale);
    OomBarLegend(d.bar);
  }
  for (const std::string& n : d.bar.notes) {
    ImGui::PushStyleColor(ImGuiCol_Text,
                          d.bar.consistent ? ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled) : BadColor());
    Wrapped(n);
    ImGui::PopStyleColor();
  }
  if (!d.findings.empty()) Findings(o, d);
  Card(s, o, d);
  Beside(s, d);
  ImGui::EndChild();
}

}  // namespace llmmem::app
