// Desktop entry point: a GLFW window with an OpenGL 3.3 core context, Dear ImGui's GLFW
// and OpenGL3 backends, and the loop. The UI itself is src/app (app::Init/Frame/Shutdown).
// HiDPI: fonts and style scale by the monitor's content scale divided by the
// framebuffer/window ratio (X11/Windows: the content scale; macOS: 1, as the Retina
// framebuffer already doubles the pixels).
// Usage: llmmem-gui [key=value ...]          the same keys as the web page's URL (model=, seq=, ...)
//        llmmem-gui --config settings.json    an llmmem configuration (ConfigToJson)
//        llmmem-gui path/config.json          a Hugging Face config.json: imported as the model
//        llmmem-gui model.safetensors|.gguf   the weights header's parameter counts
// Files can also be dropped on the window. Problems with any of them show in the UI.
// State: $XDG_CONFIG_HOME/llmmem/settings.json (or ~/.config/llmmem/settings.json), loaded
// at start when the command line gives no key=value state, saved as it changes.
//
// Index
// [SECTION] Settings file (app::Storage)
// [SECTION] Files: bounded reads, exports
// [SECTION] Command line
// [SECTION] main
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <GLFW/glfw3.h>

#include "app/app.h"
#include "core/parse/json.h"
#include "imgui.h"
#include "imgui_impl_glfw.h"
#include "imgui_impl_opengl3.h"
#include "io/bounded_file.h"
#include "io/list_dir.h"
#include "platform/desktop_background.h"
#include "platform/desktop_hub.h"
#include "platform/render_frame.h"

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Settings file (app::Storage)
//-----------------------------------------------------------------------------

std::string ConfigDir() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/llmmem";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != 0) return std::string(home) + "/.config/llmmem";
  return "";
}

// mkdir -p for the config directory (it and its parent).
bool MakeDirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    const std::string part = dir.substr(0, i);
    if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

class SettingsFile : public llmmem::app::Storage {
 public:
  explicit SettingsFile(std::string dir) : dir_(std::move(dir)), path_(dir_.empty() ? "" : dir_ + "/settings.json") {}

  llmmem::app::StorageFormat Format() const override { return llmmem::app::StorageFormat::kJson; }
  std::string Where() const override { return path_.empty() ? "the settings file (no HOME)" : path_; }

  // The settings file through the bounded reader: a directory, a FIFO or a symlink to a
  // device in its place is reported (and nothing is saved over it), never read.
  llmmem::app::StoredText Load() override {
    llmmem::app::StoredText out;
    if (path_.empty()) return out;
    llmmem::io::ReadResult r = llmmem::io::ReadWholeFile(path_, llmmem::core::kJsonMaxBytes, "a settings file");
    if (r.not_found) return out;  // first run
    if (!r.ok) {
      out.status = llmmem::app::StoredText::Status::kUnreadable;
      out.error = r.error;
      return out;
    }
    out.status = llmmem::app::StoredText::Status::kOk;
    out.text = std::move(r.bytes);
    return out;
  }

  // Writes settings.json.tmp, then renames it over settings.json: a crash mid-write
  // leaves the old file whole.
  bool Save(const std::string& text, std::string* error) override {
    if (text.empty()) return true;  // never replace the settings with an empty document
    if (path_.empty()) {
      *error = "neither XDG_CONFIG_HOME nor HOME is set";
      return false;
    }
    if (!MakeDirs(dir_)) {
      *error = "cannot create " + dir_ + ": " + std::strerror(errno);
      return false;
    }
    const std::string tmp = path_ + ".tmp";
    std::string why;
    if (!llmmem::io::WriteRegularFile(tmp, text, &why)) {
      *error = "cannot write " + tmp + ": " + why;
      return false;
    }
    if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
      *error = std::string("cannot rename ") + tmp + ": " + std::strerror(errno);
      std::remove(tmp.c_str());
      return false;
    }
    return true;
  }

  std::string SetAside(std::string* error) override {
    char stamp[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    const std::string to = path_ + ".corrupt-" + stamp;
    if (std::rename(path_.c_str(), to.c_str()) != 0) {
      *error = std::strerror(errno);
      return "";
    }
    return to;
  }

 private:
  std::string dir_;
  std::string path_;
};

//-----------------------------------------------------------------------------
// [SECTION] Files: bounded reads, exports
//-----------------------------------------------------------------------------

