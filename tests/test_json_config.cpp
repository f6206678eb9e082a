// JSON parsing, Config <-> JSON / URL round trips, and tolerant loading that keeps
// everything valid the user typed.
#include <doctest.h>

#include <algorithm>

#include "core/config/config_json.h"
#include "core/import/hf_config.h"
#include "core/parse/json.h"
#include "core/config/gpu_count.h"
#include "core/config/validate.h"
#include "core/catalogue/presets.h"
#include "setups.h"
#if LLMMEM_TEST_CLI
#include "cli/cli_args.h"
#endif

using namespace llmmem::test;

TEST_CASE("JSON: parse errors carry a position; depth and size are bounded") {
  JsonParseResult r = ParseJson("{\n  \"a\": [1, 2,, 3]\n}");
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("line 2") != std::string::npos);
  CHECK_FALSE(ParseJson(std::string(100, '[') + std::string(100, ']')).ok);
  CHECK_FALSE(ParseJson("NaN").ok);
  CHECK_FALSE(ParseJson("1e999").ok);
  CHECK_FALSE(ParseJson("\"\\ud800\"").ok);
  r = ParseJson("{\"s\": \"\\u00e9\\ud83d\\ude00\", \"n\": -1.5e3, \"t\": true, \"z\": null}");
  REQUIRE(r.ok);
  CHECK(r.value.Find("s")->AsString() == "\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(r.value.Find("n")->AsNumber() == -1500);
  CHECK(ParseJson(r.value.Dump()).value.Dump() == r.value.Dump());
}

TEST_CASE("Config: JSON round trip keeps every field") {
  Config c = DefaultConfig();
  c.mode = Mode::kQlora;
  c.batch = 7;
  c.seq = 12345;
  c.recompute = Recompute::kSelective;
  c.lora_targets = kLoraQ | kLoraV;
  c.fragmentation_pct = 7.5;
  c.kv_dtype = Dtype::kFp8;
  const ConfigParse back = ConfigFromJson(ConfigToJson(c), Config{});
  CHECK(back.diagnostics.empty());
  CHECK(ConfigToJson(back.config).Dump() == ConfigToJson(c).Dump());
  CHECK(back.config.model.preset == kDefaultPreset);
}

TEST_CASE("Config: URL query round trip, compact, versioned") {
  Config c = DefaultConfig();
  CHECK(ConfigToQuery(c) == "v=1&model=llama-3.1-8b");
  c.batch = 4;
  c.mode = Mode::kInference;
  c = Followed(c);  // inference takes no training program's precision
  c.model = FindPreset("qwen2.5-7b")->model;
  const std::string q = ConfigToQuery(c);
  CHECK(q == "v=1&model=qwen2.5-7b&mode=infer&batch=4");
  const ConfigParse back = ConfigFromQuery("#" + q, DefaultConfig());
  CHECK(back.diagnostics.empty());
  CHECK(ConfigToQuery(back.config) == q);
  // A custom model carries its dimensions.
  Config custom = DefaultConfig();
  custom.model.hidden = 5120;
  custom.model.preset.clear();
  const ConfigParse again = ConfigFromQuery(ConfigToQuery(custom), DefaultConfig());
  CHECK(again.config.model.hidden == 5120);
  CHECK(again.config.model.layers == custom.model.layers);
}

TEST_CASE("Config: the implementation profile and activation function travel in links and JSON") {
  Config c = DefaultConfig();
  CHECK(c.framework == Framework::kHfSdpa);  // transformers' default attention
  c.framework = Framework::kLiger;
  const std::string q = ConfigToQuery(c);
  CHECK(q == "v=1&model=llama-3.1-8b&framework=liger");
  CHECK(ConfigFromQuery(q, DefaultConfig()).config.framework == Framework::kLiger);
  Config custom = DefaultConfig();
  custom.model.act = ActivationFn::kGeluNew;
  custom.model.preset.clear();
  const ConfigParse back = ConfigFromJson(ConfigToJson(custom), Config{});
  CHECK(back.config.model.act == ActivationFn::kGeluNew);
  CHECK(ConfigFromQuery(ConfigToQuery(custom), DefaultConfig()).config.model.act == ActivationFn::kGeluNew);
  const ConfigParse bad = ConfigFromQuery("v=1&framework=pytorch", DefaultConfig());
  REQUIRE(!bad.diagnostics.empty());
  CHECK(bad.diagnostics[0].message.find("hf-eager, hf-sdpa, hf-flash2, megatron, liger") != std::string::npos);
}

