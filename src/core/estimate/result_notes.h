// Notes on a computed estimate that explain a figure a user would not expect (and which values
// the training program set, stacks.h AddStackNotes), added to
// Estimate::diagnostics by Explain: a higher ZeRO stage that needs more memory than a lower
// one says by how much and why (with nothing to shard across, only its gather, prefetch and
// bucket buffers remain). Standard library only.
#pragma once

#include "core/config/config.h"
#include "core/base/diagnostics.h"
#include "core/estimate/estimate.h"

namespace llmmem::core {

// `t`: EstimateTotals(c) (or Explain's totals) for a valid c.
void AddResultNotes(const Config& c, const Totals& t, Diagnostics& out);

}  // namespace llmmem::core
