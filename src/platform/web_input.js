// The page's input, as DOM events, handed to web_input.cpp (linked with --pre-js, so it
// shares the module's scope: _llmmem_ev_* are the C functions it calls).
//  - Pointer events (mouse, pen, touch): a touch that moves is a scroll (pixel wheel
//    deltas), a touch that does not is a click at its place.
//  - Wheel: raw deltas and deltaMode; web_input.cpp normalises them (app/input_math.h).
//    Ctrl+wheel (and a trackpad pinch) is left to the browser's page zoom.
//  - Keys: keyCode indices; printable keys also as characters. Browser shortcuts (reload,
//    zoom, dev tools, address bar, tabs) are left alone, and so are Ctrl/Cmd+C, X, V:
//    the browser's copy, cut and paste events must still fire.
//  - Clipboard: paste arrives through the paste event (no permission prompt; works in
//    every browser); a paste the browser did not deliver within 150 ms falls back to the
//    async clipboard API (navigator.clipboard.readText). Copy goes through
//    navigator.clipboard.writeText, falling back to execCommand("copy") on a hidden
//    textarea.
//  - Resize, devicePixelRatio changes (zoom, moving between screens), focus, visibility.
// Every event asks for a frame; nothing runs while nothing happens.
// window.llmmemStats: frames drawn, and each input's latency to the end of the frame
// that showed it (event.timeStamp to performance.now()), for the browser test and bench.
function llmmemInstallInput(canvas) {
  "use strict";
  var stats = { frames: 0, inputs: 0, pending: -1, latencies: [], copies: [] };
  window.llmmemStats = stats;

  function seen(e) {
    stats.inputs++;
    var t = e && e.timeStamp > 0 ? e.timeStamp : performance.now();
    if (stats.pending < 0 || t < stats.pending) stats.pending = t;
  }
  function mods(e) {
    return (e.ctrlKey ? 1 : 0) | (e.shiftKey ? 2 : 0) | (e.altKey ? 4 : 0) | (e.metaKey ? 8 : 0);
  }
  function editable(el) {
    if (!el || el === canvas || el === document.body) return false;
    var tag = el.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
  }
  function pos(e) {
    var r = canvas.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  }

  // ---- Pointer -------------------------------------------------------------------------
  var touch = null;  // {id, x0, y0, x, y, scrolling}
  var kTouchSlop = 8;  // CSS px a finger may wander and still tap
  canvas.addEventListener("pointerdown", function (e) {
    seen(e);
    var p = pos(e);
    if (e.pointerType === "touch") {
      if (touch === null) touch = { id: e.pointerId, x0: p[0], y0: p[1], x: p[0], y: p[1], scrolling: false };
      _llmmem_ev_pointer(0, p[0], p[1], 0, 0);  // hover where the finger is
      e.preventDefault();
      return;
    }
    try { canvas.setPointerCapture(e.pointerId); } catch (err) {}
    canvas.focus({ preventScroll: true });
    _llmmem_ev_pointer(1, p[0], p[1], e.button, mods(e));
    e.preventDefault();
  });
  canvas.addEventListener("pointermove", function (e) {
    var p = pos(e);
    if (e.pointerType === "touch") {
      if (touch === null || touch.id !== e.pointerId) return;
      seen(e);
      if (!touch.scrolling && Math.hypot(p[0] - touch.x0, p[1] - touch.y0) > kTouchSlop) touch.scrolling = true;
      if (touch.scrolling) _llmmem_ev_wheel(touch.x - p[0], touch.y - p[1], 0, touch.x0, touch.y0);
      touch.x = p[0];
      touch.y = p[1];
      e.preventDefault();
      return;
    }
    seen(e);
    _llmmem_ev_pointer(0, p[0], p[1], 0, mods(e));
  });
  function up(e) {
    var p = pos(e);
    if (e.pointerType === "touch") {
      if (touch === null || touch.id !== e.pointerId) return;
      seen(e);
      var tap = !touch.scrolling && e.type === "pointerup";
      touch = null;
      if (tap) {
        canvas.focus({ preventScroll: true });
        _llmmem_ev_pointer(1, p[0], p[1], 0, 0);
        _llmmem_ev_pointer(2, p[0], p[1], 0, 0);
      }
      _llmmem_ev_pointer(3, 0, 0, 0, 0);  // a finger leaves no hover behind
      e.preventDefault();
      return;
    }
    seen(e);
    _llmmem_ev_pointer(2, p[0], p[1], e.button, mods(e));
  }
  canvas.addEventListener("pointerup", up);
  canvas.addEventListener("pointercancel", up);
  canvas.addEventListener("pointerleave", function (e) {
    if (e.pointerType === "touch" || e.buttons) return;
    seen(e);
    _llmmem_ev_pointer(3, 0, 0, 0, 0);
  });
  canvas.addEventListener("contextmenu", function (e) { e.preventDefault(); });

  // ---- Wheel ---------------------------------------------------------------------------
  canvas.addEventListener("wheel", function (e) {
    if (e.ctrlKey) return;  // page zoom (and trackpad pinch) stay the browser's
    seen(e);
    var p = pos(e);
    _llmmem_ev_wheel(e.deltaX, e.deltaY, e.deltaMode, p[0], p[1]);
    e.preventDefault();
  }, { passive: false });

  // ---- Keys ----------------------------------------------------------------------------
  function browserShortcut(e) {
    var k = e.keyCode, cmd = e.ctrlKey || e.metaKey;
    if (k === 116 || k === 122 || k === 123) return true;  // F5 F11 F12
    if (!cmd) return false;
    if (e.shiftKey && (k === 73 || k === 74 || k === 67)) return true;  // dev tools
    // reload, address bar, new/close tab or window, zoom, print, find, tab switching
    return k === 82 || k === 76 || k === 84 || k === 87 || k === 78 || k === 80 || k === 70 ||
           k === 187 || k === 189 || k === 48 || k === 61 || k === 173 || k === 107 || k === 109 ||
           (k >= 49 && k <= 57) || k === 9;
  }
  var pasteTimer = 0;
  function key(e, down) {
    if (editable(e.target) || e.isComposing || e.keyCode === 229) return;
    if (browserShortcut(e)) return;
    seen(e);
    var k = e.keyCode & 511, cmd = e.ctrlKey || e.metaKey;
    var clip = cmd && (k === 67 || k === 86 || k === 88);
    if (clip && k === 86) {
      // Ctrl+V: the V goes to the app with the pasted text (paste event, below).
      if (down) {
        clearTimeout(pasteTimer);
        pasteTimer = setTimeout(pasteFallback, 150);
      }
      return;
    }
    _llmmem_ev_key(down ? 1 : 0, k, mods(e));
    if (clip) return;  // copy and cut events still fire
    if (down && !cmd && !e.altKey && e.key && e.key.length <= 2) {
      for (var i = 0; i < e.key.length; i++) {
        var cp = e.key.codePointAt(i);
        if (cp > 0xffff) i++;
        if (cp >= 32) _llmmem_ev_char(cp);
      }
    }
    e.preventDefault();
  }
  window.addEventListener("keydown", function (e) { key(e, true); });
  window.addEventListener("keyup", function (e) { key(e, false); });

  // ---- Clipboard -----------------------------------------------------------------------
  // text: what the browser pasted; null when it gave nothing (the app's own last copy is
  // pasted then, as a native app without clipboard access would).
  function deliverPaste(text) {
    clearTimeout(pasteTimer);
    pasteTimer = 0;
    if (text === null || text === undefined) { _llmmem_ev_paste(0); return; }
    var n = lengthBytesUTF8(text) + 1;
    var p = _llmmem_alloc(n);
    stringToUTF8(text, p, n);
    _llmmem_ev_paste(p);
    _llmmem_free(p);
  }
  document.addEventListener("paste", function (e) {
    if (editable(e.target)) return;
    seen(e);
    var text = e.clipboardData ? e.clipboardData.getData("text/plain") : "";
    e.preventDefault();
    deliverPaste(text || "");
  });
  function pasteFallback() {
    pasteTimer = 0;
    if (navigator.clipboard && navigator.clipboard.readText) {
      navigator.clipboard.readText().then(deliverPaste, function () { deliverPaste(null); });
    } else {
      deliverPaste(null);
    }
  }
  // Reads the clipboard on request (the "Paste config.json" button); cb(text) or cb(null).
  window.llmmemReadClipboard = function (cb) {
    if (!navigator.clipboard || !navigator.clipboard.readText) { cb(null); return; }
    navigator.clipboard.readText().then(function (t) { cb(t); }, function () { cb(null); });
  };
  function execCopy(text) {
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.left = "-9999px";
    document.body.appendChild(ta);
    ta.select();
    var ok = false;
    try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
    ta.remove();
    canvas.focus({ preventScroll: true });
    return ok;
  }
  // Copies text; the promise says whether it reached the clipboard (and which way).
  // stats.copies records each copy and the way it went, for the browser test.
  window.llmmemCopyText = function (text) {
    var done = function (via) { stats.copies.push({ text: text, via: via }); return via; };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(text).then(function () { return done("clipboard"); }, function () {
        return done(execCopy(text) ? "execCommand" : "");
      });
    }
    return Promise.resolve(done(execCopy(text) ? "execCommand" : ""));
  };

  // ---- Window --------------------------------------------------------------------------
  window.addEventListener("resize", function (e) { seen(e); _llmmem_ev_resize(); });
  function watchRatio() {
    if (!window.matchMedia) return;
    var mq = window.matchMedia("(resolution: " + window.devicePixelRatio + "dppx)");
    var on = function () { _llmmem_ev_resize(); watchRatio(); };
    if (mq.addEventListener) mq.addEventListener("change", on, { once: true });
  }
  watchRatio();
  window.addEventListener("blur", function () { _llmmem_ev_focus(0); });
  window.addEventListener("focus", function () { _llmmem_ev_focus(1); });
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) _llmmem_ev_resize();
  });
}

// Called by web_input.cpp after each frame: counts it and closes the latency of the
// inputs it showed.
function llmmemFrameDone() {
  var s = window.llmmemStats;
  if (!s) return;
  s.frames++;
  if (s.frames === 1) s.firstFrame = performance.now();  // since navigation started (bench/)
  if (s.pending >= 0) {
    s.latencies.push(performance.now() - s.pending);
    if (s.latencies.length > 256) s.latencies.shift();
    s.pending = -1;
  }
}
