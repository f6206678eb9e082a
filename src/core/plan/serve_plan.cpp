// The serving planner's search (serve_plan.h).
#include "core/plan/serve_plan.h"

#include <algorithm>

#include "core/config/fields.h"
#include "core/config/runtime.h"
#include "core/estimate/estimate.h"
#include "core/report/launch_export.h"
#include "core/solve/fit.h"
#include "core/solve/largest_fitting.h"
#include "core/solve/serve_fit.h"
#include "core/base/stable_order.h"

namespace llmmem::core {
ServePlan PlanServing(const ServePlanRequest& r) {
  ServePlan out;
  if (r.base.mode != Mode::kInference) {
    out.error = "the serving planner plans inference (mode infer)";
    return out;
  }
  if (r.gpus < 1 || r.gpus > 1024) {
    out.error = "the GPU count must be between 1 and 1024";
    return out;
  }
  const bool ggml = IsGgml(r.base.runtime);
  const bool preallocates = IsPagedServer(r.base.runtime);
  for (int64_t g = 1; g <= r.gpus; ++g) {
    // Tensor parallelism splits the heads: vLLM and SGLang refuse a tp that does not divide
    // the attention heads (and the KV heads) of the model.
    if (!ggml && (r.base.model.heads % g != 0 || r.base.model.kv_heads % g != 0)) continue;
    if (!ggml && (g & (g - 1)) != 0) continue;  // NCCL tensor-parallel groups of 1, 2, 4, 8, ...
    // The KV formats the runtime offers: the one ladder (fit.h InferenceFormatLadder).
    for (const Dtype kv : InferenceFormatLadder(r.base).kv) {
      Config c = WithGpuCount(r.base, g);
      c.kv_dtype = kv;
      c.kv_dtype_v = Dtype::kCount;
      // llama.cpp: every layer on the GPUs first, then fewer (the output layer changes the
      // compute buffer, so each count is tried: serve_fit.cpp scans likewise).
      std::vector<int64_t> layer_counts{-1};
      if (ggml)
        for (int64_t n = c.model.layers; n >= 0; --n) layer_counts.push_back(n);
      for (const int64_t layers : layer_counts) {
        ++out.considered;
        c.gpu_layers = layers;
        out.budget_bytes = AnswerBudget(c);  // the one headroom policy (fit.h)
        auto fits = [&](Config& x) {
          ++out.evaluated;
          const Totals t = EstimateTotals(x);
          // The one headroom policy (fit.h AnswerBudget): vLLM and SGLang fill the share they
          // are given (gpu_memory_utilization, mem_fraction_static); elsewhere 2% stays free.
          return t.Judge() == Verdict::kFits && FitsBudget(t, AnswerBudget(x));
        };
        Config x = c;
        int64_t found = 0;
        if (r.goal == ServeGoal::kConcurrency) {
          found = LargestFitting(static_cast<int64_t>(FindField("batch")->max), [&](int64_t v) {
            x.batch = v;
            return fits(x);
          });
          x.batch = std::max<int64_t>(found, 1);
        } else {
          const int64_t cap = ModelContext(c.model) > 0 ? ModelContext(c.model) : static_cast<int64_t>(FindField("seq")->max);
          found = LargestFitting(cap, [&](int64_t v) {
            x.seq = v;
            return fits(x);
          });
          x.seq = std::max<int64_t>(found, 1);
        }
        if (found <= 0) continue;
        // vLLM/SGLang admit max_num_seqs at once: the plan's concurrency, when it still fits
        // (the CUDA graphs they capture follow it).
        if (preallocates && r.goal == ServeGoal::kConcurrency) {
          x.max_num_seqs = x.batch;
          if (!fits(x)) x.max_num_seqs = c.max_num_seqs;
        }
        ServeOption o;
        o.gpus = g;
        o.kv_dtype = kv;
        o.gpu_layers = layers;
        o.context = x.seq;
        o.concurrency = x.batch;
        o.peak_bytes = EstimateTotals(x).peak_bytes;
        o.config = x;
        LaunchTarget target;
        if (ServingLaunchTarget(r.base.runtime, target)) o.launch = ExportLaunch(x, target);
        out.options.push_back(std::move(o));
        if (ggml) break;  // the most layers that fit is this format's answer
      }
    }
  }
  auto goal = [&](const ServeOption& o) { return r.goal == ServeGoal::kConcurrency ? o.concurrency : o.context; };
  StableSort(out.options, [&](const ServeOption& a, const ServeOption& b) {
    if (goal(a) != goal(b)) return goal(a) > goal(b);
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    return a.gpu_layers == -1 && b.gpu_layers != -1;
  });
  if (out.options.size() > static_cast<size_t>(std::max(0, r.top))) out.options.resize(static_cast<size_t>(r.top));
  out.ok = true;
  return out;
}

}  // namespace llmmem::core
