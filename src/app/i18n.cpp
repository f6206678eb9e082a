// Language state and lookup; the rows are in strings.cpp.
#include "app/i18n.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string_view>
#include <unordered_map>

#include "core/parse/json.h"

namespace llmmem::app {
namespace {

Lang g_lang = Lang::kEn;
int g_version = 0;

struct Table {
  std::unordered_map<std::string_view, const char*> rows;
  std::deque<std::string> added;  // the text of rows AddTranslations took (a deque: stable addresses)
};

Table& Chinese() {
  static Table table = [] {
    Table t;
    for (const Translation* r = kStrings; r->en != nullptr; ++r) t.rows.emplace(r->en, r->zh);
    return t;
  }();
  return table;
}

}  // namespace

Lang CurrentLang() { return g_lang; }
void SetLang(Lang lang) { g_lang = lang == Lang::kZh ? Lang::kZh : Lang::kEn; }
const char* LangId(Lang lang) { return lang == Lang::kZh ? "zh" : "en"; }
const char* LangName(Lang lang) { return lang == Lang::kZh ? "中文" : "English"; }

bool ParseLang(const std::string& id, Lang& out) {
  if (id.size() < 2) return false;
  const char a = static_cast<char>(id[0] | 0x20), b = static_cast<char>(id[1] | 0x20);
  if (id.size() > 2 && id[2] != '-' && id[2] != '_') return false;
  if (a == 'z' && b == 'h') {
    out = Lang::kZh;
    return true;
  }
  if (a == 'e' && b == 'n') {
    out = Lang::kEn;
    return true;
  }
  return false;
}

const char* Tr(const char* en) {
  if (g_lang == Lang::kEn || en == nullptr) return en;
  const auto& t = Chinese().rows;
  const auto it = t.find(std::string_view(en));
  return it != t.end() && it->second != nullptr && it->second[0] != 0 ? it->second : en;
}

std::string TrF(const char* en, ...) {
  const char* format = Tr(en);
  va_list args;
  va_start(args, en);
  va_list again;
  va_copy(again, args);
  char small[256];
  const int n = std::vsnprintf(small, sizeof small, format, args);
  va_end(args);
  std::string out;
  if (n < 0) {
    out = format;
  } else if (static_cast<size_t>(n) < sizeof small) {
    out.assign(small, static_cast<size_t>(n));
  } else {
    out.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(&out[0], out.size(), format, again);
    out.resize(static_cast<size_t>(n));
  }
  va_end(again);
  return out;
}

std::string TrPhrase(const core::Phrase& p) {
  return core::Render(p, [](const char* en) { return Tr(en); });
}

std::string TrSentences(const std::vector<core::Phrase>& sentences) {
  return core::Render(sentences, g_lang == Lang::kZh ? "" : " ", [](const char* en) { return Tr(en); });
}

int AddTranslations(const std::string& json, std::string* error) {
  const core::JsonParseResult doc = core::ParseJson(json);
  if (!doc.ok || !doc.value.IsObject()) {
    if (error) *error = doc.ok ? "not a JSON object" : doc.error;
    return -1;
  }
  Table& t = Chinese();
  int taken = 0;
  for (const auto& [en, zh] : doc.value.AsObject()) {
    if (!zh.IsString() || zh.AsString().empty()) continue;
    const std::string& key = t.added.emplace_back(en);
    const std::string& text = t.added.emplace_back(zh.AsString());
    t.rows[std::string_view(key)] = text.c_str();
    ++taken;
  }
  ++g_version;
  return taken;
}

std::string ChineseText() {
  std::string all;
  for (const auto& row : Chinese().rows)
    if (row.second != nullptr) all += row.second;
  return all;
}

int TranslationsVersion() { return g_version; }

bool HasTranslations() {
  for (const auto& row : Chinese().rows)
    if (row.second != nullptr && row.second[0] != 0) return true;
  return false;
}

}  // namespace llmmem::app
