// Issue 14, hostile and odd input: the properties that rule out silent nonsense (what the
// solver proposes the estimate accepts, each remedy lowers the total, a costlier ZeRO
// stage says why, the breakdown adds up on each device, every setting that changes the
// result is one FieldsInEffect lists), and the text and parsing rules (safe_text.h, strict
// numbers and JSON types, GGUF facts and tallies that are not counts).
#include <doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "core/solve/doctor.h"
#include "core/report/export.h"
#include "core/solve/field_effect.h"
#include "core/config/fields.h"
#include "core/parse/json.h"
#include "core/report/result_json.h"
#include "core/base/safe_text.h"
#include "core/parse/weight_headers.h"
#include "setups.h"
#include "weight_file_builders.h"

using namespace llmmem::test;

namespace {

// Random configurations over presets (with their position tables and contexts) and the
// settings the issue's findings combine: modes, ZeRO stages, dp = 1, offload, sequences past
// the model's context.
Config RandomSetup(std::mt19937_64& rng) {
  auto pick = [&](std::initializer_list<int64_t> xs) { return *(xs.begin() + rng() % xs.size()); };
  static const char* const kPresets[] = {"llama-3.1-8b",      "gpt2",       "qwen2.5-7b",       "mixtral-8x7b",
                                         "bert-base-uncased", "gemma-2-9b", "deepseek-v2-lite", "falcon-7b"};
  Config c = DefaultConfig();
  const Preset* p = FindPreset(kPresets[rng() % (sizeof kPresets / sizeof kPresets[0])]);
  if (p != nullptr && p->ok) c.model = p->model;
  c.mode = DrawEnum<Mode>(rng);
  c.batch = pick({1, 2, 8, 32});
  c.seq = pick({256, 1024, 4096, 32768});
  c.dp = pick({1, 1, 2, 8});
  c.zero = static_cast<int>(pick({0, 1, 2, 3}));
  c.tp = pick({1, 1, 2});
  c.recompute = static_cast<Recompute>(pick({0, 1, 2}));
  c.offload_optimizer = static_cast<Offload>(pick({0, 0, 1}));
  c.offload_params = c.zero == 3 && c.mode != Mode::kInference ? static_cast<Offload>(pick({0, 0, 1})) : Offload::kNone;
  c.gpu_memory_gb = static_cast<double>(pick({16, 24, 40, 80}));
  c.gpu = "custom";
  return c;
}

double LeavesOn(const BreakdownNode& n, Device d) {
  if (n.children.empty()) return n.device == d ? n.bytes : 0;
  double sum = 0;
  for (const BreakdownNode& c : n.children) sum += LeavesOn(c, d);
  return sum;
}

}  // namespace

TEST_CASE("Property: everything fit proposes is accepted by the estimate and fits") {
  std::mt19937_64 rng(1401);
  int proposals = 0;
  for (int i = 0; i < 150; ++i) {
    const Config c = RandomSetup(rng);
    if (!EstimateTotals(c).ok) continue;
    const double cap = CapacityBytes(c);
    auto accepted = [&](const Config& x, const char* what) {
      ++proposals;
      const Estimate e = Explain(x);
      CAPTURE(what);
      CAPTURE(ConfigToQuery(x));
      CHECK(e.totals.ok);
      CHECK(e.totals.peak_bytes <= cap);
    };
    if (const int64_t b = MaxMicroBatch(c, cap); b > 0) {
      Config x = c;
      x.batch = b;
      accepted(x, "max micro-batch");
    }
    if (const int64_t s = MaxSequence(c, cap); s > 0) {
      Config x = c;
      x.seq = s;
      accepted(x, "max sequence");
    }
    if (c.mode != Mode::kInference) {
      const FitGpus f = MinDataParallel(c, cap);
      if (f.possible) {
        Config x = c;
        x.dp = f.min_dp;
        x.zero_group = 0;
        accepted(x, "fewest GPUs");
      }
    }
    const FitFormats ff = CheapestInferenceFormats(c, cap);
    if (ff.found) {
      Config x = c;
      x.mode = Mode::kInference;
      x.offload_params = Offload::kNone;
      x.dtype = ff.dtype;
      x.kv_dtype = ff.kv_dtype;
      accepted(x, "inference formats");
    }
  }
  CHECK(proposals > 150);
}