// The bytes [offset, offset + n) of a regular file (fewer at its end) and its size.
llmmem::app::FilePrefix ReadRange(const std::string& path, uint64_t offset, uint64_t n) {
  llmmem::app::FilePrefix p;
  llmmem::io::RegularFile f;
  if (!f.Open(path, &p.error) || !f.ReadAt(offset, n, &p.bytes, &p.error)) return p;
  p.file_size = f.size();
  p.ok = true;
  return p;
}

// Exports go to the current directory, or next to the settings file when that fails.
std::string SaveExport(const std::string& dir_fallback, const std::string& name, const std::string& text) {
  std::vector<std::string> dirs;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) != nullptr) dirs.push_back(cwd);
  if (!dir_fallback.empty()) dirs.push_back(dir_fallback);
  for (const std::string& dir : dirs) {
    if (dir == dir_fallback) MakeDirs(dir);
    const std::string path = dir + "/" + name;
    std::string error;
    if (llmmem::io::WriteRegularFile(path, text, &error)) return "Saved " + path;
  }
  return "Could not save " + name + " in the current directory or " + dir_fallback;
}

//-----------------------------------------------------------------------------
// [SECTION] Command line
//-----------------------------------------------------------------------------

struct Args {
  std::string query;               // key=value pairs
  std::string config_path;         // --config file.json
  std::vector<std::string> paths;  // positional files: config.json imports, weights headers
  std::vector<std::string> errors;
};

Args ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--config" || arg == "-c") {
      if (i + 1 < argc) {
        a.config_path = argv[++i];
      } else {
        a.errors.push_back("--config needs a file name: llmmem-gui --config settings.json");
      }
      continue;
    }
    if (arg.compare(0, 9, "--config=") == 0) {
      a.config_path = arg.substr(9);
      continue;
    }
    if (arg.find('=') == std::string::npos && !arg.empty() && arg[0] != '-') {
      a.paths.push_back(arg);
      continue;
    }
    while (!arg.empty() && arg[0] == '-') arg.erase(0, 1);  // accept --seq=8192 too
    if (arg.empty()) continue;
    if (arg.find('=') == std::string::npos) {
      a.errors.push_back("unknown option --" + arg + " (use key=value, --config FILE or a file path)");
      continue;
    }
    if (!a.query.empty()) a.query += '&';
    a.query += arg;
  }
  return a;
}

// An event arrived since the last frame: the pacer (render_frame.h) draws until it settles.
// Set by callbacks installed before ImGui's, which ImGui's GLFW backend chains to.
bool g_input = false;

void WatchInput(GLFWwindow* window) {
  glfwSetCursorPosCallback(window, [](GLFWwindow*, double, double) { g_input = true; });
  glfwSetCursorEnterCallback(window, [](GLFWwindow*, int) { g_input = true; });
  glfwSetMouseButtonCallback(window, [](GLFWwindow*, int, int, int) { g_input = true; });
  glfwSetScrollCallback(window, [](GLFWwindow*, double, double) { g_input = true; });
  glfwSetKeyCallback(window, [](GLFWwindow*, int, int, int, int) { g_input = true; });
  glfwSetCharCallback(window, [](GLFWwindow*, unsigned int) { g_input = true; });
  glfwSetWindowFocusCallback(window, [](GLFWwindow*, int) { g_input = true; });
}

void OnDrop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count; ++i) llmmem::app::OpenPath(paths[i]);
}

// The system's language as POSIX orders it (LC_ALL, then LC_MESSAGES, then LANG): "zh_CN.UTF-8"
// opens the UI in Chinese, as the page follows navigator.language; a saved lang= wins.
std::string SystemLanguage() {
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return v;
  }
  return std::string();
}

// Written whole, then renamed, so a reader never sees half a document.
void WriteTestState(const std::string& path) {
  const std::string tmp = path + ".tmp";
  if (std::FILE* f = std::fopen(tmp.c_str(), "wb")) {
    const std::string json = llmmem::app::TestStateJson();
    const bool ok = std::fwrite(json.data(), 1, json.size(), f) == json.size();
    if (std::fclose(f) == 0 && ok) std::rename(tmp.c_str(), path.c_str());
  }
}

void OnGlfwError(int code, const char* description) {
  std::fprintf(stderr, "llmmem-gui: GLFW error %d: %s\n", code, description);
}

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

void* GetProc(const char* name) { return reinterpret_cast<void*>(glfwGetProcAddress(name)); }

