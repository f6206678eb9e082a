// The main window: toolbar and banners on top, then the three questions (which model,
// what for, which GPU); below them the inputs (workload, Advanced sections) on the left
// and the results on the right (verdict with pin/export, category bar, the size per
// precision, then tabs: breakdown table, charts, fit map, fit solver, OOM doctor). Below
// kNarrowCssPx of width (a phone, a narrow window) one column: questions, the inputs
// folded, then the results. Owns the State; loads and saves it through the platform's
// Storage; takes the files the platform hands over (OpenText, OpenWeightBytes, OpenPath).
// Every edit is an undoable step (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y; the toolbar's buttons).
//
// Index
// [SECTION] Banners
// [SECTION] Persistence
// [SECTION] Init / Frame / Shutdown
// [SECTION] Opened files
// [SECTION] Test hook
#include "app/app.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "app/gl_min.h"
#include "app/i18n.h"
#include "app/mirror.h"
#include "app/panels.h"
#include "app/program_file_view.h"
#include "app/settings_doc.h"
#include "app/state.h"
#include "app/tabs.h"
#include "app/theme.h"
#include "app/ui_defaults.h"
#include "app/widgets.h"
#include "core/catalogue/gpus.h"
#include "core/config/config_json.h"
#include "core/import/hf_config.h"
#include "core/parse/json.h"
#include "core/parse/package_list.h"
#include "core/network/network_json.h"
#include "imgui.h"
#include "imgui_internal.h"  // GImGui->LogBuffer (the captured text)

