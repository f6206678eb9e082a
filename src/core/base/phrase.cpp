// Phrases: templates and their arguments; see phrase.h.
#include "core/base/phrase.h"

namespace llmmem::core {

Phrase Say(std::string format, std::vector<Phrase> args) {
  Phrase p;
  p.text = std::move(format);
  p.args = std::move(args);
  return p;
}

std::string Render(const Phrase& p, const char* (*translate)(const char*)) {
  if (p.value) return p.text;
  const char* translated = translate != nullptr ? translate(p.text.c_str()) : nullptr;
  const std::string& format = translated != nullptr ? std::string(translated) : p.text;
  std::string out;
  out.reserve(format.size() + 16 * p.args.size());
  size_t next = 0;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] == '%' && i + 1 < format.size() && format[i + 1] == 's') {
      if (next < p.args.size()) out += Render(p.args[next], translate);
      ++next;
      ++i;
    } else if (format[i] == '%' && i + 1 < format.size() && format[i + 1] == '%') {
      out += '%';
      ++i;
    } else {
      out += format[i];
    }
  }
  return out;
}

std::string Render(const std::vector<Phrase>& sentences, const char* separator,
                   const char* (*translate)(const char*)) {
  std::string out;
  for (const Phrase& p : sentences) {
    if (!out.empty()) out += separator;
    out += Render(p, translate);
  }
  return out;
}

}  // namespace llmmem::core
