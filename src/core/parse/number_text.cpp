#include "core/parse/number_text.h"

#include <cmath>
#include <cstdlib>

#include "core/parse/json.h"

namespace llmmem::core {

// Only plain decimal numbers (JSON's grammar, as --help documents them): no hex ("0x10"),
// hex floats ("0x1p10"), surrounding spaces, "inf", "nan" or a leading '+', which strtod
// alone would take.
std::string ParseNumber(const std::string& text, double& out) {
  if (text.empty()) return "a number is required";
  if (!IsDecimalNumber(text)) return "\"" + text + "\" is not a number (write it in decimal, like 8, 0.5 or 1e9)";
  const double v = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(v)) return "\"" + text + "\" is not a finite number";
  out = v;
  return {};
}

std::string ParseInt(const std::string& text, int64_t& out) {
  double v = 0;
  std::string err = ParseNumber(text, v);
  if (!err.empty()) return err;
  if (v != std::floor(v)) return "\"" + text + "\" is not a whole number";
  if (std::fabs(v) > 9e15) return "\"" + text + "\" is far too large";
  out = static_cast<int64_t>(v);
  return {};
}

}  // namespace llmmem::core
