// A training program's own config file or launch command, read as the settings it implies
// (issue 30 part 2): axolotl, LLaMA-Factory and torchtune YAML, HF TrainingArguments (JSON,
// YAML or flags; TRL's configs), trainer_state.json, accelerate config YAML, DeepSpeed JSON,
// torchtitan TOML, verl YAML or Hydra overrides, OpenRLHF and ms-swift command lines (or
// swift's args.json), Answer.AI's fsdp_qlora train.py flags, and torchrun / accelerate
// launch / deepspeed launchers around any of them.
//
// Each format is a table of key rows (key_rows.h): what a key sets, or why it changes no
// memory, or that it matters and is not counted. The import lists all four and every key no
// row names, so an unknown key never changes the result silently; the program (stack) the
// format implies is one of its settings, so the program's defaults (stacks.h) fill in what
// the file leaves out, and the breakdown says which values came from the stack.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/base/diagnostics.h"
#include "core/config/config.h"

namespace llmmem::core {

// One key of the file and what became of it.
struct ProgramKey {
  std::string key;    // the key's dotted path, or a flag's name ("micro_batch_size")
  std::string value;  // as written
  int line = 0;       // 1-based, 0 where the format keeps none
  std::string note;   // what it is, or why it is not counted
};

// A field the file sets, and the key that set it.
struct ProgramSetting {
  std::string field;  // fields.h name ("batch")
  std::string value;  // as the field's setter takes it ("4")
  ProgramKey from;    // the key (an assumption has key "" and says why in from.note)
};

struct ProgramFileImport {
  bool ok = false;
  std::string format;  // its id ("axolotl"), ProgramFormats()
  std::string label;   // "axolotl YAML"
  std::string stack;   // the program it implies ("axolotl"); also among settings
  std::string model;   // the model it names, as written (a Hub id or a path); "" for none
  int model_line = 0;
  std::vector<ProgramSetting> settings;  // in the file's order; assumptions after
  std::vector<ProgramKey> ignored;       // known keys that change no memory
  std::vector<ProgramKey> not_counted;   // known keys that change memory in a way not counted
  std::vector<ProgramKey> unknown;       // keys no row names: they change nothing here
  std::vector<ProgramKey> files_named;   // other files it points to (deepspeed: ds_z3.json)
  Diagnostics diagnostics;               // errors name the line; warnings for what is not counted
};

struct ProgramFormat {
  const char* id;     // "axolotl"
  const char* label;  // "axolotl YAML"
  const char* stack;  // the program it implies
  const char* what;   // how it is recognised, for errors and the README
};
const std::vector<ProgramFormat>& ProgramFormats();

// Reads `text` (the file's bytes) named `file_name` (for its extension and messages). The
// format is found from the name and the keys; `format` ("" for that) forces one.
ProgramFileImport ImportProgramFile(std::string_view text, const std::string& file_name,
                                    const std::string& format = "");

// The catalogue's preset for a model a file names: its key or Hub id, else the same name
// under another owner or as its instruct/chat twin (NousResearch/Meta-Llama-3.1-8B-Instruct
// is meta-llama/Llama-3.1-8B's architecture). `how` says which rule matched; null for none.
const struct Preset* PresetForModelRef(const std::string& ref, std::string* how = nullptr);

// Sets c from an import as a user's settings: the stack and mode first, then each setting,
// then FollowDefaults for what the file left out. The model is set when it is a preset's
// key or Hub id (else the caller loads it: the Hub, a config.json). Appends the fields it
// set to `given` and reports what did not apply to `out`.
void ApplyProgramFile(Config& c, const ProgramFileImport& file, Diagnostics& out,
                      std::vector<std::string>* given = nullptr);

}  // namespace llmmem::core

#include "core/parse/json.h"

namespace llmmem::core {

// The import as JSON (the CLI's "from", the JS API's importProgramFile, the page's worker):
// {"file", "ok", "format", "label", "stack", "model", "settings": [{"field","value","key",
// "key_value","line","note"}], "ignored", "not_counted", "unknown", "files_named": [{"key",
// "value","line","note"}], "errors", "warnings"}.
Json ProgramFileToJson(const ProgramFileImport& file, const std::string& file_name);
// The same as lines for a terminal: what each key set, what was assumed, not counted,
// ignored (counted, with the first names) and unknown.
std::string ProgramFileText(const ProgramFileImport& file, const std::string& file_name);

}  // namespace llmmem::core
