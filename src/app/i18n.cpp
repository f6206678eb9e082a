// Language state and lookup; the rows are in strings.cpp.
#include "app/i18n.h"

#include <cstring>
#include <string_view>
#include <unordered_map>

namespace llmmem::app {
namespace {

Lang g_lang = Lang::kEn;

const std::unordered_map<std::string_view, const char*>& Chinese() {
  static const std::unordered_map<std::string_view, const char*> table = [] {
    std::unordered_map<std::string_view, const char*> t;
    for (const Translation* r = kStrings; r->en != nullptr; ++r) t.emplace(r->en, r->zh);
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
  const auto& t = Chinese();
  const auto it = t.find(std::string_view(en));
  return it != t.end() && it->second != nullptr && it->second[0] != 0 ? it->second : en;
}

}  // namespace llmmem::app
