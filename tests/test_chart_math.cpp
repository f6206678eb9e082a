// The UI charts' pure math (src/app/chart_math.h): stacking, nice ticks, scales, sweeps,
// crossings and the fit-map colour scale.
#include <doctest.h>

#include <cstring>

#include "app/chart_math.h"

using namespace llmmem::app::chart;

TEST_CASE("Chart: stacked segments end to end, bad values as zero") {
  const double values[] = {10, 30, -5, NAN, 60};
  Segment s[5];
  StackSegments(values, 5, 100, s);
  CHECK(s[0].begin == 0);
  CHECK(s[0].end == doctest::Approx(0.1));
  CHECK(s[1].end == doctest::Approx(0.4));
  CHECK(s[2].begin == s[2].end);
  CHECK(s[3].begin == s[3].end);
  CHECK(s[4].end == doctest::Approx(1.0));
  StackSegments(values, 5, 50, s);
  CHECK(s[4].end == doctest::Approx(2.0));  // longer than the axis: the capacity mark sits at 1
}

TEST_CASE("Chart: Heckbert nice numbers and ticks") {
  CHECK(NiceNum(0.7, true) == doctest::Approx(1));
  CHECK(NiceNum(2.6, true) == doctest::Approx(2));
  CHECK(NiceNum(4, true) == doctest::Approx(5));
  CHECK(NiceNum(73, false) == doctest::Approx(100));
  const Ticks t = NiceTicks(0, 173, 5);
  CHECK(t.step == doctest::Approx(50));
  CHECK(t.first == doctest::Approx(0));
  CHECK(t.first + t.step * (t.count - 1) >= 173);
  const Ticks r = NiceTicks(10, 0, 5);  // reversed ranges are accepted
  CHECK(r.count >= 2);
  CHECK(TickDecimals(0.25) == 2);
  CHECK(TickDecimals(5) == 0);
  CHECK(TickDecimals(0.1) == 1);
}

TEST_CASE("Chart: linear and log2 scales invert") {
  const Linear lin{0, 100, 10, 210};
  CHECK(lin(50) == doctest::Approx(110));
  CHECK(lin.Invert(110) == doctest::Approx(50));
  const Log2 lg{1, 1024, 0, 10};
  CHECK(lg(32) == doctest::Approx(5));
  CHECK(lg.Invert(5) == doctest::Approx(32));
}

TEST_CASE("Chart: sweeps and the capacity crossing") {
  const std::vector<int64_t> p = PowersOfTwo(300, 4096);
  CHECK(p == std::vector<int64_t>{512, 1024, 2048, 4096});
  const std::vector<int64_t> l = LogSamples(1, 8, 2);
  CHECK(l.front() == 1);
  CHECK(l.back() == 8);
  CHECK(l.size() == 7);
  const double y[] = {10, 20, 40, 80};
  CHECK(FirstCrossing(y, 4, 30) == doctest::Approx(1.5));
  CHECK(FirstCrossing(y, 4, 5) == 0);
  CHECK(FirstCrossing(y, 4, 100) == -1);
  char buf[16];
  FormatTokens(32768, buf, sizeof buf);
  CHECK(std::strcmp(buf, "32k") == 0);
  FormatTokens(1 << 20, buf, sizeof buf);
  CHECK(std::strcmp(buf, "1M") == 0);
  FormatTokens(300, buf, sizeof buf);
  CHECK(std::strcmp(buf, "300") == 0);
}

TEST_CASE("Chart: the fit-map colour goes green, yellow, orange, then red") {
  float rgb[3];
  FitColor(0.1, rgb);
  CHECK(rgb[1] > rgb[0]);  // green
  FitColor(1.0, rgb);
  CHECK(rgb[0] > 0.9f);  // orange at capacity
  FitColor(2.0, rgb);
  CHECK(rgb[0] > rgb[1]);  // red past it
  FitColor(-1, rgb);
  CHECK(rgb[0] == rgb[1]);  // grey: no estimate
}
