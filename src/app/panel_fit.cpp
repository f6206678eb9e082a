// The Fit tab: the inverse questions for the current configuration and GPU, each with a
// button that applies its answer as one undoable step:
//  - the fewest data-parallel replicas per ZeRO stage (per-GPU memory A + B/k in the
//    data-parallel size k, solved by core/fit.h MinDataParallel),
//  - the largest micro-batch and the longest sequence for the current layout,
//  - the most precise weight and KV-cache formats that fit for inference,
//  - the largest parameter count the scheme holds,
// and, in a collapsible section, the figures DeepSpeed's estimators and Megatron-LM's
// report print for the same inputs (core/compat.h), with where each departs from ours.
// The solver runs a few hundred EstimateTotals calls: results are cached per config
// query, so a frame only draws.
// May include: imgui, core, app/state.h.
//
// Index
// [SECTION] Cache
// [SECTION] Solver rows
// [SECTION] Compatibility
// [SECTION] Panel
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "core/solve/compat.h"
#include "core/model/dtype.h"
#include "core/solve/fit.h"
#include "core/config/gpu_count.h"
#include "core/model/model.h"
#include "core/catalogue/gpus.h"
#include "core/base/units.h"
#include "core/config/validate.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

using core::kZeroStages;
constexpr int64_t kBatchSearchLimit = int64_t{1} << 20;  // MaxMicroBatch's upper bound (fit.cpp)
constexpr int64_t kSeqSearchLimit = int64_t{1} << 24;    // MaxSequence's
constexpr int kGpusPerNode = 8;                          // DeepSpeed's per-node CPU figures

//-----------------------------------------------------------------------------
// [SECTION] Cache
//-----------------------------------------------------------------------------

struct Cache {
  std::string key;
  double capacity = 0;                   // what the answers may use (core::AnswerBudget)
  double card = 0;                       // the card's memory
  double headroom = 0;                   // the share of it every answer keeps free
  int64_t context = 0;                   // the model's context (0: unknown): the longest sequence stops there
  std::vector<core::ZeroStageFit> zero;  // the core's solver (core/fit.h), as the CLI's fit
  // When no stage fits at any count and activations are not checkpointed: the same solver with
  // full checkpointing (what holds the activations down to a layer's input), so "how many GPUs?"
  // has an answer on the tab rather than "never" in every row.
  std::vector<core::ZeroStageFit> zero_full;
  int64_t max_batch = 0, max_seq = 0;
  core::FitFormats formats;
  double max_params = 0;
  core::CompatEstimate deepspeed, megatron;
  double solve_ms = 0;
};

void Update(Cache& cache, const State& s) {
  if (cache.key == s.config_query) return;
  const auto t0 = std::chrono::steady_clock::now();
  cache.key = s.config_query;
  const core::Config& c = s.config;
  // The answers the CLI's fit and the JS API give (core/fit.h AnswerFit), under the one
  // headroom policy (AnswerBudget).
  const core::FitAnswers a = core::AnswerFit(c);
  cache.capacity = a.budget_bytes;
  cache.card = a.capacity_bytes;
  cache.headroom = a.headroom;
  cache.context = a.model_context;
  cache.zero = a.zero;
  cache.zero_full.clear();
  bool any = false;
  for (const core::ZeroStageFit& z : a.zero) any = any || z.fit.possible;
  if (!any && c.mode != core::Mode::kInference && c.recompute == core::Recompute::kNone) {
    core::Config k = c;
    k.recompute = core::Recompute::kFull;
    cache.zero_full = core::AnswerFit(k).zero;
  }
  cache.max_batch = a.max_micro_batch;
  cache.max_seq = a.max_sequence;
  cache.formats = a.formats;
  cache.max_params = a.max_params;
  cache.deepspeed = core::DeepSpeedEstimate(c, kGpusPerNode);
  cache.megatron = core::MegatronEstimate(c);
  cache.solve_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

//-----------------------------------------------------------------------------
// [SECTION] Solver rows
//-----------------------------------------------------------------------------

void Heading(const char* title) {
  ImGui::Spacing();
  ImGui::PushTextWrapPos(0);
  ImGui::TextDisabled("%s", title);
  ImGui::PopTextWrapPos();
  ImGui::Separator();
}

// Narrow (a phone): tables keep their essential columns, rows wrap.
bool Narrow() { return ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 36; }

std::string Bytes(double b, const State& s) { return core::FormatBytes(b, s.units); }

// Right-aligned text in a table cell.
void RightText(const std::string& text) {
  const float w = ImGui::CalcTextSize(text.c_str()).x;
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - w);
  ImGui::TextUnformatted(text.c_str());
}

