// Byte units and the number formatting used in formulas and tables.
// GB = 1e9 bytes and GiB = 2^30 bytes, always labelled as what they are.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

namespace llmmem::core {

constexpr double kGB = 1e9;
constexpr double kGiB = 1073741824.0;
constexpr double kMB = 1e6;
constexpr double kMiB = 1048576.0;

// A whole number of bytes: a fraction (4.5 bits per weight, an uneven shard) rounds up, the
// arithmetic's rounding noise does not (3 x (1/3) stays 1). Each leaf is whole, so the
// groups and totals, their sums, are whole and equal the sum of their leaves exactly.
inline double WholeBytes(double b) {
  // Most leaves are whole already (or 0): answered without round(), a libm call natively
  // and in WASM, and with the same result (round(b) == b, so b is returned below too).
  if (std::fabs(b) < 0x1p52 && static_cast<double>(static_cast<int64_t>(b)) == b) return b;
  const double nearest = std::round(b);
  return std::fabs(b - nearest) <= 1e-12 * std::fabs(b) ? nearest : std::ceil(b);
}

enum class UnitSystem : uint8_t { kDecimal, kBinary };  // GB or GiB

// "6,738,415,616"
std::string FormatCount(int64_t n);
// A value with `digits` significant decimals trimmed of trailing zeros: "13.48", "0.5".
std::string FormatNumber(double v, int decimals = 2);
// "13.48 GB" or "12.55 GiB"; picks MB/MiB under 1 GB and KB/KiB under 1 MB.
std::string FormatBytes(double bytes, UnitSystem units);
// "13.48 GB (12.55 GiB)"
std::string FormatBytesBoth(double bytes);
// Parameters in short form: "6.74B", "124.4M".
std::string FormatParams(double n);

}  // namespace llmmem::core
