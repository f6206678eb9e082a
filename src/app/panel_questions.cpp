// The first thing on screen: three questions a newcomer can answer in ten seconds.
//   Which model?  a searchable preset picker (type, arrows, Enter picks), a config.json
//                 from the clipboard or a file (or dropped anywhere)
//   What for?     run it, fine-tune with LoRA / QLoRA, train it all, RLHF
//   Which GPU?    the card from the catalogue, its memory as the device reports it
// Side by side on a wide window, one under the other on a narrow one. Choosing brings
// what people run with it (ui_defaults.h: PEFT's gradient checkpointing, the format a
// checkpoint ships in).
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/ui_defaults.h"
#include "app/widgets.h"
#include "core/config/model_changes.h"
#include "core/catalogue/gpus.h"
#include "core/config/gpu_count.h"
#include "core/config/stacks.h"
#include "core/solve/serve_fit.h"
#include "core/catalogue/presets.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

bool ContainsNoCase(const std::string& hay, const char* needle) {
  if (*needle == 0) return true;
  const size_t n = std::strlen(needle);
  for (size_t i = 0; i + n <= hay.size(); ++i) {
    size_t k = 0;
    while (k < n &&
           std::tolower(static_cast<unsigned char>(hay[i + k])) == std::tolower(static_cast<unsigned char>(needle[k])))
      ++k;
    if (k == n) return true;
  }
  return false;
}

void Question(const char* text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_Text));
  ImGui::TextUnformatted(text);
  ImGui::PopStyleColor();
}

// A popup list's search box (the model and GPU pickers): typing filters, Up/Down move the
// highlight, Enter picks it. On opening, the current entry is highlighted and the box has
// the keyboard; Escape closes the list. `moved`: the highlight changed, so its row should
// scroll into view.
struct ListSearch {
  char text[64] = "";
  int highlight = 0;
};

bool SearchBox(ListSearch& q, const char* hint, int matches, int current, bool& moved) {
  moved = ImGui::IsWindowAppearing();
  if (moved) {
    q.highlight = std::max(current, 0);
    ImGui::SetKeyboardFocusHere();
  }
  ImGui::SetNextItemWidth(-FLT_MIN);
  const bool enter = ImGui::InputTextWithHint("##filter", hint, q.text, sizeof q.text, ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::IsItemEdited()) q.highlight = 0;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow))) {
    ++q.highlight;
    moved = true;
  }
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))) {
    --q.highlight;
    moved = true;
  }
  q.highlight = std::max(0, std::min(q.highlight, matches - 1));
  // Escape closes the list at once; ImGui's box would take the first press for itself.
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  return enter && matches > 0;
}

