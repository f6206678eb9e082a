// The "Any network" tab (issue 17): seed 002's second part shown directly. A torchvision
// preset, an edited copy of one, or a pasted print(model) / network JSON; its input and
// workload; model memory, per-sample memory and memory = model + batch x per-sample with
// the batch that fits the card chosen on the left; a per-layer chart where the layers that
// keep the most stand out; the per-layer table (shape, parameters, feature map, kept for
// backward), whose rows can be added, removed and reordered on a custom stack.
// May include: imgui, core, app/state.h, app/network_view.h, app/chart_math.h, app/i18n.h.
//
// Index
// [SECTION] Inputs
// [SECTION] The seed's view
// [SECTION] Per-layer chart
// [SECTION] Per-layer table and editing
// [SECTION] Paste
// [SECTION] Panel
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/chart_math.h"
#include "app/i18n.h"
#include "app/network_view.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "core/network/network_json.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

std::string Bytes(double b) { return core::FormatBytes(b, core::UnitSystem::kDecimal); }

//-----------------------------------------------------------------------------
// [SECTION] Inputs
//-----------------------------------------------------------------------------

bool Int64(const char* label, int64_t* v, int64_t lo, int64_t hi, float width) {
  ImGui::SetNextItemWidth(width);
  int64_t x = *v;
  const int64_t step = 1, fast = 16;
  if (!ImGui::InputScalar(label, ImGuiDataType_S64, &x, &step, &fast)) return false;
  x = std::max(lo, std::min(hi, x));
  if (x == *v) return false;
  *v = x;
  return true;
}

