// The UI's entry points. The platform (src/platform/main_glfw.cpp, main_web.cpp) owns the
// window, the GL context and the loop; it calls Init once, then per frame
// ImGui_Impl*_NewFrame + ImGui::NewFrame, Frame(), ImGui::Render and the GL draw, and
// Shutdown at the end. Everything here is platform-independent: no GLFW, no Emscripten.
// May include: imgui, core. Included by the platform files only.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "app/hub_view.h"
#include "io/list_dir.h"  // plain types: the app does no I/O itself
#include "app/storage.h"
#include "app/weights.h"

namespace llmmem::app {

// Resolves a GL entry point by name (glfwGetProcAddress on both platforms).
using GlProcLoader = void* (*)(const char* name);

struct PlatformHooks {
  // URL-style state to open with ("v=1&model=...&seq=8192"): the page's hash or query on
  // the web, the command line's key=value arguments natively. Empty: the defaults.
  std::string initial_query;
  // Called with the new query whenever the configuration changes (the web writes it to
  // location.hash). May be empty.
  std::function<void(const std::string& query)> state_changed;
  // Puts a shareable link for `query` on the clipboard; returns what was copied, or an
  // empty string when the platform could not (the UI then shows the link to copy by hand).
  std::function<std::string(const std::string& query)> copy_link;
  // Prepended to every shader in shaders/: "#version 330 core\n" or
  // "#version 300 es\nprecision highp float;\n".
  std::string glsl_header = "#version 330 core\n";
  GlProcLoader gl_loader = nullptr;

