// The UI's state: the configuration being edited, its estimate (recomputed only when the
// configuration changed), and the view settings. One instance, owned by app.cpp and
// passed to each panel.
// May include: core (no imgui).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/compare.h"
#include "app/file_browser.h"
#include "app/hub_view.h"
#include "app/jobs_view.h"
#include "app/oom_view.h"
#include "app/network_view.h"
#include "app/plan_view.h"
#include "app/run_view.h"
#include "core/config/config.h"
#include "core/base/diagnostics.h"
#include "core/base/phrase.h"
#include "core/solve/doctor.h"
#include "core/estimate/estimate.h"
#include "core/base/units.h"
#include "core/parse/weight_headers.h"

namespace llmmem::app {

// A message shown under the toolbar until dismissed: a bad link, a corrupt settings file, a
// file that could not be imported.
// Title and text are phrases (core/base/phrase.h): core::Say("Open %s", {name}) is drawn in
// the UI's language of the moment (app.cpp DrawBanners); a plain string is shown as it is.
struct Banner {
  core::Phrase title;  // Say("Settings file"), Say("Import %s", {name})
  core::Phrase text;   // a sentence; may be empty when `diagnostics` say it all
  core::Diagnostics diagnostics;
  bool error = false;
  bool link = false;  // holds the link's untaken items (State::link_kept), editable in place
};

// A configuration step the user can take back: every edit (a typed value once the field
// is left, a click, a remedy, an import, a reset), named by what changed.
struct UndoStep {
  std::string label;
  core::Config config;  // the configuration before the step (redo: after it)
};

// The header of a weights file the user dropped or opened.
struct WeightsView {
  std::string name;  // file name
  core::WeightHeaderResult result;
  bool open = false;
  bool focus = false;    // bring the window to the front on the next frame
  char path[1024] = "";  // desktop: the path field
  WeightStream stream;   // web: a dropped file being read across frames
};

// The "Paste config.json" box: opened by the button when the clipboard could not be read
// directly, or held no JSON.
struct PasteBox {
  bool open = false;  // open it on the next frame
  std::string note;   // why it opened
  std::vector<char> text = std::vector<char>(size_t{1} << 16, '\0');
  core::Diagnostics last;  // the last import's notes
};

// Where a named control was drawn this frame (ImGui display pixels), for scripted tests:
// the browser test clicks "paste", "open_file", ... by name instead of by coordinates.
struct ItemMark {
  std::string name;
  float x = 0, y = 0, w = 0, h = 0;
  bool whole = true;  // inside the clip rect it was drawn in (not scrolled past, not cut off)
};

struct State {
  core::Config config;
  core::Estimate estimate;
  std::vector<Banner> banners;
  std::vector<core::Remedy> remedies;  // Diagnose(config): with the estimate when it does not fit,
  bool remedies_fresh = false;         // else when the doctor asks (EnsureRemedies)
  std::optional<Pinned> pinned;        // Compare: the pinned configuration
  std::vector<UndoStep> undo, redo;
  core::Config undo_base;  // the configuration as of the last recorded step
  std::string undo_base_query;
  std::string pending_label;  // names the step being made (the first field edited)
  WeightsView weights;
  HubView hub;                            // the model box's Hugging Face models (hub_view.h)
  OomView oom;                            // the "Read an OOM" tab
  std::vector<std::string> in_effect;     // core::FieldsInEffect(config), with the estimate
  std::vector<std::string> shown_fields;  // the settings DrawInputs drew a control for this frame
  std::vector<std::string> shown_last_frame;  // and the frame before (the tabs draw after AlsoInEffect)
  NetworkView network;                    // the "Any network" tab (layer stacks; net_ keys in the URL)
  PlanView plan;                          // the Fit tab's layout search (plan_view.h)
  JobsView jobs;                          // the Fit tab's several jobs on one GPU (jobs_view.h)
  RunView run;                            // the OOM tab's run reading beside the estimate (run_view.h)
  int64_t program_file_seq = -1;           // the training program's file asked of the worker (program_file_view.h)
  std::string program_file_name;
  int64_t background_seq = 0;             // the last hooks.background request's (each view keeps its own)
  PasteBox paste;
  FileBrowser browser;  // the desktop's "Open file..." (file_browser.h)
  std::string export_message;  // where the last export went
  std::string config_query;    // ConfigToQuery(config) as of the last recompute
  std::string query;           // the URL state: config_query plus the view keys below, then link_kept
  // The link's items that could not be taken ("batch=1e308", an unknown key), as the user wrote
  // them: they stay in the address bar, and in an editable banner, until fixed or dropped.
  std::string link_kept;
  // A link (or the saved state) was just opened: the phone's layout then opens the settings
  // when it set more than the three questions (app.cpp), once; a choice made on the page does not.
  bool link_opened = false;
  std::vector<char> link_edit = std::vector<char>(size_t{1} << 15, '\0');  // the banner's field
  bool dirty = true;           // config changed since the last Explain
  bool view_dirty = false;     // units, theme or tab changed

