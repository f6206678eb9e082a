// A sentence the core writes for people, kept as its English template and its arguments, so
// that a front end can show it in its own language: the UI translates the template and each
// argument that is itself a template (app/i18n.h TrPhrase), and fills in the figures and
// names as they are. The CLI, the JSON and the exports use the English text (Render with no
// translation), which is exactly what the core wrote before it kept phrases.
// A template is written core::Say("... %s ...", {args}): scripts/fonts.py reads each such
// literal as a key of the UI's table (src/app/strings.cpp) and fails the build when one has
// no row. Only %s (an argument, in order) and %% (a percent sign) are conversions.
// May include: standard library only.
#pragma once

#include <string>
#include <vector>

namespace llmmem::core {

struct Phrase {
  std::string text;          // the English template, or a value's text
  std::vector<Phrase> args;  // one per %s of the template, in order
  bool value = false;        // a figure or a name: shown as it is in every language

  Phrase() = default;
  // A value (a figure, a name, a flag): implicit, so figures go in an argument list as they are.
  Phrase(std::string v) : text(std::move(v)), value(true) {}
  Phrase(const char* v) : text(v), value(true) {}
};

// A template with its arguments (each a value or another template).
Phrase Say(std::string format, std::vector<Phrase> args = {});

// The phrase as text: a template translated by `translate` (the English itself when null or
// when it answers null), its %s filled with the arguments rendered the same way.
std::string Render(const Phrase& p, const char* (*translate)(const char*) = nullptr);

// Sentences joined by `separator` (the English text: " ").
std::string Render(const std::vector<Phrase>& sentences, const char* separator,
                   const char* (*translate)(const char*) = nullptr);

}  // namespace llmmem::core
