// The table of every settable field, one row each: its name (JSON, URL, CLI), its kind,
// how to read and write it as text, and everything said about it anywhere: the one help
// text (--help, the UI's tooltip, range errors, the settings JSON), the allowed range
// (Validate), the UI's label, unit, steps and the group it is shown under. Adding a
// setting is one row here plus its use in the accounting. Rows: fields_model.cpp and
// fields_workload.cpp (their helpers: field_rows.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/config.h"

namespace llmmem::core {

enum class FieldKind { kInt, kNumber, kBool, kDtype, kLoraTargets, kText };

// Where the UI shows a field (and the headings of --help), in display order.
enum class FieldGroup : uint8_t {
  kModel,
  kArchitecture,
  kWorkload,
  kMemorySavers,
  kParallelism,
  kPrecision,
  kOptimizer,
  kLora,
  kRlhf,
  kServing,
  kSpeed,
  kOverheads,
  kGpu,
  kCount
};
const char* GroupTitle(FieldGroup g);  // "Model dimensions", "Parallelism", ...

struct FieldDef {
  const char* name;  // "batch", "hidden"
  FieldKind kind;
  bool model_field;  // lives in Config::model (JSON: under "model")
  FieldGroup group;
  const char* label;       // the UI's label, in English (app/strings.cpp translates "label, unit")
  const char* unit;        // "GB", "%", "tokens"; "" when none
  const char* help;        // the one description of the field
  double min, max;         // numeric kinds: the allowed range, checked by Validate (never clamped)
  double step, step_fast;  // numeric kinds: the UI's -/+ steps (0: no buttons)
  const char* format;      // kNumber: how the UI prints it ("%.2f")
  std::string (*get)(const Config&);
  // Parses and stores; on failure returns the message (what is allowed), else empty.
  std::string (*set)(Config&, const std::string&);
  // Numeric kinds: the value, for the range check (one of the two; the model's alone so
  // the per-model cache can check a ModelSpec without a Config).
  double (*config_number)(const Config&);
  double (*model_number)(const ModelSpec&);
  // The same value as a Config member the range check reads without a call (every estimate
  // validates: the fit map's thousand cells call it); null where the value sits deeper
  // (quant.*), which config_number reads.
  double Config::*num_member = nullptr;
  int64_t Config::*int_member = nullptr;

  bool Numeric() const { return kind == FieldKind::kInt || kind == FieldKind::kNumber; }
  double ConfigNumber(const Config& c) const {
    return int_member != nullptr   ? static_cast<double>(c.*int_member)
           : num_member != nullptr ? c.*num_member
                                   : config_number(c);
  }
  double Number(const Config& c) const { return model_number ? model_number(c.model) : ConfigNumber(c); }
  bool InRange(double v) const { return v >= min && v <= max; }  // NaN is not
  // "0 to 100 GB": the range as --help, tooltips and range errors print it.
  std::string RangeText() const;
  // "Memory, GB": the label with its unit, the text the UI shows and translates.
  std::string LabelWithUnit() const;
  // What a special value stands for, as the help says it ("(0: none)", "; 0: all prompts at
  // once", "(-1: all)"): "none", "all prompts at once"; "" when the help gives `v` no meaning.
  std::string SpecialMeaning(double v) const;
};

const std::vector<FieldDef>& Fields();
const FieldDef* FindField(const std::string& name);  // accepts "model.hidden" too
// The numeric rows of the model (ranged on a ModelSpec) and of the rest, for Validate.
const std::vector<const FieldDef*>& ModelRangeFields();
const std::vector<const FieldDef*>& ConfigRangeFields();

}  // namespace llmmem::core
