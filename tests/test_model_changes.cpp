// "This model was customised" is one core function (core/model_changes.h): an edited
// preset keeps its key in the CLI, links, JSON and the JS API alike, and says which fields
// changed; restating a preset's own values changes nothing.
#include <doctest.h>

#include <string>
#include <vector>

#include "core/report/launch_export.h"
#include "core/config/model_changes.h"
#include "setups.h"
#if LLMMEM_TEST_CLI
#include "cli/cli_args.h"
#endif

using namespace llmmem::test;

namespace {

using Names = std::vector<std::string>;

// The same edit through each way in: a link and the JS API's JSON (and the CLI below).
std::vector<Config> Edited(const std::string& hidden) {
  return {
      ConfigFromQuery("v=1&model=llama-3.1-8b&hidden=" + hidden, DefaultConfig()).config,
      ConfigFromJsonText(R"({"model": {"preset": "llama-3.1-8b", "hidden": )" + hidden + "}}", DefaultConfig()).config};
}

}  // namespace

TEST_CASE("Model changes: restating a preset's value keeps it the preset, uncustomised, everywhere") {
  for (const Config& c : Edited("4096")) {
    CHECK(c.model.preset == "llama-3.1-8b");
    CHECK(CustomisedFields(c.model).empty());
    CHECK(PresetNote(c.model) == "llama-3.1-8b");
    CHECK(ConfigToQuery(c) == "v=1&model=llama-3.1-8b");
    CHECK(ConfigToJson(c)["model"].Find("customised") == nullptr);
  }
}

TEST_CASE("Model changes: an edited preset keeps its key and names what changed, everywhere") {
  for (const Config& c : Edited("5120")) {
    CHECK(c.model.preset == "llama-3.1-8b");
    CHECK(CustomisedFields(c.model) == Names{"hidden", "head_dim"});  // head_dim follows hidden / heads
    CHECK(IsCustomised(c.model));
    CHECK(PresetNote(c.model) == "llama-3.1-8b, customised: hidden, head_dim");
    // The link writes the changes against the preset and reads back the same model.
    const std::string q = ConfigToQuery(c);
    CHECK(q == "v=1&model=llama-3.1-8b&hidden=5120&head_dim=160");
    const ConfigParse link = ConfigFromQuery(q, DefaultConfig());
    CHECK(link.diagnostics.empty());
    CHECK(ConfigToQuery(link.config) == q);
    // The JSON says what changed, and reading it back (the note is not a setting) is silent.
    Json j = ConfigToJson(c);
    REQUIRE(j["model"].Find("customised") != nullptr);
    CHECK(j["model"]["customised"].Dump() == R"(["hidden","head_dim"])");
    const ConfigParse back = ConfigFromJson(j, Config{});
    CHECK(back.diagnostics.empty());
    CHECK(ConfigToJson(back.config).Dump() == j.Dump());
    // A launch command does not point a customised model at the preset's Hub repo.
    Config infer = c;
    infer.mode = Mode::kInference;
    CHECK(ExportLaunch(infer, LaunchTarget::kVllm).find("meta-llama/") == std::string::npos);
    infer.model = DefaultConfig().model;
    CHECK(ExportLaunch(infer, LaunchTarget::kVllm).find("meta-llama/") != std::string::npos);
  }
}

TEST_CASE("Model changes: a custom model has no preset to differ from; its link carries its fields") {
  Config c = DefaultConfig();
  c.model = ModelSpec{};
  c.model.hidden = 2048;
  c.model.heads = 16;
  c.model.head_dim = 128;
  CHECK(CustomisedFields(c.model).empty());
  CHECK(PresetNote(c.model).empty());
  const std::vector<const FieldDef*> changed = ChangedModelFields(c.model);
  REQUIRE(changed.size() == 2);
  CHECK(std::string(changed[0]->name) == "hidden");
  CHECK(std::string(changed[1]->name) == "heads");
  // heads changed: kv_heads and head_dim are stated too, or reading the link would derive them.
  CHECK(ConfigToQuery(c).find("model=custom&hidden=2048&heads=16&kv_heads=32&head_dim=128") != std::string::npos);
}

TEST_CASE("Model changes: a renamed preset is not customised (the name is a label)") {
  Config c = DefaultConfig();
  c.model.name = "mine";
  CHECK_FALSE(IsCustomised(c.model));
  CHECK(ConfigToQuery(c) == "v=1&model=llama-3.1-8b&name=mine");
}

#if LLMMEM_TEST_CLI
TEST_CASE("Model changes: the CLI agrees with links and the JS API (--hidden keeps the preset)") {
  for (const char* hidden : {"4096", "5120"}) {
    CAPTURE(hidden);
    const llmmem::cli::CliParse cli = llmmem::cli::ParseCli({"--model", "llama-3.1-8b", "--hidden", hidden}, nullptr);
    REQUIRE_FALSE(HasErrors(cli.diagnostics));
    for (const Config& c : Edited(hidden)) {
      CHECK(cli.options.config.model.preset == c.model.preset);
      CHECK(CustomisedFields(cli.options.config.model) == CustomisedFields(c.model));
      CHECK(ConfigToJson(cli.options.config)["model"].Dump() == ConfigToJson(c)["model"].Dump());
    }
  }
}
#endif
