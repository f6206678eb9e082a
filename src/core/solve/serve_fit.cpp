#include "core/solve/serve_fit.h"

#include <algorithm>
#include <cmath>

#include "core/estimate/estimate.h"
#include "core/catalogue/gpus.h"
#include "core/config/fields.h"
#include "core/estimate/serving.h"
#include "core/config/validate.h"
#include "core/solve/largest_fitting.h"

namespace llmmem::core {
namespace {

bool Fits(const Config& c) { return EstimateTotals(c).Fits(); }

}  // namespace

Config WithGpuCount(const Config& c, int64_t count) {
  Config x = c;
  if (IsGgml(c.runtime) || c.runtime == Runtime::kHfGenerate) {
    x.tp = 1;
    x.pp = count;
  } else {
    x.tp = count;
    x.pp = 1;
  }
  return x;
}

ServeFit FitServing(const Config& c, int gpu_set_limit) {
  ServeFit r;
  Config base = c;
  base.mode = Mode::kInference;
  if (!EstimateTotals(base).ok) return r;
  r.ok = true;
  r.ggml = IsGgml(c.runtime);
  r.model_context = ModelContext(c.model);

  Config x = base;
  const int64_t step = SeqMultiple(base);  // sequences the layout splits evenly
  r.max_context = step * LargestFitting(static_cast<int64_t>(FindField("seq")->max) / step, [&](int64_t v) {
                    x.seq = v * step;
                    return Fits(x);
                  });
  x = base;
  r.max_concurrency = LargestFitting(static_cast<int64_t>(FindField("batch")->max), [&](int64_t v) {
    x.batch = v;
    return Fits(x);
  });

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

  // The most precise formats the runtime runs, weights first, then the KV cache.
  std::vector<Dtype> weights, kv;
  if (r.ggml) {
    weights = {Dtype::kFp16,   Dtype::kQ8_0,   Dtype::kQ6_K_File, Dtype::kQ5_K_M,
               Dtype::kQ4_K_M, Dtype::kQ3_K_M, Dtype::kQ2_K_File, Dtype::kIQ2_XXS};
    kv = {Dtype::kFp16, Dtype::kQ8_0, Dtype::kQ4_0};
  } else if (IsPagedServer(c.runtime)) {
    weights = {Dtype::kBf16, Dtype::kFp8, Dtype::kInt8, Dtype::kAwq, Dtype::kGptq};
    kv = {Dtype::kBf16, Dtype::kFp8};
  } else {
    weights = {Dtype::kBf16, Dtype::kFp8, Dtype::kInt8, Dtype::kAwq, Dtype::kNf4};
    kv = {Dtype::kBf16, Dtype::kFp8, Dtype::kInt4};
  }
  x = base;
  for (Dtype w : weights) {
    for (Dtype k : kv) {
      x.dtype = w;
      x.kv_dtype = k;
      x.kv_dtype_v = Dtype::kCount;
      // llama.cpp quantises V only with flash attention: keep V in f16 otherwise.
      if (r.ggml && !x.flash_attn && k != Dtype::kFp16) x.kv_dtype_v = Dtype::kFp16;
      if (!r.formats_found && Fits(x)) {
        r.formats_found = true;
        r.dtype = w;
        r.kv_dtype = k;
      }
    }
    if (r.formats_found) break;
  }

  // GPU sets: each card of the catalogue, 1, 2, 4 or 8 of them.
  for (const Gpu& g : Gpus()) {
    if (g.memory_bytes <= 0) continue;  // a package software never sees as one device
    for (int64_t n : {1, 2, 4, 8}) {
      Config y = WithGpuCount(base, n);
      y.gpu = g.key;
      y.gpu_memory_gb = g.UsableBytes() / 1e9;
      const Totals t = EstimateTotals(y);
      if (!t.Fits()) continue;
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
  std::stable_sort(r.gpu_sets.begin(), r.gpu_sets.end(),
                   [](const GpuSetFit& a, const GpuSetFit& b) { return a.memory_bytes < b.memory_bytes; });
  if (static_cast<int>(r.gpu_sets.size()) > gpu_set_limit) r.gpu_sets.resize(static_cast<size_t>(gpu_set_limit));
  return r;
}

}  // namespace llmmem::core
