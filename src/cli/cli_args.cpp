#include "cli/cli_args.h"

#include <map>

#include "core/config/config_json.h"
#include "core/config/fields.h"
#include "core/config/gpu_count.h"
#include "core/config/stacks.h"
#include "core/catalogue/gpus.h"
#include "core/import/hf_config.h"
#include "core/report/launch_export.h"
#include "core/catalogue/presets.h"
#include "core/base/safe_text.h"
#include "core/base/units.h"
#include "core/config/validate.h"

namespace llmmem::cli {
namespace {

// "--batch: ..." for a field's message "batch: ...": the flag replaces the field's name, so a
// message never names the setting twice ("--stack: stack: ...").
std::string FlagMessage(const std::string& flag, const std::string& field, const std::string& message) {
  std::string text = message;
  for (const std::string& name : {field, field.compare(0, 6, "model.") == 0 ? field.substr(6) : std::string()}) {
    if (!name.empty() && text.compare(0, name.size() + 2, name + ": ") == 0) {
      text.erase(0, name.size() + 2);
      break;
    }
  }
  return flag + ": " + text;
}

using core::DiagId;
using core::Diagnostic;
using core::Severity;

std::string Snake(std::string s) {
  for (char& c : s)
    if (c == '-') c = '_';
  return s;
}

bool IsBoolWord(const std::string& s) {
  return s == "1" || s == "0" || s == "true" || s == "false" || s == "on" || s == "off" || s == "yes" || s == "no";
}

// "  --gpu-memory-gb       usable memory of one GPU [0.001 to 100,000 GB]"
std::string HelpLine(const core::FieldDef& f) {
  std::string name = f.name;
  for (char& ch : name)
    if (ch == '_') ch = '-';
  std::string line = "  --" + name;
  if (line.size() < 24)
    line.append(24 - line.size(), ' ');
  else
    line += ' ';
  line += f.help;
  if (f.Numeric()) line += " [" + f.RangeText() + "]";
  if (f.kind == core::FieldKind::kDtype) line += " [" + core::IdList<core::Dtype>() + "]";
  if (f.kind == core::FieldKind::kBool) line += " [on/off]";
  return line;
}

void Error(CliParse& r, const std::string& flag, const std::string& message) {
  r.diagnostics.push_back({DiagId::kUnknownValue, Severity::kError, flag, message});
}

// The folder of a path ("" for none), for the files a --from file names beside it.
std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

// Reads each --from FILE (and the settings files it names beside it, once) and returns the
// arguments with the settings they imply first, as --FIELD=VALUE, then the rest as typed;
// `origin` holds, per returned argument, the key it came from ("" for a typed one).
std::vector<std::string> ExpandFromFiles(const std::vector<std::string>& typed, const ReadFileFn& read_file,
                                         bool can_fetch, CliParse& r, std::vector<std::string>& origin) {
  std::vector<std::string> files, rest;
  bool fit = !typed.empty() && typed[0] == "fit";
  bool model_typed = false;
  for (size_t i = fit ? 1 : 0; i < typed.size(); ++i) {
    const std::string& a = typed[i];
    if (a == "--from" && i + 1 < typed.size()) {
      files.push_back(typed[++i]);
      continue;
    }
    if (a.compare(0, 7, "--from=") == 0) {
      files.push_back(a.substr(7));
      continue;
    }
    if (a == "--from") {
      Error(r, "--from", "--from needs a file: a training program's config (axolotl, LLaMA-Factory, torchtune YAML, "
                         "TrainingArguments or DeepSpeed JSON, torchtitan TOML, a launch command ...)");
      continue;
    }
    for (const char* m : {"--model", "--hf", "--hf-config", "--config", "--preset"})
      model_typed |= a == m || a.compare(0, std::string(m).size() + 1, std::string(m) + "=") == 0;
    rest.push_back(a);
  }
  std::vector<std::string> out;
  if (fit) {
    out.push_back("fit");
    origin.push_back("");
  }
  if (files.empty()) {
    out.insert(out.end(), rest.begin(), rest.end());
    origin.resize(out.size());
    return out;
  }
  std::vector<std::string> seen;
  std::string model;  // the first file's model
  for (size_t f = 0; f < files.size(); ++f) {
    const std::string& path = files[f];
    const std::string shown = core::EchoValue(path, 200);
    std::string error;
    const std::optional<std::string> text = read_file(path, error);
    if (!text) {
      Error(r, "--from", "--from " + shown + ": cannot read it: " + error);
      continue;
    }
    seen.push_back(path);
    core::ProgramFileImport file = core::ImportProgramFile(*text, path);
    for (core::Diagnostic d : file.diagnostics) {
      d.message = "--from " + shown + ": " + d.message;
      d.field = "--from";
      r.diagnostics.push_back(d);
    }
    if (!file.ok) continue;
    for (const core::ProgramSetting& s : file.settings) {
      // A second file (a DeepSpeed JSON beside an axolotl YAML) keeps the first one's program.
      if (s.field == "stack" && f > 0 && s.from.key.empty()) continue;
      out.push_back("--" + s.field + "=" + s.value);
      origin.push_back("--from " + shown + " " +
                       (s.from.key.empty() ? "(assumed: " + s.from.note + ")"
                                           : s.from.key + ": " + core::EchoValue(s.from.value, 60) +
                                                 (s.from.line > 0 ? " (line " + std::to_string(s.from.line) + ")" : "")));
    }
    if (model.empty()) model = file.model;
    // The settings files it names, read from beside it when they are there.
    for (const core::ProgramKey& named : file.files_named) {
      const std::string beside = named.value.empty() || named.value[0] == '/' ? named.value : FolderOf(path) + named.value;
      bool already = false;
      for (const std::string& s : seen) already |= s == beside;
      for (const std::string& s : files) already |= s == beside;
      std::string ignored;
      if (!already && files.size() < 8 && read_file(beside, ignored)) {
        files.push_back(beside);
        r.diagnostics.push_back({DiagId::kIgnoredSetting, Severity::kInfo, "--from",
                                 "--from " + shown + " names " + core::EchoValue(named.value, 120) + ": read it too"});
      } else if (!already) {
        r.diagnostics.push_back({DiagId::kIgnoredSetting, Severity::kWarning, "--from",
                                 "--from " + shown + " names " + core::EchoValue(named.value, 120) +
                                     ", which is not beside it: " + named.note});
      }
    }
    r.options.from_files.emplace_back(path, std::move(file));
  }
  if (!model.empty() && !model_typed) {
    const std::string shown = "--from " + core::EchoValue(files[0], 200) + " (model: " + core::EchoValue(model, 120) + ")";
    const bool hub_id = model.find('/') != std::string::npos && model[0] != '/' && model[0] != '.' && model[0] != '~' &&
                        model.find('/') == model.rfind('/');
    std::string how;
    if (const core::Preset* p = core::PresetForModelRef(model, &how)) {
      out.insert(out.begin() + (fit ? 1 : 0), "--model=" + p->key);
      origin.insert(origin.begin() + (fit ? 1 : 0), shown);
      if (core::FindPreset(model) == nullptr)
        r.diagnostics.push_back({DiagId::kIgnoredSetting, Severity::kInfo, "--from",
                                 shown + ": " + how + "; --hf " + core::EchoValue(model, 120) + " reads its own config"});
    } else if (hub_id && can_fetch) {
      out.insert(out.begin() + (fit ? 1 : 0), "--hf=" + model);
      origin.insert(origin.begin() + (fit ? 1 : 0), shown);
    } else {
      r.diagnostics.push_back(
          {DiagId::kIgnoredSetting, Severity::kWarning, "--from",
           shown + ": not in the catalogue" + std::string(hub_id ? " and this llmmem cannot fetch it" : " and not a Hub id") +
               "; give --model, --hf ID or --hf-config its config.json (the default model is used)"});
    }
  }
  out.insert(out.end(), rest.begin(), rest.end());
  origin.resize(out.size());
  return out;
}

}  // namespace

CliParse ParseCli(const std::vector<std::string>& typed_args, const ReadFileFn& read_file, const HubLoadFn& hub) {
  CliParse r;
  r.options.config = core::DefaultConfig();
  // --from FILE: the settings a training program's file implies, as flags typed before all
  // the others (so a flag overrides them); `origin` says which key each came from.
  std::vector<std::string> origin;
  const std::vector<std::string> args = ExpandFromFiles(typed_args, read_file, hub != nullptr, r, origin);
  core::Config& c = r.options.config;

  int64_t total_gpus = 0;     // --gpus: resolved into dp once tp, pp and cp are known
  bool hybrid_shard = false;  // --fsdp hybrid_shard: shard within --gpus-per-node, known at the end
  // The model the dimension flags edit (default, --model, --hf-config or --config): head_dim
  // follows their hidden / heads unless --head-dim is given, kv_heads follows heads unless
  // --kv-heads is (core::DeriveDependentDims).
  core::ModelSpec model_before = c.model;
  core::ModelDimsGiven dims_given;
  // A model chosen here (--model, --hf-config) without --seq starts at its own context.
  bool model_chosen = false;
  bool seq_given = false;  // --seq, or a --config file (it carries its own)
  // Each setting the flags set: the flag as typed and the value it gave. A setting set twice
  // to different values (--batch 4 --batch 8, --grad-accum with --microbatches, --fsdp with
  // --zero) is refused, naming both flags, not resolved by their order.
  std::map<std::string, std::pair<std::string, std::string>> claims;  // field -> (flag, value)
  std::map<std::string, std::string> given;                           // field -> the flag as typed
  std::string current_origin;  // the --from file's key the flag being read came from ("" when typed)
  std::map<std::string, bool> claimed_from_file;
  auto claim = [&](const std::string& field, const std::string& value, const std::string& typed_flag) {
    const std::string typed = current_origin.empty() ? typed_flag : current_origin;
    auto it = claims.find(field);
    if (it != claims.end() && it->second.second != value) {
      if (claimed_from_file[field] && current_origin.empty()) {  // a typed flag overrides the file
        r.diagnostics.push_back({DiagId::kIgnoredSetting, Severity::kInfo, typed_flag.substr(0, typed_flag.find(' ')),
                                 typed + " overrides " + it->second.first});
      } else {
        Error(r, typed.substr(0, typed.find(' ')),
              it->second.first + " and " + typed + " both set " + field + ": give one of them");
      }
    }
    claims[field] = {typed, value};
    claimed_from_file[field] = !current_origin.empty();
    given[field] = typed;
  };
  // --hf-file picks the GGUF file --hf reads, wherever it stands.
  std::string hf_file;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--hf-file" && i + 1 < args.size()) hf_file = args[i + 1];
    if (args[i].compare(0, 10, "--hf-file=") == 0) hf_file = args[i].substr(10);
  }
  // Where the flags start: what the fields they do not give follow from (stacks.h).
  const core::Config started = c;
  std::vector<std::string> file_keys;  // the fields a --config file gives
  // --stack and --mode first, wherever they stand: their defaults (core/config/stacks.h) are
  // where the other flags start, as in JSON and links. Errors are reported by the loop below.
  {
    std::string stack_text, mode_text;
    for (size_t i = 0; i < args.size(); ++i) {
      for (auto [flag, out] : {std::pair<const char*, std::string*>{"--stack", &stack_text}, {"--mode", &mode_text}}) {
        const std::string f = flag;
        if (args[i] == f && i + 1 < args.size()) *out = args[i + 1];
        if (args[i].compare(0, f.size() + 1, f + "=") == 0) *out = args[i].substr(f.size() + 1);
      }
    }
    core::Diagnostics reported_below;
    if (!stack_text.empty()) core::SetField(c, "stack", stack_text, reported_below);
    if (!mode_text.empty()) core::SetField(c, "mode", mode_text, reported_below);
  }
  bool hub_dtype_known = false;  // the stored format --hf found, applied at the end
  core::Dtype hub_dtype = core::Dtype::kBf16;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    current_origin = i < origin.size() ? origin[i] : "";
    if (i == 0 && arg == "fit") {
      r.options.fit = true;
      continue;
    }
    if (arg == "--list-gpus") {
      r.options.list_gpus = true;
      continue;
    }
    if (arg == "--schema") {
      r.options.schema = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      r.options.help = true;
      continue;
    }
    if (arg == "--json") {
      r.options.json = true;
      continue;
    }
    if (arg == "--list-models") {
      r.options.list_models = true;
      continue;
    }
    if (arg == "--formulas") {
      r.options.show_formulas = true;
      continue;
    }
    if (arg == "--doctor") {
      r.options.doctor = true;
      continue;
    }
    if (arg.compare(0, 2, "--") != 0) {
      Error(r, core::EchoValue(arg),
            "unexpected argument \"" + core::EchoValue(arg) + "\"; flags start with -- (see llmmem --help)");
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    const std::string flag = "--" + core::EchoValue(name);
    std::string key = Snake(name);
    // Short names the issue tracker and other tools use.
    if (key == "microbatches") key = "grad_accum";
    if (key == "offload") key = "offload_optimizer";
    bool negated = false;
    if (key.compare(0, 3, "no_") == 0 && core::FindField(key.substr(3)) != nullptr &&
        core::FindField(key.substr(3))->kind == core::FieldKind::kBool) {
      negated = true;
      key = key.substr(3);
    }
    const core::FieldDef* field = core::FindField(key);
    const bool is_bool = field != nullptr && field->kind == core::FieldKind::kBool;
    if (negated && value) {
      // --no-flash-attn=1 means flash_attn off, --no-flash-attn=0 on; anything else is refused.
      bool on = false;
      if (*value == "1" || *value == "true" || *value == "on" || *value == "yes")
        on = true;
      else if (!(*value == "0" || *value == "false" || *value == "off" || *value == "no")) {
        Error(r, flag, flag + ": \"" + core::EchoValue(*value) + "\" is not on or off (--no-X=1 turns X off)");
        continue;
      }
      value = on ? "0" : "1";
    }
    if (!value) {
      if (negated) {
        value = "0";
      } else if (is_bool) {
        if (i + 1 < args.size() && IsBoolWord(args[i + 1]))
          value = args[++i];
        else
          value = "1";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        Error(r, flag, flag + " needs a value");
        continue;
      }
    }

    if (key == "format") {
      if (*value == "json")
        r.options.json = true;
      else if (*value == "markdown" || *value == "md")
        r.options.format = "markdown";
      else if (*value == "csv")
        r.options.format = "csv";
      else if (*value != "table")
        Error(r, flag, flag + ": \"" + core::EchoValue(*value) + "\" is not table, json, markdown or csv");
      continue;
    }
    if (key == "export") {
      core::LaunchTarget target;
      if (!core::ParseId(*value, target)) {
        Error(r, flag, flag + ": \"" + *value + "\" is not one of " + core::IdList<core::LaunchTarget>());
      } else {
        r.options.export_target = core::Info(target).id;
      }
      continue;
    }
    if (key == "hf_file") continue;  // read above
    if (key == "hf") {
      if (!hub) {
        Error(r, flag, flag + ": this llmmem cannot fetch models (built without libcurl); use --hf-config");
        continue;
      }
      HubModelLoad loaded = hub(*value, hf_file);
      if (!loaded.ok) {
        Error(r, flag, flag + " " + core::EchoValue(*value, 200) + ": " + loaded.error);
        continue;
      }
      for (const std::string& line : loaded.provenance)
        r.diagnostics.push_back({DiagId::kIgnoredSetting, Severity::kInfo, "--hf", "hub: " + line});
      c.model = loaded.model;
      hub_dtype_known = loaded.dtype_known;
      hub_dtype = loaded.dtype;
      r.options.hf_ref = *value;
      claim("model", "hf " + *value, flag + " " + core::EchoValue(*value, 200));
      model_before = c.model;
      dims_given = {};
      model_chosen = true;
      continue;
    }
    if (key == "weights_file") {
      r.options.weights_files.push_back(*value);
      continue;
    }
    if (key == "fsdp") {
      // PyTorch FSDP sharding strategies in ZeRO terms (Zhao et al. 2023, PyTorch FSDP §3).
      if (*value == "no_shard")
        c.zero = 0;
      else if (*value == "shard_grad_op")
        c.zero = 2;
      else if (*value == "full_shard")
        c.zero = 3;
      else if (*value == "hybrid_shard") {
        c.zero = 3;
        hybrid_shard = true;
      } else
        Error(
            r, flag,
            flag + ": \"" + core::EchoValue(*value) + "\" is not no_shard, shard_grad_op, full_shard or hybrid_shard");
      claim("zero", std::to_string(c.zero), flag + " " + core::EchoValue(*value));
      c.sharding = core::Sharding::kFsdp;
      claim("sharding", "fsdp", flag + " " + core::EchoValue(*value));
      if (hybrid_shard) claim("zero_group", "gpus_per_node", flag + " " + core::EchoValue(*value));
      continue;
    }
    if (key == "compat") {
      if (*value != "deepspeed" && *value != "megatron")
        Error(r, flag, flag + ": \"" + core::EchoValue(*value) + "\" is not deepspeed or megatron");
      r.options.compat = *value;
      continue;
    }
    if (key == "gpus_per_node") {
      core::Config probe;
      if (!core::FindField("dp")->set(probe, *value).empty() || probe.dp < 1 || probe.dp > 1024) {
        Error(r, flag, flag + ": \"" + core::EchoValue(*value) + "\" is not a whole number from 1 to 1024");
      } else {
        r.options.gpus_per_node = static_cast<int>(probe.dp);
      }
      continue;
    }
    if (key == "gpus") {
      core::Diagnostics ignored;
      core::Config probe;
      if (!core::FindField("dp")->set(probe, *value).empty() || probe.dp < 1) {
        Error(r, flag, flag + ": \"" + core::EchoValue(*value) + "\" is not a whole number of GPUs");
      } else {
        total_gpus = probe.dp;
        given["gpus"] = flag + " " + core::EchoValue(*value);
      }
      continue;
    }
    if (key == "hf_config" || key == "config") {
      std::string error;
      const std::optional<std::string> text = read_file(*value, error);
      if (!text) {
        Error(r, flag, flag + ": cannot read \"" + core::EchoValue(*value, 200) + "\": " + error);
        continue;
      }
      if (key == "hf_config") {
        core::HfImport imported = core::ImportHfConfigText(*text, *value);
        for (Diagnostic d : imported.diagnostics) {
          d.message = flag + " " + core::EchoValue(*value, 200) + ": " + d.message;
          r.diagnostics.push_back(d);
        }
        if (imported.ok) c.model = imported.model;
        claim("model", "hf-config " + *value, flag + " " + core::EchoValue(*value, 200));
        model_chosen |= imported.ok;
      } else {
        seq_given = true;
        const core::JsonParseResult keys = core::ParseJson(*text);
        if (keys.ok && keys.value.IsObject()) {
          for (const auto& [key, item] : keys.value.AsObject()) {
            const core::Json* inner = key == "model" && item.IsObject() ? &item : nullptr;
            if (const core::FieldDef* f = core::FindField(key)) file_keys.push_back(f->name);
            if (inner != nullptr) {
              for (const auto& [k, v] : inner->AsObject()) {
                if (const core::FieldDef* f = core::FindField(k)) file_keys.push_back(f->name);
              }
            }
          }
        }
        core::ConfigParse parsed = core::ConfigFromJsonText(*text, c);
        c = parsed.config;
        for (Diagnostic d : parsed.diagnostics) {
          d.message = flag + " " + core::EchoValue(*value, 200) + ": " + d.message;
          r.diagnostics.push_back(d);
        }
      }
      model_before = c.model;
      dims_given = {};
      continue;
    }

    core::Diagnostics field_diags;
    const bool set = core::SetField(c, key, *value, field_diags);
    if (set && (key == "model" || key == "preset")) {
      claim("model", *value, flag + " " + core::EchoValue(*value));
      model_before = c.model;
      dims_given = {};
      model_chosen |= *value != "custom";
    }
    seq_given |= field != nullptr && std::string(field->name) == "seq";
    if (set && field != nullptr) claim(field->name, field->get(c), flag + " " + core::EchoValue(*value));
    if (set && field != nullptr) dims_given.Note(field->name);
    for (Diagnostic d : field_diags) {
      if (d.id == DiagId::kUnknownKey) {
        d.severity = Severity::kError;
        d.message = "unknown flag " + flag + " (see llmmem --help)";
      } else {
        d.message = FlagMessage(flag, d.field, d.message);
        if (field != nullptr && field->Numeric()) d.message += " (allowed " + field->RangeText() + ")";
      }
      d.field = flag;
      r.diagnostics.push_back(d);
    }
  }

