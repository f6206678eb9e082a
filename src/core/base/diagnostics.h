// Errors and warnings as values, with stable ids that tests check and front ends show.
// Each names the field it is about (the same name as in JSON, URL and CLI) so a front
// end can flag the input where it was typed.
#pragma once

#include <string>
#include <vector>

namespace llmmem::core {

#define LLMMEM_DIAGNOSTICS(X)                                                    \
  X(kOutOfRange, "a value is outside its allowed range")                         \
  X(kNotANumber, "a value is not a finite number")                               \
  X(kInconsistent, "two settings contradict each other")                         \
  X(kUnknownValue, "a name is not one of the allowed values")                    \
  X(kUnknownKey, "a key is not a setting of the calculator")                     \
  X(kWrongType, "a value has the wrong JSON type")                               \
  X(kParse, "the text could not be parsed")                                      \
  X(kNoArchitecture, "the model has no architecture, only a parameter count")    \
  X(kIgnoredSetting, "a setting has no effect in this configuration")            \
  X(kMissingField, "a required field is missing")                                \
  X(kUnsupported, "the input describes something the calculator does not model") \
  X(kCostsMore, "a setting meant to save memory needs more in this configuration") \
  X(kSuggestion, "a setting that describes how the imported model's code runs")          \
  X(kNotCounted, "a part of the memory is not counted, so the verdict cannot say it fits") \
  X(kHostShort, "the host RAM set cannot hold what the placement keeps there")            \
  X(kUnrunnableLayout, "no framework runs this parallel layout")                          \
  X(kFromStack, "a setting holds the value its training program (stack) or its model gives it")

enum class DiagId {
#define LLMMEM_DIAG_ENUM(id, text) id,
  LLMMEM_DIAGNOSTICS(LLMMEM_DIAG_ENUM)
#undef LLMMEM_DIAG_ENUM
};

enum class Severity { kError, kWarning, kInfo };

struct Diagnostic {
  DiagId id;
  Severity severity;
  std::string field;    // "seq", "model.hidden", "dtype"; empty when about the whole input
  std::string message;  // a sentence a user understands: what is wrong and what is allowed
};

using Diagnostics = std::vector<Diagnostic>;

const char* DiagIdName(DiagId id);  // "out_of_range"
const char* SeverityName(Severity s);
bool HasErrors(const Diagnostics& d);
// Issue 28: a warning of this id means the memory may not fit or is unknown, and the verdict
// is then never "fits" (tests/test_verdict.cpp holds every estimate to it). Every id is
// classified here, so a new one must say which it is (-Wswitch).
bool LimitsVerdict(DiagId id);

}  // namespace llmmem::core
