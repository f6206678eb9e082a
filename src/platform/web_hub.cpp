// The page's Hub loader glue; see web_hub.h. The token goes from the box (memory) to
// hub.js (memory) and into one request header: never the URL, the hash or localStorage.
// The EM_JS / EM_ASM bodies below are JavaScript, which clang-format would break:
// clang-format off
#include "platform/web_hub.h"

#include <emscripten/emscripten.h>

#include <string>

namespace {

void (*g_wake)() = nullptr;

// Calls back with JSON text through _llmmem_hub_answer(kind, text, size): kind 0 a load, 1 a search.
// hub.js comes on the first Hub request, not with the page: the first screen needs none of it
// (3 KB of the page's budget). The C strings are read now; they do not outlive this call.
// hub.js's `api` on the page: the methods of the JS API's Embind module (embind_hub.cpp), each
// one call of _llmmem_hub_call (web_hub_abi.cpp) with its arguments as JSON and, for a header
// or an index, its bytes copied into the heap.
EM_JS(void, JsInstallHubApi, (), {
  function put(text) {
    var n = lengthBytesUTF8(text) + 1, p = _llmmem_alloc(n);
    stringToUTF8(text, p, n);
    return p;
  }
  function call(fn, args, bytes) {
    var f = put(fn), a = put(JSON.stringify(args));
    var b = bytes && bytes.length ? bytes : new Uint8Array(0);
    if (typeof b === "string") b = new TextEncoder().encode(b);
    if (b instanceof ArrayBuffer) b = new Uint8Array(b);
    var p = _llmmem_alloc(b.length + 1);
    HEAPU8.set(b, p);
    var answer = UTF8ToString(_llmmem_hub_call(f, a, p, b.length));
    _llmmem_free(f); _llmmem_free(a); _llmmem_free(p);
    return JSON.parse(answer).r;
  }
  function Budget(timeoutMs, nowMs) { this.h = call("budget_new", [timeoutMs, nowMs]); }
  ["request", "time", "bytes", "shards", "splitParts", "requests", "received", "limits"].forEach(function (m) {
    var fn = "budget_" + m.replace(/[A-Z]/g, function (c) { return "_" + c.toLowerCase(); });
    Budget.prototype[m] = function (x) { return call(fn, [this.h, x === undefined ? 0 : x]); };
  });
  Budget.prototype.delete = function () { call("budget_delete", [this.h]); };
  function Sum() { this.h = call("sum_new", []); }
  Sum.prototype.add = function (bytes, size, name) { return call("sum_add", [this.h, size, name], bytes); };
  Sum.prototype.count = function () { return call("sum_count", [this.h]); };
  Sum.prototype.delete = function () { call("sum_delete", [this.h]); };
  window.llmmemHubApi = {
    hubParseRef: function (t, e) { return call("parse_ref", [t, e]); },
    hubEndpoint: function (v) { return call("endpoint", [v]); },
    hubMirrors: function () { return call("mirrors", []); },
    hubFileUrl: function (e, id, rev, file) { return call("file_url", [e, id, rev, file]); },
    hubApiUrl: function (e, id, rev) { return call("api_url", [e, id, rev]); },
    hubSearchUrl: function (e, q, n) { return call("search_url", [e, q, n]); },
    hubPlan: function (info, gguf) { return call("plan", [info, gguf]); },
    hubReadSearch: function (t) { return call("read_search", [t]); },
    hubErrorMessage: function (s, id, what, tr, code, msg, sent) { return call("error_message", [s, id, what, tr, code, msg, !!sent]); },
    hubIndexShards: function (bytes) { return call("index_shards", [], bytes); },
    hubInspectHeader: function (bytes, size, name) { return call("inspect_header", [size, name], bytes); },
    hubBuildModel: function (request, sum) { return call("build_model", [sum.h, JSON.stringify(request)]); },
    hubTokenProblem: function (t) { return call("token_problem", [t]); },
    HubBudget: Budget,
    HubHeaderSum: Sum,
  };
});

EM_JS(void, JsHubRequest, (int kind, double seq, const char* a, const char* b, const char* endpoint, const char* token), {
  var first = UTF8ToString(a), second = UTF8ToString(b);
  var options = { endpoint: UTF8ToString(endpoint), token: UTF8ToString(token) };
  function answer(doc) {
    var bytes = new TextEncoder().encode(JSON.stringify(doc));
    var p = _llmmem_alloc(bytes.length + 1);
    HEAPU8.set(bytes, p);
    HEAPU8[p + bytes.length] = 0;
    _llmmem_hub_answer(kind, p, bytes.length);
    _llmmem_free(p);
  }
  function missing() { answer({ seq: seq, ok: false, error: "the page's Hub loader (hub.js) did not load" }); }
  function run() {
    if (!window.LlmmemHub) return missing();
    var hub = window.LlmmemHub.create(window.llmmemHubApi, options);
    if (kind === 1) {
      hub.search(first, 8).then(function (r) {
        answer({ seq: seq, ok: r.ok, error: r.error || "", hits: r.hits || [] });
      });
      return;
    }
    hub.load(first, second).then(function (r) {
      var plan = r.plan || {};
      answer({ seq: seq, ok: r.ok, error: r.error || "", ref: (r.ref && r.ref.text) || "", result: r.result || null,
               gguf_files: plan.gguf_files || [], gguf_file: plan.kind === "gguf" ? plan.weights_file : "" });
    });
  }
  if (window.LlmmemHub) return run();
  // One load serves every request made before it ends (the search box asks as the user types);
  // a failed load is tried again by the next request.
  if (!window.llmmemHubLoading) {
    window.llmmemHubLoading = new Promise(function (resolve, reject) {
      var script = document.createElement("script");
      script.src = "hub.js";
      script.onload = resolve;
      script.onerror = function () {
        window.llmmemHubLoading = null;
        script.remove();
        reject();
      };
      document.head.appendChild(script);
    });
  }
  window.llmmemHubLoading.then(run, missing);
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
  JsInstallHubApi();
  hooks->hub_load = [](const app::HubRequest& q) {
    JsHubRequest(0, static_cast<double>(q.seq), q.ref.c_str(), q.gguf_file.c_str(), q.endpoint.c_str(), q.token.c_str());
  };
  hooks->hub_search = [](int64_t seq, const std::string& query, const std::string& endpoint, const std::string& token) {
    JsHubRequest(1, static_cast<double>(seq), query.c_str(), "", endpoint.c_str(), token.c_str());
  };
}

}  // namespace llmmem::platform::webhub
