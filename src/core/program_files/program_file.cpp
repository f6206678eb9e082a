// Which program a file is for, and the one import every format goes through (program_file.h).
#include "core/program_files/program_file.h"

#include "core/base/safe_text.h"
#include "core/catalogue/presets.h"
#include "core/config/config_json.h"
#include "core/config/fields.h"
#include "core/config/gpu_count.h"
#include "core/config/stacks.h"
#include "core/parse/package_list.h"
#include "core/parse/text.h"
#include "core/program_files/key_rows.h"

namespace llmmem::core {
namespace {

using namespace program_files;

enum class Parser { kYaml, kToml, kJson, kCommand, kPackages };

struct FormatRow {
  ProgramFormat info;
  const std::vector<KeyRow>& (*rows)();
  void (*finish)(ImportState&);  // what the format adds once every key is read; null: nothing
};

const std::vector<FormatRow>& FormatRows() {
  static const std::vector<FormatRow> rows = {
      {{"axolotl", "axolotl YAML", "axolotl", "YAML with base_model"}, AxolotlRows, nullptr},
      {{"llama-factory", "LLaMA-Factory YAML", "llama-factory", "YAML with model_name_or_path and stage, finetuning_type or cutoff_len"},
       LlamaFactoryRows, nullptr},
      {{"torchtune", "torchtune recipe YAML", "torchtune", "YAML with model._component_"}, TorchtuneRows, FinishTorchtune},
      {{"torchtitan", "torchtitan job TOML", "torchtitan", "TOML ([model], [training], [parallelism])"}, TorchtitanRows,
       FinishTorchtitan},
      {{"accelerate", "accelerate config YAML", "hf-trainer", "YAML with distributed_type or compute_environment"},
       AccelerateRows, FinishAccelerate},
      {{"deepspeed", "DeepSpeed JSON", "deepspeed", "JSON with zero_optimization or train_micro_batch_size_per_gpu"},
       DeepSpeedRows, FinishDeepSpeed},
      {{"hf-args", "HF TrainingArguments", "hf-trainer",
        "JSON or YAML with per_device_train_batch_size, or a script's --per_device_train_batch_size flags"},
       HfArgsRows, FinishHfArgs},
      {{"trl", "TRL config (SFT, DPO, GRPO)", "trl", "TrainingArguments with TRL's keys (max_seq_length, num_generations, ...)"},
       HfArgsRows, FinishHfArgs},
      {{"trainer-state", "HF trainer_state.json", "hf-trainer", "JSON with log_history"}, TrainerStateRows, nullptr},
      {{"verl", "verl config", "verl", "YAML with actor_rollout_ref, or python -m verl.trainer.main_ppo key=value overrides"},
       VerlRows, FinishVerl},
      {{"openrlhf", "OpenRLHF command", "openrlhf", "python -m openrlhf.cli.train_* with its flags"}, OpenRlhfRows,
       FinishOpenRlhf},
      {{"ms-swift", "ms-swift arguments", "ms-swift", "swift sft / swift rlhf flags, or the args.json it writes"}, SwiftRows,
       FinishSwift},
      {{"fsdp-qlora", "fsdp_qlora train.py flags", "fsdp-qlora", "python train.py --train_type ... --context_length ..."},
       FsdpQloraRows, FinishFsdpQlora},
      {{"packages", "Python packages", "hf-trainer",
        "pip freeze, pip list, a requirements file or conda list: the training program installed and its version"},
       PackageRows, FinishPackages},
  };
  return rows;
}

const FormatRow* FindFormat(const std::string& id) {
  for (const FormatRow& r : FormatRows())
    if (id == r.info.id) return &r;
  return nullptr;
}

bool EndsWith(const std::string& s, const char* tail) {
  const std::string t = tail;
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

bool Has(const SettingsTree& t, const char* path) { return FindSetting(t, path) != nullptr; }
bool HasPrefix(const SettingsTree& t, const char* prefix) {
  const std::string p = prefix;
  for (const SettingsEntry& e : t.entries)
    if (e.path.compare(0, p.size(), p) == 0) return true;
  return false;
}
bool WordHas(const SettingsTree& t, const char* part) {
  for (const std::string& w : t.words)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

// TRL's own keys, on top of TrainingArguments'.
bool HasTrlKeys(const SettingsTree& t) {
  for (const char* k : {"max_seq_length", "packing", "dataset_text_field", "num_generations", "use_vllm",
                        "completion_only_loss", "assistant_only_loss", "max_completion_length", "padding_free"})
    if (Has(t, k)) return true;
  return false;
}

// The format from the keys (and the words of a command line).
std::string DetectFormat(const SettingsTree& t, Parser parser) {
  if (parser == Parser::kToml) return "torchtitan";
  if (parser == Parser::kPackages) return "packages";
  if (parser == Parser::kCommand) {
    if (WordHas(t, "openrlhf")) return "openrlhf";
    if (WordHas(t, "verl.trainer") || HasPrefix(t, "actor_rollout_ref.")) return "verl";
    if (!t.words.empty() && (t.words[0] == "swift" || EndsWith(t.words[0], "/swift"))) return "ms-swift";
    if (Has(t, "train_type") && (Has(t, "context_length") || Has(t, "model_name"))) return "fsdp-qlora";
    if (Has(t, "base_model")) return "axolotl";
    if (Has(t, "cutoff_len") || Has(t, "finetuning_type") || Has(t, "stage")) return "llama-factory";
    if (HasTrlKeys(t) || WordHas(t, "trl")) return "trl";
    return "hf-args";
  }
  if (Has(t, "base_model")) return "axolotl";
  if (Has(t, "model._component_")) return "torchtune";
  if (HasPrefix(t, "actor_rollout_ref.") || Has(t, "data.max_prompt_length")) return "verl";
  if (Has(t, "compute_environment") || Has(t, "distributed_type")) return "accelerate";
  if (HasPrefix(t, "zero_optimization.") || Has(t, "train_micro_batch_size_per_gpu") || Has(t, "fp16.enabled") ||
      Has(t, "bf16.enabled"))
    return "deepspeed";
  if (HasPrefix(t, "log_history")) return "trainer-state";
  if (Has(t, "model_name_or_path") &&
      (Has(t, "stage") || Has(t, "finetuning_type") || Has(t, "cutoff_len") || Has(t, "template")))
    return "llama-factory";
  if (Has(t, "train_type") && (Has(t, "model") || Has(t, "max_length"))) return "ms-swift";
  if (HasTrlKeys(t)) return "trl";
  if (Has(t, "per_device_train_batch_size") || Has(t, "gradient_accumulation_steps") || Has(t, "output_dir"))
    return "hf-args";
  return "";
}

std::string KnownFormats() {
  std::string out;
  for (const FormatRow& r : FormatRows()) out += std::string(out.empty() ? "" : "; ") + r.info.label + " (" + r.info.what + ")";
  return out;
}

}  // namespace

const std::vector<ProgramFormat>& ProgramFormats() {
  static const std::vector<ProgramFormat> out = [] {
    std::vector<ProgramFormat> v;
    for (const FormatRow& r : FormatRows()) v.push_back(r.info);
    return v;
  }();
  return out;
}

ProgramFileImport ImportProgramFile(std::string_view text, const std::string& file_name, const std::string& format) {
  ProgramFileImport out;
  const std::string name = AsciiLower(file_name);
  size_t first = 0;
  while (first < text.size() && (text[first] == ' ' || text[first] == '\n' || text[first] == '\r' || text[first] == '\t'))
    ++first;
  Parser parser = Parser::kYaml;
  if (EndsWith(name, ".toml")) parser = Parser::kToml;
  else if (EndsWith(name, ".json") || (first < text.size() && text[first] == '{')) parser = Parser::kJson;
  // A package list (pip freeze, requirements.txt) before a command line: both may be .txt.
  else if (name.find("requirements") != std::string::npos || LooksLikePackageList(text)) parser = Parser::kPackages;
  else if (EndsWith(name, ".sh") || EndsWith(name, ".txt") || EndsWith(name, ".cmd")) parser = Parser::kCommand;
  else if (!EndsWith(name, ".yaml") && !EndsWith(name, ".yml")) {
    // No telling name: a command line starts with a program or NAME=value, YAML with `key:`.
    const std::string_view head = text.substr(first, 200);
    for (const char* p : {"torchrun", "accelerate ", "python", "deepspeed ", "swift ", "CUDA_VISIBLE_DEVICES", "NPROC_PER_NODE",
                          "llamafactory-cli", "trl ", "tune ", "axolotl ", "export ", "#!"})
      if (head.compare(0, std::string(p).size(), p) == 0) parser = Parser::kCommand;
  }
  SettingsTree tree;
  switch (parser) {
    case Parser::kYaml: tree = ParseYamlTree(text); break;
    case Parser::kToml: tree = ParseTomlTree(text); break;
    case Parser::kJson: tree = ParseJsonTree(text); break;
    case Parser::kCommand: tree = ParseCommandTree(text); break;
    case Parser::kPackages: tree = ParsePackageList(text); break;
  }
  const char* kind = parser == Parser::kYaml       ? "YAML"
                     : parser == Parser::kToml     ? "TOML"
                     : parser == Parser::kJson     ? "JSON"
                     : parser == Parser::kPackages ? "a package list"
                                                   : "a command line";
  if (!tree.ok) {
    out.diagnostics.push_back({DiagId::kParse, Severity::kError, "", EchoValue(file_name, 120) + " is not " +
                                                                              std::string(kind) + " llmmem can read: " + tree.error});
    return out;
  }
  const std::string id = format.empty() ? DetectFormat(tree, parser) : format;
  const FormatRow* row = FindFormat(id);
  if (row == nullptr) {
    out.diagnostics.push_back(
        {DiagId::kUnknownKey, Severity::kError, "",
         format.empty() ? EchoValue(file_name, 120) + " reads as " + kind +
                              ", but not as a training program's settings llmmem knows. It reads: " + KnownFormats()
                        : "\"" + EchoValue(format, 40) + "\" is not a format llmmem reads; one of: " + KnownFormats()});
    return out;
  }
  out.format = row->info.id;
  out.label = row->info.label;
  out.stack = row->info.stack;
  ImportState state(tree, out);
  state.Assume("stack", out.stack, out.label + " is " + out.stack + "'s format");
  // Launchers, the environment and their flags first; then the program's own rows.
  std::vector<KeyRow> rows = LauncherRows();
  if (parser != Parser::kCommand) rows.clear();
  for (const KeyRow& r : row->rows()) rows.push_back(r);
  RunRows(rows, state);
  if (row->finish != nullptr) row->finish(state);
  // Commands that name the file that holds the settings (llamafactory-cli train x.yaml).
  if (parser == Parser::kCommand)
    for (const std::string& w : tree.words)
      if (EndsWith(AsciiLower(w), ".yaml") || EndsWith(AsciiLower(w), ".yml") || EndsWith(AsciiLower(w), ".json") ||
          EndsWith(AsciiLower(w), ".toml"))
        out.files_named.push_back({"", w, 0, "the command's settings file: give it too (--from it)"});
  if (!out.unknown.empty()) {
    std::string names;
    for (size_t i = 0; i < out.unknown.size() && i < 8; ++i) names += (i ? ", " : "") + EchoValue(out.unknown[i].key, 60);
    if (out.unknown.size() > 8) names += ", ... (" + std::to_string(out.unknown.size()) + " in all)";
    out.diagnostics.push_back({DiagId::kUnknownKey, Severity::kWarning, "",
                               EchoValue(file_name, 120) + ": keys llmmem does not know for " + out.label +
                                   ", so they change nothing here: " + names});
  }
  std::string last_list;
  for (const ProgramKey& k : out.not_counted) {
    const std::string list = k.key.substr(0, k.key.find('['));  // a list's items warn once
    if (k.key.find('[') != std::string::npos && list == last_list) continue;
    last_list = k.key.find('[') != std::string::npos ? list : "";
    out.diagnostics.push_back({DiagId::kUnsupported, Severity::kWarning, k.key,
                               k.key + ": " + EchoValue(k.value, 60) + (k.line > 0 ? " (line " + std::to_string(k.line) + ")" : "") +
                                   ": " + k.note + "; not counted"});
  }
  out.ok = true;
  for (const Diagnostic& d : out.diagnostics) out.ok &= d.severity != Severity::kError;
  return out;
}

namespace {
std::string ModelNameKey(std::string ref) {
  ref = AsciiLower(ref);
  while (!ref.empty() && ref.back() == '/') ref.pop_back();
  ref = ref.substr(ref.rfind('/') == std::string::npos ? 0 : ref.rfind('/') + 1);
  if (ref.compare(0, 5, "meta-") == 0) ref = ref.substr(5);
  for (bool again = true; again;) {
    again = false;
    for (const char* tail : {"-instruct", "-chat", "-it", "-hf", "-base", "-2507", "-fp8", "-bf16"}) {
      const std::string t = tail;
      if (ref.size() > t.size() && ref.compare(ref.size() - t.size(), t.size(), t) == 0) {
        ref.resize(ref.size() - t.size());
        again = true;
      }
    }
  }
  return ref;
}
}  // namespace

const Preset* PresetForModelRef(const std::string& ref, std::string* how) {
  if (ref.empty()) return nullptr;
  if (const Preset* p = FindPreset(ref)) {
    if (how != nullptr) *how = "the catalogue's " + p->key;
    return p;
  }
  const std::string key = ModelNameKey(ref);
  for (const Preset& p : Presets())
    if (ModelNameKey(p.hf_id) == key || ModelNameKey(p.key) == key) {
      if (how != nullptr)
        *how = "the catalogue's " + p.key + " (" + p.hf_id + "): the same model name, so the same architecture";
      return &p;
    }
  return nullptr;
}

void ApplyProgramFile(Config& c, const ProgramFileImport& file, Diagnostics& out, std::vector<std::string>* given) {
  const Config before = c;
  std::vector<std::string> fields;
  auto apply = [&](const ProgramSetting& s) {
    Diagnostics d;
    if (s.field == "gpus") return;  // resolved last, once tp, pp and cp are known
    // A program the format only implies keeps the version another file gave it (pip freeze's
    // axolotl@0.18 before the axolotl YAML that says only "axolotl").
    if (s.field == "stack" && s.from.key.empty() && c.stack.compare(0, s.value.size() + 1, s.value + "@") == 0) {
      fields.push_back(s.field);
      return;
    }
    if (!SetField(c, s.field, s.value, d)) {
      for (Diagnostic x : d) {
        x.message = s.from.key + ": " + x.message;
        out.push_back(x);
      }
      return;
    }
    fields.push_back(s.field);
  };
  for (const char* first : {"stack", "mode"})
    for (const ProgramSetting& s : file.settings)
      if (s.field == first) apply(s);
  bool model_set = false;
  if (!file.model.empty()) {
    if (const Preset* p = PresetForModelRef(file.model)) {
      Diagnostics d;
      model_set = SetField(c, "model", p->key, d);
      fields.push_back("model");
    }
  }
  for (const ProgramSetting& s : file.settings)
    if (s.field != "stack" && s.field != "mode") apply(s);
  for (const ProgramSetting& s : file.settings)
    if (s.field == "gpus") {
      const std::string why = ResolveGpuTotal(c, std::stol(s.value));
      if (!why.empty()) out.push_back({DiagId::kInconsistent, Severity::kError, "gpus", s.from.key + ": " + why});
      else fields.push_back("dp");
    }
  bool seq_set = false;
  for (const ProgramSetting& s : file.settings) seq_set |= s.field == "seq";
  if (model_set && !seq_set) StartAtModelContext(c, out);  // as --model without --seq starts
  FollowDefaults(c, before, fields);
  if (given != nullptr) given->insert(given->end(), fields.begin(), fields.end());
}

}  // namespace llmmem::core