void WrappedDisabled(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
}

void ZeroTable(State& s, const Cache& cache) {
  const core::Config& c = s.config;
  const int64_t others = core::GpusPerReplica(c);
  Heading(TrF("Fewest data-parallel GPUs per ZeRO stage (GPUs = dp x tp x pp x cp = dp x %lld)",
              static_cast<long long>(others))
              .c_str());
  const float em = ImGui::GetFontSize();
  const bool narrow = Narrow();
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable(narrow ? "zero_fit_narrow" : "zero_fit", narrow ? 5 : 7, flags)) return;
  ImGui::TableSetupColumn("ZeRO", ImGuiTableColumnFlags_WidthFixed);
  if (!narrow) ImGui::TableSetupColumn(Tr("Per GPU, k replicas"), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn(Tr("Fits when"),
                          narrow ? ImGuiTableColumnFlags_WidthStretch : ImGuiTableColumnFlags_WidthFixed, em * 6);
  ImGui::TableSetupColumn(Tr("Min dp"), ImGuiTableColumnFlags_WidthFixed, em * 3.5f);
  ImGui::TableSetupColumn(Tr("GPUs"), ImGuiTableColumnFlags_WidthFixed, em * 3.5f);
  if (!narrow) ImGui::TableSetupColumn(Tr("Per GPU at min dp"), ImGuiTableColumnFlags_WidthFixed, em * 8);
  ImGui::TableSetupColumn("##apply", ImGuiTableColumnFlags_WidthFixed,
                          ImGui::CalcTextSize(Tr("current")).x + em * 0.8f);
  ImGui::TableHeadersRow();
  // What each stage shards (keys of the table, translated where shown).
  static const char* const kShards[] = {"nothing sharded (DDP)", "optimizer states", "+ gradients", "+ parameters"};
  const char* unit = UnitLabel(s.units);
  for (int z = 0; z < static_cast<int>(cache.zero.size()); ++z) {
    const core::ZeroStageFit& row = cache.zero[static_cast<size_t>(z)];
    const core::FitGpus& f = row.fit;
    ImGui::PushID(z);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%d", z);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip(Tr("ZeRO-%d shards %s"), z, Tr(kShards[z]));
    const bool valid = row.error.empty() && (f.possible || f.unsharded_bytes > 0 || f.sharded_bytes > 0);
    // The A + B/k column (wide windows only).
    if (!narrow) {
      ImGui::TableNextColumn();
      if (!valid) {
        ImGui::TextDisabled("%s", row.error.empty() ? Tr("no estimate") : row.error.c_str());
        if (ImGui::IsItemHovered() && !row.error.empty()) ImGui::SetTooltip("%s", row.error.c_str());
      } else {
        // not UI text: the formula A + B/k with its figures
        ImGui::Text("%.2f + %.2f / k %s", InUnits(f.unsharded_bytes, s.units), InUnits(f.sharded_bytes, s.units), unit);
        if (ImGui::IsItemHovered()) {
          ImGui::BeginTooltip();
          ImGui::PushTextWrapPos(em * 30);
          ImGui::Text(Tr("ZeRO-%d shards %s over the k data-parallel replicas."), z, Tr(kShards[z]));
          ImGui::Text(Tr("Kept whole on every GPU (A): %s"), Bytes(f.unsharded_bytes, s).c_str());
          ImGui::Text(Tr("Split over k replicas (B): %s"), Bytes(f.sharded_bytes, s).c_str());
          ImGui::TextDisabled(Tr("Fits when A + B/k <= %s, i.e. k > B / (capacity - A)."),
                              Bytes(cache.capacity, s).c_str());
          ImGui::PopTextWrapPos();
          ImGui::EndTooltip();
        }
      }
    }
    ImGui::TableNextColumn();
    if (valid && f.possible && f.min_dp == 1) {
      ImGui::TextUnformatted(Tr("any k"));
    } else if (valid && f.possible) {
      ImGui::Text("k > %.2f", f.threshold);  // not UI text: a formula
    } else if (valid) {
      ImGui::PushStyleColor(ImGuiCol_Text, BadColor());
      ImGui::TextUnformatted(Tr("never"));
      ImGui::PopStyleColor();
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(Tr("What stays whole on every GPU (%s) is already more than the GPU (%s):\n"
                             "more data-parallel GPUs never help at this stage."),
                          Bytes(f.unsharded_bytes, s).c_str(), Bytes(cache.capacity, s).c_str());
    }
    ImGui::TableNextColumn();
    if (f.possible) RightText(core::FormatCount(f.min_dp));
    ImGui::TableNextColumn();
    if (f.possible) {
      RightText(core::FormatCount(f.min_gpus));
      MarkItem(s, ("fit_zero" + std::to_string(z) + "_gpus").c_str());
    }
    if (!narrow) {
      ImGui::TableNextColumn();
      if (f.possible && row.peak_at_min_bytes > 0) RightText(Bytes(row.peak_at_min_bytes, s));
    }
    ImGui::TableNextColumn();
    if (f.possible) {
      const bool current = c.zero == z && c.dp == f.min_dp && c.zero_group == 0;
      if (current) {
        ImGui::TextDisabled("%s", Tr("current"));
      } else if (ImGui::SmallButton(Tr("Apply"))) {
        core::Config k = row.config;
        k.dp = f.min_dp;
        ApplyConfig(s, k, TrF("fit: ZeRO-%d, dp %lld", z, static_cast<long long>(f.min_dp)));
      } else if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(Tr("Set ZeRO stage %d and data parallel %lld%s"), z, static_cast<long long>(f.min_dp),
                          c.zero_group > 0 ? Tr("\n(the ZeRO group is reset to all replicas)") : "");
      }
    }
    ImGui::PopID();
  }
  ImGui::EndTable();
  // No stage fits: the fewest GPUs once the activations are checkpointed, one click away.
  const core::ZeroStageFit* best = nullptr;
  int best_z = 0;
  for (int z = 0; z < static_cast<int>(cache.zero_full.size()); ++z) {
    const core::ZeroStageFit& row = cache.zero_full[static_cast<size_t>(z)];
    if (row.fit.possible && (best == nullptr || row.fit.min_gpus < best->fit.min_gpus)) best = &row, best_z = z;
  }
  if (best != nullptr) {
    ImGui::AlignTextToFramePadding();
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(GoodColor(), Tr("With full activation checkpointing (gradient_checkpointing=True): %s GPUs, ZeRO-%d, %s per GPU"),
                       core::FormatCount(best->fit.min_gpus).c_str(), best_z, Bytes(best->peak_at_min_bytes, s).c_str());
    ImGui::PopTextWrapPos();
    MarkItem(s, "fit_recompute_gpus");
    FlowSameLine(ButtonWidth(Tr("Apply")));
    if (ImGui::SmallButton(Tr("Apply"))) {
      core::Config k = best->config;
      k.recompute = core::Recompute::kFull;
      k.dp = best->fit.min_dp;
      ApplyConfig(s, k, TrF("fit: full checkpointing, ZeRO-%d, dp %lld", best_z, static_cast<long long>(best->fit.min_dp)));
    }
  }
}

