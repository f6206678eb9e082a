// The page's Hugging Face loader for the model box (app::PlatformHooks hub_load /
// hub_search): web/hub.js does the fetching (fetch(), timeouts, byte caps, Range reads),
// the core parses through the Embind API (src/bindings/embind_hub.cpp), and the answer
// comes back here as JSON text for app::HubLoaded / HubSearched.
#pragma once

#include "app/app.h"

namespace llmmem::platform::webhub {

// Sets hooks.hub_load and hooks.hub_search; `wake` asks for a frame when an answer arrives.
void Install(app::PlatformHooks* hooks, void (*wake)());

}  // namespace llmmem::platform::webhub