// A combo over an enumeration's table (core/enum_table.h) by id; `keep` picks the rows a
// layer stack takes.
template <typename E>
bool EnumCombo(const char* label, E* value, bool (*keep)(const core::RowOf<E>&), float width) {
  bool changed = false;
  ImGui::SetNextItemWidth(width);
  if (ImGui::BeginCombo(label, core::Id(*value))) {
    // TableOf unqualified: found by argument-dependent lookup when instantiated.
    for (const core::RowOf<E>& row : TableOf(*value)) {
      if (keep != nullptr && !keep(row)) continue;
      if (ImGui::Selectable(row.id, row.value == *value)) {
        changed = row.value != *value;
        *value = row.value;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

void DrawNetworkPicker(State& s, NetworkView& v, bool& changed) {
  const float em = ImGui::GetFontSize();
  std::string shown = v.model.empty() ? (v.custom.name.empty() ? Tr("Custom stack") : v.custom.name) : v.model;
  if (const core::NetworkPreset* p = v.model.empty() ? nullptr : core::FindNetworkPreset(v.model)) shown = p->spec.name;
  ImGui::SetNextItemWidth(em * 16);
  const bool open = ImGui::BeginCombo(Tr("Network"), shown.c_str(), ImGuiComboFlags_HeightLarge);
  MarkItem(s, "net_model");
  if (open) {
    std::string family;
    for (const core::NetworkPreset& p : core::NetworkPresets()) {
      if (p.spec.family != family) {
        family = p.spec.family;
        ImGui::TextDisabled("%s", family.c_str());
      }
      char label[160];
      std::snprintf(label, sizeof label, "  %s  (%s)##%s", p.spec.name.c_str(),
                    core::FormatParams(static_cast<double>(p.spec.published_params)).c_str(), p.key.c_str());
      const bool picked = ImGui::Selectable(label, v.model == p.key);
      MarkItem(s, ("net_" + p.key).c_str());
      if (picked) {
        changed |= v.model != p.key;
        v.model = p.key;
        v.selected = -1;
      }
    }
    if (!v.custom.layers.empty()) {
      ImGui::Separator();
      const std::string name = v.custom.name.empty() ? Tr("Custom stack") : v.custom.name;
      if (ImGui::Selectable((name + "##custom").c_str(), v.model.empty())) {
        changed |= !v.model.empty();
        v.model.clear();
      }
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (!v.model.empty()) {
    if (ImGui::Button(Tr("Edit a copy"))) {
      StartCustom(v);
      changed = true;
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", Tr("Make this preset a custom stack: add, remove and reorder its layers"));
  } else {
    ImGui::TextDisabled("%s", Tr("custom stack: select a row to edit it"));
  }
}

void DrawWorkload(NetworkView& v, bool& changed) {
  const float em = ImGui::GetFontSize();
  // The input as the request resolved it (the network's own unless overridden).
  std::vector<int64_t> in = v.request.ok ? v.request.spec.input : std::vector<int64_t>{};
  if (in.size() == 3) {
    int64_t h = v.image_h > 0 ? v.image_h : in[1], w = v.image_w > 0 ? v.image_w : in[2],
            c = v.channels > 0 ? v.channels : in[0];
    if (Int64("H##img", &h, 1, 100000, em * 6.5f)) {
      v.image_h = h;
      v.image_w = v.image_w > 0 ? v.image_w : in[2];
      changed = true;
    }
    ImGui::SameLine();
    if (Int64("W##img", &w, 1, 100000, em * 6.5f)) {
      v.image_w = w;
      v.image_h = v.image_h > 0 ? v.image_h : in[1];
      changed = true;
    }
    ImGui::SameLine();
    if (Int64(Tr("channels"), &c, 1, 100000, em * 5.5f)) {
      v.channels = c;
      changed = true;
    }
    ImGui::SameLine();
  } else if (!in.empty()) {
    ImGui::TextDisabled(Tr("input %s"),
                        [&] {
                          std::string t;
                          for (int64_t d : in) t += (t.empty() ? "" : "x") + std::to_string(d);
                          return t;
                        }()
                            .c_str());
    ImGui::SameLine();
  }
  changed |= Int64(Tr("batch"), &v.batch, 1, 1048576, em * 7);
  ImGui::SameLine();
  if (ImGui::RadioButton(Tr("training"), v.training)) {
    changed |= !v.training;
    v.training = true;
  }
  ImGui::SameLine();
  if (ImGui::RadioButton(Tr("inference"), !v.training)) {
    changed |= v.training;
    v.training = false;
  }

  changed |= EnumCombo("dtype", &v.dtype, core::IsPlainFloatRow, em * 4.5f);
  if (v.training) {
    ImGui::SameLine();
    changed |= EnumCombo(Tr("optimizer"), &v.optimizer, core::LayerStackOptimizer, em * 6.5f);
  }
  ImGui::SameLine();
  changed |= EnumCombo("PyTorch", &v.profile, nullptr, em * 7.5f);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", Tr("torch2-cuda: PyTorch 2.x on a GPU (the estimate). torch1.13-cpu: what tests/truth "
                               "measured;\nthe differences are listed under the table."));
  ImGui::SameLine();
  changed |= EnumCombo(Tr("attention"), &v.attention, nullptr, em * 5);
  ImGui::SameLine();
  changed |= ImGui::Checkbox(Tr("loss"), &v.loss);
}

//-----------------------------------------------------------------------------
// [SECTION] The seed's view
//-----------------------------------------------------------------------------

void DrawSeedView(State& s, const NetworkView& v) {
  const core::NetworkEstimate& e = v.estimate;
  const core::NetworkAnalysis& a = e.analysis;
  // The large font holds only Latin-1 (the headline's figures): the translated formula is
  // drawn in the text font.
  const bool large = CurrentLang() == Lang::kEn;
  if (large) ImGui::PushFont(LargeFont());
  ImGui::TextUnformatted(Tr("memory = model + batch x per-sample"));
  if (large) ImGui::PopFont();
  ImGui::Text("= %s + %lld x %s = %s", Bytes(e.model_bytes).c_str(), static_cast<long long>(e.batch),
              Bytes(e.per_sample_bytes).c_str(), core::FormatBytesBoth(e.total_bytes).c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, e.fits ? GoodColor() : BadColor());
  ImGui::Text(e.fits ? Tr("Fits %s (%s); the largest batch that fits: %lld")
                     : Tr("Does not fit %s (%s); the largest batch that fits: %lld"),
              s.config.gpu.c_str(), core::FormatBytesBoth(e.gpu_bytes).c_str(), static_cast<long long>(e.max_batch));
  ImGui::PopStyleColor();
  MarkItem(s, "net_largest_batch");
  ImGui::TextDisabled(Tr("%s parameters, input %s -> output %s; %zu layers"), core::FormatCount(a.params).c_str(),
                      a.input.ToString().c_str(), a.output.ToString().c_str(), a.rows.size());

  ImGui::Text(Tr("Model memory %s (weights, gradients, optimizer, buffers, context)   |   per sample %s (%s)"),
              Bytes(e.model_bytes).c_str(), Bytes(e.per_sample_bytes).c_str(),
              v.request.input.settings.training ? Tr("tensors kept for backward") : Tr("most alive at once"));
  if (!ImGui::TreeNode(Tr("Each term, with its formula"))) return;
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("seed_terms", 3, flags)) {
    ImGui::TreePop();
    return;
  }
  const float em = ImGui::GetFontSize();
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, em * 16);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, em * 7);
  ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
  auto row = [&](const std::string& label, double bytes, const std::string& formula, bool strong) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (strong)
      ImGui::TextUnformatted(Tr(label));
    else
      ImGui::Text("  %s", Tr(label));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(Bytes(bytes).c_str());
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", formula.c_str());
  };
  for (const core::NetworkTerm& t : e.terms)
    if (!t.per_sample) row(t.label, t.bytes, t.formula, false);
  row("Model memory", e.model_bytes, Tr("independent of the batch"), true);
  if (v.request.input.settings.training) {
    row("kept for backward", a.saved_bytes, Tr("every tensor autograd keeps, once per storage"), false);
    if (a.loss_bytes + a.output_held_bytes + a.input_held_bytes > 0)
      row("loss, output, input", a.loss_bytes + a.output_held_bytes + a.input_held_bytes,
          Tr("log-probabilities, int64 targets; the output and input when nothing keeps them"), false);
    row("(seed 002: feature maps summed)", a.feature_map_bytes, Tr("every layer's new output, for comparison"), false);
  } else {
    row("most alive at once", a.inference_peak_bytes, Tr("eval() under no_grad, the input included"), false);
  }
  row("Per-sample memory", e.per_sample_bytes, TrF("x batch %lld", static_cast<long long>(e.batch)), true);
  ImGui::EndTable();
  ImGui::TreePop();
}

//-----------------------------------------------------------------------------
// [SECTION] Per-layer chart
//-----------------------------------------------------------------------------

double RowValue(const core::LayerRow& r, bool training) { return training ? r.saved_bytes : r.feature_map_bytes; }

void DrawLayerChart(NetworkView& v) {
  const core::NetworkAnalysis& a = v.estimate.analysis;
  const bool training = v.request.input.settings.training;
  const int n = static_cast<int>(a.rows.size());
  if (n == 0) return;
  std::vector<double> values(static_cast<size_t>(n));
  double top = 0;
  for (int i = 0; i < n; ++i)
    top = std::max(top, values[static_cast<size_t>(i)] = RowValue(a.rows[static_cast<size_t>(i)], training));
  const std::vector<int> largest = chart::LargestIndices(values, 8);
  const float em = ImGui::GetFontSize();
  const ImVec2 size(ImGui::GetContentRegionAvail().x, em * 5);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("layer_chart", size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(p0, ImVec2(p0.x + size.x, p0.y + size.y), true);
  dl->AddRectFilled(p0, ImVec2(p0.x + size.x, p0.y + size.y), ImGui::GetColorU32(ImGuiCol_FrameBg));
  const chart::Linear y{0, top > 0 ? top : 1, p0.y + size.y - 2, p0.y + 4};
  const float slot = size.x / static_cast<float>(n);
  const ImU32 base = ImGui::GetColorU32(ImGuiCol_PlotHistogram, 0.45f);
  const ImU32 strong = CategoryColor(core::Category::kActivations);
  for (int i = 0; i < n; ++i) {
    const bool big = std::find(largest.begin(), largest.end(), i) != largest.end();
    const float x0 = p0.x + slot * static_cast<float>(i);
    const float x1 = std::max(x0 + 1.0f, x0 + slot - (slot > 3 ? 1.0f : 0.0f));
    dl->AddRectFilled(ImVec2(x0, static_cast<float>(y(values[static_cast<size_t>(i)]))), ImVec2(x1, p0.y + size.y - 2),
                      big ? strong : base);
  }
  const int hover = hovered ? chart::SlotAt(ImGui::GetIO().MousePos.x - p0.x, size.x, n) : -1;
  if (hover >= 0) {
    const float x = p0.x + slot * (static_cast<float>(hover) + 0.5f);
    dl->AddLine(ImVec2(x, p0.y), ImVec2(x, p0.y + size.y), ImGui::GetColorU32(ImGuiCol_Text, 0.4f));
  }
  dl->PopClipRect();
  if (hover >= 0) {
    const core::LayerRow& r = a.rows[static_cast<size_t>(hover)];
    ImGui::BeginTooltip();
    ImGui::Text("%s (%s)", r.name.c_str(), core::Info(r.kind).label);
    ImGui::Text(Tr("output %s, %s parameters"), r.out.ToString().c_str(), core::FormatCount(r.params).c_str());
    ImGui::Text(Tr("feature map %s per sample"), Bytes(r.feature_map_bytes).c_str());
    if (training)
      ImGui::Text(Tr("kept for backward %s per sample: %s"), Bytes(r.saved_bytes).c_str(), r.saved_what.c_str());
    ImGui::EndTooltip();
    if (ImGui::IsMouseClicked(0)) v.selected = hover;
  }
  std::string largest_rows;
  for (size_t k = 0; k < largest.size() && k < 3; ++k) {
    const core::LayerRow& r = a.rows[static_cast<size_t>(largest[k])];
    largest_rows += (k ? ", " : "") + r.name + " " + Bytes(values[static_cast<size_t>(largest[k])]);
  }
  ImGui::TextDisabled(training ? Tr("Kept for backward per sample, layer by layer; largest: %s")
                               : Tr("Feature maps per sample; largest: %s"),
                      largest_rows.c_str());
}

//-----------------------------------------------------------------------------
// [SECTION] Per-layer table and editing
//-----------------------------------------------------------------------------

void RightText(const std::string& t) {
  const float w = ImGui::CalcTextSize(t.c_str()).x;
  ImGui::SetCursorPosX(ImGui::GetCursorPosX() + ImGui::GetContentRegionAvail().x - w);
  ImGui::TextUnformatted(t.c_str());
}

std::string Cell(double b) { return b == 0 ? std::string() : Bytes(b); }

bool EditInt(const char* label, int64_t* v, int64_t lo) {
  const float em = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(em * 6);
  int64_t x = *v;
  if (!ImGui::InputScalar(label, ImGuiDataType_S64, &x)) return false;
  if (x < lo) x = lo;
  if (x == *v) return false;
  *v = x;
  return true;
}

bool EditPair(const char* label, int64_t (&v)[2], int64_t lo) {
  const float em = ImGui::GetFontSize();
  ImGui::SetNextItemWidth(em * 8);
  int64_t x[2] = {v[0], v[1]};
  if (!ImGui::InputScalarN(label, ImGuiDataType_S64, x, 2)) return false;
  bool changed = false;
  for (int i = 0; i < 2; ++i) {
    if (x[i] < lo) x[i] = lo;
    changed |= x[i] != v[i];
    v[i] = x[i];
  }
  return changed;
}

// The fields of the selected layer that its kind uses.
bool EditLayer(core::Layer& l) {
  using K = core::LayerKind;
  const K k = l.kind;
  bool c = false;
  char name[128];
  std::snprintf(name, sizeof name, "%s", l.name.c_str());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  if (ImGui::InputText(Tr("name"), name, sizeof name)) {
    l.name = name;
    c = true;
  }
  const bool conv = k == K::kConv1d || k == K::kConv2d || k == K::kConvTranspose2d;
  const bool pool = k == K::kMaxPool2d || k == K::kAvgPool2d;
  auto same = [] { ImGui::SameLine(); };
  if (conv || k == K::kLinear || k == K::kEmbedding || k == K::kAttention || k == K::kWindowAttention) {
    if (k == K::kEmbedding)
      c |= EditInt(Tr("rows (vocab)"), &l.vocab, 1);
    else
      c |= EditInt(Tr("in (0: from the shape)"), &l.in, 0);
    if (k != K::kAttention && k != K::kWindowAttention) {
      same();
      c |= EditInt("out", &l.out, 1);
    }
  }
  if (conv || pool) {
    c |= EditPair("kernel", l.kernel, 1);
    same();
    c |= EditPair(Tr("stride (0: default)"), l.stride, 0);
    c |= EditPair("padding", l.padding, 0);
    if (k != K::kAvgPool2d) {
      same();
      c |= EditPair("dilation", l.dilation, 1);
    }
  }
  if (conv || k == K::kGroupNorm) c |= EditInt(conv ? "groups" : Tr("groups (GroupNorm)"), &l.groups, 1);
  if (k == K::kAttention || k == K::kWindowAttention) c |= EditInt("heads", &l.heads, 1);
  if (k == K::kWindowAttention) {
    c |= EditPair("window", l.window, 1);
    same();
    c |= EditPair("shift", l.shift, 0);
  }
  if (k == K::kAdaptiveAvgPool2d || k == K::kAdaptiveMaxPool2d || k == K::kUpsample) c |= EditPair("size", l.size, 0);
  if (k == K::kUpsample) {
    float scale = static_cast<float>(l.scale);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputFloat("scale", &scale)) {
      l.scale = std::max(0.0f, scale);
      c = true;
    }
  }
  if (k == K::kDropout || k == K::kStochasticDepth || k == K::kAttention || k == K::kWindowAttention) {
    float p = static_cast<float>(l.drop_prob);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::SliderFloat("p", &p, 0, 1, "%.2f")) {
      l.drop_prob = p;
      c = true;
    }
  }
  if (k == K::kFlatten) {
    c |= EditInt("start_dim", &l.start_dim, -5);
    same();
    c |= EditInt("end_dim", &l.end_dim, -5);
  }
  if (conv || k == K::kLinear || k == K::kAttention || k == K::kWindowAttention) c |= ImGui::Checkbox("bias", &l.bias);
  if (k == K::kReLU || k == K::kReLU6 || k == K::kLeakyReLU || k == K::kGELU || k == K::kSiLU || k == K::kSigmoid ||
      k == K::kTanh || k == K::kHardswish || k == K::kHardsigmoid || k == K::kAdd) {
    if (conv) same();
    c |= ImGui::Checkbox(Tr("in place"), &l.inplace);
  }
  if (pool) {
    same();
    c |= ImGui::Checkbox("ceil_mode", &l.ceil_mode);
  }
  if (conv || k == K::kLinear || k == K::kEmbedding || k == K::kBatchNorm || k == K::kLayerNorm || k == K::kGroupNorm ||
      k == K::kLayerScale) {
    same();
    c |= ImGui::Checkbox(Tr("trainable"), &l.trainable);
  }
  return c;
}