TEST_CASE("Property: every remedy the doctor proposes is valid and lowers the total") {
  std::mt19937_64 rng(1402);
  int remedies = 0;
  for (int i = 0; i < 120; ++i) {
    const Config c = RandomSetup(rng);
    const Estimate base = Explain(c);
    if (!base.totals.ok) continue;
    for (const Remedy& r : Diagnose(c)) {
      ++remedies;
      CAPTURE(r.id);
      CAPTURE(ConfigToQuery(c));
      const Estimate after = Explain(r.config);
      REQUIRE(after.totals.ok);
      CHECK(after.totals.peak_bytes < base.totals.peak_bytes);
      CHECK(after.totals.peak_bytes == r.peak_bytes);
    }
  }
  CHECK(remedies > 100);
}

TEST_CASE("Property: a higher ZeRO stage that needs more than a lower one says why") {
  std::mt19937_64 rng(1403);
  int costlier = 0;
  for (int i = 0; i < 300; ++i) {
    Config c = RandomSetup(rng);
    if (c.mode == Mode::kInference) c.mode = Mode::kTraining;
    if (c.zero == 0) c.zero = 3;
    const Totals t = EstimateTotals(c);
    if (!t.ok) continue;
    bool lower_is_less = false;
    for (int z = 0; z < c.zero; ++z) {
      Config lower = c;
      lower.zero = z;
      if (z < 3) lower.offload_params = Offload::kNone;
      const Totals lt = EstimateTotals(lower);
      lower_is_less |= lt.ok && lt.peak_bytes < t.peak_bytes;
    }
    const Estimate e = Explain(c);
    const bool said = std::any_of(e.diagnostics.begin(), e.diagnostics.end(),
                                  [](const Diagnostic& d) { return d.id == DiagId::kCostsMore && d.field == "zero"; });
    CAPTURE(ConfigToQuery(c));
    CHECK(said == lower_is_less);
    costlier += lower_is_less;
  }
  CHECK(costlier > 10);
  // The issue's example: dp = 1, ZeRO-3 above ZeRO-0, the buffers named.
  Config c = DefaultConfig();
  c.zero = 3;
  const Estimate e = Explain(c);
  REQUIRE(e.totals.ok);
  bool found = false;
  for (const Diagnostic& d : e.diagnostics) {
    if (d.id != DiagId::kCostsMore) continue;
    found = true;
    CHECK(d.message.find("nothing to shard") != std::string::npos);
    CHECK(d.message.find("Buffers and workspaces") != std::string::npos);
  }
  CHECK(found);
}

TEST_CASE("Property: the breakdown's leaves sum to each device's total, each leaf naming its device") {
  std::mt19937_64 rng(1404);
  int checked = 0, offloaded = 0;
  for (int i = 0; i < 200; ++i) {
    const Config c = RandomSetup(rng);
    const Estimate e = Explain(c);
    if (!e.totals.ok) continue;
    ++checked;
    CHECK(LeavesOn(e.tree, Device::kGpu) == e.totals.peak_bytes);
    CHECK(LeavesOn(e.tree, Device::kCpu) == doctest::Approx(e.tree.cpu_bytes));
    CHECK(LeavesOn(e.tree, Device::kNvme) == doctest::Approx(e.tree.nvme_bytes));
    offloaded += e.tree.cpu_bytes > 0;
    // Every leaf of the JSON says where it lives.
    const Json j = EstimateToJson(c, e);
    std::vector<const Json*> stack{&j.AsObject().at("breakdown")};
    while (!stack.empty()) {
      const Json* n = stack.back();
      stack.pop_back();
      const Json* kids = n->Find("children");
      if (kids == nullptr) {
        REQUIRE(n->Find("device") != nullptr);
        const std::string d = n->Find("device")->AsString();
        CHECK((d == "gpu" || d == "cpu" || d == "nvme"));
      } else {
        for (const Json& k : kids->AsArray()) stack.push_back(&k);
      }
    }
  }
  CHECK(checked > 100);
  CHECK(offloaded > 5);
}