// The platform side of RenderFrame (render_frame.h): Dear ImGui's GLFW and OpenGL3 backends.
struct GlfwBackend {
  GLFWwindow* window;
  void FontsChanged() {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  void NewFrame() {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
  }
  void Draw(ImDrawData* dd, const float clear[4]) {
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(window, &fw, &fh);
    glViewport(0, 0, fw, fh);
    glClearColor(clear[0], clear[1], clear[2], clear[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(dd);
  }
};

}  // namespace

//-----------------------------------------------------------------------------
// [SECTION] main
//-----------------------------------------------------------------------------

int main(int argc, char** argv) {
  const Args args = ParseArgs(argc, argv);
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
  WatchInput(window);  // before ImGui's callbacks, which call these after their own
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  glfwSetFramebufferSizeCallback(window, [](GLFWwindow*, int, int) { g_input = true; });
  glfwSetWindowRefreshCallback(window, [](GLFWwindow*) { g_input = true; });
  ImGui_ImplOpenGL3_Init("#version 330 core");

  const std::string config_dir = ConfigDir();
  SettingsFile settings(config_dir);
  llmmem::app::PlatformHooks hooks;
  hooks.initial_query = args.query;
  hooks.storage = &settings;
  hooks.glsl_header = "#version 330 core\n";
  hooks.gl_loader = GetProc;
  hooks.copy_link = [window](const std::string& query) {
    glfwSetClipboardString(window, query.c_str());
    return query;
  };
  hooks.copy_text = [window](const std::string& text) {
    glfwSetClipboardString(window, text.c_str());
    return true;
  };
  hooks.save_text = [config_dir](const std::string& name, const std::string&, const std::string& text) {
    return SaveExport(config_dir, name, text);
  };
  hooks.read_range = ReadRange;
  hooks.language = SystemLanguage();
  hooks.list_dir = [](const std::string& dir) { return llmmem::io::ListDirectory(dir); };
  hooks.read_clipboard = [window] {
    const char* text = glfwGetClipboardString(window);
    if (text != nullptr) {
      llmmem::app::OpenPastedText(text);
    } else {
      llmmem::app::PasteUnavailable();
    }
  };
  hooks.open_hint = "Type a path and press Enter, drop a file on the window, or pass it on the command line.";
  llmmem::platform::desktophub::Install(&hooks, [] { glfwPostEmptyEvent(); });
  llmmem::platform::desktopbackground::Install(&hooks, [] { glfwPostEmptyEvent(); });
  llmmem::app::Init(hooks, UiScale(window));
  for (const std::string& e : args.errors) llmmem::app::ReportError("Command line", e);
  if (!args.config_path.empty()) {
    const llmmem::io::ReadResult r =
        llmmem::io::ReadWholeFile(args.config_path, llmmem::core::kJsonMaxBytes, "a settings file");
    if (!r.ok) {
      llmmem::app::ReportError("--config " + args.config_path, r.error);
    } else {
      llmmem::app::OpenConfigText(args.config_path, r.bytes);
    }
  }
  for (const std::string& path : args.paths) llmmem::app::OpenPath(path);
  glfwSetDropCallback(window, OnDrop);

  // Drawn on demand, as the page is (render_frame.h FramePacer): idle, the loop sleeps until
  // an event, an answer from the Hub's or the planner's thread (glfwPostEmptyEvent) or the
  // next timed frame (app::NextFrameIn), and draws nothing meanwhile.
  llmmem::platform::FramePacer pacer;
  bool more = true;
  // tests/desktop: LLMMEM_TEST_STATE names a file that gets app::TestStateJson after each frame
  // (the marks' window coordinates, the configuration), as the page's test hook gives it.
  const char* test_state = std::getenv("LLMMEM_TEST_STATE");
  while (!glfwWindowShouldClose(window)) {
    if (more) {
      glfwPollEvents();
    } else {
      const double in = llmmem::app::NextFrameIn();
      if (in >= 0)
        glfwWaitEventsTimeout(in + 0.001);
      else
        glfwWaitEvents();
      g_input = true;  // whatever woke it: an event, an answer or the timer
    }
    if (g_input) pacer.Woken();
    g_input = false;
    llmmem::platform::desktophub::Poll();  // a Hugging Face model or search the worker fetched
    llmmem::platform::desktopbackground::Poll();  // a plan its thread found
    GlfwBackend backend{window};
    llmmem::platform::RenderFrame(backend, UiScale(window));
    glfwSwapBuffers(window);
    if (test_state != nullptr) WriteTestState(test_state);
    more = pacer.Drawn(ImGui::GetDrawData());
  }

  llmmem::app::Shutdown();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}