void DrawEditBar(NetworkView& v, bool& changed) {
  static int kind = static_cast<int>(core::LayerKind::kConv2d);
  const float em = ImGui::GetFontSize();
  const bool has = v.selected >= 0 && v.selected < static_cast<int>(v.paths.size());
  const LayerPath path = has ? v.paths[static_cast<size_t>(v.selected)] : LayerPath{};
  ImGui::SetNextItemWidth(em * 11);
  if (ImGui::BeginCombo("##kind", core::Info(static_cast<core::LayerKind>(kind)).label)) {
    for (int k = 0; k < static_cast<int>(core::LayerKind::kCount); ++k)
      if (ImGui::Selectable(core::Info(static_cast<core::LayerKind>(k)).label, k == kind)) kind = k;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  const core::Layer fresh = DefaultLayer(static_cast<core::LayerKind>(kind));
  if (ImGui::Button(has ? Tr("Add after the selected") : Tr("Add at the end"))) {
    if (InsertLayerAfter(v.custom, path, fresh)) {
      changed = true;
      v.selected = has ? v.selected + 1 : -1;
    }
  }
  if (!has) return;
  core::Layer* l = LayerAt(v.custom, path);
  if (l == nullptr) return;
  for (size_t b = 0; b < l->branches.size(); ++b) {
    ImGui::SameLine();
    const std::string label = TrF("Into branch %zu", b) + "##br" + std::to_string(b);
    if (ImGui::Button(label.c_str()) && InsertLayerInBranch(v.custom, path, static_cast<int>(b), fresh)) changed = true;
  }
  ImGui::SameLine();
  if (ImGui::Button(Tr("Up")) && MoveLayer(v.custom, path, -1)) changed = true, v.selected = -1;
  ImGui::SameLine();
  if (ImGui::Button(Tr("Down")) && MoveLayer(v.custom, path, +1)) changed = true, v.selected = -1;
  ImGui::SameLine();
  if (ImGui::Button(Tr("Remove")) && RemoveLayer(v.custom, path)) {
    changed = true;
    v.selected = -1;
    return;
  }
  ImGui::Text("%s (%s)", l->name.empty() ? Tr("(unnamed)") : l->name.c_str(), core::Info(l->kind).label);
  changed |= EditLayer(*l);
}

void DrawLayerTable(NetworkView& v, float height) {
  const core::NetworkAnalysis& a = v.estimate.analysis;
  const bool training = v.request.input.settings.training;
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_Resizable |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("layers", 7, flags, ImVec2(0, height))) return;
  const float em = ImGui::GetFontSize();
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn(Tr("Layer"), ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableSetupColumn(Tr("Type"), ImGuiTableColumnFlags_WidthFixed, em * 7);
  ImGui::TableSetupColumn(Tr("Output"), ImGuiTableColumnFlags_WidthFixed, em * 6.5f);
  ImGui::TableSetupColumn(Tr("Params"), ImGuiTableColumnFlags_WidthFixed, em * 6);
  ImGui::TableSetupColumn(Tr("Feature map"), ImGuiTableColumnFlags_WidthFixed, em * 5.5f);
  ImGui::TableSetupColumn(training ? Tr("Kept") : Tr("Scratch"), ImGuiTableColumnFlags_WidthFixed, em * 5.5f);
  ImGui::TableSetupColumn(Tr("Kept what"), ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(a.rows.size()));
  if (v.selected >= 0) clipper.ForceDisplayRangeByIndices(v.selected, v.selected + 1);
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const core::LayerRow& r = a.rows[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(i);
      const std::string label = std::string(static_cast<size_t>(r.depth) * 2, ' ') + r.name;
      if (ImGui::Selectable(label.c_str(), v.selected == i, ImGuiSelectableFlags_SpanAllColumns))
        v.selected = v.selected == i ? -1 : i;
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(core::Info(r.kind).label);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.out.ToString().c_str());
      ImGui::TableNextColumn();
      RightText(r.params ? core::FormatCount(r.params) : "");
      ImGui::TableNextColumn();
      RightText(Cell(r.feature_map_bytes));
      ImGui::TableNextColumn();
      RightText(Cell(training ? r.saved_bytes : r.workspace_bytes));
      ImGui::TableNextColumn();
      if (training) ImGui::TextDisabled("%s%s", r.saved_what.c_str(), r.shared_bytes > 0 ? Tr(" (already kept)") : "");
    }
  }
  ImGui::EndTable();
}

