// The model's size per precision, as the Hugging Face Model Memory Calculator (accelerate
// estimate-memory) shows it: every parameter stored in that format
// (core::NaiveModelBytes: P x bits / 8, seed 002's table, reference case M6), the largest
// layer (the largest single tensor, ParamCounts::largest_tensor), and "training with
// Adam" at 4x the model size (weights, gradients, Adam's two moments, all in that
// format). The quick figure people compare against; the estimate above counts what
// really runs (quantised checkpoints keep embeddings and the head in 16 bits, optimizer
// states in fp32, activations, the KV cache, overheads). The current format's row is
// marked.
#include <cstdio>
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "core/model/dtype.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

struct Row {
  core::Dtype dtype;
  const char* label;
};
constexpr Row kRows[] = {
    {core::Dtype::kFp32, "fp32"}, {core::Dtype::kBf16, "bf16 / fp16"}, {core::Dtype::kFp8, "fp8"},
    {core::Dtype::kInt8, "int8"}, {core::Dtype::kInt4, "int4"},
};
constexpr double kAdamFactor = 4;  // weights + gradients + Adam m + v, in the same format (M6)

bool Current(core::Dtype row, core::Dtype d) {
  if (row == d) return true;
  return row == core::Dtype::kBf16 && d == core::Dtype::kFp16;
}

void RightCell(const std::string& text) {
  const float w = ImGui::CalcTextSize(text.c_str()).x;
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - w);
  ImGui::TextUnformatted(text.c_str());
}

}  // namespace

void DrawModelSizes(State& s) {
  const core::ParamCounts counts = core::CountParameters(s.config.model);
  const double params = static_cast<double>(core::TrainableBase(s.config.model, counts));
  if (params <= 0) return;
  ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  const bool open = ImGui::CollapsingHeader((std::string(Tr("Size per precision")) + "###sizes").c_str());
  MarkItem(s, "sizes");
  if (!open) return;
  // A phone drops the largest layer: three columns stay readable at 390 px.
  const bool narrow = ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 26;
  const ImGuiTableFlags flags =
      ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("sizes", narrow ? 3 : 4, flags)) {
    ImGui::TableSetupColumn(Tr("Precision"), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    if (!narrow) ImGui::TableSetupColumn(Tr("Largest layer"), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn(Tr("Model size"), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn(Tr("Training with Adam"), ImGuiTableColumnFlags_WidthStretch, 1.3f);
    ImGui::TableHeadersRow();
    for (const Row& r : kRows) {
      const double bytes = core::NaiveModelBytes(params, r.dtype, s.config.quant);
      const double largest = core::NaiveModelBytes(static_cast<double>(counts.largest_tensor), r.dtype, s.config.quant);
      const bool mine = Current(r.dtype, s.config.dtype);
      ImGui::TableNextRow();
      if (mine) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, ImGui::GetColorU32(ImGuiCol_HeaderHovered, 0.55f));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.label);
      if (!narrow) {
        ImGui::TableNextColumn();
        RightCell(core::FormatBytes(largest, s.units));
      }
      ImGui::TableNextColumn();
      RightCell(core::FormatBytes(bytes, s.units));
      ImGui::TableNextColumn();
      RightCell(core::FormatBytes(bytes * kAdamFactor, s.units));
    }
    ImGui::EndTable();
  }
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled(
      Tr("The Hugging Face calculator's figures: %s parameters x bytes per parameter (the current format "
         "highlighted); Adam: 4x (weights, gradients, two moments). The estimate above counts what really "
         "runs: 16-bit embeddings in quantised checkpoints, fp32 optimizer states, activations, KV cache, "
         "overheads."),
      core::FormatParams(params).c_str());
  ImGui::PopTextWrapPos();
}

}  // namespace llmmem::app