TEST_CASE("HF import: the activation function comes from hidden_act / activation_function") {
  const HfImport gpt2 =
      ImportHfConfigText(R"({"model_type":"gpt2","vocab_size":50257,"n_embd":768,"n_layer":12,"n_head":12,
    "activation_function":"gelu_new"})",
                         "gpt2");
  REQUIRE(gpt2.ok);
  CHECK(gpt2.model.act == ActivationFn::kGeluNew);
  const HfImport gemma = ImportHfConfigText(R"({"model_type":"gemma2","vocab_size":256000,"hidden_size":2304,
    "num_hidden_layers":26,"num_attention_heads":8,"num_key_value_heads":4,"head_dim":256,"intermediate_size":9216,
    "hidden_activation":"gelu_pytorch_tanh"})",
                                            "gemma");
  REQUIRE(gemma.ok);
  CHECK(gemma.model.act == ActivationFn::kGeluTanh);
  const HfImport odd = ImportHfConfigText(R"({"model_type":"llama","vocab_size":32000,"hidden_size":4096,
    "num_hidden_layers":2,"num_attention_heads":32,"intermediate_size":11008,"hidden_act":"xielu"})",
                                          "odd");
  REQUIRE(odd.ok);  // a warning, not an error: counted as SiLU, and said so
  CHECK(odd.model.act == ActivationFn::kSilu);
  CHECK(!odd.diagnostics.empty());
}

TEST_CASE("Config: head_dim follows hidden / heads unless given, in JSON and links alike") {
  // The default model (Llama 3.1 8B) has head_dim 128 = 4096 / 32.
  REQUIRE(DefaultConfig().model.head_dim == 128);
  const ConfigParse json =
      ConfigFromJsonText(R"({"model": {"hidden": 1024, "heads": 16, "kv_heads": 16}})", DefaultConfig());
  CHECK(json.diagnostics.empty());
  CHECK(json.config.model.head_dim == 64);
  // MHA without biases: Q, K, V, O are each hidden x hidden, not hidden x (16 x 128).
  CHECK(CountParameters(json.config.model).attention == 4 * 1024 * 1024 * json.config.model.layers);
  const ConfigParse link = ConfigFromQuery("v=1&model=custom&hidden=1024&heads=16&kv_heads=16", DefaultConfig());
  CHECK(link.config.model.head_dim == 64);
  // Given explicitly, in either order, it stays.
  CHECK(ConfigFromJsonText(R"({"model": {"head_dim": 128, "hidden": 1024, "heads": 16}})", DefaultConfig())
            .config.model.head_dim == 128);
  CHECK(ConfigFromQuery("head_dim=128&hidden=1024&heads=16", DefaultConfig()).config.model.head_dim == 128);
  // A preset's own head_dim (Gemma 2: 256, not 3584 / 16) stays unless hidden or heads change.
  CHECK(ConfigFromQuery("model=gemma-2-9b&layers=10", DefaultConfig()).config.model.head_dim == 256);
  CHECK(ConfigFromQuery("model=gemma-2-9b&heads=28", DefaultConfig()).config.model.head_dim == 128);
  // A link keeps an explicit head_dim that differs from hidden / heads through a round trip.
  Config c = DefaultConfig();
  c.model.hidden = 2048;
  c.model.preset.clear();
  REQUIRE(c.model.head_dim == 128);
  CHECK(ConfigFromQuery(ConfigToQuery(c), DefaultConfig()).config.model.head_dim == 128);
  // hidden not a multiple of heads: head_dim cannot be derived, and the error names it.
  const ConfigParse odd = ConfigFromQuery("hidden=1000&heads=16&kv_heads=8", DefaultConfig());
  REQUIRE(odd.diagnostics.size() == 1);
  CHECK(odd.diagnostics[0].field == "model.head_dim");
  CHECK(odd.diagnostics[0].severity == Severity::kError);
}

