// One frame of the UI: the part of the loop the desktop (main_glfw.cpp) and the web
// (main_web.cpp) share. Each platform passes its backend, an object with
//   void FontsChanged();                         // re-upload the font atlas
//   void NewFrame();                             // input and display size into ImGui's io
//   void Draw(const ImDrawData*, const float clear[4]);  // clear and draw
// Header-only and GL-free: the backends hold the GL (GL 3.3 core natively, WebGL2 on the
// web). The caller swaps buffers where the platform needs it.
#pragma once

#include "app/app.h"
#include "imgui.h"

namespace llmmem::platform {

// `scale`: the UI scale this frame (content scale or devicePixelRatio); a change rebuilds
// the font atlas and its texture.
template <class Backend>
void RenderFrame(Backend& backend, float scale) {
  if (app::SetScale(scale)) backend.FontsChanged();
  backend.NewFrame();
  ImGui::NewFrame();
  app::Frame();
  ImGui::Render();
  float clear[4];
  app::ClearColor(clear);
  backend.Draw(ImGui::GetDrawData(), clear);
}

}  // namespace llmmem::platform
