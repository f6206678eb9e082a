// One frame of the UI: the part of the loop the desktop (main_glfw.cpp) and the web
// (main_web.cpp) share. Each platform passes its backend, an object with
//   void FontsChanged();                         // re-upload the font atlas
//   void NewFrame();                             // input and display size into ImGui's io
//   void Draw(const ImDrawData*, const float clear[4]);  // clear and draw
// Header-only and GL-free: the backends hold the GL (GL 3.3 core natively, WebGL2 on the
// web). The caller swaps buffers where the platform needs it.
#pragma once

#include <cstdint>
#include <cstring>

#include "app/app.h"
#include "imgui.h"

namespace llmmem::platform {

// A 64-bit hash of what a frame draws: its vertices, indices and commands. Two equal
// hashes in a row mean the picture settled.
inline uint64_t HashDrawData(const ImDrawData* dd) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const void* p, size_t bytes) {
    const unsigned char* b = static_cast<const unsigned char*>(p);
    size_t i = 0;
    for (; i + 4 <= bytes; i += 4) {
      uint32_t w;
      std::memcpy(&w, b + i, 4);
      h = (h ^ w) * 1099511628211ull;
    }
    for (; i < bytes; ++i) h = (h ^ b[i]) * 1099511628211ull;
  };
  if (dd == nullptr) return h;
  mix(&dd->DisplaySize, sizeof dd->DisplaySize);
  for (int n = 0; n < dd->CmdListsCount; ++n) {
    const ImDrawList* l = dd->CmdLists[n];
    mix(l->VtxBuffer.Data, static_cast<size_t>(l->VtxBuffer.Size) * sizeof(ImDrawVert));
    mix(l->IdxBuffer.Data, static_cast<size_t>(l->IdxBuffer.Size) * sizeof(ImDrawIdx));
    for (const ImDrawCmd& c : l->CmdBuffer) {
      mix(&c.ClipRect, sizeof c.ClipRect);
      mix(&c.ElemCount, sizeof c.ElemCount);
    }
  }
  return h;
}

// Drawing on demand, the rule both platforms follow: after an event, kSettleFrames more
// (popups open a frame later); while the picture still changes, up to kMaxChangingFrames
// (an animation stops after 4 s without input); then nothing until the next event or
// app::NextFrameIn().
struct FramePacer {
  static constexpr int kSettleFrames = 2;
  static constexpr int kMaxChangingFrames = 240;
  int settle = kSettleFrames;
  int changing = 0;  // consecutive frames whose picture changed
  uint64_t last_hash = 0;

  // An input, a resize, a focus change or an answer arrived.
  void Woken() {
    settle = kSettleFrames;
    changing = 0;
  }
  // After a frame is drawn: whether another one is due at once.
  bool Drawn(const ImDrawData* dd) {
    const uint64_t hash = HashDrawData(dd);
    changing = hash != last_hash ? changing + 1 : 0;
    last_hash = hash;
    bool more = changing > 0 && changing < kMaxChangingFrames;
    if (settle > 0) {
      --settle;
      more = true;
    }
    return more;
  }
};

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
