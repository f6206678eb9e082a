#include "core/solve/fit.h"

#include <cmath>

#include "core/estimate/estimate.h"
#include "core/config/fields.h"
#include "core/config/gpu_count.h"
#include "core/config/stacks.h"
#include "core/base/units.h"
#include "core/config/validate.h"
#include "core/solve/largest_fitting.h"

namespace llmmem::core {

double AnswerHeadroom(const Config& c) {
  return UsesServingRuntime(c) && IsPagedServer(c.runtime) ? 0.0 : kFitHeadroom;
}

double AnswerBudget(const Config& c) { return CapacityBytes(c) * (1.0 - AnswerHeadroom(c)); }

bool FitsBudget(const Totals& t, double budget) { return t.ok && !t.host_short && t.peak_bytes <= budget; }

namespace {

double PeakWithDp(Config c, int64_t dp) {
  c.dp = dp;
  if (c.zero_group > 0) c.zero_group = 0;  // shard over all replicas when solving for dp
  const Totals t = EstimateTotals(c);
  return t.ok ? t.peak_bytes : INFINITY;
}

}  // namespace

FitGpus MinDataParallel(const Config& c, double capacity) {
  FitGpus r;
  const double m2 = PeakWithDp(c, 2), m4 = PeakWithDp(c, 4);
  if (!std::isfinite(m2) || !std::isfinite(m4)) return r;
  r.sharded_bytes = 4 * (m2 - m4);
  r.unsharded_bytes = m2 - r.sharded_bytes / 2;
  const int64_t other = GpusPerReplica(c);
  if (PeakWithDp(c, 1) <= capacity) {
    r.possible = true;
    r.threshold = capacity > r.unsharded_bytes ? r.sharded_bytes / (capacity - r.unsharded_bytes) : 1;
    r.min_dp = 1;
    r.min_gpus = other;
    return r;
  }
  if (capacity <= r.unsharded_bytes) return r;
  r.threshold = r.sharded_bytes / (capacity - r.unsharded_bytes);
  int64_t k = static_cast<int64_t>(std::ceil(r.threshold));
  if (k < 2) k = 2;
  // Guard against rounding at the boundary: confirm with direct estimates.
  while (k > 2 && PeakWithDp(c, k - 1) <= capacity) --k;
  for (int guard = 0; guard < 64 && PeakWithDp(c, k) > capacity; ++guard) ++k;
  if (PeakWithDp(c, k) > capacity) return r;
  r.possible = true;
  r.min_dp = k;
  r.min_gpus = k * other;
  return r;
}

Config AtZeroStage(const Config& c, int stage) {
  Config k = c;
  k.zero = stage;
  if (stage < 3) k.offload_params = Offload::kNone;
  k.zero_group = 0;
  FollowChanged(k, c);  // the program's defaults under this stage (stacks.h)
  return k;
}

std::vector<ZeroStageFit> FewestGpusPerZeroStage(const Config& c, double capacity) {
  std::vector<ZeroStageFit> rows;
  for (int z = 0; z < kZeroStages; ++z) {
    ZeroStageFit r;
    r.stage = z;
    r.config = AtZeroStage(c, z);
    r.offload_params_dropped = c.offload_params != Offload::kNone && z < 3;
    for (const Diagnostic& d : Validate(r.config)) {
      if (d.severity != Severity::kError) continue;
      r.error = (d.field.empty() ? "" : d.field + ": ") + d.message;
      break;
    }
    if (r.error.empty()) r.fit = MinDataParallel(r.config, capacity);
    if (r.fit.possible) {
      Config k = r.config;
      k.dp = r.fit.min_dp;
      const Totals t = EstimateTotals(k);
      r.peak_at_min_bytes = t.ok ? t.peak_bytes : 0;
    } else if (!r.error.empty()) {
      r.why_not = "this stage's configuration is refused: " + r.error;
    } else if (capacity <= r.fit.unsharded_bytes) {
      // A + B/k never drops below A: what stays whole on every GPU already fills it.
      r.why_not = "what stays whole on every GPU (activations, buffers and every state this stage does not shard: " +
                  FormatBytesBoth(r.fit.unsharded_bytes) + ") is already more than the " + FormatBytesBoth(capacity) +
                  " available; more data-parallel GPUs never help at this stage";
    } else {
      r.why_not = "no data-parallel size fits: the estimate does not come down with more replicas";
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

namespace {

// The largest value of one integer field that still fits, searched up to the field's
// documented maximum (its row in fields.h), everything else as configured.
int64_t LargestFittingValue(const Config& c, double capacity, int64_t Config::*field, const char* limit_name) {
  Config x = c;
  return LargestFitting(static_cast<int64_t>(FindField(limit_name)->max), [&](int64_t v) {
    x.*field = v;
    return FitsBudget(EstimateTotals(x), capacity);
  });
}

}  // namespace

int64_t MaxMicroBatch(const Config& c, double capacity) {
  return LargestFittingValue(c, capacity, &Config::batch, "batch");
}

namespace {

// The longest sequence up to hi that fits, over the multiples the layout runs (SeqMultiple:
// context and sequence parallelism split the sequence evenly).
int64_t LargestFittingSequence(const Config& c, double capacity, int64_t hi) {
  const int64_t step = SeqMultiple(c);
  Config x = c;
  return step * LargestFitting(hi / step, [&](int64_t v) {
           x.seq = v * step;
           return FitsBudget(EstimateTotals(x), capacity);
         });
}

}  // namespace

int64_t MaxSequence(const Config& c, double capacity) {
  return LargestFittingSequence(c, capacity, static_cast<int64_t>(FindField("seq")->max));
}

int64_t MaxSequenceInContext(const Config& c, double capacity) {
  int64_t hi = static_cast<int64_t>(FindField("seq")->max);
  const int64_t context = ModelContext(c.model);
  if (context > 0 && context < hi) hi = context;
  return LargestFittingSequence(c, capacity, hi);
}

FormatLadder InferenceFormatLadder(const Config& c) {
  if (UsesServingRuntime(c) && IsGgml(c.runtime)) {
    // GGUF types llama.cpp loads (ggml.h), and its -ctk cache types (common/arg.cpp).
    return {{Dtype::kFp16, Dtype::kQ8_0, Dtype::kQ6_K_File, Dtype::kQ5_K_M, Dtype::kQ4_K_M, Dtype::kQ3_K_M,
             Dtype::kQ2_K_File, Dtype::kIQ2_XXS},
            {Dtype::kFp16, Dtype::kQ8_0, Dtype::kQ4_0}};
  }
  if (UsesServingRuntime(c) && IsPagedServer(c.runtime)) {
    // The checkpoint formats vLLM and SGLang serve, and --kv-cache-dtype auto | fp8.
    return {{Dtype::kBf16, Dtype::kFp8, Dtype::kInt8, Dtype::kAwq, Dtype::kGptq}, {Dtype::kBf16, Dtype::kFp8}};
  }
  // transformers: torch_dtype, fbgemm/torchao fp8, bitsandbytes int8 and NF4, AutoAWQ; its
  // quantised caches (QuantizedCache: quanto int4).
  return {{Dtype::kBf16, Dtype::kFp8, Dtype::kInt8, Dtype::kAwq, Dtype::kNf4},
          {Dtype::kBf16, Dtype::kFp8, Dtype::kInt4}};
}

FitFormats CheapestInferenceFormats(const Config& c, double capacity) {
  Config x = c;
  x.mode = Mode::kInference;
  x.offload_params = Offload::kNone;  // a training setting; refused in inference
  const bool ggml = UsesServingRuntime(x) && IsGgml(x.runtime);
  const FormatLadder ladder = InferenceFormatLadder(x);
  FitFormats r;
  for (Dtype w : ladder.weights) {
    for (Dtype kv : ladder.kv) {
      x.dtype = w;
      x.kv_dtype = kv;
      x.kv_dtype_v = Dtype::kCount;
      // llama.cpp quantises V only with flash attention: keep V in f16 otherwise.
      if (ggml && !x.flash_attn && kv != Dtype::kFp16) x.kv_dtype_v = Dtype::kFp16;
      const Totals t = EstimateTotals(x);
      if (FitsBudget(t, capacity)) {
        r.found = true;
        r.dtype = w;
        r.kv_dtype = kv;
        r.peak_bytes = t.peak_bytes;
        return r;
      }
    }
  }
  return r;
}

double MaxParamsForMemory(const Config& c, double capacity) {
  Config x = c;
  x.model.params_override = 1'000'000'000;
  const Totals a = EstimateTotals(x);
  x.model.params_override = 2'000'000'000;
  const Totals b = EstimateTotals(x);
  if (!a.ok || !b.ok) return 0;
  const double slope = (b.peak_bytes - a.peak_bytes) / 1e9;
  const double fixed = a.peak_bytes - slope * 1e9;
  return slope > 0 && capacity > fixed ? (capacity - fixed) / slope : 0;
}

FitAnswers AnswerFit(const Config& c) {
  FitAnswers a;
  a.capacity_bytes = CapacityBytes(c);
  a.budget_bytes = AnswerBudget(c);
  a.headroom = AnswerHeadroom(c);
  a.model_context = ModelContext(c.model);
  if (c.mode != Mode::kInference) a.zero = FewestGpusPerZeroStage(c, a.budget_bytes);
  a.max_micro_batch = MaxMicroBatch(c, a.budget_bytes);
  a.max_sequence = MaxSequenceInContext(c, a.budget_bytes);
  a.formats = CheapestInferenceFormats(c, a.budget_bytes);
  a.max_params = MaxParamsForMemory(c, a.budget_bytes);
  return a;
}

}  // namespace llmmem::core