namespace llmmem::app {
namespace {

std::unique_ptr<State> g_state;
constexpr double kSaveDelaySeconds = 0.5;  // coalesces keystrokes into one write
constexpr float kNarrowCssPx = 900;        // below this (CSS pixels), one column

//-----------------------------------------------------------------------------
// [SECTION] Banners
//-----------------------------------------------------------------------------

void DrawBanners(State& s) {
  for (size_t i = 0; i < s.banners.size();) {
    const Banner& b = s.banners[i];
    ImGui::PushID(static_cast<int>(i));
    ImGui::PushStyleColor(ImGuiCol_Text, b.error ? BadColor() : WarnColor());
    ImGui::PushTextWrapPos(0);
    const std::string title = TrPhrase(b.title), text = TrPhrase(b.text);
    if (text.empty())
      ImGui::TextUnformatted(title.c_str());
    else
      ImGui::Text(Tr("%s: %s"), title.c_str(), text.c_str());
    for (const core::Diagnostic& d : b.diagnostics) {
      // Bullet + wrapped text: BulletText does not wrap, and a phone's column clipped it.
      ImGui::Bullet();
      ImGui::SameLine();
      ImGui::TextWrapped("%s%s%s", d.field.c_str(), d.field.empty() ? "" : ": ", d.message.c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
    bool dismiss = false;
    if (b.link && !s.link_kept.empty()) {
      // What the link kept, editable: fix a value and Apply, or Drop it from the link.
      ImGui::SetNextItemWidth(-FLT_MIN);
      const bool enter = ImGui::InputText("##kept", s.link_edit.data(), s.link_edit.size(),
                                          ImGuiInputTextFlags_EnterReturnsTrue);
      MarkItem(s, "link_kept");
      const bool apply = ImGui::SmallButton(Tr("Apply")) || enter;
      MarkItem(s, "link_apply");
      ImGui::SameLine();
      const bool drop = ImGui::SmallButton(Tr("Drop from the link"));
      MarkItem(s, "link_drop");
      ImGui::PopID();
      if (apply) ApplyKeptLink(s, s.link_edit.data());
      if (drop) DropKeptLink(s);
      if (apply || drop) return;  // the banners changed under the loop
      ++i;
      continue;
    }
    dismiss = ImGui::SmallButton(Tr("Dismiss"));
    ImGui::PopID();
    if (dismiss) {
      s.banners.erase(s.banners.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
}

//-----------------------------------------------------------------------------
// [SECTION] Persistence
//-----------------------------------------------------------------------------

std::string StoredDocument(const State& s) {
  if (s.hooks.storage->Format() == StorageFormat::kQuery) return s.query;
  std::string view = ViewKeys(s);
  if (!view.empty() && view[0] == '&') view.erase(0, 1);
  return SettingsToJsonText(s.config, view);
}

void SaveNow(State& s) {
  s.save_due = -1;
  if (s.hooks.storage == nullptr || !s.storage_ok || s.query == s.saved_query) return;
  const std::string doc = StoredDocument(s);
  if (doc.empty()) return;  // never replace a saved state with an empty document
  std::string error;
  if (s.hooks.storage->Save(doc, &error)) {
    s.saved_query = s.query;
  } else {
    s.storage_ok = false;  // one banner, not one per keystroke
    AddBanner(s, {core::Say("Saving the state"),
                  core::Say("could not write %s: %s", {s.hooks.storage->Where(), error}), {}, true});
  }
}

void ScheduleSave(State& s) {
  if (s.hooks.storage == nullptr || !s.storage_ok || s.query == s.saved_query) return;
  const double now = ImGui::GetTime();
  if (s.save_due < 0) s.save_due = now + kSaveDelaySeconds;
  if (now >= s.save_due) SaveNow(s);
}

// The saved state as a query (config plus view keys), or "" for the defaults.
std::string LoadSaved(State& s) {
  Storage* st = s.hooks.storage;
  if (st == nullptr) return "";
  const StoredText saved = st->Load();
  if (saved.status == StoredText::Status::kNone) return "";
  if (saved.status == StoredText::Status::kUnreadable) {
    s.storage_ok = false;  // what could not be read is not overwritten either
    AddBanner(s, {core::Say("Saved state"),
                  core::Say("could not read %s: %s. Starting from the defaults; changes are not saved this session.",
                            {st->Where(), saved.error}),
                  {},
                  true});
    return "";
  }
  if (st->Format() == StorageFormat::kQuery) return saved.text;
  const SettingsParse parsed = ParseSettingsText(saved.text);
  if (!parsed.ok) {
    std::string error;
    const std::string moved = st->SetAside(&error);
    core::Phrase text;
    if (!moved.empty()) {
      text = core::Say("%s could not be loaded (%s). It was set aside as %s; starting from the defaults.",
                       {st->Where(), parsed.error, moved});
    } else {
      s.storage_ok = false;
      text = core::Say("%s could not be loaded (%s). It could not be set aside (%s), so it is left as it is and "
                       "changes are not saved this session.",
                       {st->Where(), parsed.error, error});
    }
    AddBanner(s, {core::Say("Settings file"), text, {}, true});
    return "";
  }
  if (!parsed.diagnostics.empty()) AddBanner(s, {core::Say("Settings file"), st->Where(), parsed.diagnostics, false});
  std::string q = core::ConfigToQuery(parsed.config);
  if (!parsed.view_query.empty()) q += "&" + parsed.view_query;
  return q;
}

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] Init / Frame / Shutdown
//-----------------------------------------------------------------------------

void Init(const PlatformHooks& hooks, float scale) {
  g_state = std::make_unique<State>();
  State& s = *g_state;
  s.hooks = hooks;
  s.scale = scale > 0 ? scale : 1;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // window layout is fixed; the state is kept by Storage
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  // The browser's language first; a lang= in the link or the saved state wins.
  s.browser_lang = hooks.language.empty() ? "en" : hooks.language;
  s.browser_light = hooks.prefers_light;
  s.dark = !s.browser_light;
  Lang browser = Lang::kEn;
  ParseLang(s.browser_lang, browser);
  SetLang(browser);
  const bool from_link = !hooks.initial_query.empty();
  const std::string initial = from_link ? hooks.initial_query : LoadSaved(s);
  core::Config base = core::DefaultConfig();
  const std::string config_query = TakeViewKeys(s, initial);
  // A Hub model is fetched when a link names it, not when last visit's saved state does:
  // the box shows the id, and Load fetches it.
  if (!from_link && !s.hub.pending_link.empty()) {
    std::snprintf(s.hub.text, sizeof s.hub.text, "%s", s.hub.pending_link.c_str());
    s.hub.pending_link.clear();
  }
  if (!config_query.empty()) {
    OpenLinkQuery(s, config_query, base, from_link ? core::Say("Link state") : core::Say("Saved state"));
  } else {
    s.config = FirstScreenConfig();
  }
  auto mark = [&s](const char* name) {
    if (s.hooks.mark) s.hooks.mark(name);
  };
  mark("app_state");
  if (hooks.gl_loader != nullptr) gl::Load(hooks.gl_loader);
  LoadFonts(s.scale);
  ApplyStyle(s.dark, s.scale);
  mark("app_fonts");
  // The first estimate: the platform already shows this state, so no state_changed call.
  auto changed = std::move(s.hooks.state_changed);
  Refresh(s);
  s.hooks.state_changed = std::move(changed);
  mark("app_estimate");
  s.saved_query = s.query;  // saved once it changes
  ResetHistory(s);
  if (CurrentLang() != Lang::kEn && s.hooks.language_changed) s.hooks.language_changed(LangId(CurrentLang()));
}

bool SetScale(float scale) {
  if (!g_state || scale <= 0) return false;
  if (scale == g_state->scale && !FontRebuildRequested()) return false;
  if (scale != g_state->scale) ApplyStyle(g_state->dark, scale);
  g_state->scale = scale;
  LoadFonts(scale);
  return true;
}

void AddFont(const std::string& name, const uint8_t* data, size_t size) {
  if (name == "cjk" && data != nullptr && size > 0) SetCjkFont(data, size);
}

void AddStrings(const std::string& json) {
  std::string error;
  if (AddTranslations(json, &error) < 0) {
    StringsFailed("llmmem-zh.json: " + error);  // not UI text: a file name and the parser's message
    return;
  }
  if (!g_state) return;
  State& s = *g_state;
  s.view_dirty = true;
  RequestFontRebuild();  // the CJK glyphs the new rows use
  if (s.hooks.mirror_changed) s.hooks.mirror_changed(MirrorJson(s));
}

void StringsFailed(const std::string& why) {
  if (g_state) AddBanner(*g_state, {core::Say("Chinese text"), core::Say("%s; the page stays in English", {why}), {}, true});
}

namespace {

// Undo and redo from the keyboard, outside text fields (which keep their own).
void Shortcuts(State& s) {
  const ImGuiIO& io = ImGui::GetIO();
  const bool cmd = io.ConfigMacOSXBehaviors ? io.KeySuper : io.KeyCtrl;
  if (!cmd || io.WantTextInput) return;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Z), false)) {
    if (io.KeyShift)
      Redo(s);
    else
      Undo(s);
  } else if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Y), false)) {
    Redo(s);
  }
}

}  // namespace

