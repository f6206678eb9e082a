// The page's Web Worker for the core's long calls; see web_background.h.
// The EM_JS body below is JavaScript, which clang-format would break:
// clang-format off
#include "platform/web_background.h"

#include <emscripten/emscripten.h>

#include <string>

namespace {

void (*g_wake)() = nullptr;

// Answers through _llmmem_background_answer(seq, ok, text, size, ms). One worker, made on the
// first call (of this file's or of web_hub.cpp's); a worker that fails to start answers every
// call with why. Module.llmmemToWorker(message) is how web_hub.cpp posts the Hub's loads and
// searches (they run in the worker too, hub.js with the worker module's readers): their answers,
// {hub: kind, doc}, go to Module.llmmemHubAnswered, and a worker that stops fails them.
EM_JS(void, JsInstallWorker, (), {
  function answer(s, ok, text, ms) {
    var n = lengthBytesUTF8(text) + 1, p = _llmmem_alloc(n);
    stringToUTF8(text, p, n);
    _llmmem_background_answer(s, ok ? 1 : 0, p, n - 1, ms || 0);
    _llmmem_free(p);
  }
  Module.llmmemHubPending = {};
  function failHub(why) {
    var pending = Module.llmmemHubPending;
    Module.llmmemHubPending = {};
    Object.keys(pending).forEach(function (k) { Module.llmmemHubAnswered(pending[k], { seq: Number(k), ok: false, error: why }); });
  }
  // Whether the message was posted; when not, `fail` was called with why (a background call's
  // seq, 0 for a Hub request).
  Module.llmmemToWorker = function (message, fail) {
    if (!Module.llmmemWorker) {
      try {
        Module.llmmemWorker = new Worker("plan_worker.js");
      } catch (e) {
        fail("the page could not start its planner (" + (e && e.message || e) + ")");
        return false;
      }
      Module.llmmemWorker.onmessage = function (e) {
        var m = e.data || {};
        if (m.hub !== undefined) {
          delete Module.llmmemHubPending[m.doc && m.doc.seq];
          Module.llmmemHubAnswered(m.hub, m.doc);
          return;
        }
        answer(m.seq, !!m.ok, m.ok ? String(m.answer) : String(m.error), m.ms);
      };
      var first = message.hub === undefined ? message.seq : -1;
      Module.llmmemWorker.onerror = function (e) {
        var why = "the planner stopped (" + (e && e.message || "its script did not load") + ")";
        if (first >= 0) answer(first, false, why, 0);
        failHub(why);
        e.preventDefault();
        Module.llmmemWorker = null;
      };
    }
    if (message.hub !== undefined) Module.llmmemHubPending[message.seq] = message.hub;
    Module.llmmemWorker.postMessage(message);
    return true;
  };
});

EM_JS(void, JsBackgroundCall, (double seq, const char* fn, const char* request), {
  var s = seq;
  Module.llmmemToWorker({ seq: s, fn: UTF8ToString(fn), request: UTF8ToString(request) }, function (why) {
    var n = lengthBytesUTF8(why) + 1, p = _llmmem_alloc(n);
    stringToUTF8(why, p, n);
    _llmmem_background_answer(s, 0, p, n - 1, 0);
    _llmmem_free(p);
  });
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
  JsInstallWorker();
  hooks->background = [](int64_t seq, const std::string& fn, const std::string& request) {
    JsBackgroundCall(static_cast<double>(seq), fn.c_str(), request.c_str());
  };
}

}  // namespace llmmem::platform::webbackground