//-----------------------------------------------------------------------------
// [SECTION] Paste
//-----------------------------------------------------------------------------

void DrawPaste(NetworkView& v, bool& changed) {
  if (!ImGui::CollapsingHeader(Tr("Paste print(model) or a network JSON"))) return;
  static std::vector<char> buffer(1 << 19, '\0');  // 512 KiB: print() of the largest torchvision model is ~100 KB
  ImGui::TextDisabled(
      "%s", Tr("PyTorch's module repr: parameters exact for the layers it knows; activations follow the printed\n"
               "order, and where the repr cannot tell the graph (residual branches of unknown modules) it says so."));
  ImGui::InputTextMultiline("##paste", buffer.data(), buffer.size(), ImVec2(-1, ImGui::GetFontSize() * 10),
                            ImGuiInputTextFlags_AllowTabInput);
  if (ImGui::Button(Tr("Use it"))) {
    v.paste = buffer.data();
    if (UsePasted(v)) changed = true;
  }
  for (const core::Diagnostic& d : v.paste_notes) {
    ImGui::PushStyleColor(ImGuiCol_Text, d.severity == core::Severity::kError ? BadColor()
                                         : d.severity == core::Severity::kWarning
                                             ? WarnColor()
                                             : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::PushTextWrapPos(0);
    ImGui::BulletText("%s", d.message.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Panel
//-----------------------------------------------------------------------------

void DrawNetwork(State& s) {
  NetworkView& v = s.network;
  if (core::NetworkPresets().empty() && s.hooks.need_networks) {
    // The page fetches the layer stacks when this tab first needs them.
    RequestNetworks(s);
    ImGui::PushTextWrapPos(0);
    if (v.presets_error.empty()) {
      ImGui::TextDisabled("%s", Tr("Loading the network presets..."));
    } else {
      ImGui::TextColored(BadColor(), "%s", v.presets_error.c_str());
      if (ImGui::SmallButton(Tr("Try again"))) {
        v.presets_error.clear();
        v.presets_asked = false;
      }
    }
    ImGui::PopTextWrapPos();
    return;
  }
  if (RefreshNetwork(v, s.config)) s.view_dirty = true;
  bool changed = false;
  DrawNetworkPicker(s, v, changed);
  DrawWorkload(v, changed);
  ImGui::Separator();
  const auto& diags = v.request.ok ? v.estimate.diagnostics : v.request.diagnostics;
  for (const core::Diagnostic& d : diags) {
    ImGui::PushStyleColor(ImGuiCol_Text, d.severity == core::Severity::kError ? BadColor() : WarnColor());
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(d.message.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  if (v.estimate.ok) {
    DrawSeedView(s, v);
    ImGui::Spacing();
    DrawLayerChart(v);
    if (v.model.empty()) DrawEditBar(v, changed);
    DrawLayerTable(v, std::max(ImGui::GetFontSize() * 12, ImGui::GetContentRegionAvail().y - ImGui::GetFontSize() * 6));
    const auto& notes = v.estimate.analysis.notes;
    if ((!v.differences.empty() || !notes.empty()) && ImGui::TreeNode(Tr("Where PyTorch versions and devices differ"))) {
      ImGui::PushTextWrapPos(0);
      for (const core::ProfileDifference& d : v.differences)
        ImGui::BulletText(Tr("%s per sample, %s per step: %s"), Bytes(d.bytes_per_sample).c_str(),
                          Bytes(d.bytes_per_step).c_str(), d.what.c_str());
      for (const std::string& n : notes) ImGui::BulletText("%s", n.c_str());
      ImGui::PopTextWrapPos();
      ImGui::TreePop();
    }
  } else if (v.model.empty()) {
    DrawEditBar(v, changed);  // a broken custom stack can still be repaired
  }
  DrawPaste(v, changed);
  if (changed) {
    v.dirty = true;
    s.view_dirty = true;
    RefreshNetwork(v, s.config);
  }
}

}  // namespace llmmem::app
