// DOM events to Dear ImGui's io; see web_input.h. The listeners are web_input.js.
// The EM_JS / EM_ASM bodies below are JavaScript, which clang-format would break:
// clang-format off
#include "platform/web_input.h"

#include <emscripten/emscripten.h>

#include <bitset>
#include <cfloat>
#include <cstdint>
#include <deque>
#include <string>

#include "app/app.h"
#include "app/input_math.h"
#include "imgui.h"

namespace llmmem::platform::webinput {
namespace {

enum class Kind : uint8_t { kMove, kButton, kLeave, kWheel, kKey, kChar, kFocusLost };

struct Event {
  Kind kind;
  bool down = false;
  int code = 0;    // button, keyCode (0..511) or code point
  int mods = 0;    // 1 ctrl, 2 shift, 4 alt, 8 meta
  float x = 0, y = 0;       // CSS pixels in the canvas
  double dx = 0, dy = 0;    // wheel deltas
  int mode = 0;             // wheel deltaMode
};

constexpr int kCtrl = 1, kShift = 2, kAlt = 4, kMeta = 8;
constexpr int kKeyV = 86;

std::deque<Event> g_queue;
// Where the events last put the pointer (ImGui floors io.MousePos, so it cannot tell).
ImVec2 g_pointer(-FLT_MAX, -FLT_MAX);
std::string g_clipboard;  // the last text copied or pasted
void (*g_wake)() = nullptr;
int g_mods = 0;           // as of the latest real event
bool g_mac = false;

void Push(const Event& e) {
  g_queue.push_back(e);
  if (g_wake != nullptr) g_wake();
}

void SetMods(ImGuiIO& io, int mods) {
  io.KeyCtrl = (mods & kCtrl) != 0;
  io.KeyShift = (mods & kShift) != 0;
  io.KeyAlt = (mods & kAlt) != 0;
  io.KeySuper = (mods & kMeta) != 0;
}

// The shortcut modifier ImGui expects for Ctrl+V: Cmd on macOS (ConfigMacOSXBehaviors).
int PasteMods() { return (g_mods & ~(kCtrl | kMeta)) | (g_mac ? kMeta : kCtrl); }

EM_JS(int, JsIsMac, (), { return /Mac|iPhone|iPad/.test(navigator.platform || "") ? 1 : 0; });

EM_JS(void, JsInstall, (), { llmmemInstallInput(document.getElementById("canvas")); });

EM_JS(void, JsCopy, (const char* text), { window.llmmemCopyText(UTF8ToString(text)); });

EM_JS(void, JsFrameDone, (), { llmmemFrameDone(); });

const char* GetClipboard(void*) { return g_clipboard.c_str(); }

void SetClipboard(void*, const char* text) {
  g_clipboard = text != nullptr ? text : "";
  JsCopy(g_clipboard.c_str());
}

bool LooksLikeJson(const std::string& t) {
  for (char c : t) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{';
  }
  return false;
}

}  // namespace

void Install(void (*wake)()) {
  g_wake = wake;
  g_mac = JsIsMac() != 0;
  ImGuiIO& io = ImGui::GetIO();
  io.BackendPlatformName = "llmmem_web";
  io.ConfigMacOSXBehaviors = g_mac;
  io.ConfigInputTextCursorBlink = false;  // a blinking caret would need frames while idle
  io.SetClipboardTextFn = SetClipboard;
  io.GetClipboardTextFn = GetClipboard;
  io.KeyMap[ImGuiKey_Tab] = 9;
  io.KeyMap[ImGuiKey_LeftArrow] = 37;
  io.KeyMap[ImGuiKey_RightArrow] = 39;
  io.KeyMap[ImGuiKey_UpArrow] = 38;
  io.KeyMap[ImGuiKey_DownArrow] = 40;
  io.KeyMap[ImGuiKey_PageUp] = 33;
  io.KeyMap[ImGuiKey_PageDown] = 34;
  io.KeyMap[ImGuiKey_Home] = 36;
  io.KeyMap[ImGuiKey_End] = 35;
  io.KeyMap[ImGuiKey_Insert] = 45;
  io.KeyMap[ImGuiKey_Delete] = 46;
  io.KeyMap[ImGuiKey_Backspace] = 8;
  io.KeyMap[ImGuiKey_Space] = 32;
  io.KeyMap[ImGuiKey_Enter] = 13;
  io.KeyMap[ImGuiKey_Escape] = 27;
  io.KeyMap[ImGuiKey_KeyPadEnter] = 13;
  io.KeyMap[ImGuiKey_A] = 65;
  io.KeyMap[ImGuiKey_C] = 67;
  io.KeyMap[ImGuiKey_V] = kKeyV;
  io.KeyMap[ImGuiKey_X] = 88;
  io.KeyMap[ImGuiKey_Y] = 89;
  io.KeyMap[ImGuiKey_Z] = 90;
  io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  JsInstall();
}

bool Apply(float dpr, float font_css, float view_css) {
  ImGuiIO& io = ImGui::GetIO();
  bool button_changed[5] = {};
  bool moved = false;  // the pointer moved in this frame
  std::bitset<512> key_changed;
  while (!g_queue.empty()) {
    const Event& e = g_queue.front();
    const ImVec2 at(e.x * dpr, e.y * dpr);
    switch (e.kind) {
      case Kind::kMove:
        moved = moved || g_pointer.x != at.x || g_pointer.y != at.y;
        io.MousePos = g_pointer = at;
        break;
      case Kind::kLeave:
        // A tap is down, up and leave in one DOM event: ImGui presses a button on a release
        // over it, so the leave waits for the frame after the release (issue 32: taps on
        // buttons, checkboxes and headers were lost).
        for (const bool changed : button_changed)
          if (changed) return true;
        io.MousePos = g_pointer = ImVec2(-FLT_MAX, -FLT_MAX);
        break;
      case Kind::kButton:
        if (e.code < 0 || e.code >= 5) break;
        if (button_changed[e.code]) return true;  // the next frame takes this one
        // A press somewhere the pointer was not last frame (a click without moves before it, a
        // tap) first moves it there for a frame: tabs (AllowItemOverlap) take a press only
        // when they were hovered the frame before (imgui_widgets.cpp ButtonBehavior,
        // HoveredIdPreviousFrame), so such a click on a tab was lost.
        if (e.down && (moved || g_pointer.x != at.x || g_pointer.y != at.y)) {
          io.MousePos = g_pointer = at;
          return true;
        }
        g_pointer = at;
        button_changed[e.code] = true;
        io.MousePos = at;
        io.MouseDown[e.code] = e.down;
        SetMods(io, e.mods);
        break;
      case Kind::kWheel: {
        moved = moved || g_pointer.x != at.x || g_pointer.y != at.y;
        io.MousePos = g_pointer = at;
        const app::WheelDelta d = app::WheelToImGui(e.dx, e.dy, static_cast<app::WheelMode>(e.mode), font_css * 1.25,
                                                    view_css * 0.8, font_css);
        io.MouseWheel += d.y;
        io.MouseWheelH += d.x;
        break;
      }
      case Kind::kKey:
        if (e.code < 0 || e.code >= 512) break;
        if (key_changed[static_cast<size_t>(e.code)]) return true;
        key_changed[static_cast<size_t>(e.code)] = true;
        io.KeysDown[e.code] = e.down;
        SetMods(io, e.mods);
        break;
      case Kind::kChar:
        io.AddInputCharacter(static_cast<unsigned int>(e.code));
        break;
      case Kind::kFocusLost:
        for (bool& k : io.KeysDown) k = false;
        for (bool& b : io.MouseDown) b = false;
        SetMods(io, 0);
        break;
    }
    g_queue.pop_front();
  }
  return false;
}

bool Held() {
  const ImGuiIO& io = ImGui::GetIO();
  for (bool b : io.MouseDown)
    if (b) return true;
  for (bool k : io.KeysDown)
    if (k) return true;
  return false;
}

void FrameDone() { JsFrameDone(); }

}  // namespace llmmem::platform::webinput

