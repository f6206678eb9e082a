// EstimateTotals and Explain: one accounting (account.h), two sinks.
#include "core/estimate/estimate.h"

#include <cmath>

#include "core/estimate/account.h"
#include "core/estimate/estimate_stages.h"
#include "core/estimate/result_notes.h"
#include "core/estimate/serving.h"
#include "core/base/sources.h"
#include "core/base/units.h"
#include "core/config/validate.h"
#include "core/estimate/verdict.h"

namespace llmmem::core {

const char* MomentName(Moment m) {
  switch (m) {
    case Moment::kForwardEnd:
      return "end of forward (activations saved, backward about to start)";
    case Moment::kOptimizerStep:
      return "optimizer step (activations freed, step temporaries allocated)";
    case Moment::kGeneration:
      return "rollout (generation engine's KV cache allocated, no training activations)";
    case Moment::kLayerBackward:
      return "backward of the last layer (the loss's tensors freed, the head's gradient made; with full recompute, "
             "one layer re-created)";
  }
  return "?";
}

const char* MomentId(Moment m) {
  switch (m) {
    case Moment::kForwardEnd:
      return "forward_end";
    case Moment::kOptimizerStep:
      return "optimizer_step";
    case Moment::kGeneration:
      return "generation";
    case Moment::kLayerBackward:
      return "layer_backward";
  }
  return "?";
}

const char* DeviceId(Device d) { return d == Device::kCpu ? "cpu" : d == Device::kNvme ? "nvme" : "gpu"; }
const char* DeviceName(Device d) { return d == Device::kCpu ? "CPU" : d == Device::kNvme ? "NVMe" : "GPU"; }

const char* CategoryId(Category c) {
  switch (c) {
    case Category::kWeights:
      return "weights";
    case Category::kGradients:
      return "gradients";
    case Category::kMasterWeights:
      return "master_weights";
    case Category::kOptimizerStates:
      return "optimizer_states";
    case Category::kActivations:
      return "activations";
    case Category::kKvCache:
      return "kv_cache";
    case Category::kBuffers:
      return "buffers";
    case Category::kOverheads:
      return "overheads";
    case Category::kCount:
      break;
  }
  return "?";
}

const char* CategoryName(Category c) {
  switch (c) {
    case Category::kWeights:
      return "Weights";
    case Category::kGradients:
      return "Gradients";
    case Category::kMasterWeights:
      return "Master weights";
    case Category::kOptimizerStates:
      return "Optimizer states";
    case Category::kActivations:
      return "Activations";
    case Category::kKvCache:
      return "KV cache";
    case Category::kBuffers:
      return "Buffers and workspaces";
    case Category::kOverheads:
      return "Overheads";
    case Category::kCount:
      break;
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

// The figures at the peak: the node's own, and what it and its children hold off the GPU.
void SetPeakBytes(BreakdownNode& node, int peak) {
  node.bytes = node.moment_bytes[peak];
  if (node.children.empty()) {
    node.cpu_bytes = node.device == Device::kCpu ? node.bytes : 0;
    node.nvme_bytes = node.device == Device::kNvme ? node.bytes : 0;
    return;
  }
  node.cpu_bytes = node.nvme_bytes = 0;
  for (BreakdownNode& child : node.children) {
    SetPeakBytes(child, peak);
    node.cpu_bytes += child.cpu_bytes;
    node.nvme_bytes += child.nvme_bytes;
  }
}

// Drops empty groups (e.g. "outputs" of an encoder without dropout).
void Prune(BreakdownNode& node) {
  for (BreakdownNode& child : node.children) Prune(child);
  std::vector<BreakdownNode> kept;
  for (BreakdownNode& child : node.children) {
    bool empty_group = child.children.empty() && child.formula.empty();
    for (int m = 0; m < kMomentCount; ++m) empty_group &= child.moment_bytes[m] == 0;
    if (!empty_group) kept.push_back(std::move(child));
  }
  node.children = std::move(kept);
}

// Which stage the figures are for, and why, in words.
Phrase PipelineNote(const Config& c, const EndStages& ends) {
  const Derived first(c, 0);
  const std::string layers = FormatNumber(first.stage_layers, 0);
  const Phrase first_holds =
      first.training ? Say("the embeddings, %s layers and %s micro-batch(es) in flight", {layers, FormatNumber(first.in_flight)})
                     : Say("the embeddings and %s layers", {layers});
  const Phrase last_holds = Say("the output head and logits");
  const bool is_first = ends.MoreLoaded().pipeline_stage == 0;
  const std::string stage = std::to_string(ends.MoreLoaded().pipeline_stage + 1);
  const std::string stages = std::to_string(c.pp);
  const std::string here = FormatBytesBoth(ends.MoreLoaded().peak_bytes);
  const std::string other = FormatBytesBoth((is_first ? ends.last : ends.first).peak_bytes);
  const Phrase end = c.pp > 2 ? Say("; the stages between hold no more than the first.") : Say(".");
  return is_first ? Say("Pipeline: the figures are for stage %s of %s, the first, holding %s: %s, at least the last "
                        "stage's %s (%s)%s",
                        {stage, stages, first_holds, here, other, last_holds, end})
                  : Say("Pipeline: the figures are for stage %s of %s, the last, holding %s: %s, at least the first "
                        "stage's %s (%s)%s",
                        {stage, stages, last_holds, here, other, first_holds, end});
}

}  // namespace

Estimate Explain(const Config& c) {
  Estimate e;
  e.diagnostics = Validate(c);
  if (HasErrors(e.diagnostics)) return e;
  const EndStages ends = EstimateEndStages(c);
  const int stage = ends.MoreLoaded().pipeline_stage;
  e.first_stage_peak_bytes = ends.first.peak_bytes;
  e.last_stage_peak_bytes = ends.last.peak_bytes;
  const Derived d(c, stage);
  e.params = d.counts;
  e.tree.id = "total";
  e.tree.name = "Total per GPU";
  TreeSink sink(e.tree);
  Account(d, sink);
  Prune(e.tree);

  FillTotals(d, sink.Totals(), e.totals);
  SetPeakBytes(e.tree, static_cast<int>(e.totals.peak_moment));
  AddResultNotes(c, EstimateTotals(c), e.diagnostics);  // the whole config's totals, all stages
  if (e.totals.host_short)  // the verdict's RAM check, as a warning beside the others (verdict.h)
    e.diagnostics.push_back({DiagId::kHostShort, Severity::kWarning, "ram_gb", HostShortNote(c, e.totals)});

  e.tree.formula = d.training
                       ? "peak of the moments: end of forward " + FormatBytesBoth(e.totals.moment_bytes[0]) +
                             ", a layer's backward " + FormatBytesBoth(e.totals.moment_bytes[3]) + ", optimizer step " +
                             FormatBytesBoth(e.totals.moment_bytes[1]) +
                             (d.c.mode == Mode::kRlhf ? ", rollout " + FormatBytesBoth(e.totals.moment_bytes[2]) : "")
                       : "weights, KV cache and workspace coexist during decoding";
  e.tree.source = "the total is a peak: only tensors alive at the same moment are added";
  std::vector<Phrase>& note = e.peak_phrases;
  if (UsesServingRuntime(c))
    note.push_back(ServingPeakNote(c, d));
  else if (d.training)
    note.push_back(Say("Peak at the %s.", {Say(MomentName(e.totals.peak_moment))}));
  else
    note.push_back(Say("Inference: weights, KV cache, the prefill workspace and overheads are alive together."));
  if (d.pp > 1) note.push_back(PipelineNote(c, ends));
  if (e.totals.peak_moment == Moment::kLayerBackward && detail::Fsdp1HoldsRecomputedInputs(d)) {
    note.push_back(
        Say("With FSDP1 its reshard hooks also hold each recomputed layer's input gradient until the backward "
            "ends: they are counted at their most, in the first layer's backward, the last to run."));
  }
  if (e.totals.loss_cached_bytes > 0) {
    e.peak_detail_phrases.push_back(Say("max_memory_reserved also holds %s at the loss: the freed 16-bit logits' block stays cached "
                       "while the loss's backward takes a new segment for an fp32 gradient; not counted towards the "
                       "fit, since the allocator frees cached blocks before it fails [%s].",
                       {FormatBytesBoth(e.totals.loss_cached_bytes), src::kCachingAllocator}));
  }
  if (e.totals.cpu_bytes > 0)
    note.push_back(Say("Offloaded to CPU RAM: %s per GPU.", {FormatBytesBoth(e.totals.cpu_bytes)}));
  if (e.totals.nvme_bytes > 0)
    note.push_back(Say("Offloaded to NVMe: %s per GPU.", {FormatBytesBoth(e.totals.nvme_bytes)}));
  std::vector<Phrase> whole = note;
  whole.insert(whole.end(), e.peak_detail_phrases.begin(), e.peak_detail_phrases.end());
  e.peak_note = Render(whole, " ");
  e.quick_rule_formula = FormatNumber(d.P / 1e9, 3) + "B x (" + FormatNumber(BitsPerWeight(c.dtype, c.quant), 3) +
                         "/8) x 1.2 = " + FormatBytesBoth(e.totals.quick_rule_bytes) + "  [" + src::kQuickRule + "]";
  return e;
}

}  // namespace llmmem::core
