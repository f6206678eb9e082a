// YAML settings files through libyaml's document loader (Debian's libyaml 0.2.5; the page
// compiles the same sources from Debian's source package, scripts/bootstrap).
#include <yaml.h>

#include <string>

#include "core/parse/settings_tree.h"

namespace llmmem::core {
namespace {

struct Walk {
  yaml_document_t* doc;
  SettingsTree* out;
  bool too_many = false;
  bool too_deep = false;

  void Node(int index, const std::string& path, int depth) {
    if (too_many || too_deep) return;
    if (depth > kMaxSettingsDepth) {  // also what a self-referring alias reaches
      too_deep = true;
      return;
    }
    yaml_node_t* node = yaml_document_get_node(doc, index);
    if (node == nullptr) return;
    const int line = static_cast<int>(node->start_mark.line) + 1;
    switch (node->type) {
      case YAML_SCALAR_NODE: {
        if (out->entries.size() >= kMaxSettingsEntries) {
          too_many = true;
          return;
        }
        SettingsEntry e;
        e.path = path;
        e.value.assign(reinterpret_cast<const char*>(node->data.scalar.value), node->data.scalar.length);
        e.line = line;
        // YAML 1.1's null: an empty plain scalar, ~, null (core schema spellings).
        const bool plain = node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        e.is_null = plain && (e.value.empty() || e.value == "~" || e.value == "null" || e.value == "Null" ||
                              e.value == "NULL");
        if (e.is_null) e.value.clear();
        out->entries.push_back(std::move(e));
        return;
      }
      case YAML_SEQUENCE_NODE: {
        int i = 0;
        for (yaml_node_item_t* it = node->data.sequence.items.start; it < node->data.sequence.items.top; ++it, ++i)
          Node(*it, path + "[" + std::to_string(i) + "]", depth + 1);
        return;
      }
      case YAML_MAPPING_NODE: {
        for (yaml_node_pair_t* p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; ++p) {
          yaml_node_t* key = yaml_document_get_node(doc, p->key);
          if (key == nullptr || key->type != YAML_SCALAR_NODE) continue;  // complex keys name no setting
          const std::string k(reinterpret_cast<const char*>(key->data.scalar.value), key->data.scalar.length);
          Node(p->value, path.empty() ? k : path + "." + k, depth + 1);
        }
        return;
      }
      default:
        return;
    }
  }
};

}  // namespace

SettingsTree ParseYamlTree(std::string_view text) {
  SettingsTree tree;
  if (text.size() > kMaxSettingsText) {
    tree.error = "the file is larger than 1 MiB: not a training program's settings";
    return tree;
  }
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    tree.error = "the YAML reader could not start (out of memory)";
    return tree;
  }
  yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  yaml_document_t doc;
  if (!yaml_parser_load(&parser, &doc)) {
    const yaml_mark_t& mark = parser.problem_mark;
    tree.error = "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) + ": " +
                 (parser.problem != nullptr ? parser.problem : "not YAML");
    if (parser.context != nullptr) tree.error += std::string(" (") + parser.context + ")";
    yaml_parser_delete(&parser);
    return tree;
  }
  Walk walk{&doc, &tree};
  if (yaml_node_t* root = yaml_document_get_root_node(&doc)) {
    if (root->type != YAML_MAPPING_NODE) {
      tree.error = "line " + std::to_string(root->start_mark.line + 1) +
                   ": the file is not a list of settings (`key: value` lines)";
    } else {
      walk.Node(1, "", 0);
    }
  }
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  if (walk.too_many) tree.error = "more than 20000 settings (an alias that expands without end?)";
  if (walk.too_deep) tree.error = "settings nested more than 32 deep (an alias that refers to itself?)";
  tree.ok = tree.error.empty();
  if (!tree.ok) tree.entries.clear();
  return tree;
}

}  // namespace llmmem::core
