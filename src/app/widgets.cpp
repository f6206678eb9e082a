// Form widgets; see widgets.h.
#include "app/widgets.h"

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>

#include "app/i18n.h"
#include "app/input_math.h"
#include "app/theme.h"
#include "core/config/fields.h"
#include "core/config/stacks.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

constexpr float kLabelEm = 10.5f;  // label column width, in font heights

// The field's one help text (its row in core/fields.h, as --help prints it).
const char* FieldHelp(const char* field) {
  const core::FieldDef* f = core::FindField(field);
  return f != nullptr ? f->help : nullptr;
}

// The label a field shows: the caller's (already translated, for a label that depends on
// the context) or its row's "label, unit", translated (app/strings.cpp keys on that text).
std::string FieldLabel(const char* field, const char* label) {
  if (label != nullptr) return label;
  const core::FieldDef* f = core::FindField(field);
  if (f == nullptr) return field;
  const std::string en = f->LabelWithUnit();
  return Tr(en.c_str());
}

bool HasError(const std::vector<const core::Diagnostic*>& diags) {
  for (const core::Diagnostic* d : diags)
    if (d->severity == core::Severity::kError) return true;
  return false;
}

// Pushes a red frame when the field has an error; returns the number of colours pushed.
int PushFlag(const std::vector<const core::Diagnostic*>& diags) {
  if (!HasError(diags)) return 0;
  const ImVec4 bad = BadColor();
  ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(bad.x, bad.y, bad.z, 0.28f));
  ImGui::PushStyleColor(ImGuiCol_Border, bad);
  ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 1.0f);
  return 2;
}

void PopFlag(int pushed) {
  if (pushed == 0) return;
  ImGui::PopStyleVar();
  ImGui::PopStyleColor(pushed);
}

