// ImGui renderer for WebGL2; see web_gl.h. The state it sets each frame is the whole of
// what ImGui's vertices need (imgui_impl_opengl3.cpp's ImGui_ImplOpenGL3_SetupRenderState,
// less the backup and restore): alpha blending, no culling or depth, scissor per command,
// an orthographic projection over the display rectangle.
#include "platform/web_gl.h"

#include <GLES3/gl3.h>

#include <cstdint>

#include "imgui.h"

namespace llmmem::platform::webgl {
namespace {

struct Gl {
  GLuint program = 0, vao = 0, vbo = 0, ebo = 0, font = 0;
  GLint u_proj = -1, u_tex = -1;
};
Gl g;

constexpr GLuint kPos = 0, kUv = 1, kColor = 2;

const char* const kVertex =
    "#version 300 es\n"
    "uniform mat4 u_proj;\n"
    "layout(location = 0) in vec2 a_pos;\n"
    "layout(location = 1) in vec2 a_uv;\n"
    "layout(location = 2) in vec4 a_color;\n"
    "out vec2 v_uv;\n"
    "out vec4 v_color;\n"
    "void main() { v_uv = a_uv; v_color = a_color; gl_Position = u_proj * vec4(a_pos, 0.0, 1.0); }\n";

// The atlas is one channel (coverage); ImGui's white pixel has coverage 1.
const char* const kFragment =
    "#version 300 es\n"
    "precision mediump float;\n"
    "uniform sampler2D u_tex;\n"
    "in vec2 v_uv;\n"
    "in vec4 v_color;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = vec4(v_color.rgb, v_color.a * texture(u_tex, v_uv).r); }\n";

GLuint Compile(GLenum type, const char* src) {
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  return s;
}

// Everything ImGui's vertices need; set at the start of each frame and after a callback
// asked for it (ImDrawCallback_ResetRenderState).
void SetupState(const ImDrawData* dd, int fb_w, int fb_h) {
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_STENCIL_TEST);
  glEnable(GL_SCISSOR_TEST);
  glViewport(0, 0, fb_w, fb_h);
  const float l = dd->DisplayPos.x, r = dd->DisplayPos.x + dd->DisplaySize.x;
  const float t = dd->DisplayPos.y, b = dd->DisplayPos.y + dd->DisplaySize.y;
  const float proj[16] = {
      2.0f / (r - l), 0, 0, 0, 0, 2.0f / (t - b), 0, 0, 0, 0, -1, 0, (r + l) / (l - r), (t + b) / (b - t), 0, 1,
  };
  glUseProgram(g.program);
  glUniform1i(g.u_tex, 0);
  glUniformMatrix4fv(g.u_proj, 1, GL_FALSE, proj);
  glBindVertexArray(g.vao);
  glBindBuffer(GL_ARRAY_BUFFER, g.vbo);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.ebo);
  glActiveTexture(GL_TEXTURE0);
}

}  // namespace

void Init() {
  const GLuint vs = Compile(GL_VERTEX_SHADER, kVertex), fs = Compile(GL_FRAGMENT_SHADER, kFragment);
  g.program = glCreateProgram();
  glAttachShader(g.program, vs);
  glAttachShader(g.program, fs);
  glLinkProgram(g.program);
  glDeleteShader(vs);
  glDeleteShader(fs);
  glGenVertexArrays(1, &g.vao);
  glGenBuffers(1, &g.vbo);
  glGenBuffers(1, &g.ebo);
  glBindVertexArray(g.vao);
  glBindBuffer(GL_ARRAY_BUFFER, g.vbo);
  glEnableVertexAttribArray(kPos);
  glEnableVertexAttribArray(kUv);
  glEnableVertexAttribArray(kColor);
  const GLsizei stride = sizeof(ImDrawVert);
  glVertexAttribPointer(kPos, 2, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(IM_OFFSETOF(ImDrawVert, pos)));
  glVertexAttribPointer(kUv, 2, GL_FLOAT, GL_FALSE, stride, reinterpret_cast<void*>(IM_OFFSETOF(ImDrawVert, uv)));
  glVertexAttribPointer(kColor, 4, GL_UNSIGNED_BYTE, GL_TRUE, stride,
                        reinterpret_cast<void*>(IM_OFFSETOF(ImDrawVert, col)));
  ImGui::GetIO().BackendRendererName = "llmmem_webgl2";
  glFlush();  // sends the compile and link to the GPU process now, not at the next sync
}