TEST_CASE("Config: kv_heads follows heads unless given, never inherited from the model before (issue 29)") {
  // The reported case: a custom model (ModelSpec's defaults, 32 heads / 32 KV heads) with
  // 16 heads kept kv_heads 32 and failed "kv_heads (32) cannot exceed heads (16)".
  const ConfigParse custom = ConfigFromQuery("model=custom&hidden=1024&heads=16", DefaultConfig());
  CHECK(!HasErrors(custom.diagnostics));
  CHECK(custom.config.model.kv_heads == 16);  // one KV head per query head, as ModelSpec{} had
  CHECK(custom.config.model.head_dim == 64);
  CHECK(!HasErrors(Validate(custom.config)));
  // From Llama 3.1 8B (32 heads, 8 KV heads: groups of 4) the group size is kept.
  REQUIRE(DefaultConfig().model.kv_heads == 8);
  CHECK(ConfigFromQuery("heads=16", DefaultConfig()).config.model.kv_heads == 4);
  CHECK(ConfigFromQuery("heads=48", DefaultConfig()).config.model.kv_heads == 12);
  // A group size that does not divide the new heads: multi-head attention, said in a note.
  const ConfigParse mha = ConfigFromQuery("heads=6&hidden=768", DefaultConfig());
  CHECK(mha.config.model.kv_heads == 6);
  bool noted = false;
  for (const Diagnostic& d : mha.diagnostics) noted |= d.field == "model.kv_heads" && d.severity == Severity::kInfo;
  CHECK(noted);
  // Given, in either order and in every door, it stays.
  CHECK(ConfigFromQuery("kv_heads=2&heads=16", DefaultConfig()).config.model.kv_heads == 2);
  CHECK(ConfigFromJsonText(R"({"model": {"kv_heads": 2, "heads": 16}})", DefaultConfig()).config.model.kv_heads == 2);
  // The JSON door derives as the link door does.
  CHECK(ConfigFromJsonText(R"({"model": {"heads": 16}})", DefaultConfig()).config.model.kv_heads == 4);
  CHECK(ConfigFromJsonText(R"({"model": "custom", "heads": 16})", DefaultConfig()).config.model.kv_heads == 16);
  // A link of a changed heads states kv_heads, so reading it back gives the same model (the
  // fuzz harness fuzz_url found the round trip derive 10 where 8 was set).
  Config edited = DefaultConfig();
  edited.model.heads = 40;
  edited.model.head_dim = 128;
  REQUIRE(edited.model.kv_heads == 8);
  const std::string q = ConfigToQuery(edited);
  CHECK(ConfigFromQuery(q, DefaultConfig()).config.model.kv_heads == 8);
  CHECK(ConfigToQuery(ConfigFromQuery(q, DefaultConfig()).config) == q);
  // Heads unchanged: a preset's own kv_heads stays whatever else changes.
  CHECK(ConfigFromQuery("model=gemma-2-9b&layers=10", DefaultConfig()).config.model.kv_heads ==
        FindPreset("gemma-2-9b")->model.kv_heads);
}

TEST_CASE("HF import: GPT-2 and BERT start at their own context, not the default 4096 tokens") {
  for (const char* key : {"gpt2", "bert-base-uncased"}) {
    CAPTURE(key);
    const Preset* p = FindPreset(key);  // imported from the model's config.json by ImportHfConfig
    REQUIRE(p != nullptr);
    REQUIRE(p->ok);
    Config c = DefaultConfig();
    c.model = p->model;
    REQUIRE(c.seq == 4096);
    CHECK(HasErrors(Validate(c)));  // the learned position table is shorter
    Diagnostics notes;
    StartAtModelContext(c, notes);
    CHECK(c.seq == ModelContext(c.model));
    CHECK(c.seq == (std::string(key) == "gpt2" ? 1024 : 512));
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].severity == Severity::kInfo);
    CHECK(notes[0].field == "seq");
    CHECK_FALSE(HasErrors(Validate(c)));
    CHECK(EstimateTotals(c).ok);
  }
  // A shorter sequence is kept, and a model without a known context changes nothing.
  Config c = DefaultConfig();
  c.model = FindPreset("gpt2")->model;
  c.seq = 256;
  Diagnostics notes;
  StartAtModelContext(c, notes);
  CHECK(c.seq == 256);
  c.model = ModelSpec{};
  c.seq = 8192;
  StartAtModelContext(c, notes);
  CHECK(c.seq == 8192);
  CHECK(notes.empty());
}

