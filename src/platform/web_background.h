// The page's runner of the core's long calls (app::PlatformHooks::background): a Web Worker
// (web/plan_worker.js with llmmem-plan.js, both fetched on the first request), so the page
// keeps drawing while the planner searches (web_background.cpp).
#pragma once

#include "app/app.h"

namespace llmmem::platform::webbackground {

// Sets hooks->background: post the call to the worker, hand its answer to
// app::BackgroundAnswered, then wake.
void Install(app::PlatformHooks* hooks, void (*wake)());

}  // namespace llmmem::platform::webbackground
