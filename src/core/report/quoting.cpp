// Quoting for the launch exports (quoting.h).
#include "core/report/quoting.h"

#include <cstdio>

#include "core/base/safe_text.h"

namespace llmmem::core {

namespace {

bool ShellPlain(char ch) {
  const unsigned char u = static_cast<unsigned char>(ch);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
         std::string_view("_-./:@%+=,").find(ch) != std::string_view::npos;
}

}  // namespace

std::optional<std::string> ShellWord(std::string_view s) {
  if (s.find('\0') != std::string_view::npos) return std::nullopt;
  bool plain = !s.empty();
  for (char ch : s) plain = plain && ShellPlain(ch);
  if (plain) return std::string(s);
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::vector<std::string> ShellSplit(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < command.size(); ++i) {
    const char ch = command[i];
    if (ch == '\'') {  // everything up to the next ' is literal
      const size_t end = command.find('\'', i + 1);
      const size_t stop = end == std::string_view::npos ? command.size() : end;
      word.append(command.substr(i + 1, stop - i - 1));
      in_word = true;
      i = stop;
    } else if (ch == '"') {  // \ escapes only $ ` " \ and a newline (XCU 2.2.3)
      in_word = true;
      for (++i; i < command.size() && command[i] != '"'; ++i) {
        if (command[i] == '\\' && i + 1 < command.size() &&
            std::string_view("$`\"\\\n").find(command[i + 1]) != std::string_view::npos) {
          if (command[++i] != '\n') word += command[i];
        } else {
          word += command[i];
        }
      }
    } else if (ch == '\\') {  // quotes the next character; before a newline, joins the lines
      if (i + 1 < command.size() && command[i + 1] != '\n') {
        word += command[i + 1];
        in_word = true;
      }
      ++i;
    } else if (ch == '#' && !in_word) {  // a comment runs to the end of the line
      while (i + 1 < command.size() && command[i + 1] != '\n') ++i;
    } else if (ch == ' ' || ch == '\t' || ch == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += ch;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::optional<std::string> ModelfileValue(std::string_view s) {
  // Printable ASCII only: Go's unicode.IsPrint, which the parser applies, also drops format
  // characters and every space but U+0020, and this layer does not carry Unicode's tables.
  for (const unsigned char ch : s) {
    if (ch < 0x20 || ch > 0x7E) return std::nullopt;
  }
  const bool edge_space = !s.empty() && (s.front() == ' ' || s.back() == ' ');
  const bool leading_quote = !s.empty() && s.front() == '"';
  if (!edge_space && !leading_quote) return std::string(s);
  // unquote() strips one level of """...""" or "...": wrap so that it strips ours.
  if (s.find("\"\"\"") != std::string_view::npos || s.back() == '"') return std::nullopt;
  return "\"\"\"" + std::string(s) + "\"\"\"";
}

std::string PythonString(std::string_view s) {
  const std::string text = ValidUtf8(s);
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t n = Utf8SequenceAt(text, i, &cp);
    char buf[16];
    if (cp == '\\' || cp == '"') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (IsControlCodePoint(cp)) {  // shown as an escape, never raw in the source
      std::snprintf(buf, sizeof buf, cp < 0x100 ? "\\x%02x" : "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(text, i, n);
    }
    i += n;
  }
  return out + "\"";
}

}  // namespace llmmem::core
