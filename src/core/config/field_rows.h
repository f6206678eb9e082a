// Helpers for writing the rows of fields.h (fields_model.cpp, fields_workload.cpp): strict
// text parsers and one macro per field kind, so that a row states only its facts. Each
// numeric value is parsed strictly (the whole text must be a finite number; integers must
// be whole); its range is checked later by Validate, so an out-of-range value is kept and
// flagged rather than silently clamped. Include only from the row files.
#pragma once

#include <string>
#include <vector>

#include "core/base/enum_table.h"
#include "core/config/fields.h"
#include "core/parse/number_text.h"

namespace llmmem::core::field_rows {

using core::ParseInt;     // core/parse/number_text.h: one number reader for every door
using core::ParseNumber;
std::string ParseBool(const std::string& text, bool& out);
std::string NumText(double v);
std::string IntText(int64_t v);
std::string BoolText(bool v);
// Text built once while the rows are (a help that lists an enum's ids), kept for good:
// rows hold const char*.
const char* Lasting(std::string text);

using Getter = std::string (*)(const Config&);
using Setter = std::string (*)(Config&, const std::string&);

// A row that is not a number or a switch: names, formats, lists (no range, no steps).
inline FieldDef TextRow(const char* name, FieldKind kind, bool model, FieldGroup group, const char* label,
                        const char* help, Getter get, Setter set) {
  return FieldDef{name, kind, model, group, label, "", help, 0, 0, 0, 0, nullptr, get, set, nullptr, nullptr};
}

void AddModelRows(std::vector<FieldDef>& out);     // fields_model.cpp
void AddWorkloadRows(std::vector<FieldDef>& out);  // fields_workload.cpp
void AddServingRows(std::vector<FieldDef>& out);   // fields_serving.cpp

}  // namespace llmmem::core::field_rows

// A whole number of the model: name, member of ModelSpec, UI group and label, range, -/+ steps, help.
#define LLMMEM_MODEL_INT(NAME, MEMBER, GROUP, LABEL, MIN, MAX, STEP, FAST, HELP)        \
  FieldDef {                                                                            \
    NAME, FieldKind::kInt, true, GROUP, LABEL, "", HELP, MIN, MAX, STEP, FAST, nullptr, \
        [](const Config& c) { return IntText(c.model.MEMBER); },                        \
        [](Config& c, const std::string& t) {                                           \
          int64_t v = 0;                                                                \
          auto e = ParseInt(t, v);                                                      \
          if (e.empty()) c.model.MEMBER = v;                                            \
          return e;                                                                     \
        },                                                                              \
        nullptr, [](const ModelSpec& m) { return static_cast<double>(m.MEMBER); }       \
  }
#define LLMMEM_MODEL_BOOL(NAME, MEMBER, GROUP, LABEL, HELP)                                             \
  FieldDef {                                                                                            \
    NAME, FieldKind::kBool, true, GROUP, LABEL, "", HELP, 0, 0, 0, 0, nullptr,                          \
        [](const Config& c) { return BoolText(c.model.MEMBER); }, [](Config& c, const std::string& t) { \
          bool v = false;                                                                               \
          auto e = ParseBool(t, v);                                                                     \
          if (e.empty()) c.model.MEMBER = v;                                                            \
          return e;                                                                                     \
        }                                                                                               \
  }
// A whole number of the workload: PATH is its place in Config ("batch", "quant.group_size").
#define LLMMEM_INT_AT(NAME, PATH, MEMBER_PTR, GROUP, LABEL, UNIT, MIN, MAX, STEP, FAST, HELP)     \
  FieldDef {                                                                                      \
    NAME, FieldKind::kInt, false, GROUP, LABEL, UNIT, HELP, MIN, MAX, STEP, FAST, nullptr,        \
        [](const Config& c) { return IntText(c.PATH); },                                          \
        [](Config& c, const std::string& t) {                                                     \
          int64_t v = 0;                                                                          \
          auto e = ParseInt(t, v);                                                                \
          if (e.empty()) c.PATH = v;                                                              \
          return e;                                                                               \
        },                                                                                        \
        [](const Config& c) { return static_cast<double>(c.PATH); }, nullptr, nullptr, MEMBER_PTR \
  }
