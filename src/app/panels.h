// The panels the main window is made of, one file each (panel_<name>.cpp).
// May include: app/state.h.
#pragma once

#include "app/state.h"

namespace llmmem::app {

void DrawToolbar(State& s);         // panel_toolbar.cpp: title, units, theme, copy link
void DrawInputs(State& s);          // panel_inputs.cpp: workload, precision, optimizer, overheads, GPU
void DrawModelInputs(State& s);     // panel_model.cpp: preset picker, dimensions, config.json import
void DrawVerdict(const State& s);   // panel_verdict.cpp: per-GPU total against the GPU, verdict
void DrawCategoryBar(const State& s);  // panel_category_bar.cpp: stacked bar + legend
void DrawBreakdown(const State& s);    // panel_breakdown.cpp: the tree table
void DrawCharts(const State& s);       // panel_charts.cpp: per-layer terms, sweeps, recompute modes
void DrawFitMap(const State& s);       // panel_fitmap.cpp: batch x seq plane, OOM boundary
void ShutdownFitMap();                 // frees its GL objects

// Human names shared by panels.
const char* ModeLabel(core::Mode m);

}  // namespace llmmem::app