TEST_CASE("Config: a bad field is reported and the rest of the link is kept") {
  const ConfigParse r =
      ConfigFromQuery("v=1&model=qwen2.5-7b&batch=zz&seq=8192&nonsense=1&recompute=sometimes", DefaultConfig());
  CHECK(r.config.model.preset == "qwen2.5-7b");
  CHECK(r.config.seq == 8192);
  CHECK(r.config.batch == DefaultConfig().batch);
  int errors = 0, warnings = 0;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.severity == Severity::kError) ++errors;
    if (d.severity == Severity::kWarning) ++warnings;
  }
  CHECK(errors == 2);    // batch, recompute
  CHECK(warnings == 1);  // nonsense
  // Out-of-range values are kept (not clamped) and flagged by Validate.
  const ConfigParse big = ConfigFromQuery("seq=1000000000", DefaultConfig());
  CHECK(big.config.seq == 1'000'000'000);
  CHECK(HasErrors(Validate(big.config)));
  CHECK_FALSE(EstimateTotals(big.config).ok);
}

TEST_CASE("HF import: a missing field is named, with a way to fill it in") {
  const HfImport r = ImportHfConfigText("{\"model_type\": \"llama\", \"vocab_size\": 32000}", "x");
  CHECK_FALSE(r.ok);
  bool named = false;
  for (const Diagnostic& d : r.diagnostics)
    named |= d.field == "hidden_size" && d.message.find("by hand") != std::string::npos;
  CHECK(named);
  CHECK_FALSE(ImportHfConfigText("{\"model_type\": \"mamba\"}", "x").ok);
  CHECK_FALSE(ImportHfConfigText("[1,2]", "x").ok);
  CHECK_FALSE(ImportHfConfigText("{\"model_type\": \"llama\", \"hidden_size\": \"big\"}", "x").ok);
}

TEST_CASE("Validation: absurd sizes are errors, never overflow") {
  Config c = DefaultConfig();
  c.model.layers = 1'000'000;
  CHECK(HasErrors(Validate(c)));
  c = DefaultConfig();
  c.model.params_override = static_cast<int64_t>(1e15);
  CHECK(HasErrors(Validate(c)));
  c = DefaultConfig();
  c.model.hidden = 1'048'576;
  c.model.ffn = 16'777'216;
  c.model.layers = 16'384;
  c.model.experts = 16'384;
  c.model.experts_per_token = 1;
  c.model.moe_ffn = 16'777'216;
  c.model.heads = 65536;
  c.model.kv_heads = 65536;
  const Diagnostics d = Validate(c);
  CHECK(HasErrors(d));
  CHECK_FALSE(EstimateTotals(c).ok);
  c = DefaultConfig();
  c.gpu_memory_gb = std::nan("");
  CHECK(HasErrors(Validate(c)));
  c = DefaultConfig();
  c.model.kv_heads = 7;
  CHECK(HasErrors(Validate(c)));
}

TEST_CASE("Validation: a sequence beyond the model's trained context is a warning, not an error") {
  Config c = DefaultConfig();
  REQUIRE(c.model.max_positions == 131072);  // Llama 3.1's config.json
  c.seq = 200000;
  const Diagnostics d = Validate(c);
  CHECK_FALSE(HasErrors(d));
  bool warned = false;
  for (const Diagnostic& x : d) warned |= x.field == "seq" && x.severity == Severity::kWarning;
  CHECK(warned);
  CHECK(EstimateTotals(c).ok);
  // A learned position table is a hard limit: GPT-2 has 1024 rows.
  c.model = FindPreset("gpt2")->model;
  c.seq = 4096;
  CHECK(HasErrors(Validate(c)));
  c.seq = 1024;
  CHECK_FALSE(HasErrors(Validate(c)));
}

TEST_CASE("Validation: integers too wide for a field are rejected, never wrapped") {
  // 2^32 + 1 would wrap to 1 in a 32-bit field: every integer field is 64-bit and range-checked.
  const ConfigParse r =
      ConfigFromQuery("zero=4294967297&norms_per_layer=4294967298&gptq_bits=4294967300", DefaultConfig());
  CHECK(r.config.zero == 4294967297);
  CHECK(r.config.model.norms_per_layer == 4294967298);
  CHECK(r.config.quant.gptq_bits == 4294967300);
  const Diagnostics d = Validate(r.config);
  int errors = 0;
  for (const Diagnostic& x : d) errors += x.severity == Severity::kError;
  CHECK(errors == 3);
}