void Frame() {
  if (!g_state) return;
  State& s = *g_state;
  Refresh(s);
  s.marks.clear();
  Shortcuts(s);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("llmmem", nullptr, flags);
  const bool capture = s.capture_text;
  if (capture) ImGui::LogToBuffer();
  DrawToolbar(s);
  DrawBanners(s);
  ImGui::Separator();

  const float em = ImGui::GetFontSize();
  const float avail = ImGui::GetContentRegionAvail().x;
  const bool narrow = avail / s.scale < kNarrowCssPx;
  s.shown_last_frame.swap(s.shown_fields);
  s.shown_fields.clear();            // each control drawn this frame adds its field (AlsoInEffect)
  s.shown_fields.push_back("mode");  // the "What for?" question
  // NavFlattened: arrow keys move between the inputs and the results as one window.
  if (narrow) {
    // One column, scrolled as a page: the questions, the inputs (folded), the results.
    ImGui::BeginChild("page", ImVec2(0, 0), false, ImGuiWindowFlags_NavFlattened);
    DrawQuestions(s, true);
    ImGui::Spacing();
    // A link that set more than the three questions opens the settings at first, so what it
    // set (and "Also in effect", at their end) is in view rather than folded away. Only a link:
    // a purpose picked on the page (QLoRA brings its checkpointing, in effect) keeps them folded,
    // so the verdict stays on the first screen.
    if (s.link_opened) {
      bool linked = false;
      for (const std::string& f : s.in_effect) linked = linked || (f != "mode" && f != "gpu" && f != "gpu_memory_gb");
      if (linked) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
      s.link_opened = false;
    }
    const bool inputs = ImGui::CollapsingHeader(Tr("Workload and advanced settings"));
    MarkItem(s, "settings");
    if (inputs) {
      ImGui::Indent(em * 0.5f);
      DrawInputs(s);
      ImGui::Unindent(em * 0.5f);
    }
    s.inputs_scroll = ImGui::GetScrollY();
    s.inputs_scroll_max = ImGui::GetScrollMaxY();
    ImGui::Separator();
  } else {
    s.link_opened = false;  // the wide layout shows the settings anyway
    DrawQuestions(s, false);
    ImGui::Separator();
    const float inputs_w = std::min(em * 24.0f, avail * 0.4f);
    ImGui::BeginChild("inputs", ImVec2(inputs_w, 0), true, ImGuiWindowFlags_NavFlattened);
    DrawInputs(s);
    s.inputs_scroll = ImGui::GetScrollY();
    s.inputs_scroll_max = ImGui::GetScrollMaxY();
    ImGui::EndChild();
    MarkItem(s, "inputs_panel");
    ImGui::SameLine();
    ImGui::BeginChild("results", ImVec2(0, 0), false, ImGuiWindowFlags_NavFlattened);
  }
  Refresh(s);  // the results below show this frame's inputs
  DrawVerdict(s);
  DrawPinExport(s);
  ImGui::Spacing();
  DrawCategoryBar(s);
  DrawModelSizes(s);
  ImGui::Spacing();
  // Room for the answer (issue 32 part 3): the tabs get a page's height of their own (their
  // tables scroll inside) on one column, and on two when what is above leaves them less than
  // three quarters of the window; the results column then scrolls as a page, and a click on a
  // tab brings the tab bar to its top, so the tab's answer is above the fold.
  const float views_h = std::max(em * 16, vp->WorkSize.y * (narrow ? 0.8f : 0.75f));
  const bool views_page = narrow || ImGui::GetContentRegionAvail().y < views_h;
  // The bar lives in views_page or in the column: a flip (a tab that hides the verdict, as Any
  // network does, leaves room for it whole) starts another bar, which would open on its first
  // tab; it opens on the one chosen.
  if (views_page != s.views_page_last) {
    s.views_page_last = views_page;
    s.select_tab = true;
  }
  if (s.scroll_to_tabs) {
    if (views_page) ImGui::SetScrollHereY(0.0f);
    s.scroll_to_tabs = false;
  }
  if (views_page) ImGui::BeginChild("views_page", ImVec2(0, views_h), false, ImGuiWindowFlags_NavFlattened);
  if (ImGui::BeginTabBar("views")) {
    // The count invites a look only when the configuration does not fit.
    const bool over = s.estimate.totals.ok && !s.estimate.totals.GpuHolds();
    for (int t = 0; t < kTabCount; ++t) {
      const TabRow& row = TabOf(t);
      // The doctor's title counts its remedies (###: the same tab whatever the count).
      const std::string title =
          std::string(Tr(row.title)) +
          (t == kTabDoctor && over && !s.remedies.empty() ? " (" + std::to_string(s.remedies.size()) + ")" : "") +
          "###" + row.id;
      const ImGuiTabItemFlags f = s.select_tab && s.tab == t ? ImGuiTabItemFlags_SetSelected : 0;
      const bool open = ImGui::BeginTabItem(title.c_str(), nullptr, f);
      MarkItem(s, (std::string("tab_") + row.id).c_str());
      if (ImGui::IsItemClicked()) s.scroll_to_tabs = true;  // the chosen tab, even the one open
      if (!open) continue;
      if (s.tab != t && !s.select_tab) {
        s.tab = t;
        s.view_dirty = true;
        s.scroll_to_tabs = true;  // the user chose it: its answer comes into view
      }
      switch (row.tab) {
        case kTabBreakdown:
          DrawBreakdown(s);
          break;
        case kTabCharts:
          DrawCharts(s);
          break;
        case kTabFitMap:
          DrawFitMap(s);
          break;
        case kTabFit:
          DrawFit(s);
          break;
        case kTabServing:
          DrawServing(s);
          break;
        case kTabDoctor:
          DrawDoctor(s);
          break;
        case kTabOom:
          DrawOom(s);
          break;
        case kTabNetwork:
          DrawNetwork(s);
          break;
        case kTabCount:
          break;
      }
      ImGui::EndTabItem();
    }
    s.select_tab = false;
    ImGui::EndTabBar();
  }
  if (views_page) ImGui::EndChild();
  ImGui::EndChild();
  if (capture) {
    // Read before End, whose LogFinish clears the buffer (a tooltip's End ends the log early).
    s.drawn_text = GImGui->LogBuffer.c_str();
    s.capture_text = false;
    // The characters the font has no glyph for (drawn as '?' boxes), once each.
    s.missing_glyphs.clear();
    const ImFont* font = ImGui::GetFont();
    for (const char* p = s.drawn_text.c_str(); *p != 0;) {
      unsigned int c = 0;
      p += ImTextCharFromUtf8(&c, p, nullptr);
      if (c < 0x20 || font->FindGlyphNoFallback(static_cast<ImWchar>(c)) != nullptr) continue;
      char utf8[5] = {};
      ImTextCharToUtf8(utf8, c);
      if (s.missing_glyphs.find(utf8) == std::string::npos) s.missing_glyphs += utf8;
    }
  }
  ImGui::End();
  DrawWeightsWindow(s);
  Refresh(s);
  CommitEdit(s, ImGui::IsAnyItemActive());
  ScheduleSave(s);
}

