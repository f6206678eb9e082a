// The model beyond the preset picker (panel_questions.cpp): its dimensions (editable; a
// changed preset shows as "modified"), and the import of a Hugging Face config.json from
// the clipboard, a file, or a box to paste it into (core/hf_config.h, the same importer
// the presets go through).
#include <algorithm>
#include <cfloat>
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "core/model/model_enums.h"
#include "core/model/activation_fn.h"
#include "core/config/config_json.h"
#include "core/import/hf_config.h"
#include "core/catalogue/presets.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

// Imports the box's text as the model; true when it was imported.
bool ImportText(State& s, const char* text) {
  core::HfImport imported = core::ImportHfConfigText(text, Tr("imported model"));
  s.paste.last = imported.diagnostics;
  if (!imported.ok) return false;
  core::Config c = s.config;
  c.model = imported.model;
  c.model.preset.clear();
  core::Diagnostics notes;
  core::StartAtModelContext(c, notes);
  ApplyConfig(s, c, TrF("import %s", "config.json"));
  if (!notes.empty()) AddBanner(s, {core::Say("Import %s", {"config.json"}), {}, notes, false});
  return !core::HasErrors(s.paste.last);
}

}  // namespace

// "Paste config.json" reads the clipboard (hooks.read_clipboard: the text comes back
// through OpenPastedText); "Open file" is the platform's picker. Both fall back to the box.
void DrawImportButtons(State& s) {
  const bool paste = ImGui::SmallButton(Tr("Paste config.json"));
  MarkItem(s, "paste_config");
  if (paste) {
    s.paste.last.clear();
    if (s.hooks.read_clipboard) {
      s.hooks.read_clipboard();
    } else {
      s.paste.note.clear();
      s.paste.open = true;
    }
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", Tr("Import a model from its Hugging Face config.json, copied to the clipboard"));
  if (s.hooks.pick_file || s.hooks.list_dir) {
    ImGui::SameLine();
    const bool open = ImGui::SmallButton(Tr("Open file..."));
    MarkItem(s, "open_file");
#ifndef __EMSCRIPTEN__  // the page has the browser's picker; its wasm does not carry this dialog
    if (open && !s.hooks.pick_file) RequestFileBrowser(s);
#endif
    if (open && s.hooks.pick_file && !s.hooks.pick_file())
      AddBanner(s, {core::Say("Open file"), core::Say("this platform has no file picker"), {}, true});
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "%s",
          Tr("A config.json, a .safetensors or .gguf (only its header is read), or model.safetensors.index.json.\n"
             "You can also drop one anywhere on the page."));
  }
#ifndef __EMSCRIPTEN__
  DrawFileBrowser(s);
#endif
  if (s.paste.open) {
    ImGui::OpenPopup("###import_config");
    s.paste.open = false;
  }
  const ImVec2 center = ImGui::GetMainViewport()->GetCenter();
  ImGui::SetNextWindowPos(center, ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  const std::string title = TrF("Import %s", "config.json") + "###import_config";
  if (ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    const float em = ImGui::GetFontSize();
    const float w = std::min(em * 36, ImGui::GetMainViewport()->WorkSize.x - em * 3);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
    if (!s.paste.note.empty()) ImGui::TextColored(WarnColor(), "%s", s.paste.note.c_str());
    ImGui::TextUnformatted(Tr("Paste a model's config.json (from its Hugging Face page) here, with Ctrl+V:"));
    ImGui::PopTextWrapPos();
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    ImGui::InputTextMultiline("##json", s.paste.text.data(), s.paste.text.size(), ImVec2(w, em * 14));
    MarkItem(s, "paste_box");
    for (const core::Diagnostic& d : s.paste.last) {
      ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
      ImGui::TextColored(d.severity == core::Severity::kError ? BadColor() : WarnColor(), "%s%s%s", d.field.c_str(),
                         d.field.empty() ? "" : ": ", d.message.c_str());
      ImGui::PopTextWrapPos();
    }
    const bool import = ImGui::Button(Tr("Import"));
    MarkItem(s, "paste_import");
    if (import && ImportText(s, s.paste.text.data())) ImGui::CloseCurrentPopup();
    ImGui::SameLine();
    if (ImGui::Button(Tr("Cancel"))) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

namespace {

// The rarer architecture fields (biases, norms, positions, MLA, sliding windows), folded
// away: presets and config.json imports set them; custom models can too.
void MoreArchitecture(State& s, core::ModelSpec& m) {
  if (!ImGui::TreeNode(Tr("More architecture"))) return;
  bool encoder = m.arch == core::Arch::kEncoder;
  if (FieldBool(s, "arch", &encoder)) {
    m.arch = encoder ? core::Arch::kEncoder : core::Arch::kDecoder;
  }
  FieldBool(s, "qkv_bias", &m.qkv_bias);
  FieldBool(s, "fused_qkv", &m.fused_qkv);
  FieldBool(s, "attn_out_bias", &m.attn_out_bias);
  FieldBool(s, "mlp_bias", &m.mlp_bias);
  FieldInt(s, "norms_per_layer", &m.norms_per_layer);
  FieldEnum(s, "qk_norm", &m.qk_norm);
  FieldBool(s, "final_norm", &m.final_norm);
  FieldInt(s, "learned_positions", &m.learned_positions);
  FieldInt(s, "type_vocab", &m.type_vocab);
  FieldBool(s, "embedding_norm", &m.embedding_norm);
  FieldBool(s, "pooler", &m.pooler);
  FieldInt(s, "max_positions", &m.max_positions);
  FieldInt(s, "sliding_window", &m.sliding_window);
  if (m.sliding_window > 0) FieldInt(s, "sliding_layers", &m.sliding_layers);
  FieldInt(s, "kv_lora_rank", &m.kv_lora_rank);
  if (m.kv_lora_rank > 0) {
    FieldInt(s, "q_lora_rank", &m.q_lora_rank);
    FieldInt(s, "qk_nope_dim", &m.qk_nope_dim);
    FieldInt(s, "qk_rope_dim", &m.qk_rope_dim);
    FieldInt(s, "v_head_dim", &m.v_head_dim);
  }
  ImGui::TreePop();
}

void Dimensions(State& s) {
  core::ModelSpec& m = s.config.model;
  // Open the section when one of its inputs has an error, so the red input is visible.
  for (const core::Diagnostic& d : s.estimate.diagnostics)
    if (d.severity == core::Severity::kError && d.field.compare(0, 6, "model.") == 0) ImGui::SetNextItemOpen(true);
  if (!ImGui::CollapsingHeader(Tr("Model dimensions"))) return;
  const core::ParamCounts c = core::CountParameters(m);
  ImGui::TextDisabled(Tr("%s parameters (%s)"), core::FormatParams(static_cast<double>(c.total)).c_str(),
                      core::FormatCount(c.total).c_str());
  FieldInt(s, "vocab", &m.vocab);
  const core::ModelSpec before = m;
  bool head_shape_edited = FieldInt(s, "hidden", &m.hidden);
  FieldInt(s, "layers", &m.layers);
  head_shape_edited |= FieldInt(s, "heads", &m.heads);
  if (head_shape_edited) {
    // The core's rule for every input: head_dim follows hidden / heads (kept when they do
    // not divide; the field below shows it, and can be set after), kv_heads follows heads.
    core::Diagnostics kept;
    core::DeriveDependentDims(m, before, core::ModelDimsGiven{}, kept);
  }
  FieldInt(s, "kv_heads", &m.kv_heads);
  FieldInt(s, "head_dim", &m.head_dim);
  FieldInt(s, "ffn", &m.ffn);
  FieldEnum(s, "mlp", &m.mlp);
  FieldEnum(s, "act", &m.act);
  FieldEnum(s, "norm", &m.norm);
  FieldBool(s, "tied_embeddings", &m.tied_embeddings);
  FieldInt(s, "experts", &m.experts);
  if (m.experts > 0) {
    FieldInt(s, "experts_per_token", &m.experts_per_token);
    FieldInt(s, "moe_ffn", &m.moe_ffn);
    FieldInt(s, "shared_experts", &m.shared_experts);
    FieldInt(s, "shared_ffn", &m.shared_ffn);
    FieldInt(s, "dense_layers", &m.dense_layers);
  }
  FieldInt(s, "params_override", &m.params_override);
  MoreArchitecture(s, m);
}

}  // namespace

void DrawModelInputs(State& s) { Dimensions(s); }

}  // namespace llmmem::app
