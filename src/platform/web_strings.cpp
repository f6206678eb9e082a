// The page compiles no translation table in (its Chinese column would weigh on everyone's
// first load): it fetches llmmem-zh.json, which scripts/fonts.py writes from
// src/app/strings.cpp beside the page, when Chinese is first shown (Request, called with the
// CJK font's fetch), and hands it to app::AddStrings. The desktop app and the tests compile
// strings.cpp in.
// The EM_JS body below is JavaScript, which clang-format would break:
// clang-format off
#include "platform/web_strings.h"

#include <emscripten/emscripten.h>

#include <string>

#include "app/app.h"
#include "app/i18n.h"

namespace llmmem::app {
// The table, empty on the page (AddTranslations fills it from llmmem-zh.json).
extern const Translation kStrings[] = {{nullptr, nullptr}};
}  // namespace llmmem::app

namespace {

void (*g_wake)() = nullptr;
bool g_requested = false;

// Answers through _llmmem_strings_arrived(text, size, failed): the file, or why it failed.
EM_JS(void, JsFetchStrings, (), {
  function answer(text, failed) {
    var n = lengthBytesUTF8(text) + 1, p = _llmmem_alloc(n);
    stringToUTF8(text, p, n);
    _llmmem_strings_arrived(p, n - 1, failed);
    _llmmem_free(p);
  }
  fetch("llmmem-zh.json").then(function (r) {
    if (!r.ok) throw new Error("the server answered " + r.status);
    return r.text();
  }).then(function (t) { answer(t, 0); }, function (e) {
    answer("the Chinese strings could not be fetched (" + (e && e.message || e) + ")", 1);
  });
});

}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_strings_arrived(const char* text, int size, int failed) {
  const std::string s(text, size > 0 ? static_cast<size_t>(size) : 0);
  if (failed) {
    g_requested = false;  // a later switch to Chinese tries again
    llmmem::app::StringsFailed(s);
  } else {
    llmmem::app::AddStrings(s);
  }
  if (g_wake) g_wake();
}

namespace llmmem::platform::webstrings {

void Install(void (*wake)()) { g_wake = wake; }

void Request() {
  if (g_requested) return;
  g_requested = true;
  JsFetchStrings();
}

}  // namespace llmmem::platform::webstrings