void OpenPastedText(const std::string& text) {
  if (!g_state) return;
  State& s = *g_state;
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i != std::string::npos && text[i] == '{') {
    OpenText("clipboard", text);
    return;
  }
  const size_t n = std::min(text.size(), s.paste.text.size() - 1);
  std::copy(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(n), s.paste.text.begin());
  s.paste.text[n] = '\0';
  s.paste.note = text.empty() ? Tr("The clipboard is empty.") : Tr("The clipboard holds no JSON.");
  s.paste.open = true;
}

void PasteUnavailable() {
  if (!g_state) return;
  g_state->paste.note = Tr("The browser did not let the page read the clipboard.");
  g_state->paste.open = true;
}

double NextFrameIn() {
  if (!g_state) return -1;
  double next = g_state->save_due < 0 ? -1 : std::max(0.0, g_state->save_due - ImGui::GetTime());
  if (g_state->scroll_to_tabs) return 0;  // a chosen tab is brought into view on the next frame
  // The Hub search fires once typing pauses (hub_view.h): a frame is due then.
  const HubView& v = g_state->hub;
  if (v.typed && v.edited_at >= 0 && HubSearchDue(v, v.edited_at + kHubSearchDebounce) != "") {
    const double at = std::max(0.0, v.edited_at + kHubSearchDebounce - ImGui::GetTime());
    next = next < 0 ? at : std::min(next, at);
  }
  return next;
}