  // The weights' stored format, unless --dtype says otherwise; a format that cannot be
  // trained (GPTQ, GGUF) only for inference, and QLoRA keeps its NF4 base.
  if (hub_dtype_known && !given.count("dtype") &&
      (c.mode == core::Mode::kInference || (core::Info(hub_dtype).trainable && c.mode != core::Mode::kQlora))) {
    c.dtype = hub_dtype;
  }
  core::Diagnostics derived;
  core::DeriveDependentDims(c.model, model_before, dims_given, derived);
  for (Diagnostic d : derived) {
    d.field = d.field == "model.kv_heads" ? "--kv-heads" : "--head-dim";  // the flag that would set it
    d.message = d.field + ": " + d.message;
    r.diagnostics.push_back(d);
  }
  if (model_chosen && !seq_given) {
    core::Diagnostics notes;
    core::StartAtModelContext(c, notes);
    for (Diagnostic d : notes) {
      d.field = "--seq";
      d.message = "--seq: " + d.message;
      r.diagnostics.push_back(d);
    }
  }
  // Flags that set the same thing twice are refused, not resolved by their order.
  if (given.count("gpu") && given.count("gpu_memory_gb") && core::FindGpu(c.gpu) != nullptr) {
    const core::Gpu* g = core::FindGpu(c.gpu);
    Error(r, "--gpu-memory-gb",
          given["gpu"] + " sets the usable memory to " + core::FormatNumber(g ? g->UsableBytes(c.wired_limit_mb) / 1e9 : 0, 4) +
              " GB, and " + given["gpu_memory_gb"] + " sets it again: give one of the two");
  }
  if (total_gpus > 0 && given.count("dp")) {
    Error(
        r, "--dp",
        given["gpus"] + " sets dp = GPUs / (tp x pp x cp), and " + given["dp"] + " sets it again: give one of the two");
  }
  if (hybrid_shard) c.zero_group = r.options.gpus_per_node;
  if (total_gpus > 0) {
    const std::string why = core::ResolveGpuTotal(c, total_gpus);  // as links and JSON resolve gpus
    if (!why.empty()) Error(r, "--gpus", "--" + why);
  }

