// Launch exports and hostile names (issue 28 part 1): a model name from a link, a pasted
// config or the Hub reaches a command the user copies and runs. Each export must carry it as
// one argument exactly, or not at all, and never as shell syntax or a new Modelfile line.
// tests/cli/export_injection_test.py runs the same exports through sh, Python and YAML.
#include <doctest.h>

#include <random>

#include "core/report/launch_export.h"
#include "core/base/safe_text.h"
#include "core/report/quoting.h"
#include "setups.h"

using namespace llmmem::test;

namespace {

const char* const kHostileNames[] = {
    "m;touch x;#",       "$(touch x)",  "`touch x`",          "a'b",          "a\"b",   "a\\b",
    "m\ntouch x",        "m\r\nSYSTEM evil", "m && rm -rf ~", "${HOME}",      "m|sh",   "m > out",
    "\xe2\x80\xae" "txt.exe",  // U+202E, a right-to-left override
    "org/\xe6\xa8\xa1\xe5\x9e\x8b", "'",       "\\",                 " lead",        "trail ", "\"\"\"",
    "*", "~root", "a#b", "!", "{a,b}",
};

Config Named(const std::string& name, Mode mode = Mode::kInference) {
  Config c = DefaultConfig();
  c.model.preset.clear();
  c.model.name = name;
  c.mode = mode;
  return c;
}

// ollama's Modelfile commands, split as parser/parser.go ParseFile does (00dc3af8): a command
// word, then a value to the end of the line; '#' lines are comments.
std::vector<std::pair<std::string, std::string>> ModelfileCommands(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find_first_of("\r\n", start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    out.emplace_back(line.substr(0, space), space == std::string::npos ? "" : line.substr(space + 1));
  }
  return out;
}

}  // namespace

TEST_CASE("Shell words: sh splits a quoted word back into exactly the word") {
  for (const char* name : kHostileNames) {
    const auto word = ShellWord(name);
    REQUIRE(word.has_value());
    const auto words = ShellSplit("cmd " + *word + " --next 1");
    REQUIRE(words.size() == 4);
    CHECK(words[1] == name);
  }
  // Random bytes, NUL excepted: every one comes back as it went in.
  std::mt19937 rng(28);
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 12, ' ');
    for (char& ch : s) ch = static_cast<char>(1 + rng() % 255);
    const auto words = ShellSplit("x " + ShellWord(s).value());
    REQUIRE(words.size() == 2);
    CHECK(words[1] == s);
  }
  CHECK_FALSE(ShellWord(std::string("a\0b", 3)).has_value());  // no argv string carries a NUL
  CHECK(*ShellWord("Qwen/Qwen2.5-32B") == "Qwen/Qwen2.5-32B");  // plain ids stay readable
  CHECK(*ShellWord("") == "''");
}

TEST_CASE("Shell split follows sh: double quotes, backslashes, continuations, comments") {
  CHECK(ShellSplit("a \"b \\\"c\\\" \\$d\" e\\ f # g") == std::vector<std::string>{"a", "b \"c\" $d", "e f"});
  CHECK(ShellSplit("a \\\n  b") == std::vector<std::string>{"a", "b"});
  CHECK(ShellSplit("a'b'\"c\"") == std::vector<std::string>{"abc"});
  CHECK(ShellSplit("x 'it'\\''s'") == std::vector<std::string>{"x", "it's"});  // was "it\\s"
}

TEST_CASE("vllm and sglang commands carry a hostile model name as one argument") {
  for (const char* name : kHostileNames) {
    CAPTURE(name);
    const Config c = Named(name);
    const std::string v = ExportLaunch(c, LaunchTarget::kVllm);
    const auto words = ShellSplit(v);
    REQUIRE(words.size() > 3);
    CHECK(words[0] == "vllm");
    CHECK(words[1] == "serve");
    // A name a terminal would not show as it is (control characters) becomes MODEL, with a note.
    const std::string want = TerminalSafe(name) == name ? std::string(name) : std::string("MODEL");
    CHECK(words[2] == want);
    // Every other word is a flag or a value the estimate chose: nothing of the name leaks.
    for (size_t i = 3; i < words.size(); ++i) CHECK(words[i].find_first_of(";$`'\"\n") == std::string::npos);
    const auto sg = ParseLaunchFlags(ExportLaunch(c, LaunchTarget::kSglang));
    CHECK(sg.at("--model-path") == want);
  }
}

TEST_CASE("A name no argument can carry, or one that reads as an option, becomes MODEL with a note") {
  for (const std::string& name : {std::string("a\0b", 3), std::string("--trust-remote-code"), std::string(),
                                  std::string("m\ntouch x"), std::string("\x1b]0;t\x07")}) {
    const std::string v = ExportLaunch(Named(name), LaunchTarget::kVllm);
    CHECK(ShellSplit(v)[2] == "MODEL");
    CHECK(v.rfind("# ", 0) == 0);  // the note comes first, as a comment
    if (!name.empty()) CHECK(v.find(name) == std::string::npos);
  }
}

TEST_CASE("llama.cpp and the Modelfile name a GGUF file made of file-name characters") {
  for (const char* name : kHostileNames) {
    CAPTURE(name);
    Config c = Named(name);
    c.dtype = Dtype::kQ4_K_M;
    const auto l = ParseLaunchFlags(ExportLaunch(c, LaunchTarget::kLlamaCpp));
    const std::string& file = l.at("-m");
    CHECK(file.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") ==
          std::string::npos);
    CHECK(file[0] != '-');
    CHECK(file[0] != '.');
    // The Modelfile gains no command: one FROM, its PARAMETERs, nothing else (no SYSTEM).
    const auto commands = ModelfileCommands(ExportLaunch(c, LaunchTarget::kOllama));
    REQUIRE(!commands.empty());
    CHECK(commands[0].first == "FROM");
    CHECK(commands[0].second == "./" + file);
    for (size_t i = 1; i < commands.size(); ++i) CHECK(commands[i].first == "PARAMETER");
  }
}

TEST_CASE("Modelfile values: only what ollama's parser gives back exactly") {
  CHECK(*ModelfileValue("./a-b.gguf") == "./a-b.gguf");
  CHECK(*ModelfileValue(" lead") == "\"\"\" lead\"\"\"");
  CHECK(*ModelfileValue("\"q") == "\"\"\"\"q\"\"\"");
  CHECK_FALSE(ModelfileValue("a\nSYSTEM x").has_value());
  CHECK_FALSE(ModelfileValue("a\rb").has_value());
  CHECK_FALSE(ModelfileValue("\xe2\x80\xae").has_value());
  CHECK_FALSE(ModelfileValue(" \"\"\" ").has_value());
}

TEST_CASE("The TrainingArguments export names the model in a Python string literal") {
  CHECK(PythonString("a\"b\\c\nd") == "\"a\\\"b\\\\c\\nd\"");
  CHECK(PythonString("\x1b]0;t\x07") == "\"\\x1b]0;t\\x07\"");
  CHECK(PythonString("\xe2\x80\xae") == "\"\\u202e\"");
  CHECK(PythonString("\xff") == "\"\xef\xbf\xbd\"");  // invalid UTF-8 becomes U+FFFD
  const std::string hf = ExportLaunch(Named("m\"); import os; os.system(\"x", Mode::kLora), LaunchTarget::kHfTrainer);
  CHECK(hf.find("model_id = \"m\\\"); import os; os.system(\\\"x\"") != std::string::npos);
}
