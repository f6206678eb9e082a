// The Serving tab (issue 16): which runtime runs the model (core/runtime.h) and its
// settings, what it allocates (core/serving.h: vLLM's blocks and concurrency, SGLang's token
// pool, llama.cpp's layers and the RAM the rest needs), the serving fit answers
// (core/serve_fit.h, also drawn at the end of the Fit tab) and the launch command with a copy
// button (core/launch_export.h, the same text as the CLI's --export).
// May include: imgui, core, app/state.h.
#include <string>
#include <vector>

#include "app/panels.h"
#include "app/widgets.h"
#include "core/report/launch_export.h"
#include "core/solve/serve_fit.h"
#include "core/estimate/serving.h"
#include "core/estimate/speed.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

void Heading(const char* title) {
  ImGui::Spacing();
  ImGui::TextDisabled("%s", title);
  ImGui::Separator();
}

std::string Bytes(double b, const State& s) { return core::FormatBytes(b, s.units); }

// The V cache combo: "as K" then the formats llama.cpp stores.
const core::Dtype kVTypes[] = {core::Dtype::kCount, core::Dtype::kFp16,  core::Dtype::kBf16, core::Dtype::kFp32,
                               core::Dtype::kQ8_0,  core::Dtype::kQ5_1,  core::Dtype::kQ5_0, core::Dtype::kQ4_1,
                               core::Dtype::kQ4_0,  core::Dtype::kIQ4_NL};
const char* VTypeName(int i) { return i == 0 ? Tr("as K (-ctk)") : core::Info(kVTypes[i]).id; }

void Settings(State& s) {
  core::Config& c = s.config;
  if (FieldEnum(s, "runtime", &c.runtime, nullptr, core::Info(c.runtime).help)) {
    // llama.cpp loads GGUF: move a non-GGUF quantised format to the usual GGUF type.
    if (core::IsGgml(c.runtime) &&
        (c.dtype == core::Dtype::kAwq || c.dtype == core::Dtype::kGptq || c.dtype == core::Dtype::kNf4)) {
      c.dtype = core::Dtype::kQ4_K_M;
    }
  }
  const bool ggml = core::IsGgml(c.runtime);
  FieldInt(s, "batch", &c.batch, ggml ? Tr("Slots (-np)") : Tr("Concurrent requests"));
  FieldInt(s, "seq", &c.seq, ggml ? Tr("Context per slot") : Tr("Context per request"));
  if (core::IsPagedServer(c.runtime)) {
    const bool vllm = c.runtime == core::Runtime::kVllm;
    // Short labels; the tooltips name the runtime's own flags.
    FieldDouble(s, "mem_fraction", &c.mem_fraction);
    FieldInt(s, "prefill_chunk", &c.prefill_chunk, vllm ? Tr("Batched tokens") : nullptr);
    FieldInt(s, "max_num_seqs", &c.max_num_seqs, vllm ? nullptr : Tr("Graph batch"));
    FieldBool(s, "cuda_graphs", &c.cuda_graphs);
    ImGui::TextDisabled("%s", vllm ? Tr("gpu_memory_utilization, max_num_batched_tokens, max_num_seqs; 0: vLLM's default.")
                                   : Tr("mem_fraction_static, chunked_prefill_size, cuda_graph_max_bs; 0: SGLang's default."));
  } else if (ggml) {
    FieldInt(s, "gpu_layers", &c.gpu_layers);
    FieldInt(s, "prefill_chunk", &c.prefill_chunk, "n_ubatch");
    int v = 0;
    for (int i = 0; i < static_cast<int>(sizeof kVTypes / sizeof kVTypes[0]); ++i) {
      if (kVTypes[i] == c.kv_dtype_v) v = i;
    }
    if (FieldCombo(s, "kv_dtype_v", &v, static_cast<int>(sizeof kVTypes / sizeof kVTypes[0]), VTypeName, nullptr)) {
      c.kv_dtype_v = kVTypes[v];
    }
    FieldBool(s, "flash_attn", &c.flash_attn);
    FieldDouble(s, "ram_gb", &c.ram_gb);
    ImGui::TextDisabled("%s", Tr("-ngl, -ub, -ctv, -fa. GPU layers -1: every layer and the output layer; RAM 0: not checked."));
  } else {  // HF generate
    FieldInt(s, "max_cache_len", &c.max_cache_len);
    ImGui::TextDisabled(
        "%s", Tr("cache_implementation=\"static\" with max_cache_len; 0: the dynamic cache (grows with the sequence)."));
  }
}

