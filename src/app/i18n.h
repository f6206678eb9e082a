// The UI's languages: English (the keys) and Simplified Chinese. Every UI string is a row
// of one table (strings.cpp: English, 简体中文); Tr() looks a string up by its English
// text, so code reads as English and a missing row falls back to it. Strings that come
// from the core (category, row and remedy names) go through Tr() too where the table has
// them; formulas, sources and diagnostics stay as the core wrote them.
// scripts/glyphs.py reads the table: it checks that every Tr("...") in src/app has a row,
// and subsets the CJK font to the characters the Chinese column uses.
// May include: standard library only.
#pragma once

#include <cstdint>
#include <string>

namespace llmmem::app {

enum class Lang : uint8_t { kEn, kZh, kCount };

struct Translation {
  const char* en;
  const char* zh;
};
// The table (strings.cpp), ended by a row of nulls.
extern const Translation kStrings[];

Lang CurrentLang();
void SetLang(Lang lang);
const char* LangId(Lang lang);                     // "en", "zh" (the URL's lang=)
const char* LangName(Lang lang);                   // "English", "中文" (each in its own language)
bool ParseLang(const std::string& id, Lang& out);  // "zh", "zh-CN", "zh-Hans", "en-US", ...

// The current language's text for an English UI string; the English itself when the
// table has no row for it (or the language is English).
const char* Tr(const char* en);
inline const char* Tr(const std::string& en) { return Tr(en.c_str()); }

}  // namespace llmmem::app
