// TOML settings files (torchtitan's job configs) through toml++ 3.3, Debian's
// libtomlplusplus-dev, header-only and without exceptions: parse errors are values.
#define TOML_EXCEPTIONS 0
#define TOML_ENABLE_FORMATTERS 1
// toml++ 3.3 enters parse_key() on a table header such as "[=" or "[\n" and asserts there
// that the key starts well; with NDEBUG under clang (the page's build) that assertion is an
// assumption, undefined behaviour (marzer/tomlplusplus#294, fixed by #301 after Debian's
// 3.3). parse_key() reports the bad character itself when the check does not stop it, so
// its checks are made no-ops: neither an abort nor an assumption.
#pragma push_macro("NDEBUG")
#undef NDEBUG
#define TOML_ASSERT(expr) static_cast<void>(0)
#include <toml++/toml.h>
#pragma pop_macro("NDEBUG")

#include <sstream>
#include <string>

#include "core/parse/settings_tree.h"

namespace llmmem::core {
namespace {

void Walk(const toml::node& node, const std::string& path, int depth, SettingsTree& out, bool& over) {
  if (over) return;
  if (depth > kMaxSettingsDepth || out.entries.size() >= kMaxSettingsEntries) {
    over = true;
    return;
  }
  if (const toml::table* t = node.as_table()) {
    for (auto&& [key, value] : *t) {
      const std::string k(key.str());
      Walk(value, path.empty() ? k : path + "." + k, depth + 1, out, over);
    }
    return;
  }
  if (const toml::array* a = node.as_array()) {
    for (size_t i = 0; i < a->size(); ++i) Walk(*a->get(i), path + "[" + std::to_string(i) + "]", depth + 1, out, over);
    return;
  }
  SettingsEntry e;
  e.path = path;
  e.line = static_cast<int>(node.source().begin.line);
  if (const auto* s = node.as_string()) {
    e.value = s->get();
  } else if (const auto* b = node.as_boolean()) {
    e.value = b->get() ? "true" : "false";
  } else if (const auto* i = node.as_integer()) {
    e.value = std::to_string(i->get());
  } else {
    std::ostringstream text;  // floats, dates and times as TOML writes them
    if (const auto* f = node.as_floating_point()) text << *f;
    else if (const auto* d = node.as_date()) text << *d;
    else if (const auto* tm = node.as_time()) text << *tm;
    else if (const auto* dt = node.as_date_time()) text << *dt;
    e.value = text.str();
  }
  out.entries.push_back(std::move(e));
}

}  // namespace

SettingsTree ParseTomlTree(std::string_view text) {
  SettingsTree tree;
  if (text.size() > kMaxSettingsText) {
    tree.error = "the file is larger than 1 MiB: not a training program's settings";
    return tree;
  }
  toml::parse_result parsed = toml::parse(text);
  if (!parsed) {
    const toml::parse_error& e = parsed.error();
    tree.error = "line " + std::to_string(e.source().begin.line) + ", column " +
                 std::to_string(e.source().begin.column) + ": " + std::string(e.description());
    return tree;
  }
  bool over = false;
  Walk(parsed.table(), "", 0, tree, over);
  if (over) {
    tree.entries.clear();
    tree.error = "more than 20000 settings or nested more than 32 deep";
    return tree;
  }
  tree.ok = true;
  return tree;
}

}  // namespace llmmem::core
