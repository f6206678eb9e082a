#include "core/base/diagnostics.h"

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
    case DiagId::kNotCounted:
      return "not_counted";
    case DiagId::kHostShort:
      return "host_short";
    case DiagId::kUnrunnableLayout:
      return "unrunnable_layout";
    case DiagId::kFromStack:
      return "from_stack";
  }
  return "?";
}

bool LimitsVerdict(DiagId id) {
  switch (id) {
    case DiagId::kNotCounted:  // a part of the memory unknown: "incomplete"
    case DiagId::kHostShort:   // the host RAM set too small: "does not fit"
      return true;
    // The others, as warnings, explain a figure that is counted (a context longer than the
    // model was trained for, a ZeRO stage that costs more, a request cap of the runtime) or
    // a key that was ignored; as errors they stop the estimate.
    case DiagId::kOutOfRange:
    case DiagId::kNotANumber:
    case DiagId::kInconsistent:
    case DiagId::kUnknownValue:
    case DiagId::kUnknownKey:
    case DiagId::kWrongType:
    case DiagId::kParse:
    case DiagId::kNoArchitecture:
    case DiagId::kIgnoredSetting:
    case DiagId::kMissingField:
    case DiagId::kUnsupported:
    case DiagId::kCostsMore:
    case DiagId::kSuggestion:
    case DiagId::kUnrunnableLayout:  // always an error: the estimate stops
    case DiagId::kFromStack:         // a note: which values the training program set
      return false;
  }
  return false;
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
