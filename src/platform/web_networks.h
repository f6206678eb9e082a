// The page's layer-stack presets, fetched on demand (web_networks.cpp).
#pragma once

#include "app/app.h"

namespace llmmem::platform::webnetworks {

// Sets hooks->need_networks: fetch networks.json, hand it to app::NetworksArrived, then wake.
void Install(app::PlatformHooks* hooks, void (*wake)());

}  // namespace llmmem::platform::webnetworks
