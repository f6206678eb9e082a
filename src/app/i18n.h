// The UI's languages: English (the keys) and Simplified Chinese. Every UI string is a row
// of one table (strings.cpp: English, 简体中文); Tr() looks a string up by its English
// text, so code reads as English and a missing row falls back to it. Strings that come
// from the core (category, row and remedy names) go through Tr() too where the table has
// them; formulas, sources and diagnostics stay as the core wrote them, and the core's
// phrases (core/base/phrase.h: the peak notes) are translated piece by piece (TrPhrase).
// scripts/fonts.py reads the table: it checks that every Tr("...") in src/app and every
// core::Say("...") has a row, subsets the CJK font to the characters the Chinese column
// uses, and writes that column as llmmem-zh.json for the web page.
// The desktop app and the tests compile the table in; the page does not (its Chinese
// column travels only to those who pick Chinese): platform/web_strings.cpp defines an
// empty kStrings, and the page fetches llmmem-zh.json with the CJK font (AddTranslations).
// May include: standard library, core/base.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/phrase.h"

namespace llmmem::app {

enum class Lang : uint8_t { kEn, kZh, kCount };

struct Translation {
  const char* en;
  const char* zh;
};
// The table (strings.cpp), ended by a row of nulls.
extern const Translation kStrings[];

// Adds (or replaces) Chinese rows from a JSON object {English: 简体中文} (fonts.py
// strings-json writes it from strings.cpp). Returns the number of rows taken, or -1 when
// the text is not such an object (*error says why; the table is left as it was).
int AddTranslations(const std::string& json, std::string* error);
// Whether the table has any Chinese row (compiled in, or added).
bool HasTranslations();
// Every Chinese row's text, one after the other (the glyphs the CJK font is loaded with), and
// a count that changes whenever AddTranslations adds rows.
std::string ChineseText();
int TranslationsVersion();

Lang CurrentLang();
void SetLang(Lang lang);
const char* LangId(Lang lang);                     // "en", "zh" (the URL's lang=)
const char* LangName(Lang lang);                   // "English", "中文" (each in its own language)
bool ParseLang(const std::string& id, Lang& out);  // "zh", "zh-CN", "zh-Hans", "en-US", ...

// The current language's text for an English UI string; the English itself when the
// table has no row for it (or the language is English).
const char* Tr(const char* en);
inline const char* Tr(const std::string& en) { return Tr(en.c_str()); }

// printf into a string with the current language's format for `en` (both columns keep the
// same conversions in the same order: tests/test_i18n.cpp checks it).
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
std::string TrF(const char* en, ...);

// A core phrase in the current language: its format and each argument looked up (an
// argument without a row, a figure or a name, stays as it is), then filled in.
std::string TrPhrase(const core::Phrase& p);
// Sentences so translated, joined as the language joins them (English: a space; Chinese:
// nothing, its full stops end the sentence).
std::string TrSentences(const std::vector<core::Phrase>& sentences);

}  // namespace llmmem::app