  // Where the state is kept across runs (owned by the platform; may be null). Loaded at
  // Init when initial_query is empty (the URL or the command line wins).
  Storage* storage = nullptr;
  // Puts text on the clipboard; false when the platform could not.
  std::function<bool(const std::string& text)> copy_text;
  // Saves an export: a download on the web, a file on the desktop. Returns a sentence
  // saying where it went, or one starting with "Could not" on failure.
  std::function<std::string(const std::string& file_name, const std::string& mime, const std::string& text)> save_text;
  // Desktop: reads the bytes [offset, offset + n) of a path (the weights path field and
  // OpenPath), a regular file only, bounded (src/io). Empty on the web, where files arrive
  // by drag and drop instead.
  std::function<FilePrefix(const std::string& path, uint64_t offset, uint64_t n)> read_range;
  // Opens the platform's file picker (the web page's <input type=file>); the file comes
  // back through OpenText / OpenWeightBytes. False, or empty, where there is none.
  std::function<bool()> pick_file;
  // Desktop: a folder's entries (io::ListDirectory; "" is the working directory) for the app's
  // own "Open file..." dialog (file_browser.h), used where pick_file is empty.
  std::function<io::DirListing(const std::string& dir)> list_dir;
  // Starts reading the clipboard's text (the browser's async clipboard API, which may ask
  // the user); the platform then calls OpenPastedText, or PasteUnavailable when it could
  // not. Empty: the UI offers a box to paste into instead.
  std::function<void()> read_clipboard;
  // The platform's language ("zh-CN", "en-US": navigator.language on the web); the UI
  // opens in it unless the link or the saved state names one (lang=).
  std::string language;
  // The platform's colour scheme (the browser's prefers-color-scheme: light): the UI opens in
  // the light theme then, unless the link or the saved state names one (theme=).
  bool prefers_light = false;
  // Called when the UI's language changes ("en", "zh"): the web page loads the CJK font
  // then (app::AddFont); may be empty.
  std::function<void(const std::string& lang)> language_changed;
  // The result as text (mirror.h's JSON) whenever it changes: the web page keeps it in
  // the DOM for screen readers, selection, find and translation. May be empty.
  std::function<void(const std::string& json)> mirror_changed;
  // How files reach the app, for the hint in the weights panel.
  // Hugging Face models (hub_view.h): starts loading or searching; the answer comes back
  // through HubLoaded / HubSearched, later, on the UI's thread. Empty where the platform
  // cannot fetch.
  std::function<void(const HubRequest& request)> hub_load;
  std::function<void(int64_t seq, const std::string& query, const std::string& endpoint, const std::string& token)>
      hub_search;
  // The page: fetch the layer-stack presets (core::AddNetworkPresetBundle), which it does not
  // embed; the answer comes back through NetworksArrived. Empty where they are embedded.
  std::function<void()> need_networks;
  // The page: fetch the GPU catalogue's sources, which its embedded copy leaves out (gpus.h
  // AddGpuSources); the answer comes back through GpuSourcesArrived. Empty where they are embedded.
  std::function<void()> need_gpu_sources;
  // Runs one of the core's long calls (bindings/background_calls.h: "plan", "serve_plan", JSON
  // in and out) off the UI thread: the page's Web Worker (web/plan_worker.js), a thread on the
  // desktop. The answer comes back through BackgroundAnswered, later, on the UI's thread.
  // Empty: the Fit tab points to the CLI instead.
  std::function<void(int64_t seq, const std::string& fn, const std::string& request_json)> background;
  // Start-up marks for bench/ (where the first frame's time goes): "app_state", "app_fonts",
  // "app_estimate". May be empty.
  std::function<void(const char* name)> mark;
  std::string open_hint = "Drop a config.json, .safetensors, .gguf or model.safetensors.index.json on the window.";
};

// Needs a current GL context and an ImGui context with the platform/renderer backends
// initialised. `scale` multiplies font sizes and style sizes (HiDPI).
void Init(const PlatformHooks& hooks, float scale);
// Call before the renderer's NewFrame. Returns true when the font atlas was rebuilt (the
// scale changed, the language changed, a font arrived); the platform then re-creates the
// renderer's font texture.
bool SetScale(float scale);
// Builds the whole UI into the main viewport. Between ImGui::NewFrame and ImGui::Render.
void Frame();
void Shutdown();
// A font the platform fetched: "cjk", the Chinese subset (build/web/llmmem-cjk.ttf). The
// atlas is rebuilt on the next frame (SetScale returns true).
void AddFont(const std::string& name, const uint8_t* data, size_t size);
// The Chinese strings the platform fetched (build/web/llmmem-zh.json, i18n.h
// AddTranslations): the UI and the DOM mirror are redrawn in them. StringsFailed: why they
// could not be had (a banner; the UI stays in English until they come).
void AddStrings(const std::string& json);
void StringsFailed(const std::string& why);

// Files the user opened (desktop: the command line, a drop, the path field; web: a drop).
// Errors are shown in the UI; nothing already typed is lost.
// An llmmem configuration (ConfigToJson) replaces the configuration as a whole.
void OpenConfigText(const std::string& name, const std::string& text);
// A .json: a Hugging Face config.json is imported as the model, otherwise it is taken as an
// llmmem configuration.
// True when a file of this name is read as a log on the "Read an OOM" tab (weights.h
// ClassifyFile, with that tab open or not): the page then hands over its end (OpenOomText).
bool WantsLogText(const std::string& name);
void OpenText(const std::string& name, const std::string& text);
// A link that arrives while the app runs (the page's hashchange and popstate: a link pasted
// into the address bar, Back, Forward): read as the link at start is, as one undoable edit;
// nothing happens when it is the state already shown. An empty link is the first screen.
void OpenLink(const std::string& query);
// The first `size` bytes of a weights file of `file_size` bytes (as much as the header
// needs): shows the exact parameter count and bytes per dtype.
void OpenWeightBytes(const std::string& name, const uint8_t* data, size_t size, uint64_t file_size);
// Desktop: a path, read through hooks.read_range (a .json whole, weights header only).
void OpenPath(const std::string& path);
// A log or a pasted message (.txt, .log): read on the "Read an OOM" tab, which opens.
void OpenOomText(const std::string& name, const std::string& text);
// Web: a dropped weights file read across frames, chunk by chunk (web/boot.js slices the
// File). BeginWeights returns the read's id; FeedWeights takes the bytes from the offset the
// last call returned (0 first) and returns the next offset, or -1 when the read is over
// (done, failed, cancelled from the UI, or replaced by a newer drop). WeightsNextSize: how
// many bytes to slice next.
int64_t BeginWeights(const std::string& name, uint64_t file_size);
double FeedWeights(int64_t id, const uint8_t* data, size_t size);
double WeightsNextSize();
// Text the platform read from the clipboard on request (hooks.read_clipboard): JSON is
// opened as OpenText does; anything else opens the paste box with it, saying why.
void OpenPastedText(const std::string& text);
// The platform could not read the clipboard (no permission, no API): the paste box opens
// and asks for Ctrl+V instead.
void PasteUnavailable();
// Seconds until the UI needs a frame with no input (a pending save), or < 0 for none.
// Platforms that draw on demand set a timer for it.
double NextFrameIn();
// The answers to hooks.hub_load / hub_search (stale ones are ignored).
void HubLoaded(const HubResult& result);
void HubSearched(const HubHits& hits);
// The answer to hooks.need_networks: the bundle's text, or "" with `error` when it could not be
// fetched. A link's net_ keys kept while they were on the way are read now.
void NetworksArrived(const std::string& bundle, const std::string& error);
// The answer to hooks.background: the call's JSON (ok), or why it could not run (!ok); `ms` the
// call's own time where the platform measured it. Stale answers (an older seq) are dropped.
void BackgroundAnswered(int64_t seq, bool ok, const std::string& text, double ms);
// Whether a reading the screen waits for is in the background (the OOM tab's): the page's
// tests count the page busy until it answers.
bool AnswerAwaited();
// The answer to hooks.need_gpu_sources: gpus.json's text, or "" with `error`.
void GpuSourcesArrived(const std::string& gpus_json, const std::string& error);
// Asks the platform once for the GPU sources when they are not embedded (DrawGpuInfo).
void RequestGpuSources();
// A problem the platform met (a file it could not read), shown as a banner.
void ReportError(const std::string& title, const std::string& message);
// Saves the state now if a save is pending (the desktop calls it before exiting).
void Flush();

// The colour to clear the framebuffer with (follows the light/dark theme), RGBA 0..1.
void ClearColor(float rgba[4]);

// For browser and desktop tests, as JSON text: {"ok", "fits", "peak_bytes",
// "capacity_bytes", "config": "<the config's URL query, as the CLI takes it>",
// "url_state": "<config plus view keys, as in location.hash>", "units", "theme",
// "weights": {"reading", "name", "ok", "tensors", "message"}, "hub": {"loading", "error", "loaded",
// "approximate", "searching", "hits", "text"}, "also_in_effect": [settings
// that change the figures and have no control on screen, listed under "Also in effect"]}.
std::string TestStateJson();
// Tests: the next frame records every text the main window draws (Dear ImGui's log, tree
// nodes opened two levels deep for that frame), then TestStateJson gives it as "drawn_text":
// the browser test reads each tab in Chinese for English left untranslated.
void CaptureText();

}  // namespace llmmem::app
