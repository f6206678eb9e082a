// The page's Hub loader glue; see web_hub.h. The token goes from the box (memory) to
// hub.js in the page's worker (a message, memory) and into one request header: never the URL, the hash or localStorage.
// The EM_JS / EM_ASM bodies below are JavaScript, which clang-format would break:
// clang-format off
#include "platform/web_hub.h"

#include <emscripten/emscripten.h>

#include <string>

namespace {

void (*g_wake)() = nullptr;

// Calls back with JSON text through _llmmem_hub_answer(kind, text, size): kind 0 a load, 1 a search.
// The load runs in the page's Web Worker (web_background.cpp's, which also plans): web/plan_worker.js
// brings hub.js and the worker module, whose Hub calls (web_hub_abi.cpp) read the ids, the API's
// JSON and the weight headers, so none of that code is in the page's wasm (issue 32: the first
// screen's bytes). The fetching is hub.js's own, as in node. The C strings are read now; they do
// not outlive this call. The token goes into the message to the worker (memory), nowhere else.
EM_JS(void, JsInstallHubAnswer, (), {
  Module.llmmemHubAnswered = function (kind, doc) {
    var bytes = new TextEncoder().encode(JSON.stringify(doc));
    var p = _llmmem_alloc(bytes.length + 1);
    HEAPU8.set(bytes, p);
    HEAPU8[p + bytes.length] = 0;
    _llmmem_hub_answer(kind, p, bytes.length);
    _llmmem_free(p);
  };
});

EM_JS(void, JsHubRequest, (int kind, double seq, const char* a, const char* b, const char* endpoint, const char* token), {
  var message = { hub: kind, seq: seq, first: UTF8ToString(a), second: UTF8ToString(b),
                  options: { endpoint: UTF8ToString(endpoint), token: UTF8ToString(token) } };
  Module.llmmemToWorker(message, function () {
    Module.llmmemHubAnswered(kind, { seq: seq, ok: false, error: "the page's Hub loader (hub.js) did not load" });
  });
});

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_hub_answer(int kind, const char* text, int size) {
  const std::string json(text, size > 0 ? static_cast<size_t>(size) : 0);
  if (kind == 0) llmmem::app::HubLoaded(llmmem::app::HubResultFromJson(json));
  else llmmem::app::HubSearched(llmmem::app::HubHitsFromJson(json));
  if (g_wake) g_wake();
}

namespace llmmem::platform::webhub {

void Install(app::PlatformHooks* hooks, void (*wake)()) {
  g_wake = wake;
  JsInstallHubAnswer();
  hooks->hub_load = [](const app::HubRequest& q) {
    JsHubRequest(0, static_cast<double>(q.seq), q.ref.c_str(), q.gguf_file.c_str(), q.endpoint.c_str(), q.token.c_str());
  };
  hooks->hub_search = [](int64_t seq, const std::string& query, const std::string& endpoint, const std::string& token) {
    JsHubRequest(1, static_cast<double>(seq), query.c_str(), "", endpoint.c_str(), token.c_str());
  };
}

}  // namespace llmmem::platform::webhub
