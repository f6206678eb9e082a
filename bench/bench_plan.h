// The training planner's search speed (issue 34 part 5), for bench_estimate.cpp's main:
// candidates considered per second (every point of the space, pruned ones included) and
// candidates estimated per second (EstimateTotals actually run), reported apart.
#pragma once

#include <string>
#include <vector>

namespace llmmem::bench {

struct PlanBench {
  std::string name;  // "llama-3.1-405b x 1024 H100"
  double seconds = 0;      // one whole search, wall clock, median of the runs
  double cpu_seconds = 0;  // the same runs' process CPU time (std::clock): a shared machine's load inflates the wall clock
  double considered = 0, evaluated = 0, pruned = 0, invalid = 0, feasible = 0;
};

std::vector<PlanBench> RunPlanBench(bool quick);

}  // namespace llmmem::bench