// Issue 28: 8 MiB of "[0,0,...]" (4M values) took 0.5-1 GB as a tree and, under a memory
// limit, ended in std::bad_alloc. A value budget refuses it with a sentence, and each value
// is compact, so a document's memory stays within a small factor of its budget.
TEST_CASE("JSON: a dense document past the value budget is refused, each value compact") {
  std::string dense = "[";
  for (size_t i = 0; i < kJsonMaxValues; ++i) dense += "0,";
  dense += "0]";  // kJsonMaxValues + 1 numbers in one list: the list is one more value
  REQUIRE(dense.size() <= kJsonMaxBytes);
  const JsonParseResult r = ParseJson(dense);
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("more than 1048576 values") != std::string::npos);
  // Up to the budget it is read.
  const JsonParseResult within = ParseJson("[" + dense.substr(1, 2 * (kJsonMaxValues - 2)) + "0]");
  REQUIRE(within.ok);
  CHECK(within.value.AsArray().size() == kJsonMaxValues - 1);
  CHECK(sizeof(Json) <= 40);
  // The accessors of the wrong type answer empty, as before.
  const Json n(3.0);
  CHECK(n.AsString().empty());
  CHECK(n.AsArray().empty());
  CHECK(n.AsObject().empty());
  Json copy = within.value;
  copy.MutableArray().push_back(Json("x"));
  CHECK(within.value.AsArray().size() == kJsonMaxValues - 1);  // a copy is deep
}

TEST_CASE("HF import: 2025-2026 model types are rows of the table (issue 31)") {
  // Gemma 3's multimodal wrapper: the language model under text_config, most of it defaults.
  const HfImport gemma = ImportHfConfigText(
      R"({"model_type":"gemma3","text_config":{"hidden_size":2560,"intermediate_size":10240,
          "num_hidden_layers":34,"sliding_window":1024},"vision_config":{"hidden_size":1152,"image_size":896,
          "intermediate_size":4304,"num_hidden_layers":27,"patch_size":14}})",
      "g");
  REQUIRE(gemma.ok);
  CHECK(gemma.model.vocab == 262208);
  CHECK(gemma.model.vision_layers == 27);
  // Kimi K2 names DeepSeek-V3's layout kimi_k2; Qwen3.5 wraps a Gated DeltaNet text model.
  CHECK(ImportHfConfigText(R"({"model_type":"kimi_k2","vocab_size":163840,"hidden_size":7168,"num_hidden_layers":61,
      "num_attention_heads":64,"intermediate_size":18432,"kv_lora_rank":512,"qk_nope_head_dim":128,
      "qk_rope_head_dim":64,"v_head_dim":128})",
                            "k")
            .ok);
  const HfImport q35 = ImportHfConfigText(
      R"({"model_type":"qwen3_5","vision_config":{"depth":27},"text_config":{"model_type":"qwen3_5_text",
          "vocab_size":248320,"hidden_size":4096,"num_hidden_layers":8,"num_attention_heads":16,"num_key_value_heads":4,
          "head_dim":256,"intermediate_size":12288,"linear_num_key_heads":16,"linear_num_value_heads":32,
          "linear_key_head_dim":128,"linear_value_head_dim":128,"linear_conv_kernel_dim":4,
          "layer_types":["linear_attention","linear_attention","linear_attention","full_attention",
                         "linear_attention","linear_attention","linear_attention","full_attention"]}})",
      "q");
  REQUIRE(q35.ok);
  CHECK(q35.model.linear_layers == 6);
  bool vision_warned = false;
  for (const Diagnostic& d : q35.diagnostics) vision_warned |= d.field == "vision_config";
  CHECK(vision_warned);  // its vision tower is not counted, and the import says so
  // A layer kind the accounting does not know is refused by name, not counted as attention.
  const HfImport mamba = ImportHfConfigText(
      R"({"model_type":"qwen3_next","vocab_size":10,"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,
          "intermediate_size":128,"linear_num_key_heads":1,"linear_num_value_heads":1,"linear_key_head_dim":8,
          "linear_value_head_dim":8,"layer_types":["mamba","full_attention"]})",
      "m");
  CHECK_FALSE(mamba.ok);
}

