// Small text helpers shared by the parsers and catalogues.
#pragma once

#include <cctype>
#include <string>

#include "core/parse/json.h"

namespace llmmem::core {

// ASCII lower case (names, ids and keys are ASCII; other bytes pass through).
inline std::string AsciiLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// An object's string / number member, or the fallback when absent or of another type.
inline std::string StringMember(const Json& object, const char* key, const std::string& fallback = "") {
  const Json* v = object.Find(key);
  return v != nullptr && v->IsString() ? v->AsString() : fallback;
}
inline double NumberMember(const Json& object, const char* key, double fallback = 0) {
  const Json* v = object.Find(key);
  return v != nullptr && v->IsNumber() ? v->AsNumber() : fallback;
}

}  // namespace llmmem::core
