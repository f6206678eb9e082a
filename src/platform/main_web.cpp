// Web entry point (Emscripten 3.1.6, WebGL2): the canvas, HiDPI, drawing on demand, the
// URL state and the browser-test hook. The UI itself is src/app (app::Init/Frame).
// No GLFW here: Emscripten's GLFW emulation passed raw wheel deltas (backwards, ~100x),
// stubbed the clipboard, asked for pointer lock and full screen, and its main loop drew
// every animation frame. Instead:
//  - the WebGL2 context comes from emscripten_webgl_create_context, and web_gl.cpp draws
//    ImGui with state this page keeps (no glGet per frame);
//  - input comes from web_input.js/.cpp (DOM pointer, wheel, key and clipboard events);
//  - frames are drawn on demand: an event, a resize or a devicePixelRatio change asks for
//    one animation frame; drawing goes on only while the picture still changes (a hash of
//    the draw lists), a button or key is held, or events wait, and a timer wakes it for
//    the app's own deadlines (app::NextFrameIn). Idle, the main thread does nothing.
// HiDPI: the canvas's backing store is its CSS box times devicePixelRatio, ImGui works in
// device pixels and fonts/style scale by the ratio.
// URL state: read from location.hash (or location.search) at start, written back to the
// hash with history.replaceState when the configuration changes, and kept in localStorage
// ("llmmem.state") for the next visit without a hash (the URL, when present, wins).
// Files: web/boot.js handles drops and the file picker (a config.json's text; a weights
// file's header read with File.slice, one chunk per turn of the event loop, through
// window.llmmemWeightsBegin / llmmemWeightsFeed, installed here: the app parses each chunk
// as it arrives and its Cancel button ends the read) and hands texts to the app through
// window.llmmemOpenText. Exports download through window.llmmemDownload (a Blob URL,
// boot.js) or go to the clipboard (web_input.js's llmmemCopyText).
// web/boot.js loads us.
// The EM_JS / EM_ASM bodies below are JavaScript, which clang-format would break:
// clang-format off
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>
#include <emscripten/html5_webgl.h>

#include <GLES3/gl3.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "app/app.h"
#include "app/gl_min.h"
#include "app/i18n.h"
#include "app/oom_view.h"
#include "core/config/config_json.h"
#include "core/estimate/estimate.h"
#include "imgui.h"
#include "platform/render_frame.h"
#include "platform/web_gl.h"
#include "platform/web_hub.h"
#include "platform/web_background.h"
#include "platform/web_input.h"
#include "platform/web_networks.h"
#include "platform/web_strings.h"

namespace {

std::string g_test_state;

// The page's state: "#v=1&seq=8192" or "?v=1&seq=8192", without the leading mark.
EM_JS(int, JsReadUrlState, (char* buf, int cap), {
  var s = window.location.hash.length > 1 ? window.location.hash.substring(1)
                                           : window.location.search.substring(1);
  stringToUTF8(s, buf, cap);
  return lengthBytesUTF8(s);
});

// Each new state becomes the page's hash. A state a second or more after the last one is a
// new history entry (Back returns to it), quicker ones replace it (a slider's drag is one
// entry). llmmemLinkState remembers what the page wrote, so only a link from outside (pasted
// into the address bar, Back, Forward) is opened again (JsListenForLinks, issue 32).
EM_JS(void, JsWriteUrlState, (const char* query), {
  var q = UTF8ToString(query);
  var url = window.location.pathname + window.location.search + (q.length ? "#" + q : "");
  var now = Date.now();
  var push = window.llmmemLinkState !== undefined && now - (window.llmmemLinkTime || 0) >= 1000;
  window.llmmemLinkState = q;
  window.llmmemLinkTime = now;
  try {
    if (push) window.history.pushState(null, "", url); else window.history.replaceState(null, "", url);
  } catch (e) {}
});

// A link that arrives while the page runs (hashchange: pasted into the address bar or
// edited; popstate: Back and Forward) opens as the link at start does, as one undoable edit.
EM_JS(void, JsListenForLinks, (), {
  function open() {
    var s = window.location.hash.length > 1 ? window.location.hash.substring(1) : window.location.search.substring(1);
    if (s === window.llmmemLinkState) return;
    window.llmmemLinkState = s;
    window.llmmemLinkTime = Date.now();  // the state it normalises to replaces this entry
    var bytes = new TextEncoder().encode(s);
    var p = _llmmem_alloc(bytes.length + 1);
    HEAPU8.set(bytes, p);
    HEAPU8[p + bytes.length] = 0;
    _llmmem_open_link(p);
    _llmmem_free(p);
  }
  window.addEventListener("hashchange", open);
  window.addEventListener("popstate", open);
});

// Copies the page's link with `query` as its hash; returns the link's length written to buf.
EM_JS(int, JsCopyLink, (const char* query, char* buf, int cap), {
  var q = UTF8ToString(query);
  var link = window.location.origin + window.location.pathname + window.location.search + (q.length ? "#" + q : "");
  window.llmmemCopyText(link);
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
  window.llmmemCopyText(UTF8ToString(text));
  return 1;
});

// The file picker (boot.js); 0 when the page has none.
EM_JS(int, JsPickFile, (), {
  if (typeof window.llmmemPickFile !== "function") return 0;
  window.llmmemPickFile();
  return 1;
});

// Reads the clipboard with the async API; the text (or null) comes back to
// llmmem_clipboard_text.
EM_JS(void, JsReadClipboard, (), {
  window.llmmemReadClipboard(function(t) {
    if (t === null || t === undefined) { _llmmem_clipboard_text(0); return; }
    var n = lengthBytesUTF8(t) + 1;
    var p = _llmmem_alloc(n);
    stringToUTF8(t, p, n);
    _llmmem_clipboard_text(p);
    _llmmem_free(p);
  });
});

// The browser's preferred language ("zh-CN", "en-US").
// prefers-color-scheme: light (the OS or browser setting), read once at start.
EM_JS(int, JsPrefersLight, (), {
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: light)").matches ? 1 : 0;
});

