// The model box's Hugging Face part (issue 15), under the preset picker: a text box that
// takes a Hub id, a huggingface.co URL or id@revision; search as you type over the Hub's
// model search (debounced, only once the user typed; hits with downloads and size); Load;
// the endpoint (huggingface.co or a mirror) and an access token for gated repos (kept in
// memory only); a GGUF repo's quant list with sizes; and where each number came from.
// A failure shows one line and leaves the model and the typed text as they were.
// The fetching is the platform's (hooks.hub_load / hub_search); logic in hub_view.h.
#include <cfloat>
#include <cstdio>
#include <string>

#include "app/i18n.h"
#include "app/panels.h"
#include "app/theme.h"
#include "app/widgets.h"
#include "core/hub/hub_ref.h"
#include "core/base/units.h"
#include "imgui.h"

namespace llmmem::app {
namespace {

std::string Endpoint(const HubView& v) {
  size_t n = 0;
  const core::HubMirror* m = core::HubMirrors(&n);
  return m[v.mirror >= 0 && static_cast<size_t>(v.mirror) < n ? v.mirror : 0].endpoint;
}

void StartLoad(State& s, const std::string& ref, const std::string& gguf_file) {
  HubView& v = s.hub;
  const core::HubRefParse p = core::ParseHubRef(ref, Endpoint(v));
  if (!p.ok) {
    v.error = p.error;
    return;
  }
  HubRequest q;
  q.seq = ++v.seq;
  q.ref = ref;
  q.gguf_file = gguf_file;
  q.endpoint = Endpoint(v);
  q.token = v.token;
  v.loading = true;
  v.loading_ref = core::HubRefToText(p.ref);
  v.error.clear();
  v.hits.hits.clear();
  s.hooks.hub_load(q);
}

void Hits(State& s) {
  HubView& v = s.hub;
  if (v.searching) ImGui::TextDisabled("%s", Tr("Searching the Hub..."));
  if (!v.hits.ok && !v.hits.error.empty()) {  // wrapped like the load error, never cut at the column's edge
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(BadColor(), "%s", v.hits.error.c_str());
    ImGui::PopTextWrapPos();
  }
  for (size_t i = 0; i < v.hits.hits.size() && i < 8; ++i) {
    const core::HubSearchHit& h = v.hits.hits[i];
    std::string label = h.id;
    if (h.parameters > 0) label += "   " + core::FormatParams(static_cast<double>(h.parameters));
    if (h.downloads >= 0) label += "   " + core::FormatCount(h.downloads) + " " + Tr("downloads");
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable(label.c_str())) {
      std::snprintf(v.text, sizeof v.text, "%s", h.id.c_str());
      v.searched = h.id;
      StartLoad(s, h.id, "");
    }
    MarkItem(s, ("hub_hit_" + std::to_string(i)).c_str());
    ImGui::PopID();
  }
}

void Loaded(State& s) {
  HubView& v = s.hub;
  const HubResult& r = v.loaded;
  if (!r.ok) return;
  if (r.approximate) ImGui::TextColored(WarnColor(), "%s", Tr("Approximate: the architecture was read generically."));
  if (!r.gguf_files.empty()) {
    ImGui::SetNextItemWidth(-FLT_MIN);
    const std::string current = r.gguf_file.empty() ? Tr("GGUF file") : r.gguf_file;
    if (ImGui::BeginCombo("##hub_gguf", current.c_str())) {
      for (const core::HubFile& f : r.gguf_files) {
        std::string label = f.name;
        if (f.size >= 0) label += "   " + core::FormatBytes(static_cast<double>(f.size), s.units);
        if (ImGui::Selectable(label.c_str(), f.name == r.gguf_file)) StartLoad(s, r.ref, f.name);
      }
      ImGui::EndCombo();
    }
  }
  if (ImGui::TreeNode(Tr("Where the numbers came from"))) {
    ImGui::PushTextWrapPos(0);
    for (const std::string& line : r.provenance) ImGui::BulletText("%s", line.c_str());
    ImGui::PopTextWrapPos();
    ImGui::TreePop();
  }
}

}  // namespace

void DrawHubBox(State& s) {
  HubView& v = s.hub;
  if (!s.hooks.hub_load) return;
  if (!v.pending_link.empty()) {  // a link that names a model: the user opened it
    std::snprintf(v.text, sizeof v.text, "%s", v.pending_link.c_str());
    const std::string ref = v.pending_link;
    v.pending_link.clear();
    StartLoad(s, ref, "");
  }
  const float load_w = ButtonWidth(Tr("Load"));
  ImGui::SetNextItemWidth(-load_w - ImGui::GetStyle().ItemSpacing.x);
  const bool enter = ImGui::InputTextWithHint("##hub", Tr("Hugging Face id, URL or id@revision"), v.text, sizeof v.text,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  MarkItem(s, "hub_text");
  if (ImGui::IsItemEdited()) {
    v.typed = true;
    v.edited_at = ImGui::GetTime();
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(v.loading || v.text[0] == 0);
  if ((ImGui::Button(Tr("Load")) || enter) && v.text[0] != 0 && !v.loading) StartLoad(s, v.text, "");
  MarkItem(s, "hub_load");
  ImGui::EndDisabled();
  const std::string query = HubSearchDue(v, ImGui::GetTime());
  if (!query.empty() && s.hooks.hub_search && !v.loading) {
    v.searched = query;
    v.searching = true;
    s.hooks.hub_search(++v.search_seq, query, Endpoint(v), v.token);
  }
  if (v.loading) ImGui::TextDisabled(Tr("Loading %s..."), v.loading_ref.c_str());
  if (!v.error.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(BadColor(), "%s", v.error.c_str());
    MarkItem(s, "hub_error");
    // The way on without the Hub (offline, a firewall, a gated repo): the file itself.
    ImGui::TextDisabled("%s", Tr("Without the Hub: copy the model's config.json and press \"Paste config.json\" above "
                                 "(or \"Open file...\")."));
    MarkItem(s, "hub_error_hint");
    ImGui::PopTextWrapPos();
  }
  if (!v.loading) Hits(s);
  if (ImGui::TreeNode(Tr("Hub settings"))) {
    size_t n = 0;
    const core::HubMirror* m = core::HubMirrors(&n);
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) ImGui::SameLine();
      if (ImGui::RadioButton(m[i].name, v.mirror == static_cast<int>(i))) v.mirror = static_cast<int>(i);
    }
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::InputTextWithHint("##hub_token", Tr("Access token for gated repos (kept in memory only)"), v.token,
                             sizeof v.token, ImGuiInputTextFlags_Password);
    ImGui::TreePop();
  }
  Loaded(s);
}

}  // namespace llmmem::app
