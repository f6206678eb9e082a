// Training programs ("stacks", issue 30): what a program does by default, as settings the
// estimate already has. A user knows which program and version they run, not its internals
// (reentrant checkpointing, FSDP1, the loss path, the optimizer's precision); a row says them,
// each cell cited to that program's source at a tag. One row per program and per version that
// changed a memory-relevant default; a version between rows takes the earlier row, no version
// the latest. The rows live in stacks.cpp.
//
// How a row applies: a stack's cells are the defaults of their fields; what the user sets
// overrides them. DefaultConfig() holds the default stack's (hf-trainer at its latest row);
// every assembler (JSON, links, the CLI, the UI's pickers and edits) sets the user's fields
// over where it started and then follows the defaults (FollowDefaults): each field the user
// did not give, still at its default, takes the default of the program, mode and conditions
// it ends with. So one table decides what every surface starts with.
//
// A cell may hold only under a condition on the rest of the configuration (`when`): accelerate
// runs FSDP1 only when FSDP is on and upcasts FSDP's parameters to fp32 only under mixed
// precision; peft casts the norms to fp32 only for a QLoRA model it prepares. A cell whose
// condition is off sets nothing, so validation never sees it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/config/config.h"
#include "core/base/diagnostics.h"

namespace llmmem::core {

struct FieldDef;  // fields.h
struct Preset;    // catalogue/presets.h

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
  // The condition it holds under, "" for always: clauses `field=value`, `field!=value` or
  // `field>number` (any field, the model's too; values as the field's setter takes them),
  // joined by " and ", alternatives by " or " ("sharding=fsdp and autocast!=off").
  const char* when = "";
};

struct StackRow {
  const char* name;     // "hf-trainer"
  const char* version;  // the first version this row holds for ("4.46"); rows of a name ascend
  const char* label;    // "HF Trainer (transformers + accelerate + peft)"
  std::vector<StackCell> cells;
  // The program it runs on ("hf-trainer@4.36"; "" for none): that row's cells hold for every
  // field and mode this row's cells do not name (TRL, Axolotl, LLaMA-Factory on the HF Trainer).
  const char* on = "";
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

// The one default the model decides, not the program: a preset runs, for inference, in the
// format its checkpoint ships in (Preset::shipped_dtype: DeepSeek-R1 in FP8, gpt-oss in
// MXFP4, GPT-2 in FP32); training keeps 16-bit weights (fp16 when the checkpoint is fp16,
// else bf16). It is dtype's default wherever no row sets one (DefaultOf), so the CLI, JSON,
// links and the UI open `--model gpt-oss-120b` alike.
Dtype PresetDtype(const Preset& p, Mode mode);

// The value `field` starts with under `stack` in `mode`: the row's cell, else Config{}'s.
// Conditional cells are judged on `conditions` (DefaultConfig() when null).
std::string StackDefault(const std::string& stack, Mode mode, const char* field, const Config* conditions = nullptr);
// The default of `field` for c's own stack, mode and conditions (what a link need not write).
std::string StackDefaultFor(const Config& c, const char* field);
// Whether a condition (StackCell::when) holds for c; `error`, when given, says what in it is
// not a field or a value its field takes ("" when it reads).
bool ConditionHolds(const char* when, const Config& c, std::string* error = nullptr);

// c.stack and c.mode were just set (from old_stack, old_mode): every field the old pair's
// defaults still hold takes the new pair's default; a field the user changed keeps its value.
// FollowDefaults with `before` = c under the old pair.
void FollowStack(Config& c, const std::string& old_stack, Mode old_mode);

// The one rule every assembler follows: c was `before` (every field of before's program at
// its default for before's mode and conditions, as DefaultConfig() is) and then took the
// user's settings. Each field a cell of before's or c's row names, that `given` does not
// name (field names) and that still holds its default under `before`, takes its default
// under c: c's program, mode and conditions. FollowStack is this with only the program or
// the mode changed.
void FollowDefaults(Config& c, const Config& before, const std::vector<std::string>& given = {});
// FollowDefaults for a configuration a search or a remedy derived from `before` (the fit
// solver, the doctor, the planner): the fields it changed are the given ones, and each field
// still at before's default takes c's, so a cell whose condition the change turns on holds
// (ZeRO-3 under DeepSpeed keeps fp32 master weights where ZeRO-0 under the Trainer did not).
void FollowChanged(Config& c, const Config& before);

// FollowChanged(c, base) for the many configurations a search derives from one base (the
// planner's candidates). Its outcome depends only on c's values of the fields the rows' cells
// and conditions name, so each distinct set of those values is worked out once (it parses
// conditions and formats fields: 40 us a call, which made a 124k-estimate plan 9x slower).
class StackFollower {
 public:
  explicit StackFollower(const Config& base);
  void Apply(Config& c);

 private:
  struct Outcome {
    std::string key;
    std::vector<std::pair<const FieldDef*, std::string>> sets;  // what FollowChanged moved, to what
  };
  Config base_;
  std::vector<const FieldDef*> fields_;  // what the outcome reads
  std::vector<Outcome> memo_;            // few: the plan's stages, shardings and recompute modes
};
// Every field c's row names takes its default for c's mode and conditions (DefaultConfig()).
void TakeStackDefaults(Config& c);

// Sets a field and follows the defaults (FollowDefaults): "stack", "mode" and the fields
// conditions read move the fields still at their defaults; other keys as SetField.
bool SetFollowingStack(Config& c, const std::string& key, const std::string& value, Diagnostics& out);

// Notes (info) for the values c holds as its stack sets them, where they differ from the
// core's plain defaults: "recompute = full: what hf-trainer@latest does (...)".
void AddStackNotes(const Config& c, Diagnostics& out);

}  // namespace llmmem::core
