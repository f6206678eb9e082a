// Wheel and trackpad deltas to Dear ImGui's wheel units (src/app/input_math.h): the three
// WheelEvent modes, the sign, and the one-page cap; the divisor steps of "-"/"+".
#include <doctest.h>

#include "app/input_math.h"

using namespace llmmem::app;

namespace {
constexpr double kFont = 15, kLine = 18.75, kPage = 600;
}

TEST_CASE("Wheel: a 100-pixel notch scrolls 100 pixels, in the page's direction") {
  const WheelDelta d = WheelToImGui(0, 100, WheelMode::kPixel, kLine, kPage, kFont);
  CHECK(d.y < 0);  // deltaY > 0 moves the view down: ImGui's "scroll down" is a negative wheel
  CHECK(d.y == doctest::Approx(-100.0 / 75));
  CHECK(ImGuiWheelPixels(d.y, kFont) == doctest::Approx(100));
  CHECK(d.x == 0);
  // Up is up.
  CHECK(WheelToImGui(0, -100, WheelMode::kPixel, kLine, kPage, kFont).y > 0);
}

TEST_CASE("Wheel: a trackpad's small pixel deltas scroll as little as they say") {
  const WheelDelta d = WheelToImGui(0, 3, WheelMode::kPixel, kLine, kPage, kFont);
  CHECK(ImGuiWheelPixels(d.y, kFont) == doctest::Approx(3));
  const WheelDelta h = WheelToImGui(-12, 0, WheelMode::kPixel, kLine, kPage, kFont);
  CHECK(h.x == doctest::Approx(12.0 / 30));  // ImGui moves 2 fonts per horizontal unit
}

TEST_CASE("Wheel: line mode (Firefox) counts lines, page mode pages, both capped at a page") {
  const WheelDelta lines = WheelToImGui(0, 3, WheelMode::kLine, kLine, kPage, kFont);
  CHECK(ImGuiWheelPixels(lines.y, kFont) == doctest::Approx(3 * kLine));
  const WheelDelta page = WheelToImGui(0, 1, WheelMode::kPage, kLine, kPage, kFont);
  CHECK(ImGuiWheelPixels(page.y, kFont) == doctest::Approx(kPage));
  const WheelDelta fling = WheelToImGui(0, 5000, WheelMode::kPixel, kLine, kPage, kFont);
  CHECK(ImGuiWheelPixels(fling.y, kFont) == doctest::Approx(kPage));
  const WheelDelta many_pages = WheelToImGui(0, -3, WheelMode::kPage, kLine, kPage, kFont);
  CHECK(ImGuiWheelPixels(many_pages.y, kFont) == doctest::Approx(-kPage));
}

TEST_CASE("Wheel: nonsense sizes fall back to sane ones instead of dividing by zero") {
  const WheelDelta d = WheelToImGui(0, 100, WheelMode::kPixel, 0, 0, 0);
  CHECK(d.y == doctest::Approx(-100.0 / 75));
}

TEST_CASE("Steps: tensor parallel steps through the divisors of the heads only") {
  CHECK(NextDivisor(32, 8, +1, 1024) == 16);  // not 9: 32 heads do not split 9 ways
  CHECK(NextDivisor(32, 16, -1, 1024) == 8);
  CHECK(NextDivisor(32, 1, -1, 1024) == 1);    // nothing below 1
  CHECK(NextDivisor(32, 32, +1, 1024) == 32);  // nothing above the heads
  CHECK(NextDivisor(40, 8, +1, 1024) == 10);   // Qwen2.5-14B: 40 heads
  CHECK(NextDivisor(32, 9, -1, 1024) == 8);    // a typed 9 steps back to a divisor
  CHECK(NextDivisor(0, 3, +1, 1024) == 4);     // unknown n: plain steps
  CHECK(NextDivisor(80, 64, +1, 64) == 64);    // the field's own maximum
}