TEST_CASE("Property: every workload setting that changes the result is in FieldsInEffect") {
  std::mt19937_64 rng(1405);
  const Config defaults = DefaultConfig();
  for (int i = 0; i < 60; ++i) {
    Config c = RandomSetup(rng);
    // Settings a link can carry that the mode may hide.
    c.pp = static_cast<int64_t>(rng() % 2 + 1);
    c.prefetch_bucket = rng() % 2 ? 5e8 : c.prefetch_bucket;
    c.offload_activations = rng() % 2;
    const std::vector<std::string> listed = FieldsInEffect(c);
    const Totals base = EstimateTotals(c);
    for (const FieldDef& f : Fields()) {
      if (f.model_field || f.get(c) == f.get(defaults)) continue;
      Config reset = c;
      f.set(reset, f.get(defaults));
      if (std::string(f.name) == "gpu") reset.gpu_memory_gb = c.gpu_memory_gb;
      const Totals r = EstimateTotals(reset);
      const bool changes = r.ok != base.ok || r.peak_bytes != base.peak_bytes || r.cpu_bytes != base.cpu_bytes ||
                           r.nvme_bytes != base.nvme_bytes || r.trainable_params != base.trainable_params ||
                           r.capacity_bytes != base.capacity_bytes;
      // With no estimate, a setting an error names counts too (FieldsInEffect).
      bool refused = false;
      if (!base.ok)
        for (const Diagnostic& d : Validate(c)) refused |= d.severity == Severity::kError && d.field == f.name;
      const std::string name = f.name;
      CAPTURE(name);
      CHECK((changes || refused) == (std::find(listed.begin(), listed.end(), f.name) != listed.end()));
    }
  }
}

TEST_CASE("FieldsInEffect: two settings refused at once are both listed, so neither hides") {
  // fsdp1 without FSDP sharding and GPTBigCode's cache without full recompute: resetting
  // either alone still leaves no estimate, yet each must stay in view with its reset.
  Config c = DefaultConfig();
  c.mode = Mode::kLora;
  c.recompute = Recompute::kNone;
  c.train_use_cache = true;
  c.dp = 2;
  c.sharding = Sharding::kDeepSpeed;
  c.fsdp1 = true;
  REQUIRE_FALSE(EstimateTotals(c).ok);
  const std::vector<std::string> listed = FieldsInEffect(c);
  for (const char* f : {"train_use_cache", "fsdp1"}) {
    CAPTURE(f);
    CHECK(std::find(listed.begin(), listed.end(), f) != listed.end());
  }
}

TEST_CASE("Hostile: parameter offload in inference is refused; the solver stops at the position table") {
  Config c = DefaultConfig();
  const Preset* big = FindPreset("llama-3.1-405b");
  REQUIRE(big != nullptr);
  c.model = big->model;
  c.mode = Mode::kInference;
  c.offload_params = Offload::kCpu;
  const Estimate e = Explain(c);
  CHECK_FALSE(e.totals.ok);
  REQUIRE_FALSE(e.diagnostics.empty());
  CHECK(e.diagnostics[0].field == "offload_params");
  CHECK_FALSE(EstimateTotals(c).ok);

  Config g = DefaultConfig();
  g.model = FindPreset("gpt2")->model;
  g.mode = Mode::kInference;
  g.seq = 512;
  const int64_t s = MaxSequence(g, 1e12);
  CHECK(s == g.model.learned_positions);
  g.seq = s + 1;
  CHECK_FALSE(EstimateTotals(g).ok);
}

