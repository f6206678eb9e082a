// The UI's two languages (app/i18n.h): the page's Chinese column (llmmem-zh.json, written
// by scripts/fonts.py from strings.cpp) says exactly what the compiled table says; strings
// added at run time are looked up as the compiled ones; the core's phrases render to the
// text the CLI prints, and every phrase of a peak note has its Chinese row.
#include <doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "app/i18n.h"
#include "core/base/phrase.h"
#include "core/catalogue/embedded.h"
#include "core/parse/json.h"
#include "setups.h"

namespace llmmem::test {
extern const core::EmbeddedFile kEmbeddedTestData[];
}  // namespace llmmem::test

using namespace llmmem::test;
using llmmem::app::Lang;

namespace {

std::string ZhJson() {
  for (const EmbeddedFile* f = kEmbeddedTestData; f->name != nullptr; ++f)
    if (std::strcmp(f->name, "llmmem-zh.json") == 0) return f->Text();
  return "";
}

// Every template of a phrase (not its values), depth first.
void Templates(const Phrase& p, std::vector<std::string>& out) {
  if (p.value) return;
  out.push_back(p.text);
  for (const Phrase& a : p.args) Templates(a, out);
}

// Whether the compiled table has a Chinese row for `en`.
bool HasRow(const std::string& en) {
  for (const llmmem::app::Translation* r = llmmem::app::kStrings; r->en != nullptr; ++r)
    if (en == r->en) return r->zh != nullptr && r->zh[0] != 0;
  return false;
}

int Conversions(const std::string& format) {
  int n = 0;
  for (size_t i = 0; i + 1 < format.size(); ++i) {
    if (format[i] != '%') continue;
    if (format[i + 1] != '%') ++n;
    ++i;
  }
  return n;
}

}  // namespace

TEST_CASE("i18n: the page's llmmem-zh.json holds exactly the compiled table's Chinese column") {
  const JsonParseResult doc = ParseJson(ZhJson());
  REQUIRE_MESSAGE(doc.ok, doc.error);
  REQUIRE(doc.value.IsObject());
  size_t rows = 0;
  for (const llmmem::app::Translation* r = llmmem::app::kStrings; r->en != nullptr; ++r) {
    if (r->zh == nullptr || r->zh[0] == 0) continue;
    ++rows;
    const Json* zh = doc.value.Find(r->en);
    CHECK_MESSAGE(zh != nullptr, "no \"", r->en, "\" in llmmem-zh.json");
    if (zh != nullptr) CHECK(zh->AsString() == r->zh);
  }
  CHECK(doc.value.AsObject().size() == rows);
  CHECK(rows > 500);
}

TEST_CASE("i18n: each row keeps its format conversions, as many in both columns") {
  for (const llmmem::app::Translation* r = llmmem::app::kStrings; r->en != nullptr; ++r) {
    const std::string en = r->en, zh = r->zh != nullptr ? r->zh : "";
    CHECK_MESSAGE(Conversions(en) == Conversions(zh), "\"", en, "\" -> \"", zh, "\"");
  }
}

TEST_CASE("i18n: rows added at run time are looked up as the compiled ones") {
  std::string error;
  CHECK(llmmem::app::AddTranslations("[1, 2]", &error) == -1);
  CHECK(!error.empty());
  CHECK(llmmem::app::AddTranslations("{\"x\": ", &error) == -1);
  CHECK(llmmem::app::AddTranslations(R"({"A test-only row": "只供测试的一行", "skipped": 3})", &error) == 1);
  llmmem::app::SetLang(Lang::kZh);
  CHECK(std::string(llmmem::app::Tr("A test-only row")) == "只供测试的一行");
  CHECK(std::string(llmmem::app::Tr("skipped")) == "skipped");
  // The page's own file, taken at run time, leaves every compiled row as it was.
  CHECK(llmmem::app::AddTranslations(ZhJson(), &error) > 500);
  for (const llmmem::app::Translation* r = llmmem::app::kStrings; r->en != nullptr; ++r)
    if (r->zh != nullptr && r->zh[0] != 0) CHECK(std::string(llmmem::app::Tr(r->en)) == r->zh);
  CHECK(llmmem::app::HasTranslations());
  llmmem::app::SetLang(Lang::kEn);
  CHECK(std::string(llmmem::app::Tr("A test-only row")) == "A test-only row");
}