// The searchable model list, by name, family, Hugging Face id or key.
void ModelPicker(State& s) {
  static ListSearch search;
  core::ModelSpec& m = s.config.model;
  const core::Preset* current = m.preset.empty() ? nullptr : core::FindPreset(m.preset);
  std::string preview = m.name;
  if (current == nullptr) {
    preview += Tr(" (custom)");
  } else if (core::IsCustomised(m)) {  // the core's one answer (CLI, links, JS API alike)
    preview += Tr(" (modified)");
  }
  ImGui::SetNextItemWidth(-FLT_MIN);
  const bool open = ImGui::BeginCombo("##model", preview.c_str(), ImGuiComboFlags_HeightLarge);
  MarkItem(s, "model");
  if (!open) {
    search.text[0] = 0;  // each opening starts from the whole list
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", Tr("A model from the catalogue (its Hugging Face config.json); type to search"));
    return;
  }
  const std::vector<core::Preset>& presets = core::Presets();
  const char* filter = search.text;
  std::vector<int> matches;
  int at_current = -1;
  for (int i = 0; i < static_cast<int>(presets.size()); ++i) {
    const core::Preset& p = presets[static_cast<size_t>(i)];
    if (!p.ok) continue;
    if (ContainsNoCase(p.name, filter) || ContainsNoCase(p.family, filter) || ContainsNoCase(p.hf_id, filter) ||
        ContainsNoCase(p.key, filter)) {
      if (&p == current) at_current = static_cast<int>(matches.size());
      matches.push_back(i);
    }
  }
  bool moved = false;
  const bool enter =
      SearchBox(search, Tr("search name, family or HF id; Enter picks"), static_cast<int>(matches.size()), at_current, moved);
  const core::Preset* picked = nullptr;
  if (enter) picked = &presets[static_cast<size_t>(matches[static_cast<size_t>(search.highlight)])];
  if (matches.empty()) ImGui::TextDisabled("%s", Tr("No model matches; paste its config.json instead."));
  const std::string* family = nullptr;
  for (int k = 0; k < static_cast<int>(matches.size()); ++k) {
    const core::Preset& p = presets[static_cast<size_t>(matches[static_cast<size_t>(k)])];
    if (family == nullptr || *family != p.family) {
      family = &p.family;
      ImGui::TextDisabled("%s", p.family.c_str());
    }
    ImGui::Indent();
    std::string label = p.name;
    if (&p == current) label += Tr("  (current)");
    if (ImGui::Selectable(label.c_str(), k == search.highlight)) picked = &p;
    if (k == search.highlight && moved) ImGui::SetScrollHereY();
    if (ImGui::IsItemHovered()) {
      const core::ParamCounts c = core::CountParameters(p.model);
      ImGui::SetTooltip("%s\n%s %s (%s)", p.hf_id.c_str(), core::FormatParams(static_cast<double>(c.total)).c_str(),
                        Tr("parameters"), core::FormatCount(c.total).c_str());
    }
    ImGui::Unindent();
  }
  if (picked != nullptr) {
    core::Config c = s.config;
    PickPreset(c, *picked);
    ApplyConfig(s, c, std::string(Tr("model")) + " " + picked->name);
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndCombo();
}

// "What for?": in the order newcomers ask, each with what it means.
struct Purpose {
  core::Mode mode;
  const char* label;
  const char* help;
};
constexpr Purpose kPurposes[] = {
    {core::Mode::kInference, "Run it (inference, serving)",
     "Generate text: the weights, the KV cache of every sequence, the prefill's workspace."},
    {core::Mode::kLora, "Fine-tune with LoRA",
     "Train small adapters on a frozen 16-bit model, as the HF Trainer runs it by default (no gradient checkpointing)."},
    {core::Mode::kQlora, "Fine-tune with QLoRA (4-bit)",
     "LoRA on a base stored in 4-bit NF4 (bitsandbytes), with gradient checkpointing as PEFT's prepare_model_for_kbit_training turns it on."},
    {core::Mode::kTraining, "Train every weight",
     "Full fine-tuning or pre-training: weights, gradients, optimizer states, activations."},
    {core::Mode::kRlhf, "RLHF (PPO, GRPO, DPO)",
     "A trained policy with its reference, critic and reward models, and a rollout engine."},
};

void PurposePicker(State& s) {
  int current = 0;
  for (int i = 0; i < 5; ++i)
    if (kPurposes[i].mode == s.config.mode) current = i;
  ImGui::SetNextItemWidth(-FLT_MIN);
  const bool open = ImGui::BeginCombo("##purpose", Tr(kPurposes[current].label));
  MarkItem(s, "purpose");
  if (!open) {
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(kPurposes[current].help));
    return;
  }
  for (int i = 0; i < 5; ++i) {
    const bool picked = ImGui::Selectable(Tr(kPurposes[i].label), i == current);
    MarkItem(s, (std::string("purpose_") + core::Id(kPurposes[i].mode)).c_str());
    if (picked && i != current) {
      core::Config c = s.config;
      SwitchMode(c, kPurposes[i].mode);
      ApplyConfig(s, c, Tr(kPurposes[i].label));
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", Tr(kPurposes[i].help));
  }
  ImGui::EndCombo();
}

// The GPU list (issue 32: 58 cards and no search), searchable by key, name or vendor as the
// model list is: "4090", "h100", "apple", "96".
void GpuPicker(State& s) {
  static ListSearch search;
  core::Config& c = s.config;
  const core::Gpu* current = core::FindGpu(c.gpu);
  char preview[96];
  if (current != nullptr) {
    std::snprintf(preview, sizeof preview, "%s", current->key.c_str());
  } else {
    std::snprintf(preview, sizeof preview, "%s (%.1f GB)", Tr("custom"), c.gpu_memory_gb);
  }
  ImGui::SetNextItemWidth(-FLT_MIN);
  const bool open = ImGui::BeginCombo("##gpu", preview, ImGuiComboFlags_HeightLarge);
  MarkItem(s, "gpu");
  s.shown_fields.push_back("gpu");
  if (!open) {
    search.text[0] = 0;
    if (ImGui::IsItemHovered() && current != nullptr) {
      ImGui::BeginTooltip();
      DrawGpuInfo(*current);
      ImGui::EndTooltip();
    }
    return;
  }
  std::vector<const core::Gpu*> matches;
  int at_current = -1;
  for (const core::Gpu& g : core::Gpus()) {
    if (!ContainsNoCase(g.key, search.text) && !ContainsNoCase(g.name, search.text) && !ContainsNoCase(g.vendor, search.text))
      continue;
    if (&g == current) at_current = static_cast<int>(matches.size());
    matches.push_back(&g);
  }
  bool moved = false;
  const bool enter =
      SearchBox(search, Tr("search card, vendor or memory; Enter picks"), static_cast<int>(matches.size()), at_current, moved);
  MarkItem(s, "gpu_search");
  const core::Gpu* picked = enter ? matches[static_cast<size_t>(search.highlight)] : nullptr;
  if (matches.empty()) ImGui::TextWrapped("%s", Tr("No GPU matches; set another card's memory under GPU memory."));
  const std::string* vendor = nullptr;
  for (int k = 0; k < static_cast<int>(matches.size()); ++k) {
    const core::Gpu& g = *matches[static_cast<size_t>(k)];
    if (vendor == nullptr || *vendor != g.vendor) {
      vendor = &g.vendor;
      ImGui::TextDisabled("%s", g.vendor.c_str());
    }
    char label[128];
    std::snprintf(label, sizeof label, "%s  (%.0f GB)%s", g.key.c_str(), g.memory_gb, &g == current ? Tr("  (current)") : "");
    if (ImGui::Selectable(label, k == search.highlight)) picked = &g;
    MarkItem(s, ("gpu_" + g.key).c_str());
    if (k == search.highlight && moved) ImGui::SetScrollHereY();
    if (ImGui::IsItemHovered()) {
      ImGui::BeginTooltip();
      DrawGpuInfo(g);
      ImGui::EndTooltip();
    }
  }
  if (picked != nullptr) {
    if (picked != current) {
      core::Config k = c;
      core::SelectGpu(k, *picked);
      ApplyConfig(s, k, std::string(Tr("GPU")) + " " + picked->key);
    }
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndCombo();
}

void ModelCell(State& s) {
  Question(Tr("Which model?"));
  ModelPicker(s);
  const core::ParamCounts counts = core::CountParameters(s.config.model);
  ImGui::TextDisabled("%s %s", core::FormatParams(static_cast<double>(counts.total)).c_str(), Tr("parameters"));
  ImGui::SameLine();
  DrawImportButtons(s);
  DrawHubBox(s);
}

// "With which program?" (issue 30): the training program and its version, whose defaults the
// mechanism settings start from (core/config/stacks.h). Picking one moves only the settings
// still at the old program's defaults, as --stack does in the CLI (FollowStack).
void PickStack(State& s, const std::string& stack, const char* label) {
  core::Config c = s.config;
  const std::string old = c.stack;
  c.stack = stack;
  core::FollowStack(c, old, c.mode);
  ApplyConfig(s, c, std::string(Tr("Training program")) + " " + label);
}

// `labelled`: a "Program" label before it (its own row); without, it shares the question's row
// (the one-column layout of a phone, where a row more pushes the verdict off the first screen).
void StackPicker(State& s, bool labelled) {
  const std::string& stack = s.config.stack;
  const size_t at = stack.find('@');
  const std::string name = stack.substr(0, at);
  const std::string version = at == std::string::npos ? std::string() : stack.substr(at + 1);
  const core::StackRow* row = core::FindStack(stack);
  if (labelled) {
    ImGui::TextUnformatted(Tr("Program"));
    ImGui::SameLine();
  }
  const float version_width = ImGui::GetFontSize() * 5.5f;
  ImGui::SetNextItemWidth(-version_width - ImGui::GetStyle().ItemSpacing.x);
  const bool open = ImGui::BeginCombo("##stack", row != nullptr ? row->label : stack.c_str(), ImGuiComboFlags_HeightLarge);
  MarkItem(s, "stack");
  s.shown_fields.push_back("stack");
  if (!open && ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", Tr("The program you train with: its defaults fill checkpointing, the attention kernel, the "
                               "optimizer and sharding; what you set yourself stays."));
  if (open) {
    const char* last = "";
    for (const core::StackRow& r : core::StackRows()) {
      if (std::strcmp(r.name, last) == 0) continue;  // one item a program; its versions are beside
      last = r.name;
      if (ImGui::Selectable(r.label, name == r.name) && name != r.name) PickStack(s, r.name, r.label);
      MarkItem(s, (std::string("stack_") + r.name).c_str());
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(version_width);
  if (ImGui::BeginCombo("##stack_version", version.empty() ? Tr("latest") : version.c_str())) {
    if (ImGui::Selectable(Tr("latest"), version.empty()) && !version.empty()) PickStack(s, name, name.c_str());
    for (const core::StackRow& r : core::StackRows()) {
      if (name != r.name) continue;
      const std::string pinned = name + "@" + r.version;
      if (ImGui::Selectable(r.version, version == r.version) && version != r.version) PickStack(s, pinned, pinned.c_str());
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(Tr("the row that holds from %s on; a version between rows takes the earlier row"), r.version);
    }
    ImGui::EndCombo();
  }
  MarkItem(s, "stack_version");
}

void PurposeCell(State& s, bool compact) {
  const bool program = s.config.mode != core::Mode::kInference;
  Question(Tr("What for?"));
  if (program && compact) {
    ImGui::SameLine();
    StackPicker(s, false);
  }
  PurposePicker(s);
  for (const Purpose& p : kPurposes)
    if (p.mode == s.config.mode) {
      ImGui::PushTextWrapPos(0);
      ImGui::TextDisabled("%s", Tr(p.help));
      ImGui::PopTextWrapPos();
    }
  if (program && !compact) StackPicker(s, true);
}

// How many? (issue 32 part 2): the job's GPU count, dp x tp x pp x cp, asked beside the card
// rather than under Advanced > Parallelism. A count is taken as the CLI's --gpus and a link's
// gpus= are (core::ResolveGpuTotal); one the layout cannot split says why.
void GpuCount(State& s) {
  static std::string refused;  // why the last count typed was not taken
  int n = static_cast<int>(core::TotalGpus(s.config));
  ImGui::TextUnformatted(Tr("How many?"));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  const bool changed = ImGui::InputInt("##gpus", &n, 1, 8);
  MarkItem(s, "gpus");
  const bool inference = s.config.mode == core::Mode::kInference;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", inference ? Tr("Inference: one server over this many GPUs (vLLM and SGLang split each layer: "
                                           "tensor parallel; llama.cpp and HF device_map split the layers)")
                                      : Tr("Training: data-parallel replicas x tp x pp x cp"));
  s.shown_fields.push_back("dp");  // the count is dp x (tp x pp x cp): its control
  if (changed && n >= 1) {
    core::Config k = s.config;
    // As every door reads gpus = N (core::ResolveGpuTotal). Inference: the count replaces the
    // split, so it is one server over N GPUs (vLLM's --tensor-parallel-size N) whatever the
    // last count was; training: dp = N / (tp x pp x cp).
    if (inference) k.tp = k.pp = k.cp = 1;
    refused = core::ResolveGpuTotal(k, n);
    if (refused.empty()) ApplyConfig(s, k, std::string(Tr("GPUs")) + " " + std::to_string(n));
  }
  if (!refused.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(WarnColor(), "%s", refused.c_str());
    ImGui::PopTextWrapPos();
  }
}

void GpuCell(State& s) {
  Question(Tr("Which GPU?"));
  GpuPicker(s);
  ImGui::TextDisabled(Tr("%s GB as the device reports it"), core::FormatNumber(s.config.gpu_memory_gb, 1).c_str());
  GpuCount(s);
}

}  // namespace

void DrawQuestions(State& s, bool stacked) {
  if (stacked) {
    ModelCell(s);
    ImGui::Spacing();
    PurposeCell(s, true);
    ImGui::Spacing();
    GpuCell(s);
    return;
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_SizingStretchSame | ImGuiTableFlags_PadOuterX;
  if (!ImGui::BeginTable("questions", 3, flags)) return;
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ModelCell(s);
  ImGui::TableNextColumn();
  PurposeCell(s, false);
  ImGui::TableNextColumn();
  GpuCell(s);
  ImGui::EndTable();
}

}  // namespace llmmem::app
