// The result as text for the page's DOM (web/boot.js puts it in a visually hidden
// section): the verdict and the breakdown by category, in the UI's language and unit, for
// screen readers, text selection, find-in-page and page translation, which cannot read a
// canvas. JSON: {"lang", "title", "verdict", "detail", "rows": [[name, size, share]...]}.
// May include: core, app/state.h (no ImGui).
#pragma once

#include <string>

#include "app/state.h"

namespace llmmem::app {

std::string MirrorJson(const State& s);

// The peak as the three figures people measure it by (max_memory_allocated,
// max_memory_reserved, nvidia-smi), in the UI's language and unit; empty for a serving
// runtime (it preallocates) or when there is no estimate.
std::string MeasuredLine(const State& s);

}  // namespace llmmem::app