// A Config member (the range check reads it directly) or a value deeper in (quant.*).
#define LLMMEM_INT(NAME, PATH, ...) LLMMEM_INT_AT(NAME, PATH, &Config::PATH, __VA_ARGS__)
#define LLMMEM_NESTED_INT(NAME, PATH, ...) LLMMEM_INT_AT(NAME, PATH, nullptr, __VA_ARGS__)
// A real number of the workload; FORMAT is how the UI prints it.
#define LLMMEM_NUM(NAME, PATH, GROUP, LABEL, UNIT, MIN, MAX, STEP, FORMAT, HELP)          \
  FieldDef {                                                                              \
    NAME, FieldKind::kNumber, false, GROUP, LABEL, UNIT, HELP, MIN, MAX, STEP, 0, FORMAT, \
        [](const Config& c) { return NumText(c.PATH); },                                  \
        [](Config& c, const std::string& t) {                                             \
          double v = 0;                                                                   \
          auto e = ParseNumber(t, v);                                                     \
          if (e.empty()) c.PATH = v;                                                      \
          return e;                                                                       \
        },                                                                                \
        [](const Config& c) { return c.PATH; }, nullptr, &Config::PATH                    \
  }
#define LLMMEM_BOOL(NAME, PATH, GROUP, LABEL, HELP)                                             \
  FieldDef {                                                                                    \
    NAME, FieldKind::kBool, false, GROUP, LABEL, "", HELP, 0, 0, 0, 0, nullptr,                 \
        [](const Config& c) { return BoolText(c.PATH); }, [](Config& c, const std::string& t) { \
          bool v = false;                                                                       \
          auto e = ParseBool(t, v);                                                             \
          if (e.empty()) c.PATH = v;                                                            \
          return e;                                                                             \
        }                                                                                       \
  }
#define LLMMEM_DTYPE(NAME, PATH, GROUP, LABEL, HELP)                                                        \
  FieldDef {                                                                                                \
    NAME, FieldKind::kDtype, false, GROUP, LABEL, "", HELP, 0, 0, 0, 0, nullptr,                            \
        [](const Config& c) { return std::string(Info(c.PATH).id); }, [](Config& c, const std::string& t) { \
          Dtype d;                                                                                          \
          if (!ParseId(t, d)) return "\"" + t + "\" is not a format; one of: " + IdList<Dtype>();           \
          c.PATH = d;                                                                                       \
          return std::string();                                                                             \
        }                                                                                                   \
  }
// An enumerated setting of the workload (enum_table.h): ids, parser and the error message
// ("\"x\" is not WHAT; one of: a, b, c") come from its table; the help is HELP followed by
// A choice of the model from its enumeration's table (model/model_enums.h).
#define LLMMEM_MODEL_ENUM(NAME, MEMBER, GROUP, LABEL, HELP, WHAT)                                           \
  TextRow(                                                                                                  \
      NAME, FieldKind::kText, true, GROUP, LABEL,                                                           \
      Lasting(std::string(HELP) + IdList<decltype(ModelSpec::MEMBER)>(" or ")),                             \
      [](const Config& c) { return std::string(Id(c.model.MEMBER)); },                                      \
      [](Config& c, const std::string& t) {                                                                 \
        return ParseId(t, c.model.MEMBER) ? std::string() : NotOneOf<decltype(ModelSpec::MEMBER)>(t, WHAT); \
      })
// the choices ("pipeline schedule: " -> "pipeline schedule: 1f1b, interleaved or gpipe").
#define LLMMEM_ENUM(NAME, PATH, GROUP, LABEL, HELP, WHAT)                                      \
  TextRow(                                                                                     \
      NAME, FieldKind::kText, false, GROUP, LABEL,                                             \
      Lasting(std::string(HELP) + IdList<decltype(Config::PATH)>(" or ")),                     \
      [](const Config& c) { return std::string(Id(c.PATH)); },                                 \
      [](Config& c, const std::string& t) {                                                    \
        return ParseId(t, c.PATH) ? std::string() : NotOneOf<decltype(Config::PATH)>(t, WHAT); \
      })
