// Web entry point (Emscripten 3.1.6, WebGL2 through its GLFW 3 emulation): the canvas,
// HiDPI, the main loop, the URL state and the browser-test hook. The UI itself is
// src/app (app::Init/Frame/Shutdown).
// HiDPI: Emscripten's GLFW has no content scale, so the canvas's backing store is sized
// to its CSS box times devicePixelRatio on every resize, ImGui works in device pixels
// (GLFW reports mouse positions in backing-store pixels) and fonts/style scale by the ratio.
// URL state: read from location.hash (or location.search) at start, written back to the
// hash with history.replaceState when the configuration changes, and kept in localStorage
// ("llmmem.state") for the next visit without a hash (the URL, when present, wins).
// Files: web/boot.js handles drops (a config.json's text; a weights file's header read with
// File.slice, one chunk per turn of the event loop, through window.llmmemWeightsBegin /
// llmmemWeightsFeed, installed here: the app parses each chunk as it arrives and its
// Cancel button ends the read) and hands texts to the app through window.llmmemOpenText. Exports download through
// window.llmmemDownload (a Blob URL, boot.js) or go to the clipboard.
// web/boot.js loads us.
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

#include <GLFW/glfw3.h>
#include <GLES3/gl3.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "app/app.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"
#include "platform/render_frame.h"

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

// localStorage, which a browser may refuse (private mode, disabled storage): -1 then.
EM_JS(int, JsStorageGet, (char* buf, int cap), {
  var s;
  try { s = window.localStorage.getItem("llmmem.state"); } catch (e) { return -2; }
  if (s === null) return -1;
  stringToUTF8(s, buf, cap);
  return lengthBytesUTF8(s);
});

EM_JS(int, JsStorageSet, (const char* text), {
  try { window.localStorage.setItem("llmmem.state", UTF8ToString(text)); return 1; } catch (e) { return 0; }
});

EM_JS(void, JsStorageRemove, (), {
  try { window.localStorage.removeItem("llmmem.state"); } catch (e) {}
});

EM_JS(int, JsCopyText, (const char* text), {
  if (!navigator.clipboard || !navigator.clipboard.writeText) return 0;
  navigator.clipboard.writeText(UTF8ToString(text)).catch(function(e) { console.warn("llmmem: copy failed", e); });
  return 1;
});

// A download through boot.js's Blob URL helper; 0 when boot.js did not install it.
EM_JS(int, JsDownload, (const char* name, const char* mime, const char* text), {
  if (typeof window.llmmemDownload !== "function") return 0;
  return window.llmmemDownload(UTF8ToString(name), UTF8ToString(mime), UTF8ToString(text)) ? 1 : 0;
});

