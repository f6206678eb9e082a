// Speed of the estimate, measured side by side as ratios (never as timed unit tests). The
// same source runs natively (build/native/llmmem_bench) and as WASM under node
// (build/wasm/llmmem_bench.js); bench/run runs both and the page's own build in Chromium
// (bench/browser_bench.mjs) and writes bench/RESULTS.md.
//  - the numeric fast path (EstimateTotals), the same mix the page's llmmem_bench_estimate
//    uses: Llama 3.1 8B training and inference alternating, micro-batch 1..8,
//  - the explained path (Explain) against it,
//  - the UI's fit map: its grid (sequence 128..2^17 and batch 1..256 at 4 samples an octave,
//    panel_fitmap.cpp) for the same configurations,
//  - the training planner's whole search (bench_plan.h): candidates considered and estimated per second.
// usage: llmmem_bench [--quick] [--json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "app/chart_math.h"
#include "bench_plan.h"
#include "core/config/config_json.h"
#include "core/estimate/estimate.h"

namespace {

using Clock = std::chrono::steady_clock;

template <class F>
double SecondsPer(int n, F&& f) {
  const auto start = Clock::now();
  for (int i = 0; i < n; ++i) f(i);
  return std::chrono::duration<double>(Clock::now() - start).count() / n;
}

volatile double g_sink = 0;  // keeps the work from being optimised away

}  // namespace

int main(int argc, char** argv) {
  using namespace llmmem::core;
  bool quick = false, json = false;
  for (int i = 1; i < argc; ++i) {
    quick = quick || std::strcmp(argv[i], "--quick") == 0;
    json = json || std::strcmp(argv[i], "--json") == 0;
  }
  const int n = quick ? 2000 : 100000;
  Config train = DefaultConfig();
  Config infer = train;
  infer.mode = Mode::kInference;
  auto pick = [&](int i) -> Config& {
    Config& c = (i & 1) != 0 ? infer : train;
    c.batch = 1 + i % 8;
    return c;
  };
  // One function for the warm-up and the measurement, called again and again: V8 runs a
  // wasm function in its baseline compiler (Liftoff) until it has been called enough, and a
  // call in progress never switches to the optimised code, so a loop timed in its first
  // call measures Liftoff, not the code the fit map and the solver run.
  auto estimates = [&](int count) {
    return SecondsPer(count, [&](int i) { g_sink = g_sink + EstimateTotals(pick(i)).peak_bytes; });
  };
  for (int w = 0; w < 10; ++w) estimates(n / 20 + 1);  // warm-up
  // The median of five timed runs: a shared machine's other work lands in one or two.
  std::vector<double> runs;
  for (int r = 0; r < 5; ++r) runs.push_back(estimates(n));
  std::sort(runs.begin(), runs.end());
  const double fast = runs[2];
  const double explained =
      SecondsPer(n / 100 + 1, [&](int i) { g_sink = g_sink + Explain(pick(i)).totals.peak_bytes; });
  // The fit map's axes for these configurations (panel_fitmap.cpp: 4 samples an octave).
  const std::vector<int64_t> seqs = llmmem::app::chart::LogSamples(128, int64_t{1} << 17, 4);
  const std::vector<int64_t> batches = llmmem::app::chart::LogSamples(1, 256, 4);
  const int maps = quick ? 2 : 10;
  const double map = SecondsPer(maps, [&](int m) {
    Config c = (m & 1) != 0 ? infer : train;
    for (int64_t b : batches)
      for (int64_t s : seqs) {
        c.batch = b;
        c.seq = s;
        g_sink = g_sink + EstimateTotals(c).peak_bytes;
      }
  });
  const size_t cells = seqs.size() * batches.size();
  const std::vector<llmmem::bench::PlanBench> plans = llmmem::bench::RunPlanBench(quick);
  if (json) {
    std::printf("{\"estimate_us\": %.4f, \"explain_us\": %.2f, \"fitmap_ms\": %.3f, \"fitmap_cells\": %zu, \"n\": %d, \"plans\": [",
                fast * 1e6, explained * 1e6, map * 1e3, cells, n);
    for (size_t i = 0; i < plans.size(); ++i) {
      const llmmem::bench::PlanBench& p = plans[i];
      std::printf("%s{\"name\": \"%s\", \"seconds\": %.6f, \"cpu_seconds\": %.6f, \"considered\": %.0f, \"evaluated\": %.0f, \"pruned\": %.0f, "
                  "\"invalid\": %.0f, \"feasible\": %.0f}",
                  i ? ", " : "", p.name.c_str(), p.seconds, p.cpu_seconds, p.considered, p.evaluated, p.pruned, p.invalid, p.feasible);
    }
    std::printf("]}\n");
    return 0;
  }
  std::printf("EstimateTotals: %.3f us per estimate (%.0f per second)\n", fast * 1e6, 1 / fast);
  std::printf("Explain:        %.2f us per estimate (%.1fx the fast path)\n", explained * 1e6, explained / fast);
  std::printf("Fit map (%zu cells): %.2f ms = %.1f%% of a 16.7 ms frame\n", cells, map * 1e3, map / (1.0 / 60) * 100);
  for (const llmmem::bench::PlanBench& p : plans)
    std::printf("Plan %s: %.3f s (CPU %.3f s); %.0f considered (%.0f/s), %.0f estimated (%.0f/s), %.0f pruned, %.0f refused, %.0f fit\n",
                p.name.c_str(), p.seconds, p.cpu_seconds, p.considered, p.considered / p.seconds, p.evaluated,
                p.evaluated / p.seconds, p.pruned, p.invalid, p.feasible);
  return 0;
}
