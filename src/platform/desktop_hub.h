// The desktop's Hugging Face loader for the model box (app::PlatformHooks hub_load /
// hub_search): src/net on a worker thread per request (the cache first, then libcurl with
// its timeout), the answer handed to the UI thread by Poll() each frame.
#pragma once

#include "app/app.h"

namespace llmmem::platform::desktophub {

// Sets hooks.hub_load and hooks.hub_search; `wake` is called from the worker thread when
// an answer waits (glfwPostEmptyEvent).
void Install(app::PlatformHooks* hooks, void (*wake)());
// On the UI thread: gives waiting answers to app::HubLoaded / HubSearched.
void Poll();

}  // namespace llmmem::platform::desktophub
