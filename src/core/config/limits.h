// Limits that are not one setting's range (those are rows of the field table, fields.h).
#pragma once

namespace llmmem::core {

// Largest model the calculator accepts: 100 trillion parameters (about 5x beyond
// anything published); keeps every byte count far inside double's exact range.
constexpr double kMaxParams = 1e14;

}  // namespace llmmem::core
