// Form widgets shared by the input panels: a label column, the input, a tooltip with the
// field's range and help, and, when the estimate's
// diagnostics name the field, a red frame and the message under the input. Inputs edit
// the Config directly, so an invalid typed value is kept (validation never clamps).
// May include: imgui, core, app/state.h.
#pragma once

#include <cstdint>
#include <vector>

#include "app/i18n.h"
#include "app/state.h"
#include "core/base/enum_table.h"

namespace llmmem::app {

// Starts a labelled form row; the next widget fills the rest of the line.
void RowLabel(const char* label);

// Each draws the setting named `field` from its row of the field table (core/fields.h):
// label and unit (translated), steps, format, help and range all come from the row;
// `label` overrides the row's where the context names it otherwise (already translated).
// Each returns true when the value changed (and marks the state dirty).
bool FieldInt(State& s, const char* field, int64_t* v, const char* label = nullptr);
// An integer whose "-"/"+" buttons step through the divisors of `divides` only
// (input_math.h NextDivisor; 0: plain steps); a typed value is kept as typed (validation
// marks it when it does not divide).
bool FieldIntDivisor(State& s, const char* field, int64_t* v, int64_t divides, const char* label = nullptr);
bool FieldDouble(State& s, const char* field, double* v, const char* label = nullptr);
bool FieldBool(State& s, const char* field, bool* v, const char* label = nullptr, const char* help = nullptr);
// A combo over `count` items named by names(i); *index is the selected item.
bool FieldCombo(State& s, const char* field, int* index, int count, const char* (*names)(int),
                const char* help = nullptr, const char* label = nullptr);
// The same over named items; a null name is not offered (a filtered item).
bool FieldCombo(State& s, const char* field, int* index, const std::vector<const char*>& names,
                const char* help = nullptr, const char* label = nullptr);

template <typename Row>
auto ItemName(const Row& row, int) -> decltype(row.label) {
  return Tr(row.label);
}
template <typename Row>
const char* ItemName(const Row& row, long) {
  return row.id;
}

// A combo over an enumeration's table (core/enum_table.h): one item per row, named by its
// translated label (by its id where the table has no labels: activation functions);
// `keep` leaves rows out (the current value stays offered).
template <typename E>
bool FieldEnum(State& s, const char* field, E* value, bool (*keep)(const core::RowOf<E>&) = nullptr,
               const char* help = nullptr, const char* label = nullptr) {
  std::vector<const char*> names;
  // TableOf unqualified: found by argument-dependent lookup when instantiated.
  for (const core::RowOf<E>& row : TableOf(*value)) {
    const bool offered = keep == nullptr || keep(row) || row.value == *value;
    names.push_back(offered ? ItemName(row, 0) : nullptr);
  }
  int index = static_cast<int>(*value);
  if (!FieldCombo(s, field, &index, names, help, label)) return false;
  *value = static_cast<E>(index);
  return true;
}

// Puts the next item (of `width` pixels) on the current line when it fits there, else on
// the next line: rows of buttons and labels flow instead of running off a narrow window.
void FlowSameLine(float width);
// The width of a button labelled `label` (frame padding included).
float ButtonWidth(const char* label);

// Records the last item's rectangle under `name` for scripted tests (State::marks).
void MarkItem(State& s, const char* name);

// Tooltip for the last item: help text, range, diagnostics.
void FieldTooltip(const State& s, const char* field, const char* help);

}  // namespace llmmem::app
