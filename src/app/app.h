// The UI's entry points. The platform (src/platform/main_glfw.cpp, main_web.cpp) owns the
// window, the GL context and the loop; it calls Init once, then per frame
// ImGui_Impl*_NewFrame + ImGui::NewFrame, Frame(), ImGui::Render and the GL draw, and
// Shutdown at the end. Everything here is platform-independent: no GLFW, no Emscripten.
// May include: imgui, core. Included by the platform files only.
#pragma once

#include <functional>
#include <string>

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
};

// Needs a current GL context and an ImGui context with the platform/renderer backends
// initialised. `scale` multiplies font sizes and style sizes (HiDPI).
void Init(const PlatformHooks& hooks, float scale);
// Call before ImGui_ImplOpenGL3_NewFrame. Returns true when the font atlas was rebuilt;
// the platform then re-creates the renderer's font texture.
bool SetScale(float scale);
// Builds the whole UI into the main viewport. Between ImGui::NewFrame and ImGui::Render.
void Frame();
void Shutdown();

// The colour to clear the framebuffer with (follows the light/dark theme), RGBA 0..1.
void ClearColor(float rgba[4]);

// For browser and desktop tests, as JSON text: {"ok", "fits", "peak_bytes",
// "capacity_bytes", "config": "<the config's URL query, as the CLI takes it>",
// "url_state": "<config plus view keys, as in location.hash>", "units", "theme"}.
std::string TestStateJson();

}  // namespace llmmem::app