TEST_CASE("Config: gpus = N in links and JSON, as the CLI's --gpus (dp = N / (tp x pp x cp))") {
  const ConfigParse link = ConfigFromQuery("gpus=16&tp=2&pp=2", DefaultConfig());
  CHECK(!HasErrors(link.diagnostics));
  CHECK(link.config.dp == 4);
  CHECK(TotalGpus(link.config) == 16);
  const ConfigParse json = ConfigFromJsonText(R"({"tp": 2, "gpus": 16, "pp": 2})", DefaultConfig());
  CHECK(!HasErrors(json.diagnostics));
  CHECK(json.config.dp == 4);
  // Not a multiple of the replica, not a number, or given with dp: errors naming gpus.
  for (const char* bad : {"gpus=10&tp=4", "gpus=many", "gpus=8&dp=2"}) {
    CAPTURE(bad);
    const ConfigParse r = ConfigFromQuery(bad, DefaultConfig());
    REQUIRE(HasErrors(r.diagnostics));
    bool named = false;
    for (const Diagnostic& d : r.diagnostics) named |= d.field == "gpus" && d.severity == Severity::kError;
    CHECK(named);
  }
  CHECK(HasErrors(ConfigFromJsonText(R"({"gpus": "8"})", DefaultConfig()).diagnostics));
}

TEST_CASE("Config: gpus = N for inference with no split given is one server over N, in every door") {
  // "vLLM on 2 x A100" (issue 32's newcomer task): tensor parallel 2, not two replicas that each
  // hold the whole model; llama.cpp and HF generate split the layers; a split given stays, and
  // the count makes replicas of it; training keeps dp = N / (tp x pp x cp).
  struct Case {
    const char* query;
    int64_t dp, tp, pp;
  };
  const Case cases[] = {
      {"mode=infer&runtime=vllm&gpus=2", 1, 2, 1},
      {"mode=infer&runtime=sglang&gpus=4", 1, 4, 1},
      {"mode=infer&runtime=llama.cpp&gpus=3", 1, 1, 3},
      {"mode=infer&gpus=2", 1, 1, 2},  // HF generate: device_map="auto" splits the layers
      {"mode=infer&runtime=vllm&tp=2&gpus=8", 4, 2, 1},
      {"mode=train&gpus=8", 8, 1, 1},
  };
  for (const Case& k : cases) {
    CAPTURE(k.query);
    const ConfigParse link = ConfigFromQuery(k.query, DefaultConfig());
    REQUIRE_FALSE(HasErrors(link.diagnostics));
    CHECK(link.config.dp == k.dp);
    CHECK(link.config.tp == k.tp);
    CHECK(link.config.pp == k.pp);
    // JSON, from the same pairs.
    Json j = Json::Object{};
    std::string q = k.query;
    for (size_t at = 0; at < q.size();) {
      const size_t amp = std::min(q.find('&', at), q.size());
      const std::string pair = q.substr(at, amp - at);
      const size_t eq = pair.find('=');
      const std::string key = pair.substr(0, eq), value = pair.substr(eq + 1);
      if (key == "gpus" || key == "tp") {
        j[key] = static_cast<int64_t>(std::stoll(value));
      } else {
        j[key] = value;
      }
      at = amp + 1;
    }
    const ConfigParse json = ConfigFromJsonText(j.Dump(), DefaultConfig());
    REQUIRE_FALSE(HasErrors(json.diagnostics));
    CHECK(ConfigToJson(json.config).Dump() == ConfigToJson(link.config).Dump());
#if LLMMEM_TEST_CLI
    std::vector<std::string> args;
    for (const auto& [key, value] : j.AsObject()) {
      args.push_back("--" + key);
      args.push_back(value.IsNumber() ? std::to_string(static_cast<int64_t>(value.AsNumber())) : value.AsString());
    }
    const auto cli = llmmem::cli::ParseCli(args, nullptr);
    REQUIRE_FALSE(HasErrors(cli.diagnostics));
    CHECK(ConfigToJson(cli.options.config).Dump() == ConfigToJson(link.config).Dump());
#endif
  }
}

TEST_CASE("Config: an unknown setting is named, not answered with the list of every setting") {
  const ConfigParse far = ConfigFromQuery("nosuch=1", DefaultConfig());
  REQUIRE(far.diagnostics.size() == 1);
  CHECK(far.diagnostics[0].message.find("\"nosuch\" is not a setting") != std::string::npos);
  CHECK(far.diagnostics[0].message.find("llmmem --help") != std::string::npos);
  CHECK(far.diagnostics[0].message.size() < 200);  // it listed every setting, over 2,000 characters
}
