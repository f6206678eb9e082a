// The planners off the page's thread (issue 34 part 5). The page posts {seq, fn, request} (a call
// of bindings/background_calls.h and its JSON text) and gets {seq, ok, answer | error, ms} back.
// llmmem-plan.js (platform/plan_worker_main.cpp) comes with the first request, not with the page.
// The Hub's loads and searches run here too (issue 32: their readers are not in the page's wasm):
// the page posts {hub: 0 (load) | 1 (search), seq, first, second, options: {endpoint, token}} and
// gets {hub, doc} back; hub.js comes with the first of them, and its `api` is the worker module's
// one C entry point for the Hub (platform/web_hub_abi.cpp), the same methods as the JS API's.
"use strict";
var ready = null;
function load() {
  if (!ready) {
    ready = new Promise(function (resolve, reject) {
      try {
        importScripts("llmmem-plan.js");
        createLlmmemPlan().then(resolve, reject);
      } catch (e) { reject(e); }
    });
  }
  return ready;
}

// hub.js's `api` over the module: each method one call of _llmmem_hub_call with its arguments as
// JSON and, for a header or an index, its bytes copied into the heap.
function hubApi(mod) {
  function put(text) {
    var n = mod.lengthBytesUTF8(text) + 1, p = mod._llmmem_alloc(n);
    mod.stringToUTF8(text, p, n);
    return p;
  }
  function call(fn, args, bytes) {
    var f = put(fn), a = put(JSON.stringify(args));
    var b = bytes && bytes.length ? bytes : new Uint8Array(0);
    if (typeof b === "string") b = new TextEncoder().encode(b);
    if (b instanceof ArrayBuffer) b = new Uint8Array(b);
    var p = mod._llmmem_alloc(b.length + 1);
    mod.HEAPU8.set(b, p);
    var answer = mod.UTF8ToString(mod._llmmem_hub_call(f, a, p, b.length));
    mod._llmmem_free(f); mod._llmmem_free(a); mod._llmmem_free(p);
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
  return {
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
}

var hubReady = null;
function loadHub() {
  if (!hubReady) {
    hubReady = load().then(function (mod) {
      importScripts("hub.js");
      return hubApi(mod);
    });
    hubReady.catch(function () { hubReady = null; ready = null; });  // tried again by the next request
  }
  return hubReady;
}

function hub(m) {
  var kind = m.hub, seq = m.seq;
  function answer(doc) { postMessage({ hub: kind, doc: doc }); }
  function run(api) {
    var loader = self.LlmmemHub.create(api, m.options || {});
    if (kind === 1) {
      return loader.search(m.first, 8).then(function (r) {
        answer({ seq: seq, ok: r.ok, error: r.error || "", hits: r.hits || [] });
      });
    }
    return loader.load(m.first, m.second).then(function (r) {
      var plan = r.plan || {};
      answer({ seq: seq, ok: r.ok, error: r.error || "", ref: (r.ref && r.ref.text) || "", result: r.result || null,
               gguf_files: plan.gguf_files || [], gguf_file: plan.kind === "gguf" ? plan.weights_file : "" });
    });
  }
  loadHub().then(run, function () {
    answer({ seq: seq, ok: false, error: "the page's Hub loader (hub.js) did not load" });
  });
}

onmessage = function (e) {
  var m = e.data || {};
  if (m.hub !== undefined) return hub(m);
  load().then(function (mod) {
    var t0 = performance.now();
    var answer = mod.ccall("llmmem_worker_call", "string", ["string", "string"], [String(m.fn), String(m.request)]);
    postMessage({ seq: m.seq, ok: true, answer: answer, ms: performance.now() - t0 });
  }).catch(function (err) {
    ready = null;  // a failed load is tried again on the next request
    postMessage({ seq: m.seq, ok: false, error: "the planner could not run in the page (" + (err && err.message || err) + ")" });
  });
};
