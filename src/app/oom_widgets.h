// The OOM tab's drawing: the GPU at the failure as one stacked bar (like the category bar:
// an ImGui item, a tooltip per segment with its arithmetic, the capacity marked, the failed
// request drawn against the free segment), and its legend. Used by panel_oom.cpp.
// May include: imgui, core.
#pragma once

#include "core/oom/oom_report.h"
#include "imgui.h"

namespace llmmem::app {

ImU32 SegmentColor(core::SegmentKind k);
void OomBarChart(const char* id, const core::OomBar& bar, float scale);
void OomBarLegend(const core::OomBar& bar);

}  // namespace llmmem::app
