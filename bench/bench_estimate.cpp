// Speed of the estimate, measured side by side as ratios (never as timed unit tests):
//  - the numeric fast path (EstimateTotals) against the explained path (Explain),
//  - a fit-map sweep (micro-batch x sequence grid) against a 60 Hz frame budget.
// usage: build/native/llmmem_bench [iterations]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/config_json.h"
#include "core/estimate.h"

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
  const int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  Config c = DefaultConfig();

  const double fast = SecondsPer(n, [&](int i) {
    c.batch = 1 + i % 8;
    g_sink = g_sink + EstimateTotals(c).peak_bytes;
  });
  const double explained = SecondsPer(n / 20 + 1, [&](int i) {
    c.batch = 1 + i % 8;
    g_sink = g_sink + Explain(c).totals.peak_bytes;
  });
  // A 64 x 64 fit map: micro-batch 1..64, sequence 256..16384.
  const double map = SecondsPer(20, [&](int) {
    for (int b = 1; b <= 64; ++b) {
      for (int s = 0; s < 64; ++s) {
        c.batch = b;
        c.seq = 256 + s * 256;
        g_sink = g_sink + EstimateTotals(c).peak_bytes;
      }
    }
  });

  std::printf("EstimateTotals: %.2f us per estimate (%.0f per second)\n", fast * 1e6, 1 / fast);
  std::printf("Explain:        %.2f us per estimate\n", explained * 1e6);
  std::printf("ratio Explain / EstimateTotals: %.1fx\n", explained / fast);
  std::printf("64x64 fit map: %.2f ms = %.1f%% of a 16.7 ms frame; estimates per frame at this rate: %.0f\n",
              map * 1e3, map / (1.0 / 60) * 100, (1.0 / 60) / fast);
  return 0;
}
