// Byte units and the number formatting used in formulas and tables.
// GB = 1e9 bytes and GiB = 2^30 bytes, always labelled as what they are.
#pragma once

#include <cstdint>
#include <string>

namespace llmmem::core {

constexpr double kGB = 1e9;
constexpr double kGiB = 1073741824.0;
constexpr double kMB = 1e6;
constexpr double kMiB = 1048576.0;

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
