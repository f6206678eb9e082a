// Web entry point (Emscripten 3.1.6, WebGL2 through its GLFW 3 emulation): the canvas,
// HiDPI, the main loop, the URL state and the browser-test hook. The UI itself is
// src/app (app::Init/Frame/Shutdown).
// HiDPI: Emscripten's GLFW has no content scale, so the canvas's backing store is sized
// to its CSS box times devicePixelRatio on every resize, ImGui works in device pixels
// (GLFW reports mouse positions in backing-store pixels) and fonts/style scale by the ratio.
// URL state: read from location.hash (or location.search) at start, written back to the
// hash with history.replaceState when the configuration changes. web/boot.js loads us.
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

#include <GLFW/glfw3.h>
#include <GLES3/gl3.h>

#include <cmath>
#include <string>

#include "app/app.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"

namespace {

GLFWwindow* g_window = nullptr;
std::string g_test_state;

// The page's state: "#v=1&seq=8192" or "?v=1&seq=8192", without the leading mark.
EM_JS(int, JsReadUrlState, (char* buf, int cap), {
  var s = window.location.hash.length > 1 ? window.location.hash.substring(1)
                                           : window.location.search.substring(1);
  stringToUTF8(s, buf, cap);
  return lengthBytesUTF8(s);
});

EM_JS(void, JsWriteUrlState, (const char* query), {
  var q = UTF8ToString(query);
  var url = window.location.pathname + window.location.search + (q.length ? "#" + q : "");
  try { window.history.replaceState(null, "", url); } catch (e) {}
});

// Copies the page's link with `query` as its hash; returns the link's length written to buf.
EM_JS(int, JsCopyLink, (const char* query, char* buf, int cap), {
  var q = UTF8ToString(query);
  var link = window.location.origin + window.location.pathname + window.location.search + (q.length ? "#" + q : "");
  if (!navigator.clipboard || !navigator.clipboard.writeText) return 0;
  navigator.clipboard.writeText(link).catch(function(e) { console.warn("llmmem: copy failed", e); });
  stringToUTF8(link, buf, cap);
  return lengthBytesUTF8(link);
});

// Installs window.llmmemTestState() (JSON text of the current estimate and URL state,
// app::TestStateJson) and marks the page ready for scripted tests.
EM_JS(void, JsInstallTestHook, (), {
  window.llmmemTestState = function() { return UTF8ToString(_llmmem_test_state()); };
  window.llmmemReady = true;
  if (typeof window.llmmemOnReady === "function") window.llmmemOnReady();
});

// Shows the page's error overlay (web/boot.js) with a message.
EM_JS(void, JsFail, (const char* message), {
  var m = UTF8ToString(message);
  if (typeof window.llmmemFail === "function") window.llmmemFail(m); else console.error(m);
});

std::string ReadUrlState() {
  std::string s(4096, '\0');
  const int n = JsReadUrlState(s.data(), static_cast<int>(s.size()));
  if (n >= static_cast<int>(s.size())) {
    s.assign(static_cast<size_t>(n) + 1, '\0');
    JsReadUrlState(s.data(), static_cast<int>(s.size()));
  }
  s.resize(static_cast<size_t>(n) < s.size() ? static_cast<size_t>(n) : s.size());
  return s;
}

float DevicePixelRatio() {
  const double r = emscripten_get_device_pixel_ratio();
  return r > 0.25 && r < 8 ? static_cast<float>(r) : 1.0f;
}

// Sizes the canvas's backing store to its CSS box times devicePixelRatio.
void FitCanvas() {
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  const float dpr = DevicePixelRatio();
  const int w = static_cast<int>(std::lround(css_w * dpr));
  const int h = static_cast<int>(std::lround(css_h * dpr));
  int cur_w = 0, cur_h = 0;
  glfwGetWindowSize(g_window, &cur_w, &cur_h);
  if (w > 0 && h > 0 && (w != cur_w || h != cur_h)) glfwSetWindowSize(g_window, w, h);
}

EM_BOOL OnResize(int, const EmscriptenUiEvent*, void*) {
  FitCanvas();
  return EM_FALSE;
}

void MainLoop() {
  FitCanvas();  // also catches devicePixelRatio changes (zoom, moving between screens)
  if (llmmem::app::SetScale(DevicePixelRatio())) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  llmmem::app::Frame();
  ImGui::Render();
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(g_window, &fw, &fh);
  glViewport(0, 0, fw, fh);
  float clear[4];
  llmmem::app::ClearColor(clear);
  glClearColor(clear[0], clear[1], clear[2], clear[3]);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void* GetProc(const char* name) { return reinterpret_cast<void*>(glfwGetProcAddress(name)); }

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE const char* llmmem_test_state() {
  g_test_state = llmmem::app::TestStateJson();
  return g_test_state.c_str();
}

int main() {
  if (!glfwInit()) {
    JsFail("GLFW could not start.");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  g_window = glfwCreateWindow(1280, 800, "llmmem", nullptr, nullptr);
  if (g_window == nullptr) {
    JsFail("A WebGL2 context could not be created.");
    return 1;
  }
  glfwMakeContextCurrent(g_window);
  FitCanvas();

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui_ImplGlfw_InitForOpenGL(g_window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");

  llmmem::app::PlatformHooks hooks;
  hooks.initial_query = ReadUrlState();
  hooks.glsl_header = "#version 300 es\nprecision highp float;\n";
  hooks.gl_loader = GetProc;
  hooks.state_changed = [](const std::string& query) { JsWriteUrlState(query.c_str()); };
  hooks.copy_link = [](const std::string& query) {
    std::string link(8192, '\0');
    const int n = JsCopyLink(query.c_str(), link.data(), static_cast<int>(link.size()));
    link.resize(n > 0 && n < static_cast<int>(link.size()) ? static_cast<size_t>(n) : 0);
    return link;
  };
  llmmem::app::Init(hooks, DevicePixelRatio());

  emscripten_set_resize_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, OnResize);
  JsInstallTestHook();
  emscripten_set_main_loop(MainLoop, 0, false);
  return 0;
}
