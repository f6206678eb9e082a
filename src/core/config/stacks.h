// Training programs ("stacks", issue 30): what a program does by default, as settings the
// estimate already has. A user knows which program and version they run, not its internals
// (reentrant checkpointing, FSDP1, the loss path, the optimizer's precision); a row says them,
// each cell cited to that program's source at a tag. One row per program and per version that
// changed a memory-relevant default; a version between rows takes the earlier row, no version
// the latest. The rows live in stacks.cpp.
//
// How a row applies: a stack's cells are the defaults of their fields; what the user sets
// overrides them. Every assembler (JSON, links, the CLI, the UI's mode and program pickers)
// applies the stack and mode first (FollowStack), then the user's fields; so the default
// stack, hf-trainer at its latest row, is the one place that decides what a mode starts with.
#pragma once

#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/base/diagnostics.h"

namespace llmmem::core {

// Modes a cell applies to, one bit per Mode.
constexpr unsigned ModeBit(Mode m) { return 1u << static_cast<unsigned>(m); }
constexpr unsigned kFullModes = ModeBit(Mode::kTraining) | ModeBit(Mode::kRlhf);
constexpr unsigned kPeftModes = ModeBit(Mode::kLora) | ModeBit(Mode::kQlora);
constexpr unsigned kTrainModes = kFullModes | kPeftModes;

struct StackCell {
  const char* field;  // a field's name (fields.h)
  const char* value;  // its text, as the field's setter takes it
  unsigned modes;     // the modes it applies to (ModeBit)
  const char* why;    // what the program does, and where: repository path@tag
};

struct StackRow {
  const char* name;     // "hf-trainer"
  const char* version;  // the first version this row holds for ("4.46"); rows of a name ascend
  const char* label;    // "HF Trainer (transformers + accelerate + peft)"
  std::vector<StackCell> cells;
};

const std::vector<StackRow>& StackRows();
constexpr const char* kDefaultStack = "hf-trainer";

// "NAME" or "NAME@VERSION" (or NAME@latest) -> its row; null with `error` saying why and
// listing the known names (or that name's versions).
const StackRow* FindStack(const std::string& text, std::string* error = nullptr);
// "hf-trainer, trl, ..." in the table's order.
std::string StackNames();
// The names and every row ("... (rows: hf-trainer@4.0, ...)"), for errors.
std::string KnownStacks();

// The value `field` starts with under `stack` in `mode`: the row's cell, else Config{}'s.
std::string StackDefault(const std::string& stack, Mode mode, const char* field);

// c.stack and c.mode were just set (from old_stack, old_mode): every field the old pair's
// defaults still hold takes the new pair's default; a field the user changed keeps its value.
void FollowStack(Config& c, const std::string& old_stack, Mode old_mode);

// Sets "stack" or "mode" and follows the stack's defaults; other keys as SetField.
bool SetFollowingStack(Config& c, const std::string& key, const std::string& value, Diagnostics& out);

// Notes (info) for the values c holds as its stack sets them, where they differ from the
// core's plain defaults: "recompute = full: what hf-trainer@latest does (...)".
void AddStackNotes(const Config& c, Diagnostics& out);

}  // namespace llmmem::core