EM_JS(int, JsLanguage, (char* buf, int cap), {
  var l = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
  stringToUTF8(l, buf, cap);
  return lengthBytesUTF8(l);
});

// The result as DOM text (app/mirror.h's JSON) in #mirror: a heading, the verdict, the
// moment of the peak and a table of the categories, all as textContent.
EM_JS(void, JsMirror, (const char* json), {
  var m = document.getElementById("mirror");
  if (!m) return;
  var d = JSON.parse(UTF8ToString(json));
  var el = function(tag, text) { var e = document.createElement(tag); if (text !== undefined) e.textContent = text; return e; };
  var parts = [el("h2", d.title), el("p", d.verdict)];
  if (d.detail) parts.push(el("p", d.detail));
  if (d.rows && d.rows.length) {
    var t = el("table");
    d.rows.forEach(function(r) {
      var tr = el("tr");
      r.forEach(function(c, i) { tr.appendChild(el(i === 0 ? "th" : "td", c)); });
      t.appendChild(tr);
    });
    parts.push(t);
  }
  m.replaceChildren.apply(m, parts);
  document.documentElement.lang = d.lang === "zh" ? "zh-CN" : "en";
});

// The UI's language changed: the page's lang, and for Chinese the CJK font (fetched once,
// handed to the app with llmmem_font).
EM_JS(void, JsLanguageChanged, (const char* lang), {
  var l = UTF8ToString(lang);
  document.documentElement.lang = l === "zh" ? "zh-CN" : "en";
  if (l !== "zh" || window.llmmemCjkRequested) return;
  window.llmmemCjkRequested = true;
  fetch("llmmem-cjk.ttf").then(function(r) {
    if (!r.ok) throw new Error("HTTP " + r.status);
    return r.arrayBuffer();
  }).then(function(buf) {
    var bytes = new Uint8Array(buf);
    var p = _llmmem_alloc(bytes.length);
    HEAPU8.set(bytes, p);
    _llmmem_font(p, bytes.length);
    _llmmem_free(p);
  }).catch(function(e) {
    window.llmmemCjkRequested = false;
    console.warn("llmmem: the Chinese font could not be loaded", e);
  });
});