// window.llmmemOpenText(name, text), llmmemOpenWeights(name, Uint8Array, fileSize) and
// llmmemReportError(title, message), for boot.js's drop handler. Bytes are copied into
// the module's heap (never the stack: a config.json may be large).
EM_JS(void, JsInstallFileHooks, (), {
  function put(bytes) {
    var p = _llmmem_alloc(bytes.length + 1);
    HEAPU8.set(bytes, p);
    HEAPU8[p + bytes.length] = 0;
    return p;
  }
  function putString(s) { return put(new TextEncoder().encode(String(s))); }
  window.llmmemOpenText = function(name, text) {
    var n = putString(name);
    var bytes = new TextEncoder().encode(String(text));
    var t = put(bytes);
    _llmmem_open_text(n, t, bytes.length);
    _llmmem_free(n);
    _llmmem_free(t);
  };
  window.llmmemOpenWeights = function(name, bytes, fileSize) {
    var n = putString(name);
    var b = put(bytes);
    _llmmem_open_weights(n, b, bytes.length, fileSize);
    _llmmem_free(n);
    _llmmem_free(b);
  };
  // A weights file read across frames (app::BeginWeights / FeedWeights): begin returns the
  // read's id; feed(id, bytes) returns the next offset or -1 (over, or cancelled in the UI).
  window.llmmemWeightsBegin = function(name, fileSize) {
    var n = putString(name);
    var id = _llmmem_weights_begin(n, fileSize);
    _llmmem_free(n);
    return id;
  };
  window.llmmemWeightsFeed = function(id, bytes) {
    var b = put(bytes);
    var next = _llmmem_weights_feed(id, b, bytes.length);
    _llmmem_free(b);
    return next;
  };
  window.llmmemWeightsNextSize = function() { return _llmmem_weights_next_size(); };
  window.llmmemReportError = function(title, message) {
    var t = putString(title);
    var m = putString(message);
    _llmmem_report_error(t, m);
    _llmmem_free(t);
    _llmmem_free(m);
  };
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
  llmmem::platform::RenderFrame(g_window, DevicePixelRatio());
}

void* GetProc(const char* name) { return reinterpret_cast<void*>(glfwGetProcAddress(name)); }

// The state as the URL query, in this browser's localStorage.
class LocalStorage : public llmmem::app::Storage {
 public:
  llmmem::app::StorageFormat Format() const override { return llmmem::app::StorageFormat::kQuery; }
  std::string Where() const override { return "this browser's local storage"; }
  llmmem::app::StoredText Load() override {
    llmmem::app::StoredText out;
    std::string s(4096, '\0');
    int n = JsStorageGet(s.data(), static_cast<int>(s.size()));
    if (n == -1) return out;
    if (n < 0) {
      out.status = llmmem::app::StoredText::Status::kUnreadable;
      out.error = "the browser refused access";
      return out;
    }
    if (n >= static_cast<int>(s.size())) {
      s.assign(static_cast<size_t>(n) + 1, '\0');
      n = JsStorageGet(s.data(), static_cast<int>(s.size()));
    }
    s.resize(n > 0 ? static_cast<size_t>(n) : 0);
    out.status = llmmem::app::StoredText::Status::kOk;
    out.text = std::move(s);
    return out;
  }
  bool Save(const std::string& text, std::string* error) override {
    if (text.empty()) return true;
    if (JsStorageSet(text.c_str()) != 0) return true;
    *error = "the browser refused to store it";
    return false;
  }
  std::string SetAside(std::string*) override {
    JsStorageRemove();
    return "(removed)";
  }
};

LocalStorage g_storage;

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE void* llmmem_alloc(int size) { return std::malloc(size > 0 ? static_cast<size_t>(size) : 1); }
extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_free(void* p) { std::free(p); }

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_open_text(const char* name, const char* text, int size) {
  llmmem::app::OpenText(name, std::string(text, size > 0 ? static_cast<size_t>(size) : 0));
}

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_open_weights(const char* name, const uint8_t* data, int size, double file_size) {
  llmmem::app::OpenWeightBytes(name, data, size > 0 ? static_cast<size_t>(size) : 0,
                               file_size > 0 ? static_cast<uint64_t>(file_size) : 0);
}

extern "C" EMSCRIPTEN_KEEPALIVE double llmmem_weights_begin(const char* name, double file_size) {
  return static_cast<double>(llmmem::app::BeginWeights(name, file_size > 0 ? static_cast<uint64_t>(file_size) : 0));
}

extern "C" EMSCRIPTEN_KEEPALIVE double llmmem_weights_feed(double id, const uint8_t* data, int size) {
  return llmmem::app::FeedWeights(static_cast<int64_t>(id), data, size > 0 ? static_cast<size_t>(size) : 0);
}

extern "C" EMSCRIPTEN_KEEPALIVE double llmmem_weights_next_size() { return llmmem::app::WeightsNextSize(); }

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_report_error(const char* title, const char* message) {
  llmmem::app::ReportError(title, message);
}

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
  hooks.storage = &g_storage;
  hooks.copy_text = [](const std::string& text) { return JsCopyText(text.c_str()) != 0; };
  hooks.save_text = [](const std::string& name, const std::string& mime, const std::string& text) {
    return JsDownload(name.c_str(), mime.c_str(), text.c_str()) != 0 ? "Downloaded " + name
                                                                      : "Could not download " + name;
  };
  hooks.copy_link = [](const std::string& query) {
    std::string link(8192, '\0');
    const int n = JsCopyLink(query.c_str(), link.data(), static_cast<int>(link.size()));
    link.resize(n > 0 && n < static_cast<int>(link.size()) ? static_cast<size_t>(n) : 0);
    return link;
  };
  llmmem::app::Init(hooks, DevicePixelRatio());

  emscripten_set_resize_callback(EMSCRIPTEN_EVENT_TARGET_WINDOW, nullptr, EM_FALSE, OnResize);
  JsInstallFileHooks();
  JsInstallTestHook();
  emscripten_set_main_loop(MainLoop, 0, false);
  return 0;
}
