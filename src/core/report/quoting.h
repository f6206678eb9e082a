// One quoting layer per format the launch exports write (issue 28 part 1). A model name comes
// from a link, a pasted config or the Hub, so it is hostile until quoted: every export puts
// user text through one of these, never by concatenation.
//  - POSIX shell words: single quotes, a quote inside as '\'' (POSIX.1-2017 XCU 2.2.2, "Single
//    Quotes": nothing inside is special). NUL cannot travel in an argv string (execve takes C
//    strings): such a word has no quoting, and the caller says so instead.
//  - Modelfile values: ollama's parser (parser/parser.go at 00dc3af8, ParseFile/unquote) ends
//    a value at CR or LF, drops unprintable runes and unquotes a leading " or """; it has no
//    escapes, so a value with a line break or an unprintable character cannot be written.
//  - Python string literals (the hf-trainer export): double quotes with \\, \", \n, \xNN and
//    \uNNNN escapes (Python Language Reference 2.4.1, "String and Bytes literals").
// JSON values go through core/parse/json.h's Dump, which escapes as RFC 8259 section 7 says; YAML
// exports carry no user text.
// Standard library only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmmem::core {

// s as one shell word: unquoted when it holds only characters no shell treats specially
// (letters, digits and _ - . / : @ % + = ,), else in single quotes. nullopt when s holds a NUL.
std::optional<std::string> ShellWord(std::string_view s);

// The words of a POSIX shell command line, as sh would split them without expanding anything:
// single quotes, double quotes (where \ escapes $ ` " \ and a newline), a backslash outside
// quotes, line continuations and # comments. The exports' round-trip tests read their commands
// back with it.
std::vector<std::string> ShellSplit(std::string_view command);

// s as the value of a Modelfile command, or nullopt when ollama's parser might not give it back
// exactly: anything but printable ASCII, or an edge space or leading quote with """ inside.
std::optional<std::string> ModelfileValue(std::string_view s);

// s as a Python 3 string literal; invalid UTF-8 bytes become U+FFFD (Python source is UTF-8).
std::string PythonString(std::string_view s);

}  // namespace llmmem::core