  // The fields no flag gave follow the defaults of the program, mode and conditions the
  // flags end with (core/config/stacks.h), as JSON and links do.
  for (const auto& [field, flag] : given) file_keys.push_back(field);
  core::FollowDefaults(c, started, file_keys);

  // Range checks on the assembled config, reported with the flag's name.
  for (Diagnostic d : core::Validate(c)) {
    std::string field = d.field;
    if (field.compare(0, 6, "model.") == 0) field = field.substr(6);
    std::string dashed = field;
    for (char& ch : dashed)
      if (ch == '_') ch = '-';
    d.field = dashed.empty() ? "" : "--" + dashed;
    if (!d.field.empty()) d.message = FlagMessage("--" + dashed, field, d.message);
    r.diagnostics.push_back(d);
  }
  return r;
}

std::string HelpText() {
  std::string h =
      "llmmem: how much GPU memory an LLM needs for training, fine-tuning and inference.\n"
      "\n"
      "usage: llmmem [--model KEY | --hf-config config.json | dimension flags] [options] [--json]\n"
      "       llmmem fit [same options]   the inverse questions: fewest GPUs per ZeRO stage, largest\n"
      "                                   micro-batch and sequence, most precise inference formats\n"
      "       llmmem plan --gpus N --global-batch-tokens T --seq S [same options] [--top K]\n"
      "                                   the training planner: every parallel layout that fits, fastest\n"
      "                                   first, the memory-versus-time front (llmmem plan --help)\n"
      "       llmmem oom FILE|- [same options]   read a CUDA out-of-memory message, nvidia-smi output,\n"
      "                                   memory_summary() or mem_get_info(): what held the GPU, and why it failed\n"
      "       llmmem run FILE|- [same options] [--from-log]   read a vLLM, SGLang, llama.cpp or Ollama start-up\n"
      "                                   log or a memory_stats() JSON dump: each figure beside the estimate\n"
      "       llmmem --model resnet50 --image-size 224 ...   any network layer by layer (--network-help)\n"
      "\n"
      "  --model KEY          a preset (llmmem --list-models), e.g. llama-3.1-8b; or custom\n"
      "  --hf-config FILE     a Hugging Face config.json (" +
      std::string(core::SupportedModelTypes()) +
      ")\n"
      "  --hf MODEL           a Hugging Face Hub model: org/name, org/name@revision or a huggingface.co URL.\n"
      "                       The local cache first (HF_HUB_CACHE, HF_HOME, ~/.cache/huggingface/hub), then\n"
      "                       HF_ENDPOINT (default https://huggingface.co; e.g. https://hf-mirror.com) with\n"
      "                       HF_TOKEN for gated repos; HF_HUB_OFFLINE=1 forbids the network. Reads config.json\n"
      "                       and only the weights' headers (HTTP Range). Built without libcurl: the cache only.\n"
      "  --hf-file FILE       the GGUF file of a GGUF repo that --hf reads (default: the Q4_K_M, else the smallest)\n"
      "  --hf-search TEXT     list Hub models matching TEXT, most downloaded first\n"
      "  --config FILE        a saved configuration (the JSON that --json prints under \"config\")\n"
      "  --from FILE          a training program's own config or launch command: axolotl, LLaMA-Factory\n"
      "                       or torchtune YAML, TrainingArguments / TRL / DeepSpeed JSON, accelerate YAML,\n"
      "                       torchtitan TOML, verl, OpenRLHF, ms-swift or fsdp_qlora commands, torchrun and\n"
      "                       accelerate launch lines; it lists what each key set, assumed, did not count\n"
      "                       and did not know. Repeatable; flags after it override it\n"
      "                       (both FILEs: a regular file of at most 8 MiB, or - for standard input)\n"
      "  --json               print the whole result as JSON (parameters, per_gpu, breakdown)\n"
      "  --formulas           print each row's formula and source in the table\n"
      "  --format FORMAT      table (default), json, markdown or csv\n"
      "  --doctor             when it does not fit: the remedies, each re-estimated, best first\n"
      "  --export TARGET      the launch command or config for this configuration: " +
      core::IdList<core::LaunchTarget>() +
      "\n"
      "  --list-models        list the presets\n"
      "  --list-gpus          list the GPU catalogue\n"
      "  --schema             print the configuration's JSON Schema (every setting: type, range, default, help)\n"
      "  --gpus N             total GPUs: dp = N / (tp x pp x cp); inference with no --tp/--pp: one\n"
      "                       server over N (vLLM, SGLang: tp = N; llama.cpp, HF: the layers split)\n"
      "  --microbatches M     micro-batches per step (alias of --grad-accum)\n"
      "  --offload TARGET     optimizer offload (alias of --offload-optimizer): " +
      core::IdList<core::Offload>(" or ") +
      "\n"
      "  --fsdp STRATEGY      no_shard | shard_grad_op (ZeRO-2) | full_shard (ZeRO-3) | hybrid_shard\n"
      "                       (ZeRO-3 within --gpus-per-node); Megatron's distributed optimizer is --zero 1\n"
      "  --compat TOOL        also print DeepSpeed's (deepspeed) or Megatron-LM's (megatron) own estimate\n"
      "                       for the same inputs, and where it departs from this accounting\n"
      "  --gpus-per-node N    for --compat deepspeed (default 8)\n"
      "  --weights-file FILE  exact parameters and bytes per dtype from a .safetensors, .gguf or\n"
      "                       model.safetensors.index.json header (repeatable; reads the header only)\n"
      "  -h, --help           this text\n"
      "\n"
      "Settings (--name VALUE or --name=VALUE; booleans: --flag, --no-flag, --flag=0):\n";
  // The table's rows under their UI groups' headings: the help text and range are the
  // tooltips' (core/fields.h).
  for (int g = 0; g < static_cast<int>(core::FieldGroup::kCount); ++g) {
    h += std::string("\n ") + core::GroupTitle(static_cast<core::FieldGroup>(g)) + ":\n";
    for (const core::FieldDef& f : core::Fields()) {
      if (static_cast<int>(f.group) == g) h += HelpLine(f) + "\n";
    }
  }
  h += "\nExit status: 0 fits the GPU, 1 does not fit, 2 bad input.\n"
       "Units: GB = 1e9 bytes, GiB = 2^30 bytes.\n";
  return h;
}

}  // namespace llmmem::cli
