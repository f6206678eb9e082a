// Run-time loading of the GL entry points in gl_min.h.
#include "app/gl_min.h"

namespace llmmem::app::gl {

Api api;
namespace {
bool g_loaded = false;
}

bool Load(GlProcLoader loader) {
  g_loaded = false;
  if (loader == nullptr) return false;
  bool ok = true;
#define LLMMEM_GL_LOAD(ret, name, args)                         \
  api.name = reinterpret_cast<ret(*) args>(loader("gl" #name)); \
  ok = ok && api.name != nullptr;
  LLMMEM_GL_FUNCS(LLMMEM_GL_LOAD)
#undef LLMMEM_GL_LOAD
  g_loaded = ok;
  return ok;
}

bool Loaded() { return g_loaded; }

}  // namespace llmmem::app::gl
