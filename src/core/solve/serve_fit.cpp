#include "core/solve/serve_fit.h"

#include <algorithm>
#include <cmath>

#include "core/estimate/estimate.h"
#include "core/catalogue/gpus.h"
#include "core/config/fields.h"
#include "core/estimate/serving.h"
#include "core/config/validate.h"
#include "core/solve/fit.h"
#include "core/solve/largest_fitting.h"
#include "core/base/stable_order.h"

namespace llmmem::core {
namespace {

// The one headroom policy of every fit answer (fit.h AnswerBudget).
bool Fits(const Config& c) { return FitsBudget(EstimateTotals(c), AnswerBudget(c)); }

}  // namespace

ServeFit FitServing(const Config& c, int gpu_set_limit) {
  ServeFit r;
  Config base = c;
  base.mode = Mode::kInference;
  if (!EstimateTotals(base).ok) return r;
  r.ok = true;
  r.ggml = IsGgml(c.runtime);
  r.model_context = ModelContext(c.model);

  // The same solvers as the Fit tab's and the CLI's fit (fit.h), under the same budget: one
  // answer to "the longest sequence" and "the most sequences".
  const double budget = AnswerBudget(base);
  r.max_context = MaxSequenceInContext(base, budget);
  r.max_concurrency = MaxMicroBatch(base, budget);
  Config x = base;

  if (r.ggml) {
    // The output layer adds the logits' compute phase, so fitting is not monotone at the top:
    // scan down from every layer and the output.
    x = base;
    for (int64_t n = c.model.layers + 1; n >= 0; --n) {
      x.gpu_layers = n;
      if (Fits(x)) {
        r.max_gpu_layers = n;
        r.ram_bytes_at_max_layers = Serve(x).ram_bytes;
        break;
      }
    }
  }

  // The most precise formats the runtime runs (fit.h InferenceFormatLadder).
  const FitFormats formats = CheapestInferenceFormats(base, budget);
  r.formats_found = formats.found;
  r.dtype = formats.dtype;
  r.kv_dtype = formats.kv_dtype;

  // GPU sets: each card of the catalogue, 1, 2, 4 or 8 of them.
  for (const Gpu& g : Gpus()) {
    if (g.memory_bytes <= 0) continue;  // a package software never sees as one device
    for (int64_t n : {1, 2, 4, 8}) {
      Config y = WithGpuCount(base, n);
      SelectGpu(y, g);
      const Totals t = EstimateTotals(y);
      if (!FitsBudget(t, AnswerBudget(y))) continue;
      GpuSetFit f;
      f.gpu = g.key;
      f.count = n;
      f.memory_bytes = static_cast<double>(n) * g.UsableBytes();
      f.peak_bytes = t.peak_bytes;
      if (IsPagedServer(c.runtime)) f.max_concurrency = Serve(y).max_concurrency;
      r.gpu_sets.push_back(f);
      break;  // the fewest of this card
    }
  }
  StableSort(r.gpu_sets, [](const GpuSetFit& a, const GpuSetFit& b) { return a.memory_bytes < b.memory_bytes; });
  if (static_cast<int>(r.gpu_sets.size()) > gpu_set_limit) r.gpu_sets.resize(static_cast<size_t>(gpu_set_limit));
  return r;
}

}  // namespace llmmem::core