void Flush() {
  if (g_state) SaveNow(*g_state);
}

void Shutdown() {
  Flush();
  ShutdownFitMap();
  g_state.reset();
}

void ClearColor(float rgba[4]) {
  const ImVec4 c = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  rgba[0] = c.x;
  rgba[1] = c.y;
  rgba[2] = c.z;
  rgba[3] = 1;
}

//-----------------------------------------------------------------------------
// [SECTION] Opened files
//-----------------------------------------------------------------------------

void HubLoaded(const HubResult& result) {
  if (g_state) ApplyHubResult(*g_state, result);
}

void BackgroundAnswered(int64_t seq, bool ok, const std::string& text, double ms) {
  if (!g_state) return;
  if (JobsAnswered(g_state->jobs, seq, ok, text) || RunAnswered(g_state->run, seq, ok, text)) return;
  if (ProgramFileAnswered(*g_state, seq, ok, text) || OomAnswered(*g_state, seq, ok, text)) return;
  PlanAnswered(g_state->plan, seq, ok, text, ms);
}

bool AnswerAwaited() { return g_state != nullptr && g_state->oom.reading; }

void RequestGpuSources() {
  static bool asked = false;
  if (asked || !g_state || !g_state->hooks.need_gpu_sources || core::GpuSourcesKnown()) return;
  asked = true;
  g_state->hooks.need_gpu_sources();
}

