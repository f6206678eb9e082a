// The few OpenGL 3.3 core / OpenGL ES 3.0 (WebGL2) entry points the fit map's shader
// needs, loaded at run time through the platform's loader (glfwGetProcAddress), so this
// layer includes no GL header and builds the same for desktop and web.
// Enum values: Khronos gl.xml (identical in GL 3.3 core and GLES 3.0).
// May include: app/app.h.
#pragma once

#include <cstddef>

#include "app/app.h"

namespace llmmem::app::gl {

using GLuint = unsigned int;
using GLint = int;
using GLenum = unsigned int;
using GLsizei = int;
using GLfloat = float;
using GLchar = char;
using GLboolean = unsigned char;

constexpr GLenum kFragmentShader = 0x8B30, kVertexShader = 0x8B31, kCompileStatus = 0x8B81, kLinkStatus = 0x8B82,
                 kTexture2D = 0x0DE1, kTexture0 = 0x84C0, kR32F = 0x822E, kRed = 0x1903, kFloat = 0x1406,
                 kTextureMinFilter = 0x2801, kTextureMagFilter = 0x2800, kNearest = 0x2600, kTextureWrapS = 0x2802,
                 kTextureWrapT = 0x2803, kClampToEdge = 0x812F, kTriangleStrip = 0x0005, kUnpackAlignment = 0x0CF5,
                 kScissorTest = 0x0C11;

#define LLMMEM_GL_FUNCS(X)                                                                                \
  X(GLuint, CreateShader, (GLenum type))                                                                  \
  X(void, ShaderSource, (GLuint s, GLsizei n, const GLchar* const* src, const GLint* len))                \
  X(void, CompileShader, (GLuint s))                                                                      \
  X(void, GetShaderiv, (GLuint s, GLenum pname, GLint * out))                                             \
  X(void, GetShaderInfoLog, (GLuint s, GLsizei cap, GLsizei * len, GLchar * log))                         \
  X(void, DeleteShader, (GLuint s))                                                                       \
  X(GLuint, CreateProgram, ())                                                                            \
  X(void, AttachShader, (GLuint p, GLuint s))                                                             \
  X(void, LinkProgram, (GLuint p))                                                                        \
  X(void, GetProgramiv, (GLuint p, GLenum pname, GLint * out))                                            \
  X(void, GetProgramInfoLog, (GLuint p, GLsizei cap, GLsizei * len, GLchar * log))                        \
  X(void, DeleteProgram, (GLuint p))                                                                      \
  X(void, UseProgram, (GLuint p))                                                                         \
  X(GLint, GetUniformLocation, (GLuint p, const GLchar* name))                                            \
  X(void, Uniform1i, (GLint loc, GLint v))                                                                \
  X(void, Uniform1f, (GLint loc, GLfloat v))                                                              \
  X(void, Uniform4f, (GLint loc, GLfloat a, GLfloat b, GLfloat c, GLfloat d))                             \
  X(void, GenVertexArrays, (GLsizei n, GLuint * out))                                                     \
  X(void, BindVertexArray, (GLuint vao))                                                                  \
  X(void, DeleteVertexArrays, (GLsizei n, const GLuint* vaos))                                            \
  X(void, GenTextures, (GLsizei n, GLuint * out))                                                         \
  X(void, DeleteTextures, (GLsizei n, const GLuint* t))                                                   \
  X(void, BindTexture, (GLenum target, GLuint t))                                                         \
  X(void, ActiveTexture, (GLenum unit))                                                                   \
  X(void, TexParameteri, (GLenum target, GLenum pname, GLint v))                                          \
  X(void, PixelStorei, (GLenum pname, GLint v))                                                           \
  X(void, TexImage2D,                                                                                     \
    (GLenum target, GLint level, GLint ifmt, GLsizei w, GLsizei h, GLint border, GLenum fmt, GLenum type, \
     const void* data))                                                                                   \
  X(void, Viewport, (GLint x, GLint y, GLsizei w, GLsizei h))                                             \
  X(void, Scissor, (GLint x, GLint y, GLsizei w, GLsizei h))                                              \
  X(void, Enable, (GLenum cap))                                                                           \
  X(void, DrawArrays, (GLenum mode, GLint first, GLsizei count))

struct Api {
#define LLMMEM_GL_MEMBER(ret, name, args) ret(*name) args = nullptr;
  LLMMEM_GL_FUNCS(LLMMEM_GL_MEMBER)
#undef LLMMEM_GL_MEMBER
};

extern Api api;

// Resolves every entry point; false (and api left partly empty) when one is missing.
bool Load(GlProcLoader loader);
bool Loaded();

}  // namespace llmmem::app::gl
