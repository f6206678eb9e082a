// Charts: one layer's activations by term (from the Explain tree), memory against
// sequence length and against batch (EstimateTotals sweeps over powers of two, with the
// GPU line), and configurations side by side as stacked bars: the three recompute modes
// and the four ZeRO stages (at the current dp, or 8 when dp is 1). Sweeps and bars are
// recomputed only when the configuration (its URL query) changes.
#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "app/chart_math.h"
#include "app/chart_widgets.h"
#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "imgui.h"
#include "core/base/stable_order.h"

namespace llmmem::app {
namespace {

// Configurations side by side: one stacked bar each.
struct LabelledConfig {
  std::string label;
  core::Config config;
};
struct BarSet {
  std::vector<std::string> labels;
  std::vector<std::array<double, core::kCategoryCount>> bytes;
};

struct Cache {
  std::string key;
  CategorySeries by_seq, by_batch;
  BarSet recompute, zero;
  int64_t zero_dp = 0;  // the dp the ZeRO bars use
  std::vector<Term> terms;
};

std::array<double, core::kCategoryCount> Categories(const core::Totals& t) {
  std::array<double, core::kCategoryCount> a{};
  if (!t.ok) return a;
  for (int c = 0; c < core::kCategoryCount; ++c) a[c] = t.category_bytes[c];
  return a;
}

BarSet CompareConfigs(const std::vector<LabelledConfig>& configs) {
  BarSet b;
  for (const LabelledConfig& lc : configs) {
    b.labels.push_back(lc.label);
    b.bytes.push_back(Categories(core::EstimateTotals(lc.config)));
  }
  return b;
}

template <class Set>
CategorySeries Sweep(const core::Config& base, const std::vector<int64_t>& xs, Set set) {
  CategorySeries s;
  core::Config c = base;
  for (int64_t x : xs) {
    set(c, x);
    const core::Totals t = core::EstimateTotals(c);
    s.xs.push_back(x);
    s.bytes.push_back(Categories(t));
    s.peak.push_back(t.ok ? t.peak_bytes : 0);
  }
  return s;
}

// Leaves with a per-layer size, named "<parent>: <leaf>", coloured by parent group.
void CollectTerms(const core::BreakdownNode& n, const std::string& parent, std::vector<std::string>& groups,
                  std::vector<Term>& out) {
  if (n.children.empty()) {
    if (n.per_layer_bytes <= 0) return;
    size_t g = 0;
    while (g < groups.size() && groups[g] != parent) ++g;
    if (g == groups.size()) groups.push_back(parent);
    static const ImU32 kGroupColors[] = {IM_COL32(0, 114, 178, 255), IM_COL32(0, 158, 115, 255),
                                         IM_COL32(150, 150, 150, 255), IM_COL32(204, 121, 167, 255),
                                         IM_COL32(230, 159, 0, 255)};
    out.push_back(Term{std::string(Tr(parent)) + Tr(": ") + Tr(n.name), n.formula, n.per_layer_bytes, kGroupColors[g % 5]});
    return;
  }
  for (const core::BreakdownNode& c : n.children) CollectTerms(c, n.name, groups, out);
}

void Update(Cache& cache, const State& s) {
  // The labels are in the UI's language: a switch, or the page's strings arriving, redoes them.
  const std::string key = s.config_query + "&lang=" + LangId(CurrentLang()) + "#" + std::to_string(TranslationsVersion());
  if (key == cache.key) return;
  cache.key = key;
  const core::Config& c = s.config;
  cache.by_seq = Sweep(c, chart::PowersOfTwo(128, std::max<int64_t>(c.seq * 4, 32768)),
                       [](core::Config& k, int64_t x) { k.seq = x; });
  cache.by_batch = Sweep(c, chart::PowersOfTwo(1, std::max<int64_t>(c.batch * 4, 64)),
                         [](core::Config& k, int64_t x) { k.batch = x; });
  std::vector<LabelledConfig> configs;
  for (const core::RecomputeInfo& row : core::TableOf(c.recompute)) {
    core::Config k = c;
    k.recompute = row.value;
    configs.push_back({std::string(Tr(row.label)) + (k.recompute == c.recompute ? Tr("\n(current)") : ""), k});
  }
  cache.recompute = CompareConfigs(configs);
  // ZeRO 0-3 at the current dp; with one replica nothing is sharded, so show 8.
  cache.zero_dp = c.dp > 1 ? c.dp : 8;
  configs.clear();
  for (int z = 0; z < 4; ++z) {
    core::Config k = c;
    k.zero = z;
    k.dp = cache.zero_dp;
    if (z < 3) k.offload_params = core::Offload::kNone;  // parameter offload is ZeRO-3 only
    if (k.dp != c.dp) k.zero_group = 0;
    configs.push_back({"ZeRO-" + std::to_string(z) + (z == c.zero ? Tr("\n(current)") : ""), k});
  }
  cache.zero = CompareConfigs(configs);
  cache.terms.clear();
  const core::BreakdownNode* act = s.estimate.tree.Find("total.activations");
  if (act == nullptr) act = s.estimate.tree.Find("activations");
  std::vector<std::string> groups;
  if (act != nullptr) CollectTerms(*act, act->name, groups, cache.terms);
  core::StableSort(cache.terms, [](const Term& a, const Term& b) { return a.bytes > b.bytes; });
}

}  // namespace

void DrawCharts(const State& s) {
  static Cache cache;
  if (!s.estimate.totals.ok) {
    ImGui::TextDisabled("%s", Tr("No charts while the inputs have errors."));
    return;
  }
  Update(cache, s);
  const double cap = s.estimate.totals.capacity_bytes;
  const float em = ImGui::GetFontSize();
  const bool training = s.config.mode != core::Mode::kInference;
  ImGui::BeginChild("charts_scroll", ImVec2(0, 0), false);
  const float w = ImGui::GetContentRegionAvail().x;
  // Two charts a row where each gets 22 fonts of width; one a row below that (a phone).
  const bool pairs = w >= em * 44;
  const float sp = ImGui::GetStyle().ItemSpacing.x;
  const float cw = pairs ? (w - sp) * 0.5f : w;
  const ImVec2 chart_size(cw, em * 16);
  auto title = [&](const char* text, bool second) {
    if (second && pairs) ImGui::SameLine(cw + sp);
    ImGui::PushTextWrapPos(second || !pairs ? 0.0f : cw);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
  };
  const char* by_batch =
      s.config.mode == core::Mode::kInference ? Tr("Memory vs concurrent sequences") : Tr("Memory vs micro-batch");
  if (pairs) {
    title(Tr("Memory vs sequence length"), false);
    title(by_batch, true);
  } else {
    title(Tr("Memory vs sequence length"), false);
  }
  StackedAreaChart("by_seq", Tr("sequence length"), cache.by_seq, cap, s.config.seq, s.units, chart_size);
  if (pairs) {
    ImGui::SameLine();
  } else {
    title(by_batch, false);
  }
  StackedAreaChart("by_batch", Tr("batch"), cache.by_batch, cap, s.config.batch, s.units, chart_size);
  if (training) {
    ImGui::Spacing();
    char zero_title[160];
    if (cache.zero_dp == s.config.dp) {
      std::snprintf(zero_title, sizeof zero_title, Tr("ZeRO stages at dp = %lld"),
                    static_cast<long long>(cache.zero_dp));
    } else {
      std::snprintf(zero_title, sizeof zero_title, Tr("ZeRO stages at dp = %lld (the current dp = 1 shards nothing)"),
                    static_cast<long long>(cache.zero_dp));
    }
    title(Tr("Activation recomputation"), false);
    if (pairs) title(zero_title, true);
    StackedBarChart("recompute", cache.recompute.labels, cache.recompute.bytes, cap, s.units, chart_size);
    if (pairs) {
      ImGui::SameLine();
    } else {
      title(zero_title, false);
    }
    StackedBarChart("zero", cache.zero.labels, cache.zero.bytes, cap, s.units, chart_size);
  }
  ImGui::Spacing();
  ImGui::TextUnformatted(Tr("Activations of one layer, by term"));
  if (cache.terms.empty()) {
    ImGui::TextDisabled("%s", Tr("No per-layer activations in this mode."));
  } else {
    TermBars("terms", cache.terms, s.units, w);
  }
  ImGui::EndChild();
}

}  // namespace llmmem::app
