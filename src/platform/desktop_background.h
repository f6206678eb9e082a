// The desktop's runner of the core's long calls (app::PlatformHooks::background): each request
// on a thread of its own (bindings/background_calls.h, the same dispatch as the page's Web
// Worker), the answer handed to the UI thread by Poll() each frame.
#pragma once

#include "app/app.h"

namespace llmmem::platform::desktopbackground {

// Sets hooks.background; `wake` is called from the thread when an answer waits.
void Install(app::PlatformHooks* hooks, void (*wake)());
// On the UI thread: gives waiting answers to app::BackgroundAnswered.
void Poll();

}  // namespace llmmem::platform::desktopbackground
