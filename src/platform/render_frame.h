// One frame of the UI into the current GLFW window's framebuffer: the part of the loop
// the desktop (main_glfw.cpp) and the web (main_web.cpp) share. Header-only so each
// platform compiles it against its own GL header (GL 3.3 core, or GLES3 for WebGL2),
// which it includes before this file. The caller swaps buffers where the platform needs it.
#pragma once

#include <GLFW/glfw3.h>

#include "app/app.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"

namespace llmmem::platform {

// `scale`: the UI scale this frame (content scale or devicePixelRatio); a change rebuilds
// the font atlas and its texture.
inline void RenderFrame(GLFWwindow* window, float scale) {
  if (app::SetScale(scale)) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  app::Frame();
  ImGui::Render();
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(window, &fw, &fh);
  glViewport(0, 0, fw, fh);
  float clear[4];
  app::ClearColor(clear);
  glClearColor(clear[0], clear[1], clear[2], clear[3]);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

}  // namespace llmmem::platform