void GpuSourcesArrived(const std::string& gpus_json, const std::string& error) {
  const std::string why = error.empty() ? core::AddGpuSources(gpus_json) : error;
  if (g_state && !why.empty()) ReportError(Tr("GPU sources"), why);
}

void NetworksArrived(const std::string& bundle, const std::string& error) {
  if (!g_state) return;
  State& s = *g_state;
  NetworkView& v = s.network;
  v.presets_error = error.empty() ? core::AddNetworkPresetBundle(bundle) : error;
  if (v.presets_error.empty() && !v.pending_query.empty()) {
    core::Diagnostics notes;
    TakeNetworkKeys(v, v.pending_query, &notes);
    if (!notes.empty()) AddBanner(s, {core::Say("Network in the link"), core::Say("not used"), notes, false});
  }
  v.pending_query.clear();
  v.dirty = true;
  s.view_dirty = true;
  Refresh(s);
}

void HubSearched(const HubHits& hits) {
  if (!g_state || hits.seq != g_state->hub.search_seq) return;
  g_state->hub.searching = false;
  g_state->hub.hits = hits;
}

void ReportError(const std::string& title, const std::string& message) {
  // The platform's title ("Command line") is a key of the table; its message, an error the
  // system wrote, is shown as it is.
  if (g_state) AddBanner(*g_state, {core::Say(title), message, {}, true});
}

namespace {
// A file the app could not open: "Open NAME" and why.
void ReportOpenError(const std::string& name, const core::Phrase& why) {
  if (g_state) AddBanner(*g_state, {core::Say("Open %s", {name}), why, {}, true});
}
}  // namespace

void OpenConfigText(const std::string& name, const std::string& text) {
  if (!g_state) return;
  State& s = *g_state;
  const core::JsonParseResult json = core::ParseJson(text);
  if (!json.ok) {
    AddBanner(s, {core::Say("Open %s", {name}), core::Say("not JSON: %s. Nothing was changed.", {json.error}), {}, true});
    return;
  }
  const core::ConfigParse parsed = core::ConfigFromJson(json.value, core::DefaultConfig());
  ApplyConfig(s, parsed.config, TrF("open %s", name.c_str()));
  if (!parsed.diagnostics.empty())
    AddBanner(s, {core::Say("Open %s", {name}), core::Say("these fields kept their default values"), parsed.diagnostics,
                  core::HasErrors(parsed.diagnostics)});
}

namespace {

// Logs and pasted messages go to the OOM reader, whatever the drop path they arrived by; with
// the "Read an OOM" tab open, which asks for one, any file not named as weights or JSON does.
bool IsLogName(const std::string& name) {
  return ClassifyFile(name, g_state && g_state->tab == kTabOom) == FileKind::kLogText;
}

}  // namespace

void OpenOomText(const std::string& name, const std::string& text) {
  if (!g_state) return;
  State& s = *g_state;
  // pip freeze / requirements.txt: the training program and its version (--from's reader).
  if (core::LooksLikePackageList(text)) {
    AskProgramFile(s, name, text);
    return;
  }
  // A long log: its end holds the failure.
  s.oom.text = text.size() > kOomBoxMaxBytes ? text.substr(text.size() - kOomBoxMaxBytes) : text;
  s.oom.dirty = true;
  s.tab = kTabOom;
  s.select_tab = true;
  s.scroll_to_tabs = true;  // the reading comes into view
  s.view_dirty = true;
}

bool WantsLogText(const std::string& name) { return IsLogName(name); }

void OpenLink(const std::string& query) {
  if (g_state == nullptr) return;
  State& s = *g_state;
  if (query == s.query) return;
  Refresh(s);
  CommitEdit(s, false);  // what was typed before stays its own step
  const std::string config_query = TakeViewKeys(s, query);
  if (config_query.empty()) {
    s.config = FirstScreenConfig();
    s.link_kept.clear();
    s.dirty = true;
  } else {
    OpenLinkQuery(s, config_query, core::DefaultConfig(), core::Say("Link"));
  }
  s.pending_label = "link";
  s.view_dirty = true;
  Refresh(s);
}

