// Weight files: the inputs column's "Weights file" section (the desktop's path field; the
// web page takes drops) and a window with what the header says: the exact parameter count
// and weight bytes per dtype or quant type (core/weight_headers.h, header only, never the
// tensor data), with buttons to use the count (params_override) or, for GGUF, the model's
// hyper-parameters, each as an undoable step.
#include <cfloat>
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/weights.h"
#include "app/widgets.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

void Counts(const State& s, const core::WeightHeaderResult& r) {
  if (r.parameters_known) {
    ImGui::Text(Tr("%s parameters (%s), %s of weights in %s tensors"),
                core::FormatParams(static_cast<double>(r.parameter_count)).c_str(),
                core::FormatCount(static_cast<int64_t>(r.parameter_count)).c_str(),
                core::FormatBytes(static_cast<double>(r.weight_bytes), s.units).c_str(),
                core::FormatCount(static_cast<int64_t>(r.tensor_count)).c_str());
  } else {
    ImGui::PushTextWrapPos(0);
    ImGui::Text(Tr("%s tensors in %zu shards; the index does not give parameter counts: drop the shards themselves."),
                core::FormatCount(static_cast<int64_t>(r.index.tensor_count)).c_str(), r.index.shard_files.size());
    if (r.index.has_total_size)
      ImGui::Text(Tr("Total size of the weights: %s"),
                  core::FormatBytes(static_cast<double>(r.index.total_size), s.units).c_str());
    ImGui::PopTextWrapPos();
  }
  if (r.by_type.empty()) return;
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("by_type", 4, flags)) return;
  const float em = ImGui::GetFontSize();
  ImGui::TableSetupColumn(Tr("Type"), ImGuiTableColumnFlags_WidthFixed, em * 6);
  ImGui::TableSetupColumn(Tr("Tensors"), ImGuiTableColumnFlags_WidthFixed, em * 5);
  ImGui::TableSetupColumn(Tr("Parameters"), ImGuiTableColumnFlags_WidthFixed, em * 10);
  ImGui::TableSetupColumn(UnitLabel(s.units), ImGuiTableColumnFlags_WidthFixed, em * 6);
  ImGui::TableHeadersRow();
  for (const core::WeightTypeTally& t : r.by_type) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(t.type.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%llu", static_cast<unsigned long long>(t.tensors));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(core::FormatCount(static_cast<int64_t>(t.parameters)).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(core::FormatBytes(static_cast<double>(t.bytes), s.units).c_str());
  }
  ImGui::EndTable();
}

void Actions(State& s, const core::WeightHeaderResult& r) {
  const std::string file = s.weights.name.substr(s.weights.name.find_last_of("/\\") + 1);
  if (r.parameters_known && r.parameter_count > 0) {
    if (ImGui::Button(Tr("Use this parameter count"))) {
      core::Config c = s.config;
      c.model.params_override = static_cast<int64_t>(r.parameter_count);
      ApplyConfig(s, c, TrF("parameter count of %s", file.c_str()));
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(Tr("Set params_override=%llu: the weights' memory uses the file's exact count"),
                        static_cast<unsigned long long>(r.parameter_count));
  }
  if (r.format == core::WeightFormat::kGguf) {
    core::ModelSpec m = s.config.model;
    const std::string applied = ApplyGgufInfo(r.gguf, &m);
    if (!applied.empty()) {
      ImGui::SameLine();
      if (ImGui::Button(Tr("Use the GGUF hyper-parameters"))) {
        core::Config c = s.config;
        c.model = m;
        ApplyConfig(s, c, TrF("GGUF hyper-parameters of %s", file.c_str()));
      }
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
        ImGui::Text(Tr("Sets %s (the rest of the model stays as it is)"), applied.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
      }
    }
  }
}

}  // namespace

void DrawWeightsInput(State& s) {
  if (!ImGui::CollapsingHeader(Tr("Weights file"))) return;
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s",
                      Tr("Exact parameter counts per dtype from a weights file's header (only the header is read)."));
  if (!s.hooks.read_range) ImGui::TextDisabled("%s", s.hooks.open_hint.c_str());
  ImGui::PopTextWrapPos();
  if (!s.hooks.read_range) return;
  RowLabel(Tr("Path"));
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 4);
  const bool enter =
      ImGui::InputTextWithHint("##weights_path", Tr(".safetensors, .gguf, index.json or config.json"), s.weights.path,
                               sizeof s.weights.path, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button(Tr("Open")) || enter) && s.weights.path[0] != 0) OpenPath(s.weights.path);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(s.hooks.open_hint));  // the platform's hint, a key of the table
}

void DrawWeightsWindow(State& s) {
  WeightsView& w = s.weights;
  if (w.stream.finished()) w.result = w.stream.Take(&w.name);
  if (!w.open) {
    w.stream.Cancel();  // closing the window stops a read in progress
    return;
  }
  const float em = ImGui::GetFontSize();
  const ImVec2 center = ImGui::GetMainViewport()->GetCenter();
  ImGui::SetNextWindowPos(center, ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(em * 34, 0), ImGuiCond_Appearing);
  if (w.focus) ImGui::SetNextWindowFocus();
  w.focus = false;
  const std::string title = std::string(Tr("Weights file")) + "###weights";
  if (!ImGui::Begin(title.c_str(), &w.open,
                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  if (w.stream.reading()) {  // the page reads a large header across frames
    ImGui::TextUnformatted(w.stream.name().c_str());
    ImGui::Text(Tr("Reading the header: byte %s of %s"),
                core::FormatCount(static_cast<int64_t>(w.stream.NextOffset())).c_str(),
                core::FormatCount(static_cast<int64_t>(w.stream.file_size())).c_str());
    if (ImGui::Button(Tr("Cancel")) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
      w.name = w.stream.name();
      w.stream.Cancel();
      w.result = core::WeightHeaderResult{};
      w.result.message = Tr("cancelled before the header's end");
    }
    ImGui::End();
    return;
  }
  const core::WeightHeaderResult& r = w.result;
  ImGui::TextUnformatted(w.name.c_str());
  if (r.format != core::WeightFormat::kUnknown) {
    ImGui::SameLine();
    ImGui::TextDisabled("(%s)", core::WeightFormatName(r.format));
  }
  ImGui::PushTextWrapPos(0);
  if (!r.ok()) {
    ImGui::TextColored(BadColor(), Tr("Could not read the header: %s"), r.message.c_str());
  } else {
    if (r.format == core::WeightFormat::kGguf && !r.gguf.architecture.empty())
      ImGui::TextDisabled(Tr("GGUF v%u, %s%s%s"), r.gguf.version, r.gguf.architecture.c_str(),
                          r.gguf.name.empty() ? "" : ": ", r.gguf.name.c_str());
    Counts(s, r);
  }
  for (const core::WeightNote& n : r.notes)
    ImGui::TextColored(
        n.severity == core::Severity::kWarning ? WarnColor() : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled), "%s",
        n.message.c_str());
  ImGui::PopTextWrapPos();
  if (r.ok()) Actions(s, r);
  ImGui::End();
}

}  // namespace llmmem::app
