// The page's background module (issue 34 part 5): the planners in a Web Worker, so a search over
// thousands of layouts never stops the page drawing. web/plan_worker.js loads it on the first
// request (none of it is on the first screen) and calls llmmem_worker_call with a call's name and
// its JSON; the answer is JSON text that the worker posts back to the page. Built at -O2 like the
// fast path (the search is the estimate run ten thousand times), not at the page's -Oz.
// The Hub's loads run here too (web/plan_worker.js runs hub.js over web_hub_abi.cpp's
// llmmem_hub_call, linked into this module and not into the page's: issue 32's byte budget).
#include <emscripten/emscripten.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "bindings/background_calls.h"

// The answer stays valid until the next call (the worker copies it out at once).
extern "C" EMSCRIPTEN_KEEPALIVE const char* llmmem_worker_call(const char* fn, const char* request_json) {
  static std::string answer;
  answer = llmmem::bindings::CallBackground(fn ? fn : "", request_json ? request_json : "");
  return answer.c_str();
}

// The heap for hub.js's arguments and bytes (web/plan_worker.js), as the page's main_web.cpp has.
extern "C" EMSCRIPTEN_KEEPALIVE void* llmmem_alloc(int size) { return std::malloc(size > 0 ? static_cast<size_t>(size) : 1); }
extern "C" EMSCRIPTEN_KEEPALIVE void llmmem_free(void* p) { std::free(p); }

int main() { return 0; }
