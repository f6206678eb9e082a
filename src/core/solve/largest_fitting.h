// The one search behind "the largest batch / sequence / concurrency that fits" (fit.cpp,
// serve_fit.cpp): galloping up from 1, then bisecting, so a limit near 1 costs a few
// estimates and one near 2^24 about 48.
#pragma once

#include <cstdint>

namespace llmmem::core {

// Largest value in [1, hi] for which fits(value) holds, assuming it is monotone; 0 if none.
template <class Fits>
int64_t LargestFitting(int64_t hi, Fits&& fits) {
  if (hi < 1 || !fits(1)) return 0;
  int64_t lo = 1, step = 1;
  while (lo + step <= hi && fits(lo + step)) {
    lo += step;
    step *= 2;
  }
  int64_t top = lo + step <= hi ? lo + step : hi + 1;  // fits(lo), !fits(top) or top past hi
  while (top - lo > 1) {
    const int64_t mid = lo + (top - lo) / 2;
    if (fits(mid))
      lo = mid;
    else
      top = mid;
  }
  return lo;
}

}  // namespace llmmem::core