// The messages under the input, errors red, warnings amber, notes dim.
void Messages(const std::vector<const core::Diagnostic*>& diags) {
  for (const core::Diagnostic* d : diags) {
    const ImVec4 c = d->severity == core::Severity::kError     ? BadColor()
                     : d->severity == core::Severity::kWarning ? WarnColor()
                                                               : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    ImGui::PushStyleColor(ImGuiCol_Text, c);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(d->message.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
}

std::string Id(const char* field) { return std::string("##") + field; }

// A field changed: recompute, and name the undo step after the first field edited.
void Changed(State& s, const char* label) {
  s.dirty = true;
  if (s.pending_label.empty()) s.pending_label = label;
}

}  // namespace

void RowLabel(const char* label) {
  // The input goes beside its label when the label fits the label column and the column
  // leaves the input room; under it otherwise (long labels, a phone), never over it.
  const float column = ImGui::GetFontSize() * kLabelEm;
  const float text = ImGui::CalcTextSize(label, nullptr, true).x;
  const float avail = ImGui::GetContentRegionAvail().x;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted(label);
  if (text + ImGui::GetStyle().ItemSpacing.x <= column && avail >= column * 1.8f) ImGui::SameLine(column);
  ImGui::SetNextItemWidth(-FLT_MIN);
}

void FlowSameLine(float width) {
  ImGui::SameLine();
  if (ImGui::GetCursorPosX() + width > ImGui::GetWindowContentRegionMax().x) ImGui::NewLine();
}

float ButtonWidth(const char* label) {
  return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
}

void MarkItem(State& s, const char* name) {
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  // Whether all of it is drawn: inside the clip rect of its window (or table cell), so a test
  // can tell an answer on screen from one scrolled past or cut off.
  const ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 ca = dl->GetClipRectMin(), cb = dl->GetClipRectMax();
  // (A Selectable's rect reaches half the item spacing past it.)
  const ImVec2 pad(ImGui::GetStyle().ItemSpacing.x * 0.5f + 1, ImGui::GetStyle().ItemSpacing.y * 0.5f + 1);
  const bool whole = a.x >= ca.x - pad.x && a.y >= ca.y - pad.y && b.x <= cb.x + pad.x && b.y <= cb.y + pad.y;
  for (ItemMark& m : s.marks)
    if (m.name == name) {
      m = {name, a.x, a.y, b.x - a.x, b.y - a.y, whole};
      return;
    }
  s.marks.push_back({name, a.x, a.y, b.x - a.x, b.y - a.y, whole});
}

void FieldTooltip(const State& s, const char* field, const char* help) {
  if (!ImGui::IsItemHovered()) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28);
  if (help == nullptr) help = FieldHelp(field);
  if (help != nullptr) ImGui::TextUnformatted(help);
  if (const core::FieldDef* f = core::FindField(field); f != nullptr && f->Numeric()) {
    const std::string max = core::FormatNumber(f->max, 3) + (f->unit[0] ? std::string(" ") + f->unit : "");
    ImGui::TextDisabled(Tr("%s: %s to %s"), field, core::FormatNumber(f->min, 3).c_str(), max.c_str());
  } else {
    ImGui::TextDisabled("%s", field);
  }
  Messages(DiagnosticsFor(s, field));
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

namespace {

// A number field at a value that stands for something ("0" for "all prompts at once", "-1"
// for "all": FieldDef::SpecialMeaning) says so inside its frame, after the number, while it
// is not being edited, so a newcomer never reads a bare 0 (issue 32).
void SpecialValueHint(const core::FieldDef* f, double value, double text_width_of_number, int step_buttons) {
  if (f == nullptr || ImGui::IsItemActive()) return;
  const std::string meaning = f->SpecialMeaning(value);
  if (meaning.empty()) return;
  const ImGuiStyle& style = ImGui::GetStyle();
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  const float buttons = static_cast<float>(step_buttons) * (ImGui::GetFrameHeight() + style.ItemInnerSpacing.x);
  const float right = b.x - buttons - style.FramePadding.x;
  const float x = a.x + style.FramePadding.x + static_cast<float>(text_width_of_number) + ImGui::CalcTextSize(" ").x;
  if (x >= right) return;
  // Too long for the frame: whole words and "...", never a word cut (the tooltip has it all).
  // Chinese has no spaces between words: whole characters then ("= 所有提示..."), where a cut
  // at spaces would leave nothing and the bare 0 this hint is for.
  std::string body = Tr(meaning.c_str());
  const bool spaced = body.find(' ') != std::string::npos;
  std::string text = "= " + body;
  while (ImGui::CalcTextSize(text.c_str()).x > right - x) {
    if (spaced) {
      const size_t space = body.find_last_of(' ');
      if (space == std::string::npos || space == 0) return;
      body.resize(space);
    } else {
      // The last character goes (its lead byte and UTF-8 continuation bytes); one Latin word
      // ("head_dim") is never cut.
      if (body.empty() || static_cast<unsigned char>(body.back()) < 0x80) return;
      size_t start = body.size() - 1;
      while (start > 0 && (static_cast<unsigned char>(body[start]) & 0xC0) == 0x80) --start;
      body.resize(start);
      if (body.empty()) return;
    }
    text = "= " + body + "...";
  }
  ImGui::GetWindowDrawList()->PushClipRect(ImVec2(x, a.y), ImVec2(right, b.y), true);
  ImGui::GetWindowDrawList()->AddText(ImVec2(x, a.y + style.FramePadding.y), ImGui::GetColorU32(ImGuiCol_TextDisabled),
                                      text.c_str());
  ImGui::GetWindowDrawList()->PopClipRect();
}

// What every setting's widget does around the widget itself: it is recorded as shown, gets
// its label (as a row label unless `row_label` is false: a checkbox carries its own), a red
// frame when it has diagnostics, a mark for scripted tests, its tooltip and messages, and an
// undo step when it changed. `draw(label)` makes the widget and says whether it changed.
template <class Draw>
bool FieldFrame(State& s, const char* field, const char* label_override, const char* help, bool row_label,
                Draw&& draw) {
  s.shown_fields.push_back(field);
  const auto diags = DiagnosticsFor(s, field);
  const std::string label = FieldLabel(field, label_override);
  if (row_label) RowLabel(label.c_str());
  const int pushed = PushFlag(diags);
  const core::FieldDef* def = core::FindField(field);
  const std::string was = def != nullptr ? def->get(s.config) : std::string();
  const bool changed = draw(label);
  PopFlag(pushed);
  MarkItem(s, field);
  FieldTooltip(s, field, help);
  Messages(diags);
  if (changed && def != nullptr) {
    // The fields still at their defaults follow the program's for the new value, as the CLI,
    // JSON and links do (core/config/stacks.h FollowDefaults): FSDP on gives accelerate's FSDP1.
    core::Config before = s.config;
    def->set(before, was);
    core::FollowDefaults(s.config, before, {def->name});
  }
  if (changed) Changed(s, label.c_str());
  return changed;
}

}  // namespace

bool FieldInt(State& s, const char* field, int64_t* v, const char* label_override) {
  return FieldFrame(s, field, label_override, nullptr, true, [&](const std::string&) {
    const core::FieldDef* f = core::FindField(field);
    const int64_t step = f != nullptr ? static_cast<int64_t>(f->step) : 0;
    const int64_t step_fast = f != nullptr ? static_cast<int64_t>(f->step_fast) : 0;
    const bool changed = ImGui::InputScalar(Id(field).c_str(), ImGuiDataType_S64, v, step > 0 ? &step : nullptr,
                                            step_fast > 0 ? &step_fast : nullptr, "%lld");
    SpecialValueHint(f, static_cast<double>(*v), ImGui::CalcTextSize(std::to_string(*v).c_str()).x, step > 0 ? 2 : 0);
    return changed;
  });
}

bool FieldIntDivisor(State& s, const char* field, int64_t* v, int64_t divides, const char* label_override) {
  return FieldFrame(s, field, label_override, nullptr, true, [&](const std::string&) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float button = ImGui::GetFrameHeight();
    ImGui::BeginGroup();
    ImGui::PushID(field);
    ImGui::SetNextItemWidth(
        std::max(button, ImGui::GetContentRegionAvail().x - 2 * (button + style.ItemInnerSpacing.x)));
    bool changed = ImGui::InputScalar("##v", ImGuiDataType_S64, v, nullptr, nullptr, "%lld");
    const core::FieldDef* row = core::FindField(field);
    const int64_t max = row != nullptr && row->Numeric() ? static_cast<int64_t>(row->max) : 1 << 20;
    for (int dir : {-1, +1}) {  // steps through divisors only
      ImGui::SameLine(0, style.ItemInnerSpacing.x);
      ImGui::PushButtonRepeat(true);
      if (ImGui::Button(dir < 0 ? "-" : "+", ImVec2(button, button))) {
        const int64_t next = NextDivisor(divides, *v, dir, max);
        if (next != *v) {
          *v = next;
          changed = true;
        }
      }
      ImGui::PopButtonRepeat();
    }
    ImGui::PopID();
    ImGui::EndGroup();
    return changed;
  });
}

