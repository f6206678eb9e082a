// The baseline for bench/browser_bench.mjs's first-frame figure: a page that only makes a
// WebGL2 context on a full-window canvas at devicePixelRatio and clears it in its first
// animation frame. window.blankFirstFrame: performance.now() at the end of that frame.
(function () {
  "use strict";
  var c = document.getElementById("canvas");
  var r = c.getBoundingClientRect(), d = window.devicePixelRatio || 1;
  c.width = Math.round(r.width * d);
  c.height = Math.round(r.height * d);
  var gl = c.getContext("webgl2", { alpha: false, antialias: false, depth: false });
  requestAnimationFrame(function () {
    gl.viewport(0, 0, c.width, c.height);
    gl.clearColor(0.1, 0.11, 0.13, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    window.blankFirstFrame = performance.now();
  });
})();
