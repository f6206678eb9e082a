// The page's Hugging Face loader for the model box (app::PlatformHooks hub_load /
// hub_search): web/hub.js does the fetching (fetch(), timeouts, byte caps, Range reads) in
// the page's Web Worker (web_background.cpp's, web/plan_worker.js), the core parses in the
// worker's module (web_hub_abi.cpp), and the answer comes back here as JSON text for
// app::HubLoaded / HubSearched. Needs webbackground::Install (its worker) too.
#pragma once

#include "app/app.h"

namespace llmmem::platform::webhub {

// Sets hooks.hub_load and hooks.hub_search; `wake` asks for a frame when an answer arrives.
void Install(app::PlatformHooks* hooks, void (*wake)());

}  // namespace llmmem::platform::webhub
