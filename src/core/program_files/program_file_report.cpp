// An import's account, as JSON and as text (program_file.h).
#include "core/base/safe_text.h"
#include "core/program_files/program_file.h"

namespace llmmem::core {
namespace {

Json KeyJson(const ProgramKey& k) {
  Json::Object o;
  o["key"] = k.key;
  o["value"] = k.value;
  o["line"] = k.line;
  o["note"] = k.note;
  return Json(std::move(o));
}

Json Keys(const std::vector<ProgramKey>& keys) {
  Json::Array a;
  for (const ProgramKey& k : keys) a.push_back(KeyJson(k));
  return Json(std::move(a));
}

std::string KeyText(const ProgramKey& k) {
  std::string t = k.key.empty() ? std::string() : EchoValue(k.key, 60) + ": " + EchoValue(k.value, 60);
  if (k.line > 0) t += " (line " + std::to_string(k.line) + ")";
  return t;
}

}  // namespace

Json ProgramFileToJson(const ProgramFileImport& file, const std::string& file_name) {
  Json::Object o;
  o["file"] = file_name;
  o["ok"] = file.ok;
  o["format"] = file.format;
  o["label"] = file.label;
  o["stack"] = file.stack;
  o["model"] = file.model;
  Json::Array settings;
  for (const ProgramSetting& s : file.settings) {
    Json::Object x;
    x["field"] = s.field;
    x["value"] = s.value;
    x["key"] = s.from.key;
    x["key_value"] = s.from.value;
    x["line"] = s.from.line;
    x["note"] = s.from.note;
    x["assumed"] = s.from.key.empty();
    settings.push_back(Json(std::move(x)));
  }
  o["settings"] = Json(std::move(settings));
  o["ignored"] = Keys(file.ignored);
  o["not_counted"] = Keys(file.not_counted);
  o["unknown"] = Keys(file.unknown);
  o["files_named"] = Keys(file.files_named);
  Json::Array errors, warnings;
  for (const Diagnostic& d : file.diagnostics)
    (d.severity == Severity::kError ? errors : warnings).push_back(Json(d.message));
  o["errors"] = Json(std::move(errors));
  o["warnings"] = Json(std::move(warnings));
  return Json(std::move(o));
}

std::string ProgramFileText(const ProgramFileImport& file, const std::string& file_name) {
  std::string t = "Read from " + EchoValue(file_name, 120) + " (" + file.label + ", run by " + file.stack + ")\n";
  if (!file.model.empty()) t += "  model: " + EchoValue(file.model, 120) + "\n";
  for (const ProgramSetting& s : file.settings) {
    if (s.from.key.empty()) continue;
    t += "  " + KeyText(s.from) + "  ->  " + s.field + " = " + s.value + "\n";
  }
  for (const ProgramSetting& s : file.settings)
    if (s.from.key.empty()) t += "  assumed: " + s.field + " = " + s.value + " (" + s.from.note + ")\n";
  for (const ProgramKey& k : file.not_counted) t += "  not counted: " + KeyText(k) + ": " + k.note + "\n";
  for (const ProgramKey& k : file.files_named) t += "  names " + EchoValue(k.value, 120) + ": " + k.note + "\n";
  if (!file.ignored.empty()) {
    t += "  no memory effect (" + std::to_string(file.ignored.size()) + "): ";
    for (size_t i = 0; i < file.ignored.size() && i < 10; ++i) t += (i ? ", " : "") + EchoValue(file.ignored[i].key, 60);
    t += file.ignored.size() > 10 ? ", ...\n" : "\n";
  }
  if (!file.unknown.empty()) {
    t += "  unknown to llmmem, so they change nothing (" + std::to_string(file.unknown.size()) + "): ";
    for (size_t i = 0; i < file.unknown.size() && i < 10; ++i) t += (i ? ", " : "") + EchoValue(file.unknown[i].key, 60);
    t += file.unknown.size() > 10 ? ", ...\n" : "\n";
  }
  return t;
}

}  // namespace llmmem::core
