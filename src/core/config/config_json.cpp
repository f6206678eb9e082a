#include "core/config/config_json.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/config/fields.h"
#include "core/config/gpu_count.h"
#include "core/config/stacks.h"
#include "core/parse/number_text.h"
#include "core/catalogue/gpus.h"
#include "core/config/model_changes.h"
#include "core/parse/percent_encoding.h"
#include "core/catalogue/presets.h"
#include "core/base/safe_text.h"
#include "core/base/units.h"

namespace llmmem::core {
namespace {

bool ApplyPreset(Config& c, const std::string& key, Diagnostics& out) {
  if (key == "custom") {
    // A custom model starts from ModelSpec's defaults: the same reference ConfigToQuery
    // writes its differences against, so links round-trip exactly.
    c.model = ModelSpec{};
    return true;
  }
  const Preset* p = FindPreset(key);
  if (p == nullptr) {
    out.push_back(
        {DiagId::kUnknownValue, Severity::kError, "model",
         "\"" + EchoValue(key) + "\" is not a preset; use a key like llama-3.1-8b (llmmem --list-models), or custom"});
    return false;
  }
  if (!p->ok) {
    out.push_back({DiagId::kUnsupported, Severity::kError, "model",
                   "preset \"" + EchoValue(key) + "\" cannot be used yet: " +
                       (p->diagnostics.empty() ? std::string("import failed") : p->diagnostics.front().message)});
    return false;
  }
  c.model = p->model;
  return true;
}

// A JSON value as the text SetField takes, when its JSON type is the field's: numbers for
// numeric fields, true/false for switches, strings for names (as ConfigToJson writes them).
// Another type ("batch": true, "flash_attn": 1, "mode": 3) is reported, not converted.
constexpr const char* kWrongJsonType = "\x01";
std::string JsonValueText(const Json& v, const FieldDef* f) {
  const FieldKind kind = f != nullptr ? f->kind : FieldKind::kText;
  const bool numeric = kind == FieldKind::kInt || kind == FieldKind::kNumber;
  if (numeric) return v.IsNumber() ? FormatJsonNumber(v.AsNumber()) : kWrongJsonType;
  if (kind == FieldKind::kBool) return v.IsBool() ? (v.AsBool() ? "1" : "0") : kWrongJsonType;
  return v.IsString() ? v.AsString() : kWrongJsonType;
}

const char* JsonTypeName(const Json& v) {
  switch (v.type()) {
    case Json::Type::kNull:
      return "null";
    case Json::Type::kBool:
      return v.AsBool() ? "true" : "false";
    case Json::Type::kNumber:
      return "a number";
    case Json::Type::kString:
      return "a string";
    case Json::Type::kArray:
      return "an array";
    case Json::Type::kObject:
      return "an object";
  }
  return "?";
}

// Sets a field from a JSON value (its type checked first).
bool SetFromJson(Config& c, const std::string& key, const Json& value, Diagnostics& out) {
  const FieldDef* f = FindField(key);
  const std::string text = JsonValueText(value, f);
  if (f != nullptr && text == kWrongJsonType) {
    const bool numeric = f->kind == FieldKind::kInt || f->kind == FieldKind::kNumber;
    const std::string field_id = f->model_field ? std::string("model.") + f->name : std::string(f->name);
    out.push_back({DiagId::kWrongType, Severity::kError, field_id,
                   std::string(f->name) + " must be " +
                       (numeric                       ? "a number"
                        : f->kind == FieldKind::kBool ? "true or false"
                                                      : "a string") +
                       ", not " + JsonTypeName(value)});
    return false;
  }
  return SetField(c, key, text, out);
}

// A setter's message quotes the value whole; the echo is capped (core/safe_text.h).
std::string CapEcho(std::string message, const std::string& value) {
  const std::string whole = "\"" + value + "\"";
  const size_t at = message.find(whole);
  if (at == std::string::npos) return message;
  return message.replace(at, whole.size(), "\"" + EchoValue(value) + "\"");
}

constexpr size_t kMaxQueryBytes = 16384;
constexpr size_t kMaxValueBytes = 512;

// gpu names a card and sets its memory; gpu_memory_gb sets the memory. When a link or a file
// gives both and they disagree (gpu=H100-SXM-80GB&gpu_memory_gb=24), the memory stands and
// the card becomes "custom", said in a note, rather than an H100 label over 24 GB.
void ReconcileGpu(Config& c, bool gpu_given, bool memory_given, Diagnostics& out) {
  if (!gpu_given || !memory_given) return;
  const Gpu* g = FindGpu(c.gpu);
  if (g == nullptr) return;
  const double card = g->UsableBytes(c.wired_limit_mb) / 1e9;
  if (std::fabs(card - c.gpu_memory_gb) <= 1e-9 * card) return;
  out.push_back({DiagId::kInconsistent, Severity::kInfo, "gpu",
                 "gpu_memory_gb = " + FormatJsonNumber(c.gpu_memory_gb) + " is not the " + FormatNumber(card, 4) +
                     " GB of " + g->key + ": the estimate uses " + FormatJsonNumber(c.gpu_memory_gb) +
                     " GB, as a custom card"});
  c.gpu = "custom";
}

}  // namespace

Config DefaultConfig() {
  Config c;
  if (const Preset* p = FindPreset(kDefaultPreset); p != nullptr && p->ok) c.model = p->model;
  if (const Gpu* g = FindGpu(kDefaultGpu)) SelectGpu(c, *g);
  TakeStackDefaults(c);  // hf-trainer@latest's (stacks.h): where every surface starts
  return c;
}

bool SetField(Config& c, const std::string& key, const std::string& value, Diagnostics& out) {
  if (key == "model" || key == "preset") return ApplyPreset(c, value, out);
  const FieldDef* f = FindField(key);
  if (f == nullptr) {
    // Not the list of every setting (over 150): it filled a phone's screen and pushed the
    // link banner's buttons off it.
    out.push_back({DiagId::kUnknownKey, Severity::kWarning, EchoValue(key),
                   "\"" + EchoValue(key) + "\" is not a setting, so it was ignored (llmmem --help and the JSON "
                                            "Schema list the settings)"});
    return false;
  }
  if (value.size() > kMaxValueBytes) {
    out.push_back({DiagId::kOutOfRange, Severity::kError, f->name, std::string(f->name) + ": the value is too long"});
    return false;
  }
  const std::string field_id = f->model_field ? std::string("model.") + f->name : std::string(f->name);
  if (value == "\x01") {
    out.push_back({DiagId::kWrongType, Severity::kError, field_id,
                   std::string(f->name) + " must be a string, number or boolean"});
    return false;
  }
  const std::string err = f->set(c, value);
  if (!err.empty()) {
    out.push_back(
        {DiagId::kUnknownValue, Severity::kError, field_id, std::string(f->name) + ": " + CapEcho(err, value)});
    return false;
  }
  return true;  // an edited model keeps its preset's key: model_changes.h says what changed
}

namespace {

// gpus = N from a link or JSON: dp = N / (tp x pp x cp), as the CLI's --gpus.
void ResolveGpus(Config& c, int64_t total_gpus, bool dp_given, Diagnostics& out) {
  if (total_gpus <= 0) return;
  if (dp_given) {
    out.push_back({DiagId::kInconsistent, Severity::kError, "gpus",
                   "gpus sets dp = GPUs / (tp x pp x cp), and dp sets it again: give one of the two"});
    return;
  }
  const std::string why = ResolveGpuTotal(c, total_gpus);
  if (!why.empty()) out.push_back({DiagId::kInconsistent, Severity::kError, "gpus", why});
}

void DeriveHeadDim(ModelSpec& m, const ModelSpec& before, bool head_dim_given, Diagnostics& out) {
  const bool shape_changed = m.hidden != before.hidden || m.heads != before.heads;
  if (head_dim_given || !shape_changed || m.IsMla() || m.heads <= 0 || m.hidden <= 0) return;
  if (m.hidden % m.heads != 0) {
    out.push_back({DiagId::kInconsistent, Severity::kError, "model.head_dim",
                   "head_dim follows hidden / heads, but hidden " + std::to_string(m.hidden) +
                       " is not a multiple of heads " + std::to_string(m.heads) + "; give head_dim"});
    return;
  }
  m.head_dim = m.hidden / m.heads;
}

// MLA models have no KV heads to derive (kv_heads == heads, their cache is the latent);
// params-only models have no heads.
void DeriveKvHeads(ModelSpec& m, const ModelSpec& before, bool kv_heads_given, Diagnostics& out) {
  if (kv_heads_given || m.heads == before.heads || m.heads <= 0 || before.heads <= 0 || before.kv_heads <= 0) return;
  if (m.IsMla()) {
    m.kv_heads = m.heads;
    return;
  }
  const int64_t group = before.heads % before.kv_heads == 0 ? before.heads / before.kv_heads : 1;
  const bool keeps_group = group >= 1 && m.heads % group == 0;
  const int64_t kv = keeps_group ? m.heads / group : m.heads;
  if (kv == m.kv_heads) return;
  m.kv_heads = kv;
  out.push_back({DiagId::kIgnoredSetting, Severity::kInfo, "model.kv_heads",
                 "kv_heads follows heads: " + std::to_string(kv) +
                     (keeps_group && group > 1 ? " (" + std::to_string(group) + " query heads per KV head, as before)"
                                               : " (one KV head per query head)") +
                     "; give kv_heads for another"});
}

}  // namespace

void DeriveDependentDims(ModelSpec& m, const ModelSpec& before, const ModelDimsGiven& given, Diagnostics& out) {
  DeriveHeadDim(m, before, given.head_dim, out);
  DeriveKvHeads(m, before, given.kv_heads, out);
}

void StartAtModelContext(Config& c, Diagnostics& out) {
  const int64_t context = ModelContext(c.model);
  if (context <= 0 || c.seq <= context) return;
  const bool table = c.model.learned_positions == context;
  out.push_back({DiagId::kIgnoredSetting, Severity::kInfo, "seq",
                 "seq starts at " + FormatCount(context) + ", the model's context (" +
                     (table ? "its learned position table" : "max_position_embeddings") + "), not " +
                     FormatCount(c.seq) + "; set seq for another length"});
  c.seq = context;
}

Json ConfigToJson(const Config& c) {
  Json j(Json::Object{});
  Json model(Json::Object{});
  if (!c.model.preset.empty()) model["preset"] = Json(c.model.preset);
  // What differs from the preset (read back as nothing: the fields themselves say it).
  const std::vector<std::string> customised = CustomisedFields(c.model);
  if (!customised.empty()) {
    Json::Array names;
    for (const std::string& n : customised) names.push_back(Json(n));
    model["customised"] = Json(std::move(names));
  }
  for (const FieldDef& f : Fields()) {
    const std::string v = f.get(c);
    Json value;
    switch (f.kind) {
      case FieldKind::kInt:
      case FieldKind::kNumber:
        value = Json(std::strtod(v.c_str(), nullptr));
        break;
      case FieldKind::kBool:
        value = Json(v == "1");
        break;
      default:
        value = Json(v);
        break;
    }
    (f.model_field ? model : j)[f.name] = std::move(value);
  }
  j["model"] = std::move(model);
  j["version"] = Json(kUrlVersion);
  return j;
}

ConfigParse ConfigFromJson(const Json& j, const Config& base) {
  ConfigParse r{base, {}};
  if (!j.IsObject()) {
    r.diagnostics.push_back({DiagId::kWrongType, Severity::kError, "", "a configuration must be a JSON object"});
    return r;
  }
  // The model first: a preset replaces the model, then its fields override.
  ModelSpec model_before = r.config.model;
  ModelDimsGiven given;  // top-level model keys are also read there, with a warning
  given.head_dim = j.Find("head_dim") != nullptr;
  given.kv_heads = j.Find("kv_heads") != nullptr;
  // "preset" at the top is the model's other name: applied first, like "model" (it was
  // applied after the model's fields, replacing them, and labelled with the old preset).
  if (const Json* preset = j.Find("preset")) {
    if (j.Find("model") != nullptr) {
      r.diagnostics.push_back({DiagId::kInconsistent, Severity::kError, "preset",
                               "both \"model\" and \"preset\" name the model: give one of them"});
    } else if (!preset->IsString()) {
      r.diagnostics.push_back({DiagId::kWrongType, Severity::kError, "preset",
                               std::string("preset must be a preset key (a string), not ") + JsonTypeName(*preset)});
    } else if (ApplyPreset(r.config, preset->AsString(), r.diagnostics)) {
      model_before = r.config.model;
    }
  }
  if (const Json* model = j.Find("model")) {
    if (model->IsString()) {
      ApplyPreset(r.config, model->AsString(), r.diagnostics);
      model_before = r.config.model;
    } else if (model->IsObject()) {
      if (const Json* preset = model->Find("preset"); preset && preset->IsString()) {
        ApplyPreset(r.config, preset->AsString(), r.diagnostics);
      } else if (preset != nullptr) {
        r.diagnostics.push_back(
            {DiagId::kWrongType, Severity::kError, "model.preset",
             std::string("model.preset must be a preset key (a string), not ") + JsonTypeName(*preset)});
      }
      model_before = r.config.model;
      given.head_dim |= model->Find("head_dim") != nullptr;
      given.kv_heads |= model->Find("kv_heads") != nullptr;
      for (const auto& [key, value] : model->AsObject()) {
        if (key == "preset" || key == "customised") continue;  // customised: ConfigToJson's note
        const FieldDef* f = FindField(key);
        if (f == nullptr || !f->model_field) {
          r.diagnostics.push_back({DiagId::kUnknownKey, Severity::kWarning, "model." + EchoValue(key),
                                   "\"model." + EchoValue(key) + "\" is not a model setting, so it was ignored"});
          continue;
        }
        SetFromJson(r.config, key, value, r.diagnostics);
      }
    } else {
      r.diagnostics.push_back({DiagId::kWrongType, Severity::kError, "model",
                               "\"model\" must be a preset key or an object of model fields"});
    }
  }
  // The program and the mode, then every field given; the fields not given then follow the
  // defaults of the program, mode and conditions they end with (stacks.h FollowDefaults).
  for (const char* key : {"stack", "mode"}) {
    if (const Json* value = j.Find(key)) SetFromJson(r.config, key, *value, r.diagnostics);
  }
  std::vector<std::string> keys;  // the fields given, by name
  for (const auto& [key, value] : j.AsObject()) {
    if (const FieldDef* f = FindField(key)) keys.push_back(f->name);
  }
  if (const Json* model = j.Find("model"); model != nullptr && model->IsObject()) {
    for (const auto& [key, value] : model->AsObject()) {
      if (const FieldDef* f = FindField(key)) keys.push_back(f->name);
    }
  }
  int64_t total_gpus = 0;  // "gpus": N, resolved into dp below (as links and the CLI do)
  for (const auto& [key, value] : j.AsObject()) {
    if (key == "model" || key == "preset" || key == "version" || key == "stack" || key == "mode") continue;
    if (key == "gpus") {
      if (value.IsNumber() && ParseInt(FormatJsonNumber(value.AsNumber()), total_gpus).empty() && total_gpus >= 1) continue;
      total_gpus = 0;
      r.diagnostics.push_back({DiagId::kWrongType, Severity::kError, "gpus", "\"gpus\" must be a whole number of GPUs"});
      continue;
    }
    const FieldDef* f = FindField(key);
    if (f != nullptr && f->model_field) {
      r.diagnostics.push_back(
          {DiagId::kUnknownKey, Severity::kWarning, key, "\"" + key + "\" belongs under \"model\"; it was read there"});
    }
    SetFromJson(r.config, key, value, r.diagnostics);
  }
  DeriveDependentDims(r.config.model, model_before, given, r.diagnostics);
  ResolveGpus(r.config, total_gpus, j.Find("dp") != nullptr, r.diagnostics);
  ReconcileGpu(r.config, j.Find("gpu") != nullptr, j.Find("gpu_memory_gb") != nullptr, r.diagnostics);
  FollowDefaults(r.config, base, keys);
  return r;
}

ConfigParse ConfigFromJsonText(const std::string& text, const Config& base) {
  const JsonParseResult parsed = ParseJson(text);
  if (!parsed.ok) {
    ConfigParse r{base, {}};
    r.diagnostics.push_back(
        {DiagId::kParse, Severity::kError, "", "the configuration is not valid JSON: " + parsed.error});
    return r;
  }
  return ConfigFromJson(parsed.value, base);
}

std::string ConfigToQuery(const Config& c) {
  std::string q = "v=" + std::to_string(kUrlVersion);
  q += "&model=" + PercentEncode(c.model.preset.empty() ? "custom" : c.model.preset, ",");
  // The reference is what loading the link's program and mode starts from (stacks.h), so a
  // value they give by default is not written and one the user changed is.
  // The program and the mode themselves are written against the plain defaults.
  const Config plain = DefaultConfig();
  Config reference = plain;
  reference.stack = c.stack;
  reference.mode = c.mode;
  FollowStack(reference, plain.stack, plain.mode);
  // What the default program or c's names, and dtype, which the model decides (PresetDtype).
  std::vector<const FieldDef*> stack_fields = {FindField("dtype")};
  for (const char* stack : {plain.stack.c_str(), c.stack.c_str()}) {
    if (const StackRow* row = FindStack(stack)) {
      for (const StackCell& cell : row->cells) {
        if (const FieldDef* f = FindField(cell.field)) stack_fields.push_back(f);
      }
    }
  }
  // The model's fields that differ from its preset (or, custom, from ModelSpec's defaults).
  const std::vector<const FieldDef*> model_changes = ChangedModelFields(c.model);
  auto model_changed = [&](const FieldDef& f) {
    return std::find(model_changes.begin(), model_changes.end(), &f) != model_changes.end();
  };
  // A link that changes hidden or heads states head_dim too, or loading it would derive one.
  const bool head_shape_changed = model_changed(*FindField("hidden")) || model_changed(*FindField("heads"));
  // A catalogue card states its memory: gpu_memory_gb is written only when it differs from
  // the card's, so the link (and the CLI flags made from it) never sets the memory twice.
  const Gpu* card = FindGpu(c.gpu);
  const bool memory_is_cards = card != nullptr && c.gpu_memory_gb == card->UsableBytes(c.wired_limit_mb) / 1e9;
  for (const FieldDef& f : Fields()) {
    const std::string v = f.get(c);
    // Likewise kv_heads when heads changed: loading would derive it (DeriveDependentDims).
    const bool keep_head_dim = head_shape_changed && std::string(f.name) == "head_dim";
    const bool keep_kv_heads = model_changed(*FindField("heads")) && std::string(f.name) == "kv_heads";
    if (memory_is_cards && std::string(f.name) == "gpu_memory_gb") continue;
    const bool own = std::string(f.name) == "stack" || std::string(f.name) == "mode";
    // A field the program decides is written when it is not the program's default for the
    // link's own conditions (stacks.h: what reading it back follows to).
    const bool decided = std::find(stack_fields.begin(), stack_fields.end(), &f) != stack_fields.end();
    const bool changed = f.model_field ? model_changed(f)
                         : decided     ? v != StackDefaultFor(c, f.name)
                                       : v != f.get(own ? plain : reference);
    if (changed || keep_head_dim || keep_kv_heads) q += "&" + std::string(f.name) + "=" + PercentEncode(v, ",");
  }
  return q;
}

ConfigParse ConfigFromQuery(const std::string& query_in, const Config& base) {
  ConfigParse r{base, {}, {}};
  std::string query = query_in;
  if (!query.empty() && (query[0] == '?' || query[0] == '#')) query.erase(0, 1);
  // The items read, as the link spells them (raw) and decoded; past kMaxQueryBytes the rest of
  // the link is kept unread, as it is, rather than dropped with what came before it.
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::string> raw_items;
  size_t start = 0;
  while (start < query.size()) {
    size_t amp = query.find('&', start);
    if (amp == std::string::npos) amp = query.size();
    if (amp > kMaxQueryBytes) {
      r.diagnostics.push_back({DiagId::kOutOfRange, Severity::kError, "",
                               "the link's settings are " + std::to_string(query.size()) + " characters long; the first " +
                                   std::to_string(start) + " were read (at most " + std::to_string(kMaxQueryBytes) +
                                   " are), the rest stays in the link as it is"});
      r.kept_items.push_back(query.substr(start));
      break;
    }
    const std::string item = query.substr(start, amp - start);
    start = amp + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string key = PercentDecode(item.substr(0, eq), true);
    const std::string value = eq == std::string::npos ? "" : PercentDecode(item.substr(eq + 1), true);
    pairs.emplace_back(key, value);
    raw_items.push_back(item);
  }
  for (const auto& [key, value] : pairs) {
    if (key == "v" && value != std::to_string(kUrlVersion)) {
      r.diagnostics.push_back(
          {DiagId::kUnknownValue, Severity::kWarning, "v",
           "the link was made by a newer version (v=" + EchoValue(value) + "); settings this version knows were read"});
    }
  }
  // The model first, so the fields after it override the preset's.
  // A key given twice keeps its last value, with a note (it was silent); "preset" is the
  // model's other name (it was applied after the fields, then labelled with the old preset).
  std::map<std::string, std::string> seen;
  for (const auto& [key, value] : pairs) {
    const std::string k = key == "preset" ? "model" : key;
    auto it = seen.find(k);
    if (it != seen.end() && it->second != value) {
      r.diagnostics.push_back({DiagId::kInconsistent, Severity::kWarning, EchoValue(k),
                               EchoValue(k) + " is given twice in the link (\"" + EchoValue(it->second) +
                                   "\", then \"" + EchoValue(value) + "\"); the last is used"});
    }
    seen[k] = value;
  }
  // An item that is not taken stays in the link as the user wrote it (kept_items).
  std::vector<bool> taken(pairs.size(), true);
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto& [key, value] = pairs[i];
    if (key == "model" || key == "preset") taken[i] = ApplyPreset(r.config, value, r.diagnostics);
  }
  const ModelSpec model_before = r.config.model;
  ModelDimsGiven given;
  int64_t total_gpus = 0;  // gpus=N: dp once tp, pp and cp are read (gpu_count.h ResolveGpuTotal)
  bool dp_given = false;
  // The program and the mode next, then the other fields; the fields not given then follow
  // the defaults of the program, mode and conditions they end with (stacks.h FollowDefaults).
  std::vector<std::string> keys;  // the fields given, by name
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto& [key, value] = pairs[i];
    if (key == "stack" || key == "mode") taken[i] = SetField(r.config, key, value, r.diagnostics);
    if (const FieldDef* f = FindField(key)) keys.push_back(f->name);
  }
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto& [key, value] = pairs[i];
    if (key == "model" || key == "preset" || key == "v" || key == "stack" || key == "mode") continue;
    if (key == "gpus") {
      taken[i] = ParseInt(value, total_gpus).empty() && total_gpus >= 1;
      if (!taken[i]) {
        total_gpus = 0;
        r.diagnostics.push_back({DiagId::kNotANumber, Severity::kError, "gpus",
                                 "gpus = \"" + EchoValue(value) + "\" is not a whole number of GPUs"});
      }
      continue;
    }
    dp_given |= key == "dp";
    const FieldDef* f = FindField(key);
    taken[i] = SetField(r.config, key, value, r.diagnostics);
    if (f) given.Note(f->name);
  }
  std::vector<std::string> kept;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (!taken[i]) kept.push_back(raw_items[i]);
  }
  r.kept_items.insert(r.kept_items.begin(), kept.begin(), kept.end());
  DeriveDependentDims(r.config.model, model_before, given, r.diagnostics);
  ResolveGpus(r.config, total_gpus, dp_given, r.diagnostics);
  bool gpu_given = false, memory_given = false;
  for (const auto& kv : pairs) {
    gpu_given |= kv.first == "gpu";
    memory_given |= kv.first == "gpu_memory_gb";
  }
  ReconcileGpu(r.config, gpu_given, memory_given, r.diagnostics);
  FollowDefaults(r.config, base, keys);
  return r;
}

}  // namespace llmmem::core