// One "largest value" line: label, answer, the current value and an Apply button.
void LimitRow(State& s, const char* label, int64_t found, int64_t current, int64_t search_limit, bool is_seq) {
  ImGui::PushID(label);
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  if (!Narrow()) ImGui::SameLine(ImGui::GetFontSize() * 14);
  if (found <= 0) {
    ImGui::PushStyleColor(ImGuiCol_Text, BadColor());
    ImGui::TextUnformatted(is_seq ? Tr("none: even 1 token does not fit") : Tr("none: even 1 does not fit"));
    ImGui::PopStyleColor();
    ImGui::PopID();
    return;
  }
  const std::string value = core::FormatCount(found);
  if (found >= search_limit && !is_seq) {
    ImGui::Text(Tr("%s or more (the search stops there)"), value.c_str());
  } else {
    ImGui::TextUnformatted(value.c_str());
  }
  ImGui::SameLine();
  ImGui::TextDisabled(Tr("(now %s)"), core::FormatCount(current).c_str());
  if (found != current) {
    FlowSameLine(ButtonWidth(Tr("Apply")));
    if (ImGui::SmallButton(Tr("Apply"))) {
      core::Config k = s.config;
      (is_seq ? k.seq : k.batch) = found;
      ApplyConfig(s, k, TrF("fit: %s", label));
    }
  }
  ImGui::PopID();
}

