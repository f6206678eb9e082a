// What the UI opens with and what its choices bring along, as people run them. Pure (no
// ImGui): tests/test_app_logic.cpp covers it.
//  - The first screen: a question most newcomers ask, answered: Llama 3.1 8B for chat
//    (inference, bf16, 4096 tokens) on one RTX 4090 (24 GB). It fits.
//  - "What for?" A mode brings what the training program runs it with (core/config/stacks.h;
//    the default, HF Trainer + peft: QLoRA with gradient checkpointing, as
//    prepare_model_for_kbit_training does, LoRA and full training without); training modes
//    need trainable weights.
//  - A preset opens, for inference, in the format its checkpoint ships in
//    (core::PresetDtype, the default the CLI, JSON and links follow too).
// May include: core.
#pragma once

#include <string>

#include "core/config/config.h"
#include "core/catalogue/presets.h"

namespace llmmem::app {

core::Config FirstScreenConfig();

// The mode the user picked, with what that mode is run with.
void SwitchMode(core::Config& c, core::Mode mode);

// The preset the user picked: its model, its shipped format for inference (bf16 or fp16
// for training, as the weights must train), and its context when the sequence is longer.
void PickPreset(core::Config& c, const core::Preset& p);

}  // namespace llmmem::app
