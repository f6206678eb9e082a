// Calibrate and plan from a measured run (issue 33 part 3). One run at settings X held more
// than the estimate says; the difference is carried, as its own line (measured_residual_gb:
// "Measured beyond the model (from your run)"), into the estimate of settings Y with X's
// program, model, precision and parallelism, so every fit answer (largest batch, sequence,
// concurrency, context) includes it. A constant number of bytes, never a factor, said where
// it came from and how far carrying it constant is safe. Pure: no I/O.
#pragma once

#include <string>

#include "core/config/config.h"
#include "core/run/run_compare.h"

namespace llmmem::core {

struct Calibration {
  bool ok = false;
  std::string why;         // when !ok: why there is nothing to calibrate on
  std::string basis;       // the figure compared: "Peak reserved", "KV pool (vLLM's Available KV cache memory)"
  double measured = 0;     // bytes of the basis, as the run printed it
  double estimated = 0;    // bytes of the basis, as the estimate has it at the run's settings
  double residual = 0;     // bytes the run held beyond the estimate (the estimate's pool beyond the run's, for a
                           // paged server); negative: the estimate is above the run, and nothing is carried
  double carried = 0;      // bytes carried: max(0, residual + what the configuration already carried)
  // Reach: the run's tokens per step (batch x sequence; 0 for a paged server, whose activations
  // are sized by its own settings) and up to how many carrying the residual constant errs by at
  // most 5% of the GPU, were it to grow with the tokens as activations do (0: no bound).
  double run_tokens = 0;
  double reach_tokens = 0;
  std::string text;        // "measured beyond the model: +1.30 GB, from your run"
  std::string reach;       // the reach in words
  Config config;           // the run's configuration with measured_residual_gb = carried
};

// The share of the GPU an unmodelled residual may misstate before the answer is not trusted.
constexpr double kCalibrationReachShare = 0.05;

Calibration Calibrate(const RunComparison& cmp);

}  // namespace llmmem::core