void Workload(State& s, const Cache& cache) {
  const bool training = s.config.mode != core::Mode::kInference;
  Heading(Tr("Largest workload on this layout (everything else as configured)"));
  LimitRow(s, training ? Tr("Largest micro-batch") : Tr("Most concurrent sequences"), cache.max_batch, s.config.batch,
           kBatchSearchLimit, false);
  LimitRow(s, Tr("Longest sequence"), cache.max_seq, s.config.seq, cache.context > 0 ? cache.context : kSeqSearchLimit,
           true);
  if (cache.context > 0 && cache.max_seq >= cache.context)
    WrappedDisabled(TrF("The model's context ends there: %s tokens.", core::FormatCount(cache.context).c_str()));
  if (cache.max_params > 0) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(Tr("Largest model"));
    if (!Narrow()) ImGui::SameLine(ImGui::GetFontSize() * 14);
    ImGui::Text(Tr("%s parameters"), core::FormatParams(cache.max_params).c_str());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", Tr("The parameter count whose model states (this scheme) fill the GPU,\n"
                                 "with this architecture's activations and the overheads kept as they are."));
  }
}

void Formats(State& s, const Cache& cache) {
  const bool inference = s.config.mode == core::Mode::kInference;
  Heading(inference ? Tr("Most precise formats that fit")
                    : Tr("Most precise formats that fit, were this model served for inference"));
  const core::FitFormats& f = cache.formats;
  if (!f.found) {
    ImGui::PushStyleColor(ImGuiCol_Text, BadColor());
    ImGui::TextUnformatted(Tr("None: even 2-bit weights with a 4-bit KV cache do not fit."));
    ImGui::PopStyleColor();
    return;
  }
  ImGui::AlignTextToFramePadding();
  ImGui::PushTextWrapPos(0);
  ImGui::Text(Tr("Weights %s, KV cache %s: %s per GPU"), core::Info(f.dtype).label, core::Info(f.kv_dtype).label,
              Bytes(f.peak_bytes, s).c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", Tr("Tried from most to least precise: weights bf16, fp8, Q8_0 ... IQ2_XXS;\n"
                               "for each, KV cache bf16, fp8, int4. The first pair that fits is shown."));
  const bool current = inference && s.config.dtype == f.dtype && s.config.kv_dtype == f.kv_dtype;
  const char* apply = inference ? Tr("Apply") : Tr("Apply (switches to inference)");
  if (current) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", Tr("(current)"));
  } else if (FlowSameLine(ButtonWidth(apply)), ImGui::SmallButton(apply)) {
    core::Config k = s.config;
    k.mode = core::Mode::kInference;
    k.dtype = f.dtype;
    k.kv_dtype = f.kv_dtype;
    ApplyConfig(s, k, Tr("fit: inference formats"));
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Compatibility
//-----------------------------------------------------------------------------

void Departures(const core::CompatEstimate& e) {
  ImGui::TextDisabled("%s", Tr("Where it departs from this calculator:"));
  ImGui::PushTextWrapPos(0);
  for (const std::string& d : e.departures) ImGui::BulletText("%s", d.c_str());
  ImGui::PopTextWrapPos();
}

void CompatTable(const char* id, const core::CompatEstimate& e, bool cpu_column, const State& s) {
  const float em = ImGui::GetFontSize();
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable(id, cpu_column ? 3 : 2, flags)) return;
  ImGui::TableSetupColumn(cpu_column ? Tr("Option row") : Tr("Line"), ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("GPU", ImGuiTableColumnFlags_WidthFixed, em * 6);
  if (cpu_column) ImGui::TableSetupColumn("CPU", ImGuiTableColumnFlags_WidthFixed, em * 6);
  ImGui::TableHeadersRow();
  for (const core::CompatLine& l : e.lines) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    // The row the config selects (DeepSpeed prints every offload option).
    const bool mine = cpu_column && l.gpu_bytes == e.gpu_bytes && l.cpu_bytes == e.cpu_bytes;
    if (mine) {
      ImGui::Text(Tr("%s  (this config)"), l.label.c_str());
    } else {
      ImGui::TextUnformatted(l.label.c_str());
    }
    if (ImGui::IsItemHovered() && !l.formula.empty()) ImGui::SetTooltip("%s", l.formula.c_str());
    ImGui::TableNextColumn();
    RightText(Bytes(l.gpu_bytes, s));
    if (cpu_column) {
      ImGui::TableNextColumn();
      RightText(Bytes(l.cpu_bytes, s));
    }
  }
  if (!cpu_column) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(Tr("total"));
    ImGui::TableNextColumn();
    RightText(Bytes(e.gpu_bytes, s));
  }
  ImGui::EndTable();
}

