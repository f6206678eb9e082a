// The two receivers of the accounting in account.h.
// A leaf is one tensor family: its bytes live at each Moment, its category, and a
// callable that produces its formula text and source only when someone asks.
//  - TotalsSink adds numbers and ignores the text (the fast path).
//  - TreeSink builds the BreakdownNode tree with the text.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/base/units.h"  // WholeBytes
#include "core/estimate/estimate.h"

namespace llmmem::core {

// Bytes live at each moment, and where they live.
struct Live {
  double forward_end = 0;
  double optimizer_step = 0;
  double generation = 0;
  double layer_backward = 0;
  Device device = Device::kGpu;

  static Live Both(double b) { return {b, b, b, b}; }         // persistent: every moment
  static Live ForwardOnly(double b) { return {b, 0, 0, b}; }  // activations, kept into the layers' backward
  static Live LossOnly(double b) { return {b, 0, 0, 0}; }  // the output side: freed by the loss's and head's backward
  static Live LayerBackwardOnly(double b) { return {0, 0, 0, b}; }  // a recomputed layer
  static Live StepOnly(double b) { return {0, b, 0, 0}; }           // optimizer-step temporaries
  static Live GenerationOnly(double b) { return {0, 0, b, 0}; }     // rollout KV cache
  Live On(Device d) const {
    Live l = *this;
    l.device = d;
    return l;
  }
  double At(int m) const {
    return m == 0 ? forward_end : m == 1 ? optimizer_step : m == 2 ? generation : layer_backward;
  }
  // Most leaves hold the same bytes at several moments (Both): each value rounded once.
  // (+0 and -0 compare equal, and either adds nothing to sums that start at +0.)
  Live Whole() const {
    const double f = WholeBytes(forward_end);
    const double o = optimizer_step == forward_end ? f : WholeBytes(optimizer_step);
    const double g = generation == optimizer_step ? o : generation == forward_end ? f : WholeBytes(generation);
    const double l = layer_backward == forward_end      ? f
                     : layer_backward == optimizer_step ? o
                                                        : WholeBytes(layer_backward);
    return {f, o, g, l, device};
  }
};

struct Explanation {
  std::string formula;
  const char* source = "";
  double per_layer_bytes = 0;
};

class TotalsSink {
 public:
  void Begin(const char*, const char*) {}
  void End() {}
  template <class ExplainFn>
  void Note(ExplainFn&&) {}
  template <class ExplainFn>
  void Leaf(const char*, const char*, Category cat, Live live, ExplainFn&&) {
    Add(cat, live.Whole());
  }
  double Moment(int m) const { return moment_[m]; }
  double CategoryAt(int cat, int m) const { return category_[cat][m]; }
  double Offloaded(Device d, int m) const { return offloaded_[d == Device::kNvme ? 1 : 0][m]; }

  void Add(Category cat, Live live) {
    for (int m = 0; m < kMomentCount; ++m) {
      const double b = live.At(m);
      if (live.device == Device::kGpu) {
        moment_[m] += b;
        category_[static_cast<int>(cat)][m] += b;
      } else {
        offloaded_[live.device == Device::kNvme ? 1 : 0][m] += b;
      }
    }
  }

 private:
  double moment_[kMomentCount] = {};
  double category_[kCategoryCount][kMomentCount] = {};
  double offloaded_[2][kMomentCount] = {};
};

class TreeSink {
 public:
  explicit TreeSink(BreakdownNode& root) { stack_.push_back(&root); }

  void Begin(const char* id, const char* name) {
    BreakdownNode& parent = *stack_.back();
    parent.children.emplace_back();
    BreakdownNode& node = parent.children.back();
    node.id = parent.id.empty() ? id : parent.id + "." + id;
    node.name = name;
    stack_.push_back(&node);
  }
  void End() {
    BreakdownNode* done = stack_.back();
    stack_.pop_back();
    BreakdownNode& parent = *stack_.back();
    // A group whose tensors all live off the GPU (e.g. offloaded optimizer states) shows
    // their bytes on that device and adds nothing to the GPU total above it.
    bool all_off = !done->children.empty();
    for (const BreakdownNode& c : done->children)
      all_off &= c.device != Device::kGpu && c.device == done->children[0].device;
    if (all_off) {
      done->device = done->children[0].device;
      for (int m = 0; m < kMomentCount; ++m) {
        done->moment_bytes[m] = 0;
        for (const BreakdownNode& c : done->children) done->moment_bytes[m] += c.moment_bytes[m];
      }
      return;
    }
    for (int m = 0; m < kMomentCount; ++m) parent.moment_bytes[m] += done->moment_bytes[m];
    if (done->children.size() == 1 && done->children[0].children.empty()) {
      // A group of one leaf: show the leaf's category on the group as well.
      done->category = done->children[0].category;
    }
  }
  // Formula and source of the group now open.
  template <class ExplainFn>
  void Note(ExplainFn&& explain) {
    Explanation e = explain();
    stack_.back()->formula = std::move(e.formula);
    stack_.back()->source = e.source;
  }
  template <class ExplainFn>
  void Leaf(const char* id, const char* name, Category cat, Live live_bytes, ExplainFn&& explain) {
    const Live live = live_bytes.Whole();
    totals_.Add(cat, live);  // the same additions in the same order as the fast path
    BreakdownNode& parent = *stack_.back();
    parent.children.emplace_back();
    BreakdownNode& node = parent.children.back();
    node.id = parent.id.empty() ? id : parent.id + "." + id;
    node.name = name;
    node.category = cat;
    node.device = live.device;
    // Offloaded leaves keep their bytes but do not add to the GPU totals of their groups.
    for (int m = 0; m < kMomentCount; ++m) {
      node.moment_bytes[m] = live.At(m);
      if (live.device == Device::kGpu) parent.moment_bytes[m] += live.At(m);
    }
    Explanation e = explain();
    node.formula = std::move(e.formula);
    node.source = e.source;
    node.per_layer_bytes = WholeBytes(e.per_layer_bytes);
  }
  double Moment(int m) const { return totals_.Moment(m); }
  const TotalsSink& Totals() const { return totals_; }

 private:
  std::vector<BreakdownNode*> stack_;
  TotalsSink totals_;
};

}  // namespace llmmem::core
