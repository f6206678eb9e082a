// Pure chart math for the ImDrawList charts: stacking, linear/log scales, "nice" tick
// steps, sweep values and interpolation of a capacity crossing. No ImGui include, so the
// tests cover it with doctest (tests/test_chart_math.cpp).
// Sources: Heckbert, "Nice numbers for graph labels", Graphics Gems (1990) for NiceNum
// and NiceTicks (the same rule as implot's ImNiceNum).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace llmmem::app::chart {

// [begin, end) of one stacked segment, as a fraction of the axis (0..1, may exceed 1
// when the stack is longer than the axis).
struct Segment {
  double begin = 0;
  double end = 0;
};

// Stacks non-negative values end to end along an axis of length `axis`. Negative and
// non-finite values count as 0; axis <= 0 gives empty segments.
inline void StackSegments(const double* values, int n, double axis, Segment* out) {
  double acc = 0;
  for (int i = 0; i < n; ++i) {
    const double v = std::isfinite(values[i]) && values[i] > 0 ? values[i] : 0;
    out[i].begin = axis > 0 ? acc / axis : 0;
    acc += v;
    out[i].end = axis > 0 ? acc / axis : 0;
  }
}

// Heckbert's nice number: 1, 2, 5 or 10 times a power of ten, near x (round) or >= x.
inline double NiceNum(double x, bool round) {
  if (!(x > 0) || !std::isfinite(x)) return 1;
  const double expv = std::floor(std::log10(x));
  // Rounded to 9 decimals: 0.7 / 10^-1 is 6.9999999999999991 in binary and would fall to 5.
  const double f = std::round(x / std::pow(10.0, expv) * 1e9) / 1e9;
  double nf;
  if (round) {
    nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
  } else {
    nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
  }
  return nf * std::pow(10.0, expv);
}

struct Ticks {
  double first = 0;  // first tick value (a multiple of step, >= lo - step/2)
  double step = 1;
  int count = 0;
};

// Ticks covering [lo, hi] with about `target` intervals; [0, 0] and reversed ranges give
// a single-interval axis. The last tick is >= hi, so "nice" axes end on a tick.
inline Ticks NiceTicks(double lo, double hi, int target) {
  Ticks t;
  if (!std::isfinite(lo) || !std::isfinite(hi)) return t;
  if (hi < lo) {
    const double x = lo;
    lo = hi;
    hi = x;
  }
  if (hi == lo) hi = lo + 1;
  if (target < 1) target = 1;
  const double range = NiceNum(hi - lo, false);
  t.step = NiceNum(range / target, true);
  t.first = std::floor(lo / t.step) * t.step;
  const double last = std::ceil(hi / t.step - 1e-9) * t.step;
  t.count = static_cast<int>(std::lround((last - t.first) / t.step)) + 1;
  return t;
}

// Linear map from a domain to a range (pixels); a zero-width domain maps to r0.
struct Linear {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  double operator()(double v) const { return d1 == d0 ? r0 : r0 + (v - d0) * (r1 - r0) / (d1 - d0); }
  double Invert(double r) const { return r1 == r0 ? d0 : d0 + (r - r0) * (d1 - d0) / (r1 - r0); }
};

// Log2 map (for powers-of-two sweeps: sequence length, batch). Domain values must be > 0.
struct Log2 {
  double d0 = 1, d1 = 2, r0 = 0, r1 = 1;
  double operator()(double v) const {
    const double a = std::log2(d0), b = std::log2(d1);
    return b == a ? r0 : r0 + (std::log2(v) - a) * (r1 - r0) / (b - a);
  }
  double Invert(double r) const {
    const double a = std::log2(d0), b = std::log2(d1);
    return r1 == r0 ? d0 : std::exp2(a + (r - r0) * (b - a) / (r1 - r0));
  }
};

// Powers of two from lo to hi inclusive (lo rounded up to a power of two); lo >= 1.
inline std::vector<int64_t> PowersOfTwo(int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  if (lo < 1) lo = 1;
  int64_t v = 1;
  while (v < lo && v <= (int64_t{1} << 61)) v <<= 1;
  for (; v <= hi && v > 0; v <<= 1) out.push_back(v);
  return out;
}

// Where a piecewise-linear series first reaches `level`: the fractional index between
// samples (0..n-1), or -1 when it never does. Starting at or above level gives 0.
inline double FirstCrossing(const double* y, int n, double level) {
  for (int i = 0; i < n; ++i) {
    if (y[i] >= level) {
      if (i == 0) return 0;
      const double dy = y[i] - y[i - 1];
      return dy > 0 ? (i - 1) + (level - y[i - 1]) / dy : i;
    }
  }
  return -1;
}

