// Text that came from files, links and users (model names, GGUF strings, values echoed in
// errors), made safe for where it is shown: a terminal, Markdown, CSV, JSON. One place for
// the rules, so every front end applies the same ones:
//  - cut only at character boundaries (a UTF-8 sequence is never split);
//  - invalid UTF-8 becomes U+FFFD (JSON) or \xNN (terminal);
//  - control characters are shown, not obeyed: C0 (ESC, CR, ...), DEL, C1 (U+0080-U+009F,
//    which a UTF-8 terminal may take as CSI/OSC) and the bidirectional overrides
//    (U+202A-U+202E, U+2066-U+2069, "Trojan Source") are escaped;
//  - values echoed in messages are capped, with their full length said.
// Standard library only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace llmmem::core {

// The number of bytes of the valid UTF-8 sequence at s[i] (1-4), or 0 when the bytes there
// are not one (stray continuation, overlong form, surrogate, past U+10FFFF, cut short).
size_t Utf8SequenceAt(std::string_view s, size_t i, uint32_t* code_point);

// The largest n <= max_bytes that does not split a UTF-8 sequence of s.
size_t Utf8CutPoint(std::string_view s, size_t max_bytes);
std::string CutUtf8(std::string_view s, size_t max_bytes);
// The length of s without a sequence cut short at its end (s is the first bytes of a
// longer text).
size_t Utf8CompleteLength(std::string_view s);

// Appends the UTF-8 form of code point cp (JSON's \\u escapes, UTF-16 text read as UTF-8).
void AppendUtf8(uint32_t cp, std::string& out);

// s with each invalid byte replaced by U+FFFD.
std::string ValidUtf8(std::string_view s);

// True for the code points a terminal or a renderer would obey rather than show.
bool IsControlCodePoint(uint32_t cp);

// For a terminal: control characters as \e-style escapes (\x1b, \r, \u{9b}, \u{202e}),
// invalid bytes as \xNN. keep_layout keeps '\n' and '\t' (whole outputs); values in a
// sentence escape them too.
std::string TerminalSafe(std::string_view s, bool keep_layout = false);

// A value echoed inside a message: terminal-safe, cut at max_bytes on a character boundary,
// with "... (N bytes)" when cut. Without quotes: callers write "\"" + EchoValue(v) + "\"".
constexpr size_t kEchoMaxBytes = 64;
std::string EchoValue(std::string_view s, size_t max_bytes = kEchoMaxBytes);

// For Markdown text (a table cell, a heading): terminal-safe, one line, and none of its
// markup or raw HTML: | < > & ` * _ [ ] \ escaped.
std::string MarkdownSafe(std::string_view s);

// For a CSV cell's text: a leading = + - @ tab or CR (a spreadsheet formula) is neutralised
// with a leading apostrophe (OWASP's CSV-injection advice); control characters escaped.
std::string CsvTextSafe(std::string_view s);

}  // namespace llmmem::core
