// JSON settings files and shell command lines as a SettingsTree (settings_tree.h).
#include "core/parse/settings_tree.h"

#include <cctype>

#include "core/parse/json.h"

namespace llmmem::core {

// JSON is YAML's flow style, so libyaml reads it with its lines kept; a file libyaml refuses
// is reported with the JSON reader's own message (the one config.json errors use).
SettingsTree ParseJsonTree(std::string_view text) {
  SettingsTree tree = ParseYamlTree(text);
  if (tree.ok || text.size() > kMaxSettingsText) return tree;
  const JsonParseResult json = ParseJson(std::string(text));
  if (!json.ok) tree.error = json.error;
  return tree;
}

namespace {

bool IsEnvName(const std::string& w, size_t eq) {
  if (eq == 0 || eq == std::string::npos) return false;
  for (size_t i = 0; i < eq; ++i) {
    const unsigned char c = static_cast<unsigned char>(w[i]);
    if (!(std::isupper(c) || c == '_' || (i > 0 && std::isdigit(c)))) return false;
  }
  return true;
}

struct Word {
  std::string text;
  int line;
};

// Splits text into shell words, one list per command line. Returns "" or what is wrong.
std::string SplitWords(std::string_view text, std::vector<std::vector<Word>>& lines) {
  std::vector<Word> current;
  std::string word;
  bool in_word = false;
  int line = 1, word_line = 1;
  auto end_word = [&] {
    if (in_word) current.push_back({word, word_line});
    word.clear();
    in_word = false;
  };
  auto end_line = [&] {
    end_word();
    if (!current.empty()) lines.push_back(std::move(current));
    current.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      ++i;
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      ++line;
      end_word();
      continue;
    }
    if (c == '\n' || c == ';' || (c == '&' && i + 1 < text.size() && text[i + 1] == '&')) {
      if (c == '&') ++i;
      end_line();
      if (c == '\n') ++line;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      end_word();
      continue;
    }
    if (c == '#' && !in_word) {  // a comment to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (!in_word) word_line = line;
    in_word = true;
    if (c == '\'' || c == '"') {
      const size_t close = text.find(c, i + 1);
      if (close == std::string_view::npos) return "line " + std::to_string(line) + ": a quote is not closed";
      for (size_t k = i + 1; k < close; ++k) {
        if (text[k] == '\n') ++line;
        if (c == '"' && text[k] == '\\' && k + 1 < close) ++k;  // \" and \\ inside double quotes
        word += text[k];
      }
      i = close;
      continue;
    }
    if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      continue;
    }
    word += c;
  }
  end_line();
  return "";
}

// Launchers whose own flags come before the script they run.
const char* LauncherOf(const std::vector<Word>& w, size_t& i) {
  const std::string& first = w[i].text;
  const std::string base = first.substr(first.rfind('/') == std::string::npos ? 0 : first.rfind('/') + 1);
  if (base == "torchrun") return "torchrun";
  if (base == "deepspeed") return "deepspeed";
  if (base == "accelerate" && i + 1 < w.size() && w[i + 1].text == "launch") {
    ++i;
    return "accelerate";
  }
  if ((base == "python" || base == "python3") && i + 2 < w.size() && w[i + 1].text == "-m" &&
      (w[i + 2].text == "torch.distributed.run" || w[i + 2].text == "torch.distributed.launch")) {
    i += 2;
    return "torchrun";
  }
  return nullptr;
}

// Launcher flags that take no value (the next word is the script, not their value).
bool IsLauncherSwitch(const std::string& name) {
  for (const char* s : {"standalone", "no_python", "run_path", "module", "multi_gpu", "use_deepspeed", "use_fsdp",
                        "use_megatron_lm", "cpu", "no_local_rank", "force_multi", "debug", "quiet", "tpu"})
    if (name == s) return true;
  return false;
}

}  // namespace

SettingsTree ParseCommandTree(std::string_view text) {
  SettingsTree tree;
  if (text.size() > kMaxSettingsText) {
    tree.error = "the file is larger than 1 MiB: not a command line";
    return tree;
  }
  std::vector<std::vector<Word>> lines;
  tree.error = SplitWords(text, lines);
  if (!tree.error.empty()) return tree;
  for (const std::vector<Word>& w : lines) {
    size_t i = 0;
    if (w[0].text == "export" || w[0].text == "set") ++i;
    for (; i < w.size(); ++i) {  // NAME=value before the program
      const size_t eq = w[i].text.find('=');
      if (!IsEnvName(w[i].text, eq)) break;
      tree.entries.push_back({"env." + w[i].text.substr(0, eq), w[i].text.substr(eq + 1), w[i].line, false});
    }
    if (i >= w.size()) continue;
    const char* launcher = LauncherOf(w, i);
    std::string scope = launcher != nullptr ? std::string(launcher) + "." : "";
    if (launcher != nullptr) tree.words.push_back(launcher);
    else tree.words.push_back(w[i].text);
    ++i;
    for (; i < w.size(); ++i) {
      const std::string& t = w[i].text;
      const bool is_flag = t.size() > 1 && t[0] == '-' && !std::isdigit(static_cast<unsigned char>(t[1]));
      if (!is_flag) {
        // Hydra's overrides (verl: actor_rollout_ref.model.path=X, +key=v, ++key=v).
        std::string word = t;
        while (!word.empty() && word[0] == '+') word.erase(0, 1);
        const size_t eq = word.find('=');
        if (eq != std::string::npos && eq > 0 && std::islower(static_cast<unsigned char>(word[0]))) {
          bool key = true;
          for (size_t k = 0; k < eq; ++k) {
            const unsigned char c = static_cast<unsigned char>(word[k]);
            key &= std::islower(c) || std::isdigit(c) || c == '_' || c == '.';
          }
          if (key) {
            tree.entries.push_back({word.substr(0, eq), word.substr(eq + 1), w[i].line, false});
            continue;
          }
        }
        tree.words.push_back(t);
        scope.clear();  // the script's word: what follows is its own
        continue;
      }
      std::string name = t.substr(t[1] == '-' ? 2 : 1);
      std::string value = "true";
      bool has_value = false;
      if (const size_t eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name.resize(eq);
        has_value = true;
      }
      for (char& ch : name)
        if (ch == '-') ch = '_';
      if (name == "m" && !has_value && i + 1 < w.size()) {  // python -m MODULE: the script's word
        tree.words.push_back(w[++i].text);
        scope.clear();
        continue;
      }
      if (!has_value && i + 1 < w.size()) {
        const std::string& next = w[i + 1].text;
        const bool next_is_flag = next.size() > 1 && next[0] == '-' && !std::isdigit(static_cast<unsigned char>(next[1]));
        const bool next_is_script = next.size() > 3 && next.compare(next.size() - 3, 3, ".py") == 0;
        const bool a_switch = !scope.empty() && IsLauncherSwitch(name);
        if (!next_is_flag && !(next_is_script && !scope.empty()) && !a_switch) value = w[++i].text;
      }
      if (tree.entries.size() >= kMaxSettingsEntries) {
        tree.error = "more than 20000 flags";
        tree.entries.clear();
        return tree;
      }
      tree.entries.push_back({scope + name, value, w[i].line, false});
    }
  }
  if (tree.words.empty() && tree.entries.empty()) {
    tree.error = "no command in the text";
    return tree;
  }
  tree.ok = true;
  return tree;
}

const SettingsEntry* FindSetting(const SettingsTree& tree, std::string_view path) {
  for (const SettingsEntry& e : tree.entries)
    if (e.path == path) return &e;
  return nullptr;
}

}  // namespace llmmem::core