// Decimals a tick label needs for a given step: step 0.25 -> 2, step 5 -> 0.
inline int TickDecimals(double step) {
  if (!(step > 0) || !std::isfinite(step)) return 0;
  int d = 0;
  double scaled = step;
  while (d < 9 && std::fabs(scaled - std::round(scaled)) > 1e-9 * (scaled > 1 ? scaled : 1)) {
    scaled *= 10;
    ++d;
  }
  return d;
}

// Short token-count labels: 512, 1k, 4k, 32k, 1M (powers of two use binary k = 1024).
inline void FormatTokens(int64_t v, char* buf, int cap) {
  if (v >= (int64_t{1} << 20) && v % (int64_t{1} << 20) == 0) {
    std::snprintf(buf, static_cast<size_t>(cap), "%lldM", static_cast<long long>(v >> 20));
  } else if (v >= 1024 && v % 1024 == 0) {
    std::snprintf(buf, static_cast<size_t>(cap), "%lldk", static_cast<long long>(v >> 10));
  } else {
    std::snprintf(buf, static_cast<size_t>(cap), "%lld", static_cast<long long>(v));
  }
}

// The fit map's colour for peak / capacity (shaders/fitmap.frag.glsl mirrors it):
// green (empty) -> yellow (85%) -> orange (100%), then red darkening to 4x over;
// ratio <= 0 (no estimate) is grey. rgb in 0..1.
inline void FitColor(double r, float rgb[3]) {
  auto mix = [&](const float a[3], const float b[3], double t) {
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    for (int i = 0; i < 3; ++i) rgb[i] = static_cast<float>(a[i] + (b[i] - a[i]) * t);
  };
  static const float kGrey[3] = {0.45f, 0.45f, 0.45f}, kGreen[3] = {0.10f, 0.55f, 0.30f},
                     kYellow[3] = {0.93f, 0.80f, 0.25f}, kOrange[3] = {0.95f, 0.55f, 0.15f},
                     kRed[3] = {0.80f, 0.15f, 0.15f}, kDark[3] = {0.40f, 0.05f, 0.08f};
  if (!(r > 0)) {
    mix(kGrey, kGrey, 0);
  } else if (r <= 0.85) {
    mix(kGreen, kYellow, r / 0.85);
  } else if (r <= 1.0) {
    mix(kYellow, kOrange, (r - 0.85) / 0.15);
  } else {
    mix(kRed, kDark, std::log2(r) / 2.0);
  }
}

// Log-spaced integer samples from lo to hi with `per_octave` steps per doubling, each
// rounded to the nearest integer. Sample i sits at log2(lo) + i / per_octave (uniform,
// as the fit map's texture assumes; choose hi / lo a power of two), so small values may
// repeat (batch 1, 1, 1, 2, ...): they are kept to keep the spacing uniform.
inline std::vector<int64_t> LogSamples(int64_t lo, int64_t hi, int per_octave) {
  std::vector<int64_t> out;
  if (lo < 1) lo = 1;
  if (hi < lo || per_octave < 1) return out;
  const double a = std::log2(static_cast<double>(lo)), b = std::log2(static_cast<double>(hi));
  const int n = static_cast<int>(std::ceil((b - a) * per_octave - 1e-9));
  for (int i = 0; i <= n; ++i) {
    const double e = i == n ? b : a + static_cast<double>(i) / per_octave;
    const int64_t v = static_cast<int64_t>(std::llround(std::exp2(e)));
    out.push_back(v);
  }
  return out;
}

// The indices of the `n` largest values, largest first (equal values: the earlier index
// first); non-finite and negative values count as 0. The per-layer chart colours these.
inline std::vector<int> LargestIndices(const std::vector<double>& values, int n) {
  std::vector<int> idx;
  for (int i = 0; i < static_cast<int>(values.size()); ++i) idx.push_back(i);
  auto val = [&](int i) { return std::isfinite(values[i]) && values[i] > 0 ? values[i] : 0.0; };
  const int k = n < 0 ? 0 : n < static_cast<int>(idx.size()) ? n : static_cast<int>(idx.size());
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                    [&](int a, int b) { return val(a) != val(b) ? val(a) > val(b) : a < b; });
  idx.resize(static_cast<size_t>(k));
  return idx;
}

// Which of `n` equal slots across [0, width) a position x falls in (-1 outside): the
// per-layer chart's hover.
inline int SlotAt(double x, double width, int n) {
  if (n <= 0 || !(width > 0) || !(x >= 0) || x >= width) return -1;
  const int i = static_cast<int>(x / width * n);
  return i < n ? i : n - 1;
}

}  // namespace llmmem::app::chart
