// The field table's machinery (fields.h): the strict text parsers the rows use, the table
// assembled from its three row files, lookups, and the texts made from a row.
#include "core/config/fields.h"

#include <cmath>
#include <deque>
#include <utility>
#include <cstdlib>

#include "core/config/field_rows.h"
#include "core/parse/json.h"
#include "core/parse/number_text.h"
#include "core/base/safe_text.h"
#include "core/base/units.h"

namespace llmmem::core {
namespace field_rows {

std::string ParseBool(const std::string& text, bool& out) {
  if (text == "1" || text == "true" || text == "on" || text == "yes") {
    out = true;
    return {};
  }
  if (text == "0" || text == "false" || text == "off" || text == "no") {
    out = false;
    return {};
  }
  return "\"" + text + "\" is not true/false (1/0, on/off)";
}

// A deque never moves its strings, so the pointers stay valid for the program's life.
const char* Lasting(std::string text) {
  static std::deque<std::string> kept;
  kept.push_back(std::move(text));
  return kept.back().c_str();
}

std::string NumText(double v) { return FormatJsonNumber(v); }
std::string IntText(int64_t v) { return std::to_string(v); }
std::string BoolText(bool v) { return v ? "1" : "0"; }

}  // namespace field_rows

const char* GroupTitle(FieldGroup g) {
  switch (g) {
    case FieldGroup::kModel:
      return "Model dimensions";
    case FieldGroup::kArchitecture:
      return "More architecture";
    case FieldGroup::kWorkload:
      return "Workload";
    case FieldGroup::kMemorySavers:
      return "Memory savers";
    case FieldGroup::kParallelism:
      return "Parallelism";
    case FieldGroup::kPrecision:
      return "Precision";
    case FieldGroup::kOptimizer:
      return "Optimizer";
    case FieldGroup::kLora:
      return "LoRA adapters";
    case FieldGroup::kRlhf:
      return "RLHF";
    case FieldGroup::kServing:
      return "Serving";
    case FieldGroup::kSpeed:
      return "Speed";
    case FieldGroup::kOverheads:
      return "Overheads";
    case FieldGroup::kGpu:
      return "GPU memory";
    case FieldGroup::kCount:
      break;
  }
  return "?";
}

std::string FieldDef::RangeText() const {
  return FormatNumber(min, 3) + " to " + FormatNumber(max, 3) + (unit[0] != 0 ? std::string(" ") + unit : "");
}

std::string FieldDef::SpecialMeaning(double v) const {
  if (!Numeric() || v != static_cast<double>(static_cast<int64_t>(v))) return {};
  const std::string h = help, key = std::to_string(static_cast<int64_t>(v)) + ": ";
  for (const char* before : {"(", "; "}) {
    const size_t at = h.find(before + key);
    if (at == std::string::npos) continue;
    const size_t from = at + std::string(before).size() + key.size();
    const size_t to = h.find_first_of(")", from);
    return h.substr(from, to == std::string::npos ? std::string::npos : to - from);
  }
  return {};
}

std::string FieldDef::LabelWithUnit() const {
  return std::string(label) + (unit[0] != 0 ? std::string(", ") + unit : "");
}

const std::vector<FieldDef>& Fields() {
  static const std::vector<FieldDef> fields = [] {
    std::vector<FieldDef> rows;
    field_rows::AddModelRows(rows);
    field_rows::AddWorkloadRows(rows);
    field_rows::AddServingRows(rows);
    return rows;
  }();
  return fields;
}

const FieldDef* FindField(const std::string& name) {
  const std::string key = name.compare(0, 6, "model.") == 0 ? name.substr(6) : name;
  for (const FieldDef& f : Fields()) {
    if (key == f.name) return &f;
  }
  return nullptr;
}

namespace {

std::vector<const FieldDef*> RangeRows(bool model) {
  std::vector<const FieldDef*> out;
  for (const FieldDef& f : Fields())
    if (f.Numeric() && f.model_field == model) out.push_back(&f);
  return out;
}

}  // namespace

const std::vector<const FieldDef*>& ModelRangeFields() {
  static const std::vector<const FieldDef*> rows = RangeRows(true);
  return rows;
}

const std::vector<const FieldDef*>& ConfigRangeFields() {
  static const std::vector<const FieldDef*> rows = RangeRows(false);
  return rows;
}

}  // namespace llmmem::core