// A report's lines as three columns: what, the figure, where it comes from. The core writes
// them; those the table has a row for are shown translated (a label with a figure in it stays
// as the core wrote it).
// `s`: marks the row whose label begins with `mark` (for the tests), when given.
void LineTable(const char* id, const std::vector<core::ReportLine>& lines, State* s = nullptr,
               const char* mark = nullptr, const char* mark_name = nullptr) {
  if (!ImGui::BeginTable(id, 3, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) return;
  for (const core::ReportLine& l : lines) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(Tr(l.label));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(Tr(l.value));
    if (s != nullptr && l.label.rfind(mark, 0) == 0) MarkItem(*s, mark_name);
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", Tr(l.note));
  }
  ImGui::EndTable();
}

void Report(State& s) {
  const core::ServingReport r = core::Serve(s.config);
  if (!r.ok) return;
  Heading(Tr("What it allocates"));
  // not UI text: the core's label, matched for the tests' mark
  LineTable("serving_report", r.lines, &s, "maximum concurrency", "serving_max_concurrency");
  if (!r.ram_fits)
    ImGui::TextColored(ImVec4(0.95f, 0.4f, 0.35f, 1), "%s", Tr("The system RAM set is not enough for what stays off the GPU."));
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled(Tr("Source: %s"), core::Info(s.config.runtime).source);
  ImGui::PopTextWrapPos();
}

// Speed beside memory (core/speed.h): the roofline's figures and its two assumptions.
void Speed(State& s) {
  Heading(Tr("Speed (roofline)"));
  FieldDouble(s, "bw_efficiency", &s.config.bw_efficiency);
  FieldDouble(s, "mfu", &s.config.mfu);
  const core::SpeedEstimate sp = core::EstimateSpeed(s.config);
  if (!sp.ok) {
    ImGui::TextDisabled("%s", Tr(sp.why_not));
    return;
  }
  LineTable("speed", sp.lines);
}

