#include "core/config/diagnostics.h"

namespace llmmem::core {

const char* DiagIdName(DiagId id) {
  switch (id) {
    case DiagId::kOutOfRange:
      return "out_of_range";
    case DiagId::kNotANumber:
      return "not_a_number";
    case DiagId::kInconsistent:
      return "inconsistent";
    case DiagId::kUnknownValue:
      return "unknown_value";
    case DiagId::kUnknownKey:
      return "unknown_key";
    case DiagId::kWrongType:
      return "wrong_type";
    case DiagId::kParse:
      return "parse";
    case DiagId::kNoArchitecture:
      return "no_architecture";
    case DiagId::kIgnoredSetting:
      return "ignored_setting";
    case DiagId::kMissingField:
      return "missing_field";
    case DiagId::kUnsupported:
      return "unsupported";
    case DiagId::kCostsMore:
      return "costs_more";
    case DiagId::kSuggestion:
      return "suggestion";
  }
  return "?";
}

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "info";
  }
  return "?";
}

bool HasErrors(const Diagnostics& d) {
  for (const Diagnostic& x : d) {
    if (x.severity == Severity::kError) return true;
  }
  return false;
}

}  // namespace llmmem::core
