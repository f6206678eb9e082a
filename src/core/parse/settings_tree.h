// A training program's settings file read as its keys (issue 30 part 2): YAML (axolotl,
// LLaMA-Factory, torchtune, accelerate, verl), TOML (torchtitan), JSON (DeepSpeed, HF
// TrainingArguments) and shell command lines (torchrun, accelerate launch, fsdp_qlora,
// OpenRLHF, ms-swift) all become one flat list: each scalar under its dotted path
// ("fsdp_config.fsdp_version", a list's items as "plugins[0]") with the line it stands on.
// The importers (core/program_files) then match paths against their rows, so each program
// is a table and not a walk of its own.
//
// The readers are Debian's: libyaml 0.2.5 (the C reference parser PyYAML wraps) and toml++
// 3.3 (header-only, built with TOML_EXCEPTIONS 0). Both return errors as values: the page's
// WebAssembly build does not catch C++ exceptions, which is why yaml-cpp (which reports
// errors only by throwing) is not used. No I/O: they read the text they are given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmmem::core {

struct SettingsEntry {
  std::string path;   // "actor_rollout_ref.actor.fsdp_config.param_offload"
  std::string value;  // the scalar as written ("true", "4", "bf16"); "" for null
  int line = 0;       // 1-based; 0 where the format keeps no lines (JSON)
  bool is_null = false;  // `key:`, `~`, `null`
};

struct SettingsTree {
  bool ok = false;
  std::vector<SettingsEntry> entries;  // in the file's order
  std::string error;                   // "line 4, column 3: mapping values are not allowed here"
  // Command lines only: the words that are not flags, in order ("torchrun", "train.py").
  std::vector<std::string> words;
};

// Limits a settings file is held to: far above any real config, far below what would slow
// the page (a hostile alias bomb expands within them or is refused).
constexpr size_t kMaxSettingsText = 1u << 20;  // 1 MiB
constexpr size_t kMaxSettingsEntries = 20000;
constexpr int kMaxSettingsDepth = 32;

SettingsTree ParseYamlTree(std::string_view text);
SettingsTree ParseTomlTree(std::string_view text);
SettingsTree ParseJsonTree(std::string_view text);
// A shell command line as a launcher and a script take it: `KEY=v` assignments before the
// program become env.KEY; flags (`--name value`, `--name=value`, a bare `--flag` = "true")
// take their name with dashes as underscores; flags before the script's word belong to
// the launcher and are prefixed with its name ("torchrun.nproc_per_node"). Backslash-newline
// joins lines; quotes group words; `#` starts a comment at a word's start. Hydra-style
// `key.path=value` words (verl's overrides) are entries at that path.
SettingsTree ParseCommandTree(std::string_view text);

// The value of the first entry at `path`, or null.
const SettingsEntry* FindSetting(const SettingsTree& tree, std::string_view path);

}  // namespace llmmem::core
