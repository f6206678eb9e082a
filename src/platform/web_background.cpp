// The page's Web Worker for the core's long calls; see web_background.h.
// The EM_JS body below is JavaScript, which clang-format would break:
// clang-format off
#include "platform/web_background.h"

#include <emscripten/emscripten.h>

#include <string>

namespace {

void (*g_wake)() = nullptr;

// Answers through _llmmem_background_answer(seq, ok, text, size, ms). One worker, made on the
// first call; a worker that fails to start answers every call with why.
EM_JS(void, JsBackgroundCall, (double seq, const char* fn, const char* request), {
  function answer(s, ok, text, ms) {
    var n = lengthBytesUTF8(text) + 1, p = _llmmem_alloc(n);
    stringToUTF8(text, p, n);
    _llmmem_background_answer(s, ok ? 1 : 0, p, n - 1, ms || 0);
    _llmmem_free(p);
  }
  if (!Module.llmmemWorker) {
    try {
      Module.llmmemWorker = new Worker("plan_worker.js");
    } catch (e) {
      answer(seq, false, "the page could not start its planner (" + (e && e.message || e) + ")", 0);
      return;
    }
    Module.llmmemWorker.onmessage = function (e) {
      var m = e.data || {};
      answer(m.seq, !!m.ok, m.ok ? String(m.answer) : String(m.error), m.ms);
    };
    Module.llmmemWorker.onerror = function (e) {
      answer(seq, false, "the planner stopped (" + (e && e.message || "its script did not load") + ")", 0);
      e.preventDefault();
      Module.llmmemWorker = null;
    };
  }
  Module.llmmemWorker.postMessage({ seq: seq, fn: UTF8ToString(fn), request: UTF8ToString(request) });
});

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_background_answer(double seq, int ok, const char* text, int size,
                                                              double ms) {
  const std::string s(text, size > 0 ? static_cast<size_t>(size) : 0);
  llmmem::app::BackgroundAnswered(static_cast<int64_t>(seq), ok != 0, s, ms);
  if (g_wake) g_wake();
}

namespace llmmem::platform::webbackground {

void Install(app::PlatformHooks* hooks, void (*wake)()) {
  g_wake = wake;
  hooks->background = [](int64_t seq, const std::string& fn, const std::string& request) {
    JsBackgroundCall(static_cast<double>(seq), fn.c_str(), request.c_str());
  };
}

}  // namespace llmmem::platform::webbackground
