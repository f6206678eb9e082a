// The numeric path both entry points share (estimate_totals.cpp): the totals of one
// pipeline stage and of the two end stages. Explain (estimate.cpp) uses it for the figures
// beside its tree. Kept in its own file so the web build can compile it for speed (-O2)
// and the rest of the estimate, mostly text, for size.
#pragma once

#include "core/estimate/derived.h"
#include "core/estimate/estimate.h"
#include "core/estimate/sinks.h"

namespace llmmem::core {

// The totals from a finished sink: moments, peak, categories, offloaded bytes.
void FillTotals(const Derived& d, const TotalsSink& sink, Totals& t);

// The most loaded GPU is on the first stage (most layers, embeddings, most micro-batches
// in flight) or the last (output head and logits): both are estimated, the larger is kept
// (the first on a tie). The stages between hold no more than the first.
struct EndStages {
  Totals first, last;
  // By share of each GPU's own capacity (equal GPUs: the larger peak), the first on a tie.
  const Totals& MoreLoaded() const {
    return last.peak_bytes * first.capacity_bytes > first.peak_bytes * last.capacity_bytes ? last : first;
  }
};

EndStages EstimateEndStages(const Config& c);

}  // namespace llmmem::core
