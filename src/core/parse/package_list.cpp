// ParsePackageList (package_list.h).
#include "core/parse/package_list.h"

#include <cctype>
#include <vector>

namespace llmmem::core {
namespace {

std::string Trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return std::string(s.substr(a, b - a));
}

bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

// PEP 503's normalised name.
std::string Normalise(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool sep = c == '-' || c == '_' || c == '.';
    if (sep) {
      if (!out.empty() && out.back() != '-') out += '-';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

struct Line {
  std::string name, value;
};

// One line as a package, or false. `table`: pip list / conda list rows ("name version ...").
bool ReadLine(const std::string& line, bool table, Line& out) {
  size_t i = 0;
  if (line.empty() || !std::isalnum(static_cast<unsigned char>(line[0]))) return false;
  while (i < line.size() && NameChar(line[i])) ++i;
  const std::string name = line.substr(0, i);
  if (i < line.size() && line[i] == '[') {  // extras: transformers[torch]==4.46.0
    const size_t close = line.find(']', i);
    if (close == std::string::npos) return false;
    i = close + 1;
  }
  const std::string rest = Trim(std::string_view(line).substr(i));
  std::string value;
  if (rest.empty()) {
    value = "";  // a bare name (requirements without a pin)
  } else if (rest.compare(0, 1, "@") == 0) {
    value = rest;  // name @ file:///... or a URL: no version
  } else {
    static const char* const kOps[] = {"===", "==", ">=", "<=", "~=", "!=", ">", "<"};
    for (const char* op : kOps) {
      const std::string o = op;
      if (rest.compare(0, o.size(), o) == 0) {
        const std::string v = Trim(std::string_view(rest).substr(o.size()));
        value = o + v.substr(0, v.find_first_of(",; "));
        break;
      }
    }
    if (value.empty()) {
      if (!table || !std::isdigit(static_cast<unsigned char>(rest[0]))) return false;
      value = "==" + rest.substr(0, rest.find_first_of(" \t"));  // pip list: name  4.46.0
    }
  }
  out = {Normalise(name), value};
  return !out.name.empty();
}

bool Skipped(const std::string& t) {
  return t.empty() || t[0] == '#' || t.compare(0, 2, "--") == 0 || t.compare(0, 2, "-e") == 0 ||
         t.compare(0, 2, "-r") == 0 || t.compare(0, 2, "-c") == 0 || t.compare(0, 8, "Package ") == 0 ||
         t.compare(0, 5, "Name ") == 0 || t.compare(0, 3, "---") == 0;
}

}  // namespace

std::string PackageVersion(const std::string& value) {
  size_t i = 0;
  while (i < value.size() && !std::isdigit(static_cast<unsigned char>(value[i]))) {
    if (value[i] == '@') return "";
    ++i;
  }
  size_t j = i;
  while (j < value.size() && (std::isdigit(static_cast<unsigned char>(value[j])) ||
                              (value[j] == '.' && j + 1 < value.size() && std::isdigit(static_cast<unsigned char>(value[j + 1])))))
    ++j;
  return value.substr(i, j - i);
}

bool LooksLikePackageList(std::string_view text) {
  if (text.size() > kMaxSettingsText) return false;
  int lines = 0, packages = 0, pinned = 0;
  size_t start = 0;
  bool table = false;
  while (start <= text.size() && lines < 400) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string t = Trim(text.substr(start, end - start));
    start = end + 1;
    if (t.compare(0, 7, "Package") == 0 || t.compare(0, 28, "# packages in environment at") == 0) table = true;
    if (Skipped(t)) continue;
    ++lines;
    Line l;
    if (ReadLine(t, table, l)) {
      ++packages;
      pinned += !l.value.empty();
    }
  }
  return packages >= 2 && pinned >= 1 && packages * 10 >= lines * 8;
}

SettingsTree ParsePackageList(std::string_view text) {
  SettingsTree tree;
  if (text.size() > kMaxSettingsText) {
    tree.error = "the file is larger than 1 MiB: not a package list";
    return tree;
  }
  size_t start = 0;
  int number = 0;
  bool table = false;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string t = Trim(text.substr(start, end - start));
    start = end + 1;
    ++number;
    if (t.compare(0, 7, "Package") == 0 || t.compare(0, 28, "# packages in environment at") == 0) table = true;
    if (Skipped(t)) continue;
    Line l;
    if (!ReadLine(t, table, l)) {
      tree.error = "line " + std::to_string(number) + ": \"" + t.substr(0, 60) + "\" is not a package (name==version)";
      return tree;
    }
    if (tree.entries.size() >= kMaxSettingsEntries) {
      tree.error = "more than 20000 packages";
      return tree;
    }
    tree.entries.push_back({l.name, l.value, number, false});
  }
  tree.ok = true;
  return tree;
}

}  // namespace llmmem::core
