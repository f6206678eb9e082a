// The panels the main window is made of, one file each (panel_<name>.cpp).
// May include: app/state.h.
#pragma once

#include "app/state.h"
#include "core/catalogue/gpus.h"

namespace llmmem::app {

void DrawToolbar(State& s);  // panel_toolbar.cpp: title, undo/redo/reset, units, theme, language, copy link
void DrawQuestions(State& s, bool stacked);  // panel_questions.cpp: which model, what for, which GPU
void DrawInputs(State& s);                   // panel_inputs.cpp: workload, then the Advanced sections
void DrawModelInputs(State& s);              // panel_model.cpp: the model's dimensions (an Advanced section)
void DrawHubBox(State& s);                   // panel_hub.cpp: a Hugging Face model by its id, search as you type
void DrawImportButtons(State& s);            // panel_model.cpp: paste config.json, open a file, the paste box
void RequestFileBrowser(State& s);           // panel_file_browser.cpp: the desktop's "Open file..." opens
void DrawFileBrowser(State& s);              // panel_file_browser.cpp: its modal (folders, files, path field)
void DrawGpuInfo(const core::Gpu& g);        // panel_inputs.cpp: a card's catalogue row (tooltips)
void DrawModelSizes(State& s);  // panel_sizes.cpp: the model's size per precision (the HF calculator's table)
void DrawVerdict(State& s);     // panel_verdict.cpp: per-GPU total against the GPU, verdict, "ways to make it fit"
void DrawCategoryBar(const State& s);  // panel_category_bar.cpp: stacked bar + legend
void DrawBreakdown(State& s);          // panel_breakdown.cpp: the tree table, formulas on demand
void DrawCharts(const State& s);       // panel_charts.cpp: per-layer terms, sweeps, recompute modes
void DrawFitMap(const State& s);       // panel_fitmap.cpp: batch x seq plane, OOM boundary
void ShutdownFitMap();                 // frees its GL objects
double LastFitMapMs();                 // how long the last grid took to compute (-1: none yet)
void DrawFit(State& s);                // panel_fit.cpp: fewest GPUs per ZeRO stage, largest batch/sequence, formats;
                                       // DeepSpeed/Megatron figures
// panel_run.cpp: a runtime's log or memory_stats beside the estimate; true when it was one
bool DrawRunReading(State& s, const std::string& text);
void DrawJobs(State& s);               // panel_jobs.cpp: several jobs on one GPU, a timeline of phases
void DrawPlanSearch(State& s);         // panel_plan.cpp: every layout for the tokens per step, fastest first
void DrawServing(State& s);            // panel_serving.cpp: runtime, what it allocates, serving fit, launch command
void DrawServingFit(State& s, int parts = 3);   // panel_serving.cpp: the serving answers (also in the Fit tab)
void DrawDoctor(State& s);             // panel_doctor.cpp: remedies for an OOM, one click applies
// panel_oom.cpp: the background's reading of the OOM text (hooks.background "oom_evidence");
// false when `seq` is not the OOM tab's.
bool OomAnswered(State& s, int64_t seq, bool ok, const std::string& text);
void DrawOom(State& s);            // panel_oom.cpp: paste an OOM message / nvidia-smi; what held the GPU, why it failed
void DrawNetwork(State& s);        // panel_network.cpp: any network layer by layer (seed 002's CNN accounting)
void DrawPinExport(State& s);      // panel_export.cpp: pin for compare, Markdown/JSON/CSV exports
void DrawWeightsInput(State& s);   // panel_weights.cpp: desktop path field for a weights file
void DrawWeightsWindow(State& s);  // panel_weights.cpp: a weights header's counts per dtype

// Human names shared by panels.
const char* ModeLabel(core::Mode m);

}  // namespace llmmem::app
