// Dear ImGui's draw lists on WebGL2, for the web build only (main_web.cpp). Unlike
// imgui_impl_opengl3, it queries no GL state: this page owns its context, so each frame
// sets the state it needs (blend, scissor, program, buffers, viewport) and leaves it. The
// fit map's draw callback changes some of it; ImDrawCallback_ResetRenderState sets it back.
// May include: imgui, GLES3.
#pragma once

struct ImDrawData;

namespace llmmem::platform::webgl {

// Starts compiling the program and makes the buffers. WebGL compiles in the GPU process:
// Init does not wait for it, so the app's start-up runs meanwhile.
void Init();
// Whether the program linked (false, and a message, when WebGL refused it); waits for the
// link. Call once, after Init, before the first Render.
bool Linked(const char** error);
// (Re)uploads ImGui's font atlas as a single-channel texture; call after the atlas changed.
void UpdateFontTexture();
// Clears to `clear` (RGBA 0..1) and draws `dd` into the default framebuffer of fb_w x fb_h.
void Render(const ImDrawData* dd, int fb_w, int fb_h, const float clear[4]);

}  // namespace llmmem::platform::webgl