  // View.
  core::UnitSystem units = core::UnitSystem::kDecimal;
  bool dark = true;
  bool browser_light = false;  // the platform's colour scheme (hooks.prefers_light); theme= is kept when it differs
  std::string browser_lang = "en";         // the platform's language (hooks.language); lang= is kept when it differs
  bool formulas = false;                   // the breakdown shows each row's formula under it
  std::vector<std::string> open_formulas;  // rows whose formula was opened by a click
  int tab = 0;                             // Tab
  bool select_tab = false;                 // open `tab` on the next frame (from the URL)
  bool views_page_last = false;            // where the tab bar was last frame (app.cpp)
  bool scroll_to_tabs = false;             // a tab was clicked: its bar goes to the top of the results
  float scale = 1;
  std::string copied_link;                         // shown after "Copy link"
  float inputs_scroll = 0, inputs_scroll_max = 0;  // the inputs panel's scroll (px), for tests
  // Tests (CaptureText): the next frame logs the text it draws in the main window here.
  bool capture_text = false;
  std::string drawn_text;
  std::string missing_glyphs;  // the drawn characters the font has no glyph for
  std::vector<ItemMark> marks;                     // this frame's named controls (widgets.h MarkItem)
  bool copy_failed = false;

  // Persistence (app.cpp): the query last saved, and when the next save is due.
  std::string saved_query;
  double save_due = -1;    // ImGui time; -1: nothing to save
  bool storage_ok = true;  // false after a corrupt file could not be set aside

  PlatformHooks hooks;
};

enum Tab { kTabBreakdown, kTabCharts, kTabFitMap, kTabFit, kTabServing, kTabDoctor, kTabOom, kTabNetwork, kTabCount };

// Replaces the configuration as one undoable step.
void ApplyConfig(State& s, const core::Config& c, const std::string& label);
// Records the edits since the last step as one step, unless an input is still being
// edited (`editing`: typing in a field, holding a button), so typing 8192 is one step.
void CommitEdit(State& s, bool editing);
// Takes back the last step (recording pending edits first); Redo takes it again. False
// when there is none.
bool Undo(State& s);
bool Redo(State& s);
// Starts the undo history at the current configuration (at start-up).
void ResetHistory(State& s);
void AddBanner(State& s, Banner b);
// Asks the platform once for the layer-stack presets it does not embed (the page).
void RequestNetworks(State& s);
// A link's configuration: applied over `base`, with a banner for what was not taken, which is
// kept (link_kept) rather than dropped. `title` names where it came from ("Link state").
// The settings in effect with no control on screen (AlsoInEffect lists them): neither drawn this
// frame nor last (the result tabs draw after the list).
std::vector<std::string> HiddenInEffect(const State& s);
void OpenLinkQuery(State& s, const std::string& config_query, const core::Config& base, const core::Phrase& title);
// The banner's buttons: read the edited text again over the current configuration (what is now
// taken is applied as one undo step, what still is not stays kept), or drop what is kept.
void ApplyKeptLink(State& s, const std::string& text);
void DropKeptLink(State& s);

// View keys kept in the URL beside the config's: units=gib, theme=light,
// view=charts|fitmap|fit|serving|doctor|oom|network, the network tab's net_ keys, lang=zh|en (defaults are not written;
// lang= when it differs from the browser's). Removes them from `query` and applies them to `s`.
std::string TakeViewKeys(State& s, const std::string& query);
std::string ViewKeys(const State& s);

// Runs Explain when the config is dirty, refreshes the query, tells the platform.
void Refresh(State& s);
// Diagnose's remedies for the current configuration, computed now if Refresh left them
// (a configuration that fits needs them only when the doctor is opened).
void EnsureRemedies(State& s);

// The diagnostics about one input: `field` matches "seq" or "model.seq" style names.
std::vector<const core::Diagnostic*> DiagnosticsFor(const State& s, const char* field);

// Bytes in the chosen unit and its label ("GB" / "GiB").
double InUnits(double bytes, core::UnitSystem u);
const char* UnitLabel(core::UnitSystem u);

// The running app's state (app.cpp), null before Init: for the test hook (test_state.cpp).
State* CurrentState();

}  // namespace llmmem::app