void Launch(State& s) {
  static core::LaunchTarget target = core::LaunchTarget::kVllm;
  static std::string message;
  Heading(Tr("Launch command"));
  for (const core::LaunchTargetInfo& row : core::TableOf(target)) {
    // The targets flow onto the next line where the window is too narrow for them all.
    const char* label = Tr(row.label);
    if (row.value != core::LaunchTarget{})
      FlowSameLine(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
    if (ImGui::RadioButton(label, target == row.value)) {
      target = row.value;
      message.clear();
    }
  }
  const std::string text = core::ExportLaunch(s.config, target);
  const bool copy = ImGui::Button(Tr("Copy"));
  MarkItem(s, "launch_copy");
  if (copy) {
    const bool ok = s.hooks.copy_text && s.hooks.copy_text(text);
    message = ok ? Tr("Copied to the clipboard.") : Tr("Could not copy; select the text below.");
  }
  if (!message.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", message.c_str());
  }
  // As tall as the command (a vLLM line is 7 rows), so what follows it stays near.
  int rows = 1;
  for (char ch : text) rows += ch == '\n' ? 1 : 0;
  rows = rows < 3 ? 3 : rows > 14 ? 14 : rows;
  ImGui::InputTextMultiline("##launch", const_cast<char*>(text.c_str()), text.size() + 1,
                            ImVec2(-1, ImGui::GetTextLineHeight() * static_cast<float>(rows) +
                                           ImGui::GetStyle().FramePadding.y * 2 + 2),
                            ImGuiInputTextFlags_ReadOnly);
  MarkItem(s, "launch_text");
}

// The serving answers: the longest context, the most requests at once, llama.cpp's layers, the
// most precise formats.
void ServingAnswers(State& s, const core::ServeFit& fit) {
  Heading(TrF("Serving under %s", Tr(core::Info(s.config.runtime).label)).c_str());
  const std::string trained =
      fit.model_context > 0 ? TrF(" (trained for %s)", core::FormatCount(fit.model_context).c_str()) : "";
  ImGui::Text(Tr("Longest context per request: %s tokens%s"), core::FormatCount(fit.max_context).c_str(),
              trained.c_str());
  ImGui::Text(Tr("Most requests of %s tokens at once: %s"), core::FormatCount(s.config.seq).c_str(),
              core::FormatCount(fit.max_concurrency).c_str());
  MarkItem(s, "serving_most_requests");
  if (fit.ggml) {
    if (fit.max_gpu_layers >= 0) {
      ImGui::Text(Tr("Most layers on the GPU: -ngl %lld of %lld; the rest needs %s of RAM"),
                  static_cast<long long>(fit.max_gpu_layers), static_cast<long long>(s.config.model.layers + 1),
                  Bytes(fit.ram_bytes_at_max_layers, s).c_str());
    } else {
      ImGui::TextUnformatted(Tr("Not even -ngl 0 fits: the compute buffer and context alone exceed the GPU."));
    }
  }
  if (fit.formats_found) {
    ImGui::Text(Tr("Most precise formats it runs: weights %s, KV %s"), core::Info(fit.dtype).id,
                core::Info(fit.kv_dtype).id);
  }
}

// The GPU sets: each card, the fewest of it that hold the model, and the requests they take.
void GpuSets(const State& s, const core::ServeFit& fit) {
  if (fit.gpu_sets.empty()) return;
  if (ImGui::BeginTable("gpu_sets", 3, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn(Tr("GPU set (least memory first)"));
    ImGui::TableSetupColumn(Tr("memory"));
    ImGui::TableSetupColumn(Tr("requests at once"));
    ImGui::TableHeadersRow();
    for (const core::GpuSetFit& g : fit.gpu_sets) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%lld x %s", static_cast<long long>(g.count), g.gpu.c_str());  // a count and a catalogue key
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(Bytes(g.memory_bytes, s).c_str());
      ImGui::TableNextColumn();
      if (g.max_concurrency > 0)
        ImGui::Text("%.1f", g.max_concurrency);
      else
        ImGui::TextDisabled("-");
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("%s", Tr("Memory stands in for cost: the catalogue has no prices."));
}

}  // namespace

// `parts`: 1 the answers, 2 the table of GPU sets, 3 both (the Fit tab). The Serving tab draws
// the table after the launch command, so the answers and the command share the first screen.
void DrawServingFit(State& s, int parts) {
  static std::string key;
  static core::ServeFit fit;
  if (s.config.mode != core::Mode::kInference || !s.estimate.totals.ok) return;
  if (key != s.config_query) {
    key = s.config_query;
    fit = core::FitServing(s.config);
  }
  if (!fit.ok) return;
  if ((parts & 1) != 0) ServingAnswers(s, fit);
  if ((parts & 2) != 0) {
    if (parts == 2) ImGui::Spacing();
    GpuSets(s, fit);
  }
}

void DrawServing(State& s) {
  ImGui::BeginChild("serving_scroll", ImVec2(0, 0), false);
  if (s.config.mode != core::Mode::kInference) {
    ImGui::TextWrapped("%s", Tr("Serving runtimes describe inference. The launch configs for training are below."));
    if (ImGui::Button(Tr("Switch to inference"))) {
      core::Config c = s.config;
      c.mode = core::Mode::kInference;
      if (!core::Info(c.dtype).trainable) c.dtype = core::Dtype::kBf16;
      ApplyConfig(s, c, Tr("switch to inference"));
    }
    Launch(s);
  } else {
    // What a newcomer came for first (the concurrency and the command), then the detail.
    Settings(s);
    DrawServingFit(s, 1);
    Launch(s);
    DrawServingFit(s, 2);
    if (s.estimate.totals.ok) Report(s);
  }
  if (s.estimate.totals.ok) Speed(s);
  ImGui::EndChild();
}

}  // namespace llmmem::app
