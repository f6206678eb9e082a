// Desktop entry point: a GLFW window with an OpenGL 3.3 core context, Dear ImGui's GLFW
// and OpenGL3 backends, and the loop. The UI itself is src/app (app::Init/Frame/Shutdown).
// HiDPI: fonts and style scale by the monitor's content scale divided by the
// framebuffer/window ratio (X11/Windows: the content scale; macOS: 1, as the Retina
// framebuffer already doubles the pixels).
// Usage: llmmem-gui [key=value ...]   the same keys as the web page's URL (model=, seq=, ...)
#include <cstdio>
#include <string>

#include <GLFW/glfw3.h>

#include "app/app.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"

namespace {

void OnGlfwError(int code, const char* description) { std::fprintf(stderr, "llmmem-gui: GLFW error %d: %s\n", code, description); }

float UiScale(GLFWwindow* window) {
  float sx = 1, sy = 1;
  glfwGetWindowContentScale(window, &sx, &sy);
  int ww = 0, wh = 0, fw = 0, fh = 0;
  glfwGetWindowSize(window, &ww, &wh);
  glfwGetFramebufferSize(window, &fw, &fh);
  const float fb_ratio = ww > 0 && fw > 0 ? static_cast<float>(fw) / static_cast<float>(ww) : 1.0f;
  const float scale = sx / fb_ratio;
  return scale > 0.5f && scale < 8.0f ? scale : 1.0f;
}

std::string QueryFromArgs(int argc, char** argv) {
  std::string q;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    while (!a.empty() && a[0] == '-') a.erase(0, 1);  // accept --seq=8192 too
    if (a.empty()) continue;
    if (!q.empty()) q += '&';
    q += a;
  }
  return q;
}

void* GetProc(const char* name) { return reinterpret_cast<void*>(glfwGetProcAddress(name)); }

}  // namespace

int main(int argc, char** argv) {
  glfwSetErrorCallback(OnGlfwError);
  if (!glfwInit()) {
    std::fprintf(stderr, "llmmem-gui: cannot initialise GLFW (is a display available?)\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(1280, 800, "llmmem: LLM GPU memory calculator", nullptr, nullptr);
  if (window == nullptr) {
    std::fprintf(stderr, "llmmem-gui: cannot create an OpenGL 3.3 core window\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  llmmem::app::PlatformHooks hooks;
  hooks.initial_query = QueryFromArgs(argc, argv);
  hooks.glsl_header = "#version 330 core\n";
  hooks.gl_loader = GetProc;
  hooks.copy_link = [window](const std::string& query) {
    glfwSetClipboardString(window, query.c_str());
    return query;
  };
  llmmem::app::Init(hooks, UiScale(window));

  while (!glfwWindowShouldClose(window)) {
    glfwWaitEventsTimeout(0.25);  // idle without spinning; input wakes it at once
    if (llmmem::app::SetScale(UiScale(window))) {
      ImGui_ImplOpenGL3_DestroyFontsTexture();
      ImGui_ImplOpenGL3_CreateFontsTexture();
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    llmmem::app::Frame();
    ImGui::Render();
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    glViewport(0, 0, fw, fh);
    float clear[4];
    llmmem::app::ClearColor(clear);
    glClearColor(clear[0], clear[1], clear[2], clear[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    glfwSwapBuffers(window);
  }

  llmmem::app::Shutdown();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}
