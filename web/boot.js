// Boots the llmmem page: checks WebGL2 and WebAssembly, defines Module (with the canvas)
// before loading llmmem.js, and shows a visible error overlay when anything fails.
// Kept in a file (no inline script) so the page runs under a strict CSP:
// script-src 'self' 'wasm-unsafe-eval'.
(function () {
  "use strict";
  var canvas = document.getElementById("canvas");
  var status = document.getElementById("status");
  var failed = false;

  function fail(message) {
    if (failed) return;
    failed = true;
    document.getElementById("error-message").textContent = String(message || "unknown error");
    document.getElementById("error").hidden = false;
    status.hidden = true;
    window.llmmemError = String(message);
  }
  window.llmmemFail = fail;

  if (typeof WebAssembly !== "object") {
    fail("This browser has no WebAssembly.");
    return;
  }
  var probe = document.createElement("canvas");
  var gl = null;
  try { gl = probe.getContext("webgl2"); } catch (e) { gl = null; }
  if (!gl) {
    fail("This browser cannot create a WebGL2 context.");
    return;
  }
  var lose = gl.getExtension("WEBGL_lose_context");
  if (lose) lose.loseContext();

  canvas.addEventListener("webglcontextlost", function (e) {
    e.preventDefault();
    fail("The WebGL context was lost; reload the page.");
  }, false);
  // Keyboard input goes to the canvas once clicked.
  canvas.addEventListener("mousedown", function () { canvas.focus(); });

  window.Module = {
    canvas: canvas,
    print: function (t) { console.log(t); },
    printErr: function (t) { console.warn(t); },
    onRuntimeInitialized: function () { status.hidden = true; },
    onAbort: function (what) { fail("The module stopped: " + what); },
    setStatus: function (t) { if (t) status.textContent = t; }
  };

  window.addEventListener("error", function (e) {
    if (!window.llmmemReady) fail(e.message || "script error");
  });

  var script = document.createElement("script");
  script.src = "llmmem.js";
  script.async = true;
  script.onerror = function () { fail("Could not load llmmem.js."); };
  document.body.appendChild(script);
})();