TEST_CASE("Phrases: templates filled in order, nested, %% a percent sign; values never translated") {
  const Phrase p = Say("%s of %s (%s%%)", {"1 GB", Say("the first %s", {"stage"}), "50"});
  CHECK(Render(p) == "1 GB of the first stage (50%)");
  CHECK(Render(std::vector<Phrase>{Say("One."), Say("Two %s.", {"%s"})}, " ") == "One. Two %s.");
  const auto upper = [](const char* en) -> const char* { return std::strcmp(en, "the first %s") == 0 ? "THE FIRST %s" : en; };
  CHECK(Render(p, upper) == "1 GB of THE FIRST stage (50%)");
  CHECK(Render(Say("%s and %s", {"a"})) == "a and ");  // a missing argument: nothing
}

TEST_CASE("Phrases: a peak note renders to the text the CLI prints, and in Chinese every phrase has a row") {
  const std::vector<Config> cases = {
      WithSettings("llama-3.1-8b", {}),
      WithSettings("llama-3.1-8b", {{"mode", "inference"}}),
      WithSettings("llama-3.1-8b", {{"mode", "rlhf"}}),
      WithSettings("llama-3.1-8b", {{"pp", "4"}, {"grad_accum", "8"}}),
      WithSettings("llama-3.1-8b", {{"pp", "2"}, {"mode", "inference"}}),
      WithSettings("llama-3.1-8b", {{"offload_optimizer", "nvme"}, {"offload_params", "nvme"}, {"zero", "3"}, {"dp", "4"}}),
      WithSettings("llama-3.1-8b", {{"offload_optimizer", "cpu"}, {"zero", "3"}, {"dp", "4"}}),
      WithSettings("qwen2.5-7b", {{"mode", "inference"}, {"runtime", "vllm"}}),
      WithSettings("qwen2.5-7b", {{"mode", "inference"}, {"runtime", "sglang"}}),
      WithSettings("llama-3.1-8b", {{"mode", "inference"}, {"runtime", "llama.cpp"}, {"dtype", "q4_k_m"}, {"gpu_layers", "-1"}}),
      WithSettings("llama-3.1-8b", {{"mode", "inference"}, {"runtime", "llama.cpp"}, {"dtype", "q4_k_m"}, {"gpu_layers", "20"}}),
      FmsAccelerationPeft("llama-2-70b", {{"mode", "qlora"}, {"batch", "2"}, {"dp", "2"}, {"zero", "3"}, {"sharding", "fsdp"},
                                          {"fsdp1", "1"}, {"autocast", "bf16"}, {"loss_shift_copy", "1"}}),
  };
  bool fsdp1 = false, pipeline = false, serving = false, allocator = false;
  for (const Config& c : cases) {
    const Estimate e = Explain(c);
    REQUIRE_MESSAGE(e.totals.ok, ConfigToQuery(c));
    std::vector<Phrase> whole = e.peak_phrases;
    whole.insert(whole.end(), e.peak_detail_phrases.begin(), e.peak_detail_phrases.end());
    CHECK(Render(whole, " ") == e.peak_note);
    // The main path names no C++ file: the allocator's detail and its source come with the formulas.
    CHECK(Render(e.peak_phrases, " ").find("CUDACachingAllocator") == std::string::npos);
    allocator |= !e.peak_detail_phrases.empty();
    std::vector<std::string> templates;
    for (const Phrase& p : whole) Templates(p, templates);
    for (const std::string& t : templates) CHECK_MESSAGE(HasRow(t), "\"", t, "\" has no row in src/app/strings.cpp");
    fsdp1 |= e.peak_note.find("FSDP1") != std::string::npos;
    pipeline |= e.peak_note.find("Pipeline") != std::string::npos;
    serving |= e.peak_note.find("-ngl") != std::string::npos;
    llmmem::app::SetLang(Lang::kZh);
    const std::string zh = llmmem::app::TrSentences(e.peak_phrases);
    llmmem::app::SetLang(Lang::kEn);
    CHECK(zh != e.peak_note);
    CHECK(zh.find("Peak at") == std::string::npos);
  }
  CHECK(fsdp1);
  CHECK(allocator);  // the default training case keeps the logits' block cached at the loss
  CHECK(pipeline);
  CHECK(serving);
}
