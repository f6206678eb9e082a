// EstimateTotals and Explain: one accounting (account.h), two sinks.
#include "core/estimate.h"

#include "core/account.h"
#include "core/sources.h"
#include "core/units.h"
#include "core/validate.h"

namespace llmmem::core {

const char* MomentName(Moment m) {
  return m == Moment::kForwardEnd ? "end of forward (activations saved, backward about to start)"
                                  : "optimizer step (activations freed, step temporaries allocated)";
}

const char* CategoryId(Category c) {
  switch (c) {
    case Category::kWeights: return "weights";
    case Category::kGradients: return "gradients";
    case Category::kMasterWeights: return "master_weights";
    case Category::kOptimizerStates: return "optimizer_states";
    case Category::kActivations: return "activations";
    case Category::kKvCache: return "kv_cache";
    case Category::kOverheads: return "overheads";
    case Category::kCount: break;
  }
  return "?";
}

const char* CategoryName(Category c) {
  switch (c) {
    case Category::kWeights: return "Weights";
    case Category::kGradients: return "Gradients";
    case Category::kMasterWeights: return "Master weights";
    case Category::kOptimizerStates: return "Optimizer states";
    case Category::kActivations: return "Activations";
    case Category::kKvCache: return "KV cache";
    case Category::kOverheads: return "Overheads";
    case Category::kCount: break;
  }
  return "?";
}

const BreakdownNode* BreakdownNode::Find(const std::string& dotted_id) const {
  if (id == dotted_id) return this;
  for (const BreakdownNode& child : children) {
    if (const BreakdownNode* hit = child.Find(dotted_id)) return hit;
  }
  return nullptr;
}

namespace {

// Seed 002's quick rule: P (parameters) x Q/8 (bytes per parameter) x 1.2.
double QuickRuleBytes(const Derived& d) { return d.P * BitsPerWeight(d.c.dtype, d.c.quant) / 8.0 * 1.2; }

void FillCommon(const Derived& d, Totals& t) {
  t.ok = true;
  t.capacity_bytes = d.c.gpu_memory_gb * kGB;
  t.params = static_cast<int64_t>(d.P);
  t.trainable_params = static_cast<int64_t>(d.T);
  t.quick_rule_bytes = QuickRuleBytes(d);
}

void FillTotals(const Derived& d, const TotalsSink& sink, Totals& t) {
  FillCommon(d, t);
  t.moment_bytes[0] = sink.Moment(0);
  t.moment_bytes[1] = sink.Moment(1);
  t.peak_moment = t.moment_bytes[1] > t.moment_bytes[0] ? Moment::kOptimizerStep : Moment::kForwardEnd;
  const int peak = static_cast<int>(t.peak_moment);
  t.peak_bytes = t.moment_bytes[peak];
  for (int i = 0; i < kCategoryCount; ++i) t.category_bytes[i] = sink.CategoryAt(i, peak);
}

void SetPeakBytes(BreakdownNode& node, int peak) {
  node.bytes = node.moment_bytes[peak];
  for (BreakdownNode& child : node.children) SetPeakBytes(child, peak);
}

// Drops empty groups (e.g. "outputs" of an encoder without dropout).
void Prune(BreakdownNode& node) {
  for (BreakdownNode& child : node.children) Prune(child);
  std::vector<BreakdownNode> kept;
  for (BreakdownNode& child : node.children) {
    const bool empty_group = child.children.empty() && child.formula.empty() && child.moment_bytes[0] == 0 &&
                             child.moment_bytes[1] == 0;
    if (!empty_group) kept.push_back(std::move(child));
  }
  node.children = std::move(kept);
}

}  // namespace

Totals EstimateTotals(const Config& c) {
  Totals t;
  if (!IsValid(c)) return t;
  const Derived d(c);
  TotalsSink sink;
  Account(d, sink);
  FillTotals(d, sink, t);
  return t;
}

Estimate Explain(const Config& c) {
  Estimate e;
  e.diagnostics = Validate(c);
  if (HasErrors(e.diagnostics)) return e;
  const Derived d(c);
  e.params = d.counts;
  e.tree.id = "total";
  e.tree.name = "Total per GPU";
  TreeSink sink(e.tree);
  Account(d, sink);
  Prune(e.tree);

  FillTotals(d, sink.Totals(), e.totals);
  SetPeakBytes(e.tree, static_cast<int>(e.totals.peak_moment));

  e.tree.formula = d.training ? "peak of the two moments: end of forward " + FormatBytesBoth(e.totals.moment_bytes[0]) +
                                    ", optimizer step " + FormatBytesBoth(e.totals.moment_bytes[1])
                              : "weights, KV cache and workspace coexist during decoding";
  e.tree.source = "the total is a peak: only tensors alive at the same moment are added";
  e.peak_note = d.training ? std::string("Peak at the ") + MomentName(e.totals.peak_moment) + "."
                           : "Inference: weights, KV cache, the prefill workspace and overheads are alive together.";
  e.quick_rule_formula = FormatNumber(d.P / 1e9, 3) + "B x (" + FormatNumber(BitsPerWeight(c.dtype, c.quant), 3) +
                         "/8) x 1.2 = " + FormatBytesBoth(e.totals.quick_rule_bytes) + "  [" + src::kQuickRule + "]";
  return e;
}

}  // namespace llmmem::core
