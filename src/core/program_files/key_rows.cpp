// The driver of the key rows (key_rows.h): matching, value maps and what each key became.
#include "core/program_files/key_rows.h"

#include <algorithm>
#include <cctype>

#include "core/base/safe_text.h"
#include "core/config/fields.h"
#include "core/parse/number_text.h"
#include "core/parse/text.h"

namespace llmmem::core::program_files {
namespace {

ProgramKey KeyOf(const SettingsEntry& e, const std::string& note) { return {e.path, e.value, e.line, note}; }

std::string Where(const ProgramKey& k) {
  std::string w = k.key.empty() ? std::string("an assumption") : k.key + ": " + EchoValue(k.value, 80);
  if (k.line > 0) w += " (line " + std::to_string(k.line) + ")";
  return w;
}

// Splits "a.b[0].c" into segments "a", "b[0]", "c".
std::vector<std::string> Segments(const std::string& path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= path.size()) {
    const size_t j = path.find('.', i);
    out.push_back(path.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

// The `to` of the first `from=to` pair of `values` whose from equals v (case-insensitive),
// `*=to` for any; false when none does.
bool MapValue(const char* values, const std::string& v, std::string& to) {
  const std::string map = values;
  const std::string lower = AsciiLower(v);
  size_t i = 0;
  while (i < map.size()) {
    size_t j = map.find(' ', i);
    if (j == std::string::npos) j = map.size();
    const std::string pair = map.substr(i, j - i);
    const size_t eq = pair.find('=');
    if (eq != std::string::npos) {
      const std::string from = AsciiLower(pair.substr(0, eq));
      // `true=` and `false=` take every spelling of a truth value (yes, on, 1, a bare flag).
      if (from == "*" || from == lower || (from == "true" && Truthy(v)) || (from == "false" && Falsy(v))) {
        to = pair.substr(eq + 1);
        if (to == "*") to = v;  // `*=*`: passed on as written
        return true;
      }
    }
    i = j + 1;
  }
  return false;
}

}  // namespace

bool KeyMatches(const char* pattern, const std::string& path) {
  const std::vector<std::string> p = Segments(pattern), k = Segments(path);
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == "*" && i + 1 == p.size() && p.size() > 1 && std::string(pattern).size() >= 2 &&
        std::string(pattern).compare(std::string(pattern).size() - 2, 2, ".*") == 0)
      return k.size() >= p.size();  // a trailing ".*": anything below
    if (i >= k.size()) return false;
    if (p[i] == "*") continue;
    if (p[i].size() > 1 && p[i].back() == '*') {  // "fsdp_*": any segment starting so
      if (k[i].compare(0, p[i].size() - 1, p[i], 0, p[i].size() - 1) != 0) return false;
      continue;
    }
    // "datasets[]" matches any item of the list.
    if (p[i].size() > 2 && p[i].compare(p[i].size() - 2, 2, "[]") == 0) {
      const std::string base = p[i].substr(0, p[i].size() - 2);
      if (k[i].compare(0, base.size() + 1, base + "[") != 0) return false;
      continue;
    }
    if (p[i] != k[i]) return false;
  }
  return p.size() == k.size();
}

bool Truthy(const std::string& v) {
  const std::string l = AsciiLower(v);
  return l == "true" || l == "yes" || l == "on" || l == "1";
}
bool Falsy(const std::string& v) {
  const std::string l = AsciiLower(v);
  return l == "false" || l == "no" || l == "off" || l == "0";
}
bool IsCount(const std::string& v) {
  if (v.empty() || v.size() > 9) return false;
  for (char c : v)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return std::stol(v) > 0;
}

std::string DtypeName(const std::string& v) {
  std::string l = AsciiLower(v);
  if (l.compare(0, 6, "torch.") == 0) l = l.substr(6);
  if (l == "bf16" || l == "bfloat16" || l == "bf16-true" || l == "bf16-mixed") return "bf16";
  if (l == "fp16" || l == "float16" || l == "half" || l == "16" || l == "16-mixed" || l == "16-true") return "fp16";
  if (l == "fp32" || l == "float32" || l == "float" || l == "32" || l == "32-true") return "fp32";
  return "";
}

void SetDropout(const SettingsEntry& e, ImportState& s) {
  double p = 0;
  if (!ParseNumber(e.value, p).empty() || p < 0 || p >= 1) return s.NotCount(e, "a dropout that is not from 0 to 1");
  s.Set(e, "lora_dropout", p > 0 ? "on" : "off", p > 0 ? "LoRA's dropout keeps a mask per adapted input" : "no dropout");
}

void SetHfOptimizer(const SettingsEntry& e, ImportState& s) {
  // transformers' OptimizerNames (training_args.py): the torch AdamW with its implementation,
  // bitsandbytes' 8-bit and paged variants, Adafactor, Lion, SGD.
  const std::string o = AsciiLower(e.value);
  const char* why = "TrainingArguments.optim (transformers trainer_utils.py OptimizerNames)";
  auto adam = [&](const char* impl) {
    s.Set(e, "optimizer", "adamw", why);
    if (*impl) s.Set(e, "optimizer_impl", impl, why);
  };
  const bool paged = o.find("paged_") != std::string::npos;
  if (o == "adamw_torch" || o == "adamw_hf" || o == "adamw" || o == "adam" || o == "adamw_torch_4bit")
    adam("");
  else if (o == "adamw_torch_fused" || o == "fused_adam" || o == "adamw_apex_fused")
    adam("fused");
  else if (o == "adamw_torch_foreach")
    adam("foreach");
  else if (o.find("8bit") != std::string::npos && o.find("lion") == std::string::npos)
    s.Set(e, "optimizer", "adam8bit", why);
  else if (o.find("adamw") != std::string::npos && o.find("32bit") != std::string::npos)
    adam("");
  else if (o.find("adafactor") != std::string::npos)
    s.Set(e, "optimizer", "adafactor", why);
  else if (o.find("lion") != std::string::npos)
    s.Set(e, "optimizer", "lion", why);
  else if (o == "sgd")
    s.Set(e, "optimizer", "sgd", why);
  else {
    s.NotCount(e, "an optimizer llmmem has no row for: AdamW's states are counted");
    return;
  }
  if (paged) s.Set(e, "paged_optimizer", "on", why);
}

void ImportState::Set(const SettingsEntry& e, const char* field, const std::string& value, const std::string& why) {
  ProgramKey key = KeyOf(e, why);
  if (std::string(field) == "gpus") return SetGpus(e, value, why);
  const FieldDef* f = FindField(field);
  if (f == nullptr) {  // a row naming no field is this table's mistake, said plainly
    out_.diagnostics.push_back({DiagId::kUnknownKey, Severity::kError, e.path,
                                Where(key) + ": the import names an unknown setting " + field});
    return;
  }
  Config probe;
  const std::string error = f->set(probe, value);
  if (!error.empty()) {
    out_.diagnostics.push_back({DiagId::kWrongType, Severity::kError, e.path, Where(key) + ": " + error});
    return;
  }
  for (ProgramSetting& have : out_.settings) {
    if (have.field != f->name) continue;
    if (have.value == value) {  // two keys that agree: listed, so no key goes unaccounted
      out_.ignored.push_back(KeyOf(e, "agrees with " + Where(have.from) + ": " + have.field + " = " + value));
      return;
    }
    if (have.from.key.empty()) {      // a key overrides an assumption
      have = {f->name, value, key};
      return;
    }
    out_.diagnostics.push_back({DiagId::kInconsistent, Severity::kError, e.path,
                                Where(have.from) + " sets " + f->name + " = " + have.value + ", and " + Where(key) +
                                    " sets it to " + value + ": the file says two things"});
    return;
  }
  out_.settings.push_back({f->name, value, key});
}

void ImportState::SetGpus(const SettingsEntry& e, const std::string& value, const std::string& why) {
  ProgramKey key = KeyOf(e, why);
  if (!IsCount(value)) {
    out_.diagnostics.push_back({DiagId::kWrongType, Severity::kError, e.path,
                                Where(key) + ": \"" + EchoValue(value, 40) + "\" is not a whole number of GPUs"});
    return;
  }
  for (ProgramSetting& have : out_.settings) {
    if (have.field != "gpus") continue;
    if (have.value != value && !have.from.key.empty()) {
      out_.diagnostics.push_back({DiagId::kInconsistent, Severity::kError, e.path,
                                  Where(have.from) + " says " + have.value + " GPUs, and " + Where(key) + " says " +
                                      value + ": the file says two things"});
      return;
    }
    have = {"gpus", value, key};
    return;
  }
  out_.settings.push_back({"gpus", value, key});
}

void ImportState::Replace(const SettingsEntry& e, const char* field, const std::string& value, const std::string& why) {
  for (size_t i = 0; i < out_.settings.size(); ++i)
    if (out_.settings[i].field == field) {
      out_.ignored.push_back({out_.settings[i].from.key, out_.settings[i].from.value, out_.settings[i].from.line,
                              "taken over by " + e.path + ": " + field + " = " + value});
      out_.settings.erase(out_.settings.begin() + static_cast<long>(i));
      break;
    }
  Set(e, field, value, why);
}

void ImportState::Assume(const char* field, const std::string& value, const std::string& why) {
  if (Setting(field) != nullptr) return;
  out_.settings.push_back({field, value, ProgramKey{"", "", 0, why}});
}
void ImportState::Ignore(const SettingsEntry& e, const std::string& why) { out_.ignored.push_back(KeyOf(e, why)); }
void ImportState::NotCount(const SettingsEntry& e, const std::string& why) {
  out_.not_counted.push_back(KeyOf(e, why));
}
void ImportState::NameFile(const SettingsEntry& e, const std::string& why) {
  out_.files_named.push_back(KeyOf(e, why));
}
void ImportState::SetModel(const SettingsEntry& e) {
  if (e.is_null || e.value.empty()) return;
  if (!out_.model.empty() && out_.model != e.value) {
    out_.diagnostics.push_back({DiagId::kInconsistent, Severity::kWarning, e.path,
                                Where(KeyOf(e, "")) + " names a second model; the first, " + out_.model +
                                    ", is the one used"});
    return;
  }
  out_.model = e.value;
  out_.model_line = e.line;
}
const ProgramSetting* ImportState::Setting(const char* field) const {
  for (const ProgramSetting& p : out_.settings)
    if (p.field == field) return &p;
  return nullptr;
}

void RunEntry(const std::vector<KeyRow>& rows, const SettingsEntry& full, size_t strip, ImportState& s) {
  SettingsEntry e = full;
  e.path = full.path.substr(std::min(strip, full.path.size()));
  const KeyRow* row = nullptr;
  for (const KeyRow& r : rows)
    if (KeyMatches(r.key, e.path)) {
      row = &r;
      break;
    }
  e.path = full.path;  // what the user wrote, in every list
  if (row == nullptr && e.is_null) {  // `key:` with nothing sets nothing, known or not
    s.Ignore(e, "empty");
    return;
  }
  if (row == nullptr) {
    s.out().unknown.push_back(KeyOf(e, ""));
    return;
  }
  if (e.is_null && row->use != KeyUse::kIgnored) {  // `key:` with nothing: the program's default
    s.Ignore(e, std::string(row->why) + " (empty: the program's default)");
    return;
  }
  switch (row->use) {
    case KeyUse::kSets: {
      std::string to = e.value;
      if (*row->values && !MapValue(row->values, e.value, to)) {
        s.out().diagnostics.push_back({DiagId::kWrongType, Severity::kWarning, e.path,
                                       e.path + ": " + EchoValue(e.value, 80) +
                                           (e.line > 0 ? " (line " + std::to_string(e.line) + ")" : "") +
                                           " is not a value llmmem knows for it (" + row->why + "); not applied"});
        s.NotCount(e, std::string(row->why) + ": a value llmmem does not know");
        break;
      }
      if (to.empty())
        s.Ignore(e, std::string(row->why) + " (this value sets nothing)");
      else
        s.Set(e, row->field, to, row->why);
      break;
    }
    case KeyUse::kHandled: row->handler(e, s); break;
    case KeyUse::kModel: s.SetModel(e); break;
    case KeyUse::kFile: s.NameFile(e, row->why); break;
    case KeyUse::kIgnored: s.Ignore(e, row->why); break;
    case KeyUse::kNotCounted: s.NotCount(e, row->why); break;
    case KeyUse::kGpusPerNode: {
      if (!IsCount(e.value)) return s.NotCount(e, std::string(row->why) + " given as " + e.value);
      const SettingsEntry* nodes = s.Find(row->field);
      const int64_t n = nodes != nullptr && IsCount(nodes->value) ? std::stoll(nodes->value) : 1;
      s.SetGpus(e, std::to_string(std::stoll(e.value) * n), std::string(row->why) + " x " + row->field);
      break;
    }
  }
}

void RunRows(const std::vector<KeyRow>& rows, ImportState& s) {
  for (const SettingsEntry& e : s.tree().entries) RunEntry(rows, e, 0, s);
}

}  // namespace llmmem::core::program_files