using llmmem::platform::webinput::Event;
using llmmem::platform::webinput::Kind;
namespace wi = llmmem::platform::webinput;

// type: 0 move, 1 press, 2 release, 3 leave.
extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_ev_pointer(int type, double x, double y, int button, int mods) {
  Event e{type == 3 ? Kind::kLeave : type == 0 ? Kind::kMove : Kind::kButton};
  e.down = type == 1;
  // DOM buttons: 0 left, 1 middle, 2 right; ImGui: 0 left, 1 right, 2 middle.
  e.code = button == 1 ? 2 : button == 2 ? 1 : button;
  e.mods = mods;
  e.x = static_cast<float>(x);
  e.y = static_cast<float>(y);
  if (type != 0 && type != 3) wi::g_mods = mods;
  wi::Push(e);
}

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_ev_wheel(double dx, double dy, int mode, double x, double y) {
  Event e{Kind::kWheel};
  e.dx = dx;
  e.dy = dy;
  e.mode = mode >= 0 && mode <= 2 ? mode : 0;
  e.x = static_cast<float>(x);
  e.y = static_cast<float>(y);
  wi::Push(e);
}

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_ev_key(int down, int code, int mods) {
  Event e{Kind::kKey};
  e.down = down != 0;
  e.code = code;
  e.mods = mods;
  wi::g_mods = mods;
  wi::Push(e);
}

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_ev_char(int code_point) {
  Event e{Kind::kChar};
  e.code = code_point;
  wi::Push(e);
}

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_ev_focus(int focused) {
  if (focused == 0) {
    wi::g_mods = 0;
    wi::Push(Event{Kind::kFocusLost});
  } else if (wi::g_wake != nullptr) {
    wi::g_wake();
  }
}

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_ev_resize() {
  if (wi::g_wake != nullptr) wi::g_wake();
}

// The browser's paste (text, or null when it gave none: the app's own last copy is used).
// Into a text field as Ctrl+V; outside one, a config.json (any JSON) is opened.
extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_ev_paste(const char* text) {
  if (text != nullptr) wi::g_clipboard = text;
  if (!ImGui::GetIO().WantTextInput && text != nullptr && wi::LooksLikeJson(wi::g_clipboard)) {
    llmmem::app::OpenText("pasted text", wi::g_clipboard);
    if (wi::g_wake != nullptr) wi::g_wake();
    return;
  }
  Event down{Kind::kKey};
  down.down = true;
  down.code = wi::kKeyV;
  down.mods = wi::PasteMods();
  Event up = down;
  up.down = false;
  up.mods = wi::g_mods;
  wi::Push(down);
  wi::Push(up);
}