void OpenText(const std::string& name, const std::string& text) {
  if (!g_state) return;
  State& s = *g_state;
  if (core::LooksLikePackageList(text)) {  // pasted pip freeze output, a requirements file
    AskProgramFile(s, name, text);
    return;
  }
  if (IsLogName(name)) {
    OpenOomText(name, text);
    return;
  }
  // A training program's file (--from): read by the background worker, applied when it answers.
  if (ClassifyFileName(name) == FileKind::kProgramText || (!LooksLikeHfConfig(text) && LooksLikeProgramJson(text))) {
    AskProgramFile(s, name, text);
    return;
  }
  if (!LooksLikeHfConfig(text)) {
    OpenConfigText(name, text);
    return;
  }
  std::string model_name = name;
  const size_t slash = model_name.find_last_of("/\\");
  if (slash != std::string::npos) model_name.erase(0, slash + 1);
  if (model_name == "config.json" || model_name.empty()) model_name = Tr("imported model");
  core::HfImport imported = core::ImportHfConfigText(text, model_name);
  if (!imported.ok) {
    AddBanner(s, {core::Say("Import %s", {name}), core::Say("not imported; your configuration is unchanged"),
                  imported.diagnostics, true});
    return;
  }
  core::Config c = s.config;
  c.model = imported.model;
  c.model.preset.clear();
  core::StartAtModelContext(c, imported.diagnostics);
  ApplyConfig(s, c, TrF("import %s", name.c_str()));
  if (!imported.diagnostics.empty())
    AddBanner(s, {core::Say("Import %s", {name}), core::Say("imported as the model, with notes"), imported.diagnostics,
                  false});
}

void OpenWeightBytes(const std::string& name, const uint8_t* data, size_t size, uint64_t file_size) {
  if (!g_state) return;
  if (IsLogName(name)) {  // the web drop reads a file's first MiB as if it held weights
    OpenOomText(name, std::string(reinterpret_cast<const char*>(data), size));
    return;
  }
  WeightsView& w = g_state->weights;
  w.name = name;
  w.result = core::ParseWeightHeader(data, size, file_size);
  w.open = true;
  w.focus = true;
}

void OpenPath(const std::string& path) {
  if (!g_state) return;
  State& s = *g_state;
  if (!s.hooks.read_range) {
    ReportOpenError(path, core::Say("this platform opens files by drag and drop"));
    return;
  }
  if (IsLogName(path)) {
    // The failure sits at a log's end: read its last kOomBoxMaxBytes.
    const FilePrefix size = s.hooks.read_range(path, 0, 0);
    const uint64_t from = size.file_size > kOomBoxMaxBytes ? size.file_size - kOomBoxMaxBytes : 0;
    const FilePrefix p = size.ok ? s.hooks.read_range(path, from, kOomBoxMaxBytes) : size;
    if (!p.ok)
      ReportOpenError(path, p.error);
    else
      OpenOomText(path, p.bytes);
    return;
  }
  if (ClassifyFileName(path) == FileKind::kJsonText || ClassifyFileName(path) == FileKind::kProgramText) {
    const FilePrefix p = s.hooks.read_range(path, 0, core::kJsonMaxBytes + 1);
    if (!p.ok) {
      ReportOpenError(path, p.error);
    } else if (p.file_size > core::kJsonMaxBytes) {
      ReportOpenError(path, core::Say("larger than a config.json can be (8 MiB)"));
    } else {
      OpenText(path, p.bytes);
    }
    return;
  }
  WeightsView& w = s.weights;
  w.name = path;
  w.result = ProbeWeightHeader([&](uint64_t offset, uint64_t n) { return s.hooks.read_range(path, offset, n); });
  w.open = true;
  w.focus = true;
}

int64_t BeginWeights(const std::string& name, uint64_t file_size) {
  if (!g_state) return 0;
  WeightsView& w = g_state->weights;
  const int64_t id = w.stream.Begin(name, file_size);
  w.open = true;
  w.focus = true;
  return id;
}

double FeedWeights(int64_t id, const uint8_t* data, size_t size) {
  return g_state ? g_state->weights.stream.Feed(id, data, size) : -1;
}

double WeightsNextSize() { return g_state ? g_state->weights.stream.NextSize() : 0; }

State* CurrentState() { return g_state.get(); }

}  // namespace llmmem::app
