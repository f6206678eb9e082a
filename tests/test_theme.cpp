// Text contrast in both themes (src/app/theme_colors.h): every text colour against every
// surface text is drawn on, translucent fills blended as ImGui draws them, meets WCAG
// 2.1's 4.5:1 for body text.
#include <doctest.h>

#include <string>

#include "app/theme_colors.h"

using namespace llmmem::app;

TEST_CASE("Theme: every text colour reads at 4.5:1 or more on every surface, dark and light") {
  for (bool dark : {true, false}) {
    const ThemeColors& c = Colors(dark);
    const Rgba window = c.window_bg, child = c.child_bg;
    const Rgba popup = Over(c.popup_bg, window);
    const struct {
      const char* name;
      Rgba bg;
    } surfaces[] = {
        {"window", window},
        {"panel", child},
        {"popup", popup},
        {"input frame", Over(c.frame_bg, child)},
        {"table row", Over(c.table_row_alt, child)},
        {"table header", c.table_header},
    };
    const struct {
      const char* name;
      Rgba fg;
    } texts[] = {{"text", c.text}, {"grey text", c.text_dim}, {"fits", c.good}, {"over", c.bad}, {"warning", c.warn}};
    for (const auto& t : texts)
      for (const auto& s : surfaces) {
        const double ratio = ContrastRatio(t.fg, s.bg);
        const std::string what =
            std::string(dark ? "dark: " : "light: ") + t.name + " on " + s.name + " = " + std::to_string(ratio);
        INFO(what);
        CHECK(ratio >= 4.5);
      }
    // Body text on a button's fill and on a selected row (grey and verdict text are not
    // drawn on those).
    CHECK(ContrastRatio(c.text, Over(c.button, window)) >= 4.5);
    CHECK(ContrastRatio(c.text, Over(c.header, child)) >= 4.5);
  }
}

TEST_CASE("Theme: the contrast arithmetic matches WCAG's reference values") {
  CHECK(ContrastRatio({0, 0, 0, 1}, {1, 1, 1, 1}) == doctest::Approx(21.0));
  CHECK(ContrastRatio({1, 1, 1, 1}, {1, 1, 1, 1}) == doctest::Approx(1.0));
  // #767676 on white is the classic 4.54:1.
  CHECK(ContrastRatio({118 / 255.0f, 118 / 255.0f, 118 / 255.0f, 1}, {1, 1, 1, 1}) ==
        doctest::Approx(4.54).epsilon(0.01));
}
