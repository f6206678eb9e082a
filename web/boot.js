// Boots the llmmem page: checks WebAssembly and WebGL2, defines Module (with the canvas)
// before loading llmmem.js (which index.html preloads with its wasm), and shows a visible
// error overlay when anything fails.
// Also: downloads of exports through a Blob URL (window.llmmemDownload), and files dropped
// anywhere on the page (a hint shows while one is dragged over it) or chosen with the
// app's "Open file..." button (window.llmmemPickFile): a .json's text goes to the app (a Hugging Face config.json is imported as
// the model); a weights file (.safetensors, .gguf, model.safetensors.index.json) is read
// only as far as its header, chunk by chunk with File.slice, each chunk parsed by the app as
// it arrives (window.llmmemWeightsBegin / llmmemWeightsFeed), cancellable in the app.
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
  // WebGL2 itself: the module creates the context and says so when it cannot (creating a
  // throwaway context here first cost a software renderer about 100 ms before the download).
  if (typeof WebGL2RenderingContext === "undefined") {
    fail("This browser cannot create a WebGL2 context.");
    return;
  }

  canvas.addEventListener("webglcontextlost", function (e) {
    e.preventDefault();
    fail("The WebGL context was lost; reload the page.");
  }, false);

  // Saves text as a file through a Blob URL (revoked once the download started).
  window.llmmemDownload = function (name, mime, text) {
    try {
      var url = URL.createObjectURL(new Blob([text], { type: mime + ";charset=utf-8" }));
      var a = document.createElement("a");
      a.href = url;
      a.download = name;
      a.hidden = true;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
      return true;
    } catch (e) {
      console.warn("llmmem: download failed", e);
      return false;
    }
  };

  // ---- Dropped files ------------------------------------------------------------------
  var kMaxJsonBytes = 8 << 20;  // core::kJsonMaxBytes

  function readRange(file, begin, end) {
    var blob = file.slice(begin, Math.min(end, file.size));
    if (blob.arrayBuffer) return blob.arrayBuffer().then(function (b) { return new Uint8Array(b); });
    return new Promise(function (resolve, reject) {
      var r = new FileReader();
      r.onload = function () { resolve(new Uint8Array(r.result)); };
      r.onerror = function () { reject(r.error); };
      r.readAsArrayBuffer(blob);
    });
  }

  // Reads the header from the offsets the app asks for (it skips what it does not need, and
  // never asks for the tensor data): a slice of a few MiB at a time, fed to the app in pieces
  // for at most ~10 ms per turn of the event loop, so the page keeps drawing while a large
  // header is parsed (a slow machine, whose frames take longer, gets up to 40 ms a turn:
  // half the time between turns). The app's Cancel (Escape), or a newer drop, ends the loop.
  var kSliceBytes = 4 << 20;
  function inspectWeights(file) {
    var id = window.llmmemWeightsBegin(file.name, file.size);
    var at = 0, buf = null, bufAt = 0, lastTurn = performance.now();
    function inBuffer() { return buf !== null && at >= bufAt && at < bufAt + buf.length; }
    function turn() {
      if (at < 0) return Promise.resolve();
      if (!inBuffer()) {
        var n = Math.max(window.llmmemWeightsNextSize(), kSliceBytes);
        return readRange(file, at, at + n).then(function (bytes) {
          if (bytes.length === 0) { at = window.llmmemWeightsFeed(id, bytes); return turn(); }  // reports the cut
          buf = bytes;
          bufAt = at;
          return turn();
        });
      }
      var start = performance.now();
      var budget = Math.min(40, Math.max(8, (start - lastTurn) / 2));
      lastTurn = start;
      while (at >= 0 && inBuffer() && performance.now() - start < budget) {
        var end = Math.min(bufAt + buf.length, at + window.llmmemWeightsNextSize());
        at = window.llmmemWeightsFeed(id, buf.subarray(at - bufAt, end - bufAt));
      }
      return new Promise(function (resolve) { setTimeout(resolve, 0); }).then(turn);
    }
    return turn();
  }

  // A training program's own file (YAML, TOML, a launch script): text, read by --from's reader.
  function isProgramName(name) {
    var n = name.toLowerCase();
    return n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".toml") || n.endsWith(".sh");
  }

  function isWeightsName(name) {
    var n = name.toLowerCase();
    if (isProgramName(n)) return false;
    return n.endsWith(".index.json") || !n.endsWith(".json");
  }

  function openFile(file) {
    if (typeof window.llmmemOpenText !== "function") return Promise.resolve();
    // A log (.txt, .log, .out, .err, or anything not named as weights while "Read an OOM" is
    // open): its end, where the failure is, as bytes (the reader recognises UTF-16).
    if (window.llmmemWantsLog && window.llmmemWantsLog(file.name)) {
      var tail = window.llmmemLogTailBytes();
      return file.slice(Math.max(0, file.size - tail)).arrayBuffer().then(function (buf) {
        window.llmmemOpenLog(file.name, new Uint8Array(buf));
      });
    }
    if (isWeightsName(file.name)) return inspectWeights(file);
    if (file.size > kMaxJsonBytes) {
      window.llmmemReportError("Open " + file.name, "larger than a config.json can be (8 MiB)");
      return Promise.resolve();
    }
    return file.text().then(function (text) { window.llmmemOpenText(file.name, text); });
  }

  function openFiles(files) {
    files.reduce(function (p, f) {
      return p.then(function () { return openFile(f); }).catch(function (err) {
        if (window.llmmemReportError) window.llmmemReportError("Open " + f.name, String(err && err.message || err));
      });
    }, Promise.resolve());
  }

  // Drop anywhere on the page; the hint shows while files are dragged over it.
  var dropHint = document.getElementById("drop");
  var dragDepth = 0;
  function hasFiles(e) {
    var types = e.dataTransfer ? Array.prototype.slice.call(e.dataTransfer.types || []) : [];
    return types.indexOf("Files") >= 0;
  }
  document.addEventListener("dragenter", function (e) {
    if (!hasFiles(e)) return;
    e.preventDefault();
    dragDepth++;
    dropHint.hidden = false;
  });
  document.addEventListener("dragleave", function () {
    if (dragDepth > 0 && --dragDepth === 0) dropHint.hidden = true;
  });
  document.addEventListener("dragover", function (e) {
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = "copy";
  });
  document.addEventListener("drop", function (e) {
    e.preventDefault();
    dragDepth = 0;
    dropHint.hidden = true;
    openFiles(e.dataTransfer ? Array.prototype.slice.call(e.dataTransfer.files) : []);
    canvas.focus();
  });

  // The "Open file..." button (the app calls window.llmmemPickFile).
  var picker = document.getElementById("file");
  picker.addEventListener("change", function () {
    var files = Array.prototype.slice.call(picker.files || []);
    picker.value = "";
    openFiles(files);
    canvas.focus();
  });
  window.llmmemPickFile = function () { picker.click(); };

  window.Module = {
    canvas: canvas,
    print: function (t) { console.log(t); },
    printErr: function (t) { console.warn(t); },
    // The module compiled and ready (bench/: how the time to the first frame splits).
    onRuntimeInitialized: function () { window.llmmemRuntimeReady = performance.now(); status.hidden = true; canvas.focus(); },
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
