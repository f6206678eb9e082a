// Safe text for terminals, Markdown, CSV and JSON; see safe_text.h.
// Sources: RFC 3629 (UTF-8: no overlong forms, no surrogates, at most U+10FFFF); ECMA-48
// (C0 and C1 control functions); Unicode UAX #9 (bidirectional formatting characters);
// OWASP "CSV Injection" (cells starting with = + - @ tab CR).
#include "core/base/safe_text.h"

#include <cstdio>

namespace llmmem::core {

size_t Utf8SequenceAt(std::string_view s, size_t i, uint32_t* code_point) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  size_t n = 0;
  uint32_t cp = 0, min = 0;
  if (c < 0x80) {
    *code_point = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    n = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  *code_point = cp;
  return n;
}

size_t Utf8CutPoint(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s.size();
  size_t n = max_bytes;
  // Back up over continuation bytes to the start of the sequence that straddles the cut.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80 && max_bytes - n < 3) --n;
  return n;
}

size_t Utf8CompleteLength(std::string_view s) {
  for (size_t back = 1; back <= 4 && back <= s.size(); ++back) {
    const unsigned char c = static_cast<unsigned char>(s[s.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
    return len > back ? s.size() - back : s.size();
  }
  return s.size();
}

std::string CutUtf8(std::string_view s, size_t max_bytes) {
  return std::string(s.substr(0, Utf8CutPoint(s, max_bytes)));
}

std::string ValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = Utf8SequenceAt(s, i, &cp);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool IsControlCodePoint(uint32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

std::string TerminalSafe(std::string_view s, bool keep_layout) {
  std::string out;
  out.reserve(s.size());
  char buf[16];
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = Utf8SequenceAt(s, i, &cp);
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(s[i]));
      out += buf;
      ++i;
      continue;
    }
    if (keep_layout && (cp == '\n' || cp == '\t')) {
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (IsControlCodePoint(cp)) {
      std::snprintf(buf, sizeof buf, cp < 0x80 ? "\\x%02x" : "\\u{%x}", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(s.data() + i, n);
    }
    i += n;
  }
  return out;
}

std::string EchoValue(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return TerminalSafe(s);
  return TerminalSafe(s.substr(0, Utf8CutPoint(s, max_bytes))) + "... (" + std::to_string(s.size()) + " bytes)";
}

std::string MarkdownSafe(std::string_view s) {
  const std::string safe = TerminalSafe(s);
  std::string out;
  out.reserve(safe.size());
  for (char c : safe) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '|':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '\\':
        out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string CsvTextSafe(std::string_view s) {
  const bool formula =
      !s.empty() && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r');
  return (formula ? "'" : "") + TerminalSafe(s);
}

}  // namespace llmmem::core
