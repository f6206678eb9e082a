// The page's input for Dear ImGui 1.86 (web build only): DOM events (web_input.js) are
// queued as they arrive and applied at the start of a frame. ImGui 1.86 reads input as
// state once per frame, so a press and a release within one frame would be lost: each
// frame takes every move and wheel delta but at most one change per button and key, and
// leaves the rest for the next (the input queue ImGui 1.87 later built in).
// Clipboard: ImGui's copy goes to the browser's clipboard (async API, execCommand
// fallback); a paste reaches ImGui as Ctrl+V once the browser handed over the text.
// May include: imgui, emscripten, app/app.h, app/input_math.h.
#pragma once

namespace llmmem::platform::webinput {

// Installs the DOM listeners on the canvas and the window, ImGui's key map and its
// clipboard functions. `wake` is called on every event: the platform draws a frame.
void Install(void (*wake)());
// Applies queued events to ImGui's io for the coming frame. dpr: device pixels per CSS
// pixel (ImGui works in device pixels); font_css: ImGui's font height in CSS pixels;
// view_css: the canvas height in CSS pixels (a page, for page-mode wheel deltas).
// Returns true when events are left for the next frame.
bool Apply(float dpr, float font_css, float view_css);
// A button or key is held: ImGui repeats and drags on its own clock, so keep drawing.
bool Held();
// After a frame is drawn: updates window.llmmemStats (frames, input-to-frame latency).
void FrameDone();

}  // namespace llmmem::platform::webinput