TEST_CASE("Safe text: cuts, invalid UTF-8, control characters, echoes, Markdown and CSV") {
  const std::string e_acute = "\xC3\xA9";
  CHECK(CutUtf8("ab" + e_acute, 3) == "ab");
  CHECK(CutUtf8("ab" + e_acute, 4) == "ab" + e_acute);
  CHECK(Utf8CompleteLength("ab\xE2\x82") == 2);
  CHECK(Utf8CompleteLength("ab\xE2\x82\xAC") == 5);
  CHECK(ValidUtf8("a\xFF"
                  "b") ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(ValidUtf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // an overlong '/'
  CHECK(TerminalSafe("x\x1b]0;t\x07\ry") == "x\\x1b]0;t\\x07\\ry");
  CHECK(TerminalSafe("\xC2\x9B"
                     "31m") == "\\u{9b}31m");
  CHECK(TerminalSafe("a\xE2\x80\xAE"
                     "b") == "a\\u{202e}b");
  CHECK(TerminalSafe("line\n\tnext", true) == "line\n\tnext");
  CHECK(TerminalSafe("\xFF") == "\\xff");
  const std::string big(100000, 'x');
  const std::string echo = EchoValue(big);
  CHECK(echo.size() < 100);
  CHECK(echo.find("(100000 bytes)") != std::string::npos);
  CHECK(MarkdownSafe("<img src=x onerror=alert(1)>|[a](b)") == "&lt;img src=x onerror=alert(1)&gt;\\|\\[a\\](b)");
  CHECK(CsvTextSafe("=HYPERLINK(\"x\")") == "'=HYPERLINK(\"x\")");
  CHECK(CsvTextSafe("@SUM(A1)") == "'@SUM(A1)");
  CHECK(CsvTextSafe("Weights") == "Weights");
}

TEST_CASE("Hostile: JSON output is valid UTF-8 whatever the strings hold") {
  Json j(Json::Object{});
  j["name"] = Json(std::string("cut\xE2\x82") + "\x1b\xC2\x9B\xE2\x80\xAE\xE2\x80\xA8");
  const std::string out = j.Dump();
  CHECK(out == "{\"name\":\"cut\\ufffd\\ufffd\\u001b\\u009b\\u202e\\u2028\"}");
  CHECK(ValidUtf8(out) == out);
  const JsonParseResult back = ParseJson(out);
  REQUIRE(back.ok);
  // The name setter cuts at 200 bytes on a character boundary.
  Config c = DefaultConfig();
  Diagnostics d;
  REQUIRE(SetField(c, "name", std::string(199, 'x') + "\xC3\xA9", d));
  CHECK(c.model.name == std::string(199, 'x'));
  // The exports escape what a name carries.
  c.model.name = "<b>x</b>|\x1b[2J";
  const Estimate e = Explain(c);
  const std::string md = EstimateToMarkdown(c, e);
  CHECK(md.find("<b>") == std::string::npos);
  CHECK(md.find('\x1b') == std::string::npos);
}

TEST_CASE("Hostile: numbers are plain decimals, JSON values have their field's type") {
  for (const char* bad : {"0x10", " 0x1p10", " 8", "8 ", "+8", "inf", "nan", "1e", ".5", "08", "1_000", "８"}) {
    Config c = DefaultConfig();
    Diagnostics d;
    CAPTURE(bad);
    CHECK_FALSE(SetField(c, "batch", bad, d));
    CHECK(c.batch == DefaultConfig().batch);
  }
  for (const char* ok : {"8", "1e3", "0", "-0", "2.0"}) {
    Config c = DefaultConfig();
    Diagnostics d;
    CAPTURE(ok);
    CHECK(SetField(c, "cuda_context_gb", ok, d));
  }
  for (const char* doc :
       {R"({"batch": true})", R"({"batch": "8"})", R"({"flash_attn": 1})", R"({"mode": 3})", R"({"batch": null})",
        R"({"batch": [8]})", R"({"model": {"hidden": "4096"}})", R"({"model": {"preset": 5}})"}) {
    const ConfigParse p = ConfigFromJsonText(doc, DefaultConfig());
    CAPTURE(doc);
    REQUIRE(HasErrors(p.diagnostics));
    CHECK((p.diagnostics[0].id == DiagId::kWrongType));
  }
  const ConfigParse unknown = ConfigFromJsonText(R"({"batch": 2, "bogus": 1, "model": {"nope": 2}})", DefaultConfig());
  CHECK_FALSE(HasErrors(unknown.diagnostics));
  CHECK(unknown.diagnostics.size() == 2);
  for (const Diagnostic& d : unknown.diagnostics) CHECK(d.id == DiagId::kUnknownKey);
  // A BOM and invalid UTF-8 are named as what they are.
  CHECK(ParseJson("\xEF\xBB\xBF{}").error.find("byte-order mark") != std::string::npos);
  CHECK(ParseJson("{\"a\": \"\xFF\"}").error.find("UTF-8") != std::string::npos);
  CHECK(ParseJson("{\"a\": \x1b}").error.find("\\x1b") != std::string::npos);
  // An escape of a raw byte is shown as \xNN, not sent (fuzz_safetensors_struct found it).
  const std::string bad_escape = ParseJson("{\"a\": \"\\\xff\"}").error;
  CHECK(bad_escape.find("\\xff") != std::string::npos);
  CHECK(ValidUtf8(bad_escape) == bad_escape);
}

TEST_CASE("Hostile: a link's card and memory that disagree make a custom card, said in a note") {
  const ConfigParse q = ConfigFromQuery("v=1&gpu=H100-SXM-80GB&gpu_memory_gb=24", DefaultConfig());
  CHECK_FALSE(HasErrors(q.diagnostics));
  CHECK(q.config.gpu == "custom");
  CHECK(q.config.gpu_memory_gb == 24);
  REQUIRE(q.diagnostics.size() == 1);
  CHECK(q.diagnostics[0].field == "gpu");
  // A custom card's link reads back as itself.
  const ConfigParse back = ConfigFromQuery(ConfigToQuery(q.config), DefaultConfig());
  CHECK(back.diagnostics.empty());
  CHECK(back.config.gpu == "custom");
  CHECK(back.config.gpu_memory_gb == 24);
  // A card with its own memory is no conflict.
  const ConfigParse a100 = ConfigFromQuery("v=1&gpu=A100-SXM-40GB&gpu_memory_gb=42.94967296", DefaultConfig());
  CHECK(a100.diagnostics.empty());
  CHECK(a100.config.gpu == "A100-SXM-40GB");
}

TEST_CASE("Hostile: GGUF model facts that are not counts are refused; totals stay below 2^63") {
  using namespace llmmem::test::weight_files;
  for (const auto& kv :
       std::vector<std::pair<std::string, int64_t>>{{"llama.block_count", -5},
                                                    {"llama.embedding_length", -1},
                                                    {"general.parameter_count", -8400000000000000000}}) {
    const std::string key = kv.first;
    const int64_t value = kv.second;
    Gguf g;
    g.KvStr("general.architecture", "llama");
    g.KvRaw(key, kI64, weight_files::Bytes().U64(static_cast<uint64_t>(value)).b);
    const WeightHeaderResult r = Parse(g.Build());
    CAPTURE(key);
    CheckError(r, WeightIssue::kBadSize, "negative");
  }
  {
    Gguf g;
    g.KvStr("general.architecture", "llama");
    g.KvU64("llama.block_count", ~0ull);
    CheckError(Parse(g.Build()), WeightIssue::kBadSize, "63 bits");
  }
  {
    // Two tensors of 2^62 elements each: 2^63 parameters, one past int64.
    Gguf g;
    g.Tensor({"a", {1ull << 31, 1ull << 31}, 24, 1ull << 62});  // I8: one byte per element
    g.Tensor({"b", {1ull << 31, 1ull << 31}, 24, 1ull << 62});
    CheckError(Parse(g.Build(false), 1ull << 63), WeightIssue::kBadSize, "2^63");
  }
  // Names echoed in messages are escaped and capped.
  Gguf n;
  n.Tensor({std::string("\x1b]0;x\x07") + std::string(500, 'n'), {32}, 99, 0});
  const WeightHeaderResult r = Parse(n.Build());
  REQUIRE(r.status == WeightHeaderStatus::kError);
  CHECK(r.message.find('\x1b') == std::string::npos);
  CHECK(r.message.size() < 400);
}

TEST_CASE("Hostile: safetensors length prefixes and odd files name their real cause") {
  using namespace llmmem::test::weight_files;
  weight_files::Bytes huge;
  huge.U64(~0ull).Raw("{}");
  CheckError(Parse(huge.b), WeightIssue::kHeaderTooLarge, "declares");
  CheckError(Parse(std::string("\xEF\xBB\xBF{\"weights\": {}}")), WeightIssue::kMissingField, "weight_map");
  // The incremental reader, fed one byte at a time, gives what one read gives.
  const std::string file = SampleGgufBuilder().Build();
  WeightHeaderReader reader(file.size());
  size_t feeds = 0;
  while (reader.status() == WeightHeaderStatus::kNeedMoreBytes) {
    REQUIRE(++feeds < 100000);
    REQUIRE(reader.next_offset() < file.size());
    reader.Feed(reinterpret_cast<const uint8_t*>(file.data()) + reader.next_offset(), 1);
  }
  const WeightHeaderResult whole = Parse(file);
  REQUIRE(reader.result().ok());
  CHECK(reader.result().parameter_count == whole.parameter_count);
  CHECK(reader.result().weight_bytes == whole.weight_bytes);
  CHECK(reader.result().metadata == whole.metadata);
}