EM_JS(void, JsInstallWatch, (), {
  // Device pixels per CSS pixel, for tests: the canvas's backing store over its CSS box.
  window.llmmemCanvasRatio = function() {
    var c = document.getElementById("canvas");
    return c.width / c.getBoundingClientRect().width;
  };
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
  // A log (app::WantsLogText): boot.js reads its last llmmemLogTailBytes() bytes and hands them
  // over as they are (a UTF-16 log stays UTF-16 for the reader to recognise).
  window.llmmemWantsLog = function(name) {
    var n = putString(name);
    var yes = _llmmem_wants_log(n);
    _llmmem_free(n);
    return yes !== 0;
  };
  window.llmmemLogTailBytes = function() { return _llmmem_log_tail_bytes(); };
  window.llmmemOpenLog = function(name, bytes) {
    var n = putString(name);
    var b = put(bytes);
    _llmmem_open_log(n, b, bytes.length);
    _llmmem_free(n);
    _llmmem_free(b);
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
// app::TestStateJson) and window.llmmemBusy() (a frame is due), and marks the page ready
// for scripted tests.
EM_JS(void, JsInstallTestHook, (), {
  window.llmmemTestState = function() { return UTF8ToString(_llmmem_test_state()); };
  window.llmmemBusy = function() { return _llmmem_busy() !== 0; };
  window.llmmemCaptureText = function() { _llmmem_capture_text(); };
  window.llmmemReady = true;
  if (typeof window.llmmemOnReady === "function") window.llmmemOnReady();
});

// Where start-up time goes (bench/browser_bench.mjs): window.llmmemMarks[name] =
// performance.now(), the first time each point is reached.
EM_JS(void, JsMark, (const char* name), {
  var m = window.llmmemMarks || (window.llmmemMarks = {});
  var k = UTF8ToString(name);
  if (!(k in m)) m[k] = performance.now();
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

//-----------------------------------------------------------------------------
// Drawing on demand
//-----------------------------------------------------------------------------

struct Canvas {
  int fb_w = 0, fb_h = 0;      // backing store, device pixels
  double css_w = 0, css_h = 0;
  float dpr = 1;
};
Canvas g_canvas;
bool g_scheduled = false;
llmmem::platform::FramePacer g_pacer;  // render_frame.h: when to draw again
double g_last_time = -1;         // ms, of the last frame
long g_timer = 0;                // the pending wake-up timeout, 0 when none
double g_timer_at = 0;

// Sizes the canvas's backing store to its CSS box times devicePixelRatio.
void FitCanvas() {
  Canvas& c = g_canvas;
  emscripten_get_element_css_size("#canvas", &c.css_w, &c.css_h);
  c.dpr = DevicePixelRatio();
  const int w = static_cast<int>(std::lround(c.css_w * c.dpr));
  const int h = static_cast<int>(std::lround(c.css_h * c.dpr));
  if (w > 0 && h > 0 && (w != c.fb_w || h != c.fb_h)) {
    // Setting the size, even to the same one, reallocates the drawing buffer.
    int now_w = 0, now_h = 0;
    emscripten_get_canvas_element_size("#canvas", &now_w, &now_h);
    if (now_w != w || now_h != h) emscripten_set_canvas_element_size("#canvas", w, h);
    c.fb_w = w;
    c.fb_h = h;
  }
}

// The platform side of RenderFrame (render_frame.h) for WebGL2.
struct WebBackend {
  bool events_left = false;
  void FontsChanged() { llmmem::platform::webgl::UpdateFontTexture(); }
  void NewFrame() {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(g_canvas.fb_w), static_cast<float>(g_canvas.fb_h));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    const float font_css = ImGui::GetFontSize() > 0 ? ImGui::GetFontSize() / g_canvas.dpr : 15.0f;
    events_left = llmmem::platform::webinput::Apply(g_canvas.dpr, font_css, static_cast<float>(g_canvas.css_h));
  }
  void Draw(const ImDrawData* dd, const float clear[4]) {
    llmmem::platform::webgl::Render(dd, g_canvas.fb_w, g_canvas.fb_h, clear);
  }
};

void Schedule();

void OnTimer(void*) {
  g_timer = 0;
  Schedule();
}

EM_BOOL Tick(double now_ms, void*) {
  g_scheduled = false;
  FitCanvas();  // also catches devicePixelRatio changes (zoom, moving between screens)
  ImGuiIO& io = ImGui::GetIO();
  io.DeltaTime = g_last_time < 0 ? 1.0f / 60 : static_cast<float>(std::max(1e-4, (now_ms - g_last_time) / 1000.0));
  g_last_time = now_ms;
  WebBackend backend;
  JsMark("frame_start");
  llmmem::platform::RenderFrame(backend, g_canvas.dpr);
  llmmem::platform::webinput::FrameDone();
  // Input still queued (a press waits a frame after its move, web_input.cpp): the settling
  // frames count from the last event applied, not from the DOM's, so what it opens (a
  // combo's popup is hidden its first frame) is drawn.
  if (backend.events_left) g_pacer.Woken();
  const bool paced = g_pacer.Drawn(ImGui::GetDrawData());
  const bool more = backend.events_left || llmmem::platform::webinput::Held() || paced;
  if (more) {
    Schedule();
  } else {
    const double in = llmmem::app::NextFrameIn();
    if (in >= 0) {
      const double at = now_ms + in * 1000.0 + 1;
      if (g_timer != 0 && g_timer_at > at) {
        emscripten_clear_timeout(g_timer);
        g_timer = 0;
      }
      if (g_timer == 0) {
        g_timer_at = at;
        g_timer = emscripten_set_timeout(OnTimer, in * 1000.0 + 1, nullptr);
      }
    }
  }
  return EM_FALSE;
}

void Schedule() {
  if (g_scheduled) return;
  g_scheduled = true;
  emscripten_request_animation_frame(Tick, nullptr);
}

// Every input, resize and focus change: draw, and let the picture settle.
void Wake() {
  g_pacer.Woken();
  Schedule();
}

// gl_min's entry points (the fit map's shader), straight from the GLES3 header.
void* GetProc(const char* name) {
  struct Entry {
    const char* name;
    void* fn;
  };
#define LLMMEM_GL_ENTRY(ret, fn_name, args) {"gl" #fn_name, reinterpret_cast<void*>(&gl##fn_name)},
  static const Entry kEntries[] = {LLMMEM_GL_FUNCS(LLMMEM_GL_ENTRY)};
#undef LLMMEM_GL_ENTRY
  for (const Entry& e : kEntries)
    if (std::strcmp(e.name, name) == 0) return e.fn;
  return nullptr;
}

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

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_open_link(const char* query) {
  llmmem::app::OpenLink(query);
  Wake();
}

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_open_text(const char* name, const char* text, int size) {
  llmmem::app::OpenText(name, std::string(text, size > 0 ? static_cast<size_t>(size) : 0));
  Wake();
}

extern "C" EMSCRIPTEN_KEEPALIVE int llmmem_wants_log(const char* name) { return llmmem::app::WantsLogText(name) ? 1 : 0; }
extern "C" EMSCRIPTEN_KEEPALIVE int llmmem_log_tail_bytes() { return static_cast<int>(llmmem::app::kOomBoxMaxBytes); }
extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_open_log(const char* name, const char* data, int size) {
  llmmem::app::OpenOomText(name, std::string(data, size > 0 ? static_cast<size_t>(size) : 0));
  Wake();
}

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_open_weights(const char* name, const uint8_t* data, int size, double file_size) {
  llmmem::app::OpenWeightBytes(name, data, size > 0 ? static_cast<size_t>(size) : 0,
                               file_size > 0 ? static_cast<uint64_t>(file_size) : 0);
  Wake();
}

// A read across turns of the event loop: each call asks for a frame (frames are drawn on
// demand), so the progress shows and the finished header is taken by the weights window.
extern "C" EMSCRIPTEN_KEEPALIVE double llmmem_weights_begin(const char* name, double file_size) {
  const int64_t id = llmmem::app::BeginWeights(name, file_size > 0 ? static_cast<uint64_t>(file_size) : 0);
  Wake();
  return static_cast<double>(id);
}

extern "C" EMSCRIPTEN_KEEPALIVE double llmmem_weights_feed(double id, const uint8_t* data, int size) {
  const double next = llmmem::app::FeedWeights(static_cast<int64_t>(id), data, size > 0 ? static_cast<size_t>(size) : 0);
  Wake();
  return next;
}

extern "C" EMSCRIPTEN_KEEPALIVE double llmmem_weights_next_size() { return llmmem::app::WeightsNextSize(); }

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_report_error(const char* title, const char* message) {
  llmmem::app::ReportError(title, message);
  Wake();
}

// The CJK font's bytes (JsLanguageChanged's fetch).
extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_font(const uint8_t* data, int size) {
  llmmem::app::AddFont("cjk", data, size > 0 ? static_cast<size_t>(size) : 0);
  Wake();
}

// JsReadClipboard's answer: the clipboard's text, or null when the browser refused.
extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_clipboard_text(const char* text) {
  if (text != nullptr) {
    llmmem::app::OpenPastedText(text);
  } else {
    llmmem::app::PasteUnavailable();
  }
  Wake();
}

// bench/: microseconds per core::EstimateTotals over n estimates of a training and an
// inference configuration (Llama 3.1 8B), as the page's own build runs them.
extern "C" EMSCRIPTEN_KEEPALIVE double llmmem_bench_estimate(int n) {
  llmmem::core::Config train = llmmem::core::DefaultConfig();
  llmmem::core::Config infer = train;
  infer.mode = llmmem::core::Mode::kInference;
  volatile double sink = 0;
  const double t0 = emscripten_get_now();
  for (int i = 0; i < n; ++i) {
    llmmem::core::Config& c = (i & 1) != 0 ? infer : train;
    c.batch = 1 + i % 8;
    sink = sink + llmmem::core::EstimateTotals(c).peak_bytes;
  }
  return (emscripten_get_now() - t0) * 1000.0 / (n > 0 ? n : 1);
}

// Tests: the next frame's drawn text comes back in llmmemTestState().drawn_text.
extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_capture_text() {
  llmmem::app::CaptureText();
  Wake();
}

// Whether a frame is due (scheduled, or input waiting) or the screen awaits a background answer
// (app::AnswerAwaited): tests wait for 0 ("settled").
extern "C" EMSCRIPTEN_KEEPALIVE int llmmem_busy() { return g_scheduled || llmmem::app::AnswerAwaited() ? 1 : 0; }

extern "C" EMSCRIPTEN_KEEPALIVE const char* llmmem_test_state() {
  g_test_state = llmmem::app::TestStateJson();
  return g_test_state.c_str();
}

int main() {
  JsMark("main");
  // The canvas sized before the context exists: resizing it afterwards reallocates the
  // drawing buffer (~50 ms for a software renderer).
  FitCanvas();
  EmscriptenWebGLContextAttributes attrs;
  emscripten_webgl_init_context_attributes(&attrs);
  attrs.majorVersion = 2;
  attrs.minorVersion = 0;
  attrs.alpha = EM_FALSE;
  attrs.depth = EM_FALSE;
  attrs.stencil = EM_FALSE;
  attrs.antialias = EM_FALSE;
  // No extension is needed (the fit map samples R32F with NEAREST, core WebGL2); enabling
  // every one the browser offers cost a software renderer ~300 ms before the first frame.
  attrs.enableExtensionsByDefault = EM_FALSE;
  const EMSCRIPTEN_WEBGL_CONTEXT_HANDLE ctx = emscripten_webgl_create_context("#canvas", &attrs);
  JsMark("gl_context");
  if (ctx <= 0 || emscripten_webgl_make_context_current(ctx) != EMSCRIPTEN_RESULT_SUCCESS) {
    JsFail("A WebGL2 context could not be created.");
    return 1;
  }
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  llmmem::platform::webgl::Init();
  llmmem::platform::webinput::Install(Wake);
  JsMark("gl_ready");

  llmmem::app::PlatformHooks hooks;
  hooks.initial_query = ReadUrlState();
  hooks.glsl_header = "#version 300 es\nprecision highp float;\n";
  hooks.gl_loader = GetProc;
  hooks.state_changed = [](const std::string& query) { JsWriteUrlState(query.c_str()); };
  JsListenForLinks();
  hooks.storage = &g_storage;
  hooks.copy_text = [](const std::string& text) { return JsCopyText(text.c_str()) != 0; };
  hooks.save_text = [](const std::string& name, const std::string& mime, const std::string& text) {
    return JsDownload(name.c_str(), mime.c_str(), text.c_str()) != 0
               ? llmmem::app::TrF("Downloaded %s", name.c_str())
               : llmmem::app::TrF("Could not download %s", name.c_str());
  };
  hooks.copy_link = [](const std::string& query) {
    std::string link(8192, '\0');
    const int n = JsCopyLink(query.c_str(), link.data(), static_cast<int>(link.size()));
    link.resize(n > 0 && n < static_cast<int>(link.size()) ? static_cast<size_t>(n) : 0);
    return link;
  };
  hooks.pick_file = [] { return JsPickFile() != 0; };
  hooks.read_clipboard = [] { JsReadClipboard(); };
  char lang[32] = "";
  JsLanguage(lang, sizeof lang);
  hooks.language = lang;
  hooks.prefers_light = JsPrefersLight() != 0;
  hooks.language_changed = [](const std::string& l) {
    JsLanguageChanged(l.c_str());
    if (l == "zh") llmmem::platform::webstrings::Request();  // the Chinese column, with its font
  };
  hooks.mirror_changed = [](const std::string& json) { JsMirror(json.c_str()); };
  hooks.mark = [](const char* name) { JsMark(name); };
  llmmem::platform::webhub::Install(&hooks, Wake);
  llmmem::platform::webnetworks::Install(&hooks, Wake);
  llmmem::platform::webbackground::Install(&hooks, Wake);
  llmmem::platform::webstrings::Install(Wake);
  llmmem::app::Init(hooks, g_canvas.dpr);
  JsMark("app_init");
  llmmem::platform::webgl::UpdateFontTexture();
  JsMark("font_texture");
  const char* gl_error = nullptr;
  if (!llmmem::platform::webgl::Linked(&gl_error)) {
    JsFail(gl_error);
    return 1;
  }
  JsMark("gl_linked");

  JsInstallFileHooks();
  JsInstallWatch();
  JsInstallTestHook();
  Wake();
  JsMark("main_end");
  return 0;
}
