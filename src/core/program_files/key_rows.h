// The rows a program's format is made of, and the one driver that matches a file's keys
// against them (key_rows.cpp). Internal to core/program_files.
#pragma once

#include <string>
#include <vector>

#include "core/parse/settings_tree.h"
#include "core/program_files/program_file.h"

namespace llmmem::core::program_files {

class ImportState;
using KeyHandler = void (*)(const SettingsEntry&, ImportState&);

enum class KeyUse {
  kSets,        // the key sets `field`, through `values` ("true=full false=none"; "" passes it on)
  kHandled,     // `handler` decides (a key that sets several fields, or one that depends on others)
  kModel,       // the model: a Hub id or a path
  kFile,        // names another settings file (a DeepSpeed JSON, an accelerate YAML)
  kIgnored,     // changes no memory (`why` says what it is)
  kNotCounted,  // changes memory in a way the estimate does not count (`why` says how)
  kGpusPerNode,  // GPUs per node; `field` names the key of the node count (1 when absent)
};

struct KeyRow {
  KeyUse use;
  const char* key;  // a dotted path; a segment "*" matches any one, a trailing ".*" anything below
  const char* field = "";
  const char* values = "";  // kSets: space-separated `from=to`; an empty `to` sets nothing; `*=to` any other
  const char* why = "";
  KeyHandler handler = nullptr;
};

inline KeyRow Sets(const char* key, const char* field, const char* values, const char* why) {
  return {KeyUse::kSets, key, field, values, why, nullptr};
}
inline KeyRow Handled(const char* key, KeyHandler h, const char* why) { return {KeyUse::kHandled, key, "", "", why, h}; }
inline KeyRow Model(const char* key) { return {KeyUse::kModel, key, "", "", "the model", nullptr}; }
inline KeyRow File(const char* key, const char* why) { return {KeyUse::kFile, key, "", "", why, nullptr}; }
inline KeyRow Ignored(const char* key, const char* why) { return {KeyUse::kIgnored, key, "", "", why, nullptr}; }
inline KeyRow NotCounted(const char* key, const char* why) {
  return {KeyUse::kNotCounted, key, "", "", why, nullptr};
}
// A launcher's processes per node, times the nodes another key gives: the job's GPU count.
inline KeyRow GpusPerNode(const char* key, const char* nodes_key, const char* why) {
  return {KeyUse::kGpusPerNode, key, nodes_key, "", why, nullptr};
}

// What an import builds while its rows run.
class ImportState {
 public:
  ImportState(const SettingsTree& tree, ProgramFileImport& out) : tree_(tree), out_(out) {}
  const SettingsTree& tree() const { return tree_; }
  ProgramFileImport& out() { return out_; }

  // Sets `field` to `value` because of `e`; a value the field does not take is an error
  // naming the key's line. A field set twice to different values by two keys is an error
  // naming both. `why` says what the key means when it is not the key's row's text.
  void Set(const SettingsEntry& e, const char* field, const std::string& value, const std::string& why = "");
  // The job's GPU count (not a field: links, JSON and the CLI resolve it into dp once tp, pp
  // and cp are known). Two keys that give different counts are an error naming both.
  void SetGpus(const SettingsEntry& e, const std::string& value, const std::string& why);
  // Sets `field` over what another key set (a 4-bit base makes LoRA QLoRA).
  void Replace(const SettingsEntry& e, const char* field, const std::string& value, const std::string& why);
  // Sets a field the file is silent on, saying why (listed as an assumption).
  void Assume(const char* field, const std::string& value, const std::string& why);
  void Ignore(const SettingsEntry& e, const std::string& why);
  void NotCount(const SettingsEntry& e, const std::string& why);
  void NameFile(const SettingsEntry& e, const std::string& why);
  void SetModel(const SettingsEntry& e);
  // Whether a field was set by a key or an assumption, and to what.
  const ProgramSetting* Setting(const char* field) const;
  // A key's value, or null when the file does not hold it.
  const SettingsEntry* Find(const char* path) const { return FindSetting(tree_, path); }

 private:
  const SettingsTree& tree_;
  ProgramFileImport& out_;
};

// YAML/JSON/flag truth values: true, True, yes, on, 1 (a bare flag is "true"). A kSets row's
// `true=` and `false=` take all of them.
bool Truthy(const std::string& v);
bool Falsy(const std::string& v);
// A whole positive number written as such ("4", not "auto").
bool IsCount(const std::string& v);
// "bf16", "bfloat16", "torch.bfloat16" -> "bf16"; "" when not a dtype name.
std::string DtypeName(const std::string& v);
// A dropout probability: LoRA's dropout field is on when it is above 0.
void SetDropout(const SettingsEntry& e, ImportState& s);
// HF optimizer names (TrainingArguments.optim: adamw_torch_fused, paged_adamw_8bit, ...).
void SetHfOptimizer(const SettingsEntry& e, ImportState& s);

// fsdp_config's keys (with or without the fsdp_ prefix), shared by TrainingArguments and
// accelerate's config (rows_hf.cpp).
void FsdpConfigKey(const SettingsEntry& e, ImportState& s);
// A DeepSpeed "zero3_offload"-style name (ms-swift's, axolotl's bundled files): the stage and
// offloads it stands for, as assumptions; false when the name says no stage.
bool AssumeDeepSpeedByName(const std::string& name, ImportState& s, const std::string& why);

// Whether `path` matches a row's key pattern.
bool KeyMatches(const char* pattern, const std::string& path);

// Runs every entry through the first row whose key matches (rows in order); entries no row
// names are listed as unknown.
void RunRows(const std::vector<KeyRow>& rows, ImportState& s);
// One entry through `rows`, matched without its first `strip` characters (a DeepSpeed
// config inline under TrainingArguments' "deepspeed." is matched as DeepSpeed's own keys).
void RunEntry(const std::vector<KeyRow>& rows, const SettingsEntry& e, size_t strip, ImportState& s);

// The rows of each format (rows_*.cpp), and what each format adds when all keys are read.
const std::vector<KeyRow>& AxolotlRows();
const std::vector<KeyRow>& LlamaFactoryRows();
const std::vector<KeyRow>& TorchtuneRows();
const std::vector<KeyRow>& HfArgsRows();  // TrainingArguments and TRL's configs
const std::vector<KeyRow>& TrainerStateRows();
const std::vector<KeyRow>& AccelerateRows();
const std::vector<KeyRow>& DeepSpeedRows();
const std::vector<KeyRow>& TorchtitanRows();
const std::vector<KeyRow>& VerlRows();
const std::vector<KeyRow>& OpenRlhfRows();
const std::vector<KeyRow>& SwiftRows();
const std::vector<KeyRow>& FsdpQloraRows();
const std::vector<KeyRow>& LauncherRows();  // torchrun., accelerate., deepspeed. and env. keys
const std::vector<KeyRow>& PackageRows();   // pip freeze / pip list / requirements / conda list

void FinishTorchtune(ImportState& s);
void FinishHfArgs(ImportState& s);
void FinishDeepSpeed(ImportState& s);
void FinishAccelerate(ImportState& s);
void FinishTorchtitan(ImportState& s);
void FinishVerl(ImportState& s);
void FinishOpenRlhf(ImportState& s);
void FinishSwift(ImportState& s);
void FinishFsdpQlora(ImportState& s);
void FinishPackages(ImportState& s);

}  // namespace llmmem::core::program_files
