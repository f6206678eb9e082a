#include "core/base/units.h"

#include <cmath>
#include <cstdio>

namespace llmmem::core {

std::string FormatCount(int64_t n) {
  const bool negative = n < 0;
  uint64_t u = negative ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
  std::string digits = std::to_string(u);
  std::string out;
  int since = static_cast<int>(digits.size() % 3);
  if (since == 0) since = 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && since == 0) {
      out += ',';
      since = 3;
    }
    out += digits[i];
    --since;
  }
  return negative ? "-" + out : out;
}

std::string FormatNumber(double v, int decimals) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string FormatBytes(double bytes, UnitSystem units) {
  const bool decimal = units == UnitSystem::kDecimal;
  const double g = decimal ? kGB : kGiB;
  const double m = decimal ? kMB : kMiB;
  const double k = decimal ? 1e3 : 1024.0;
  const double a = std::fabs(bytes);
  if (a >= 1000 * g) return FormatNumber(bytes / (g * (decimal ? 1e3 : 1024.0)), 2) + (decimal ? " TB" : " TiB");
  if (a >= g) return FormatNumber(bytes / g, 2) + (decimal ? " GB" : " GiB");
  if (a >= m) return FormatNumber(bytes / m, 1) + (decimal ? " MB" : " MiB");
  if (a >= k) return FormatNumber(bytes / k, 1) + (decimal ? " KB" : " KiB");
  return FormatNumber(bytes, 1) + " B";
}

std::string FormatBytesBoth(double bytes) {
  return FormatBytes(bytes, UnitSystem::kDecimal) + " (" + FormatBytes(bytes, UnitSystem::kBinary) + ")";
}

std::string FormatParams(double n) {
  const double a = std::fabs(n);
  if (a >= 1e12) return FormatNumber(n / 1e12, 2) + "T";
  if (a >= 1e9) return FormatNumber(n / 1e9, 2) + "B";
  if (a >= 1e6) return FormatNumber(n / 1e6, 1) + "M";
  if (a >= 1e3) return FormatNumber(n / 1e3, 1) + "K";
  return FormatNumber(n, 0);
}

}  // namespace llmmem::core