bool Linked(const char** error) {
  // The one query, made once: it waits for the link, which the GPU process has done
  // meanwhile.
  GLint linked = 0;
  glGetProgramiv(g.program, GL_LINK_STATUS, &linked);
  if (!linked) {
    *error = "the UI's WebGL2 shaders did not link";
    return false;
  }
  g.u_proj = glGetUniformLocation(g.program, "u_proj");
  g.u_tex = glGetUniformLocation(g.program, "u_tex");
  return true;
}

void UpdateFontTexture() {
  ImGuiIO& io = ImGui::GetIO();
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsAlpha8(&pixels, &w, &h);
  if (g.font == 0) glGenTextures(1, &g.font);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, g.font);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, w, h, 0, GL_RED, GL_UNSIGNED_BYTE, pixels);
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(g.font)));
  // The atlas lives on the GPU now; ImGui keeps only the glyph tables.
  io.Fonts->ClearTexData();
}

void Render(const ImDrawData* dd, int fb_w, int fb_h, const float clear[4]) {
  glDisable(GL_SCISSOR_TEST);
  glViewport(0, 0, fb_w, fb_h);
  glClearColor(clear[0], clear[1], clear[2], clear[3]);
  glClear(GL_COLOR_BUFFER_BIT);
  if (dd == nullptr || fb_w <= 0 || fb_h <= 0 || dd->DisplaySize.x <= 0) return;
  SetupState(dd, fb_w, fb_h);
  const ImVec2 off = dd->DisplayPos, scale = dd->FramebufferScale;
  GLuint bound_texture = 0;
  for (int n = 0; n < dd->CmdListsCount; ++n) {
    const ImDrawList* list = dd->CmdLists[n];
    glBufferData(GL_ARRAY_BUFFER,
                 static_cast<GLsizeiptr>(list->VtxBuffer.Size) * static_cast<GLsizeiptr>(sizeof(ImDrawVert)),
                 list->VtxBuffer.Data, GL_STREAM_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER,
                 static_cast<GLsizeiptr>(list->IdxBuffer.Size) * static_cast<GLsizeiptr>(sizeof(ImDrawIdx)),
                 list->IdxBuffer.Data, GL_STREAM_DRAW);
    for (int i = 0; i < list->CmdBuffer.Size; ++i) {
      const ImDrawCmd& cmd = list->CmdBuffer[i];
      if (cmd.UserCallback != nullptr) {
        if (cmd.UserCallback == ImDrawCallback_ResetRenderState) {
          SetupState(dd, fb_w, fb_h);
          bound_texture = 0;
        } else {
          cmd.UserCallback(list, &cmd);
        }
        continue;
      }
      const float x0 = (cmd.ClipRect.x - off.x) * scale.x, y0 = (cmd.ClipRect.y - off.y) * scale.y;
      const float x1 = (cmd.ClipRect.z - off.x) * scale.x, y1 = (cmd.ClipRect.w - off.y) * scale.y;
      if (x1 <= x0 || y1 <= y0) continue;
      glScissor(static_cast<GLint>(x0), static_cast<GLint>(static_cast<float>(fb_h) - y1),
                static_cast<GLsizei>(x1 - x0), static_cast<GLsizei>(y1 - y0));
      const GLuint tex = static_cast<GLuint>(reinterpret_cast<intptr_t>(cmd.GetTexID()));
      if (tex != bound_texture) {
        glBindTexture(GL_TEXTURE_2D, tex);
        bound_texture = tex;
      }
      glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(cmd.ElemCount),
                     sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT,
                     reinterpret_cast<void*>(static_cast<intptr_t>(cmd.IdxOffset * sizeof(ImDrawIdx))));
    }
  }
}

}  // namespace llmmem::platform::webgl