void Compatibility(const State& s, const Cache& cache) {
  ImGui::Spacing();
  if (!ImGui::CollapsingHeader(Tr("Compatibility: what DeepSpeed and Megatron-LM print for this config"))) return;
  const core::Totals& t = s.estimate.totals;
  double states = 0;
  for (core::Category c : {core::Category::kWeights, core::Category::kGradients, core::Category::kMasterWeights,
                           core::Category::kOptimizerStates})
    states += t.category_bytes[static_cast<int>(c)];
  ImGui::PushTextWrapPos(0);
  ImGui::Text(
      Tr("This calculator, per GPU: %s in all; model states (weights, gradients, master weights, optimizer) %s; "
         "activations %s."),
      Bytes(t.peak_bytes, s).c_str(), Bytes(states, s).c_str(),
      Bytes(t.category_bytes[static_cast<int>(core::Category::kActivations)], s).c_str());
  ImGui::PopTextWrapPos();

  const core::CompatEstimate& ds = cache.deepspeed;
  ImGui::Spacing();
  ImGui::Text("%s", ds.tool.empty() ? Tr("DeepSpeed estimator") : ds.tool.c_str());
  if (!ds.ok) {
    ImGui::TextDisabled(Tr("Not available: %s"), ds.error.c_str());
  } else {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled(Tr("%s; model states only"), ds.scope.c_str());
    ImGui::PopTextWrapPos();
    CompatTable("deepspeed", ds, true, s);
    Departures(ds);
  }

  const core::CompatEstimate& mg = cache.megatron;
  ImGui::Spacing();
  ImGui::Text("%s", mg.tool.empty() ? Tr("Megatron-LM report") : mg.tool.c_str());
  if (!mg.ok) {
    ImGui::TextDisabled(Tr("Not available: %s"), mg.error.c_str());
  } else {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled(Tr("Theoretical memory of %s"), mg.scope.c_str());
    ImGui::PopTextWrapPos();
    CompatTable("megatron", mg, false, s);
    Departures(mg);
  }
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Panel
//-----------------------------------------------------------------------------

void DrawFit(State& s) {
  static Cache cache;
  if (!s.estimate.totals.ok) {
    ImGui::TextDisabled("%s", Tr("Nothing to solve while the inputs have errors."));
    return;
  }
  Update(cache, s);
  ImGui::BeginChild("fit_scroll", ImVec2(0, 0), false);
  const core::Gpu* gpu = core::FindGpu(s.config.gpu);
  ImGui::Text(Tr("On %s, %s per GPU"), gpu != nullptr ? gpu->name.c_str() : Tr("a custom GPU"),
              Bytes(cache.card, s).c_str());
  char headroom[200];
  if (cache.headroom > 0) {
    std::snprintf(headroom, sizeof headroom, Tr("Every answer keeps %.0f%% of it free (%s): it must fit in %s."),
                  cache.headroom * 100, Bytes(cache.card - cache.capacity, s).c_str(),
                  Bytes(cache.capacity, s).c_str());
  } else {
    std::snprintf(headroom, sizeof headroom, Tr("Every answer fills the runtime's own share of it (%s), as it would."),
                  Bytes(cache.capacity, s).c_str());
  }
  WrappedDisabled(headroom);
  if (s.config.mode != core::Mode::kInference) {
    // First: the layouts that combine count, stage and recompute (panel_plan.cpp), then the
    // one-dimensional answers.
    DrawPlanSearch(s);
  }
  DrawJobs(s);  // panel_jobs.cpp: several jobs on one GPU (folded until opened)
  if (s.config.mode != core::Mode::kInference) ZeroTable(s, cache);
  Workload(s, cache);
  Formats(s, cache);
  DrawServingFit(s);  // panel_serving.cpp: the serving runtime's answers
  Compatibility(s, cache);
  ImGui::Spacing();
  WrappedDisabled(
      TrF("Solved in %.2f ms with the fast estimate; kept until the configuration changes. Apply is undoable (Ctrl+Z).",
          cache.solve_ms));
  ImGui::EndChild();
}

}  // namespace llmmem::app
