// The planners off the page's thread (issue 34 part 5). The page posts {seq, fn, request} (a call
// of bindings/background_calls.h and its JSON text) and gets {seq, ok, answer | error, ms} back.
// llmmem-plan.js (platform/plan_worker_main.cpp) comes with the first request, not with the page.
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
onmessage = function (e) {
  var m = e.data || {};
  load().then(function (mod) {
    var t0 = performance.now();
    var answer = mod.ccall("llmmem_worker_call", "string", ["string", "string"], [String(m.fn), String(m.request)]);
    postMessage({ seq: m.seq, ok: true, answer: answer, ms: performance.now() - t0 });
  }).catch(function (err) {
    ready = null;  // a failed load is tried again on the next request
    postMessage({ seq: m.seq, ok: false, error: "the planner could not run in the page (" + (err && err.message || err) + ")" });
  });
};
