// The page's layer-stack presets, fetched on demand (web_networks.cpp).
#pragma once

#include "app/app.h"

namespace llmmem::platform::webnetworks {

// Sets hooks->need_networks (networks.json to app::NetworksArrived) and hooks->need_gpu_sources
// (gpus.json to app::GpuSourcesArrived); each wakes the page when its answer is in.
void Install(app::PlatformHooks* hooks, void (*wake)());

}  // namespace llmmem::platform::webnetworks