bool FieldDouble(State& s, const char* field, double* v, const char* label_override) {
  return FieldFrame(s, field, label_override, nullptr, true, [&](const std::string&) {
    const core::FieldDef* f = core::FindField(field);
    const double step = f != nullptr ? f->step : 0;
    const char* format = f != nullptr && f->format != nullptr ? f->format : "%.2f";
    const bool changed =
        ImGui::InputScalar(Id(field).c_str(), ImGuiDataType_Double, v, step > 0 ? &step : nullptr, nullptr, format);
    char shown[64];
    std::snprintf(shown, sizeof shown, format, *v);
    SpecialValueHint(f, *v, ImGui::CalcTextSize(shown).x, step > 0 ? 2 : 0);
    return changed;
  });
}

bool FieldBool(State& s, const char* field, bool* v, const char* label_override, const char* help) {
  return FieldFrame(s, field, label_override, help, false,
                    [&](const std::string& label) { return ImGui::Checkbox(label.c_str(), v); });
}

bool FieldCombo(State& s, const char* field, int* index, int count, const char* (*names)(int), const char* help,
                const char* label_override) {
  std::vector<const char*> list;
  for (int i = 0; i < count; ++i) list.push_back(names(i));
  return FieldCombo(s, field, index, list, help, label_override);
}

bool FieldCombo(State& s, const char* field, int* index, const std::vector<const char*>& names, const char* help,
                const char* label_override) {
  return FieldFrame(s, field, label_override, help, true, [&](const std::string&) {
    bool changed = false;
    const int count = static_cast<int>(names.size());
    const char* preview = *index >= 0 && *index < count ? names[static_cast<size_t>(*index)] : nullptr;
    if (preview == nullptr) preview = "?";
    if (ImGui::BeginCombo(Id(field).c_str(), preview)) {
      for (int i = 0; i < count; ++i) {
        const char* n = names[static_cast<size_t>(i)];
        if (n == nullptr) continue;  // filtered out
        const bool selected = i == *index;
        const bool picked = ImGui::Selectable(n, selected);
        MarkItem(s, (std::string(field) + "_" + std::to_string(i)).c_str());  // tests pick by index
        if (picked) {
          changed = *index != i;
          *index = i;
        }
        if (selected) ImGui::SetItemDefaultFocus();
      }
      ImGui::EndCombo();
    }
    return changed;
  });
}

}  // namespace llmmem::app
