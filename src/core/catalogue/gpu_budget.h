// Unified memory (issue 31): what a program may really use on a machine whose GPU shares the
// RAM, and how that is raised; the sentence the verdict shows beside the figure (CLI table,
// JSON gpu.budget_note, the UI's verdict). The share itself is each row's gpu_share in
// presets/gpus.json, with its measurements; the rules, from their sources:
//   kMetal (macOS): llama.cpp sizes a Metal device by recommendedMaxWorkingSetSize
//     (ggml/src/ggml-metal/ggml-metal-device.m@177ab4547616, ggml_metal_device_get_memory:
//     total = recommendedMaxWorkingSetSize); on macOS 14-15 it is 2/3 of RAM at 16 and 32 GiB
//     (10922.67 and 21845.34 MiB in ggml_metal_init's logs) and 3/4 at 64 and 96 GiB
//     (49152.00, 73728.00 MiB); macOS 26 gives 107.52 GiB of 128 (antirez/ds4 PR #893).
//     sudo sysctl iogpu.wired_limit_mb=N (MiB: 114688 gave 112.00 GiB, same source) raises it.
//   kAmdGtt (Linux amdgpu APU, Strix Halo): the BIOS carve-out plus GTT, whose default is
//     max(3 GB, 1/2 of RAM) (torvalds/linux f7ba887f606b), raised by amdgpu.gttsize=N (MiB) and
//     ttm.pages_limit=N x 256 (4 KiB pages; antirez/ds4 docs/STRIX_HALO.md@b4c5cc8a9403).
//   kCuda (GB10): CUDA's total is the OS's MemTotal (121.69 GiB), shared with the OS.
// May include: core/base, core/catalogue.
#pragma once

#include "core/base/phrase.h"
#include "core/catalogue/gpus.h"

namespace llmmem::core {

// "Apple M4 Max, 40-core GPU (128 GB unified): macOS lets the GPU wire about 96.00 GiB
// (103.08 GB) of its 128.00 GiB (...); sudo sysctl iogpu.wired_limit_mb=N raises it, ...".
// wired_limit_mb: the raised limit the user gave (0: the default). Empty text when the card
// is not unified.
Phrase UnifiedBudgetNote(const Gpu& g, double wired_limit_mb);

}  // namespace llmmem::core
