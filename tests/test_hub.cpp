// The Hub's pure parts (src/core/hub/hub_ref.*, hub_api.*, hub_model.*): references and URLs
// as huggingface_hub builds them, the API's JSON, the choice of files, the generic config
// fallback, and a model from config + headers + API totals.
#include <doctest.h>

#include "core/import/hf_config.h"

#include <string>

#include "core/hub/hub_api.h"
#include "core/hub/hub_budget.h"
#include "core/hub/hub_model.h"
#include "core/hub/hub_ref.h"
#include "weight_file_builders.h"

using namespace llmmem::core;

TEST_CASE("Hub refs: ids, id@rev and URLs") {
  HubRefParse p = ParseHubRef("  Qwen/Qwen2.5-7B-Instruct ");
  REQUIRE(p.ok);
  CHECK(p.ref.repo_id == "Qwen/Qwen2.5-7B-Instruct");
  CHECK(p.ref.revision == "main");
  p = ParseHubRef("Qwen/Qwen2.5-7B-Instruct@v1.0");
  REQUIRE(p.ok);
  CHECK(p.ref.revision == "v1.0");
  CHECK(HubRefToText(p.ref) == "Qwen/Qwen2.5-7B-Instruct@v1.0");
  p = ParseHubRef("gpt2");
  REQUIRE(p.ok);
  CHECK(p.ref.repo_id == "gpt2");
  p = ParseHubRef("https://huggingface.co/meta-llama/Llama-3.1-8B/tree/refs%2Fpr%2F1");
  REQUIRE(p.ok);
  CHECK(p.ref.repo_id == "meta-llama/Llama-3.1-8B");
  CHECK(p.ref.revision == "refs/pr/1");
  p = ParseHubRef("https://hf-mirror.com/org/m/blob/main/sub/model.safetensors?download=true", "https://hf-mirror.com");
  REQUIRE(p.ok);
  CHECK(p.ref.repo_id == "org/m");
  CHECK(p.ref.file == "sub/model.safetensors");
  p = ParseHubRef("huggingface.co/org/m");
  REQUIRE(p.ok);
  CHECK(p.ref.repo_id == "org/m");
  p = ParseHubRef("a.b/c@x/y");
  REQUIRE(p.ok);
  CHECK(p.ref.repo_id == "a.b/c");
  CHECK(p.ref.revision == "x/y");
  p = ParseHubRef("hf.co/gpt2");
  REQUIRE(p.ok);
  CHECK(p.ref.repo_id == "gpt2");
  for (const char* bad : {"", "a/b/c", "org/-x", "org/x.", "a--b/c", "a/b@", "https://huggingface.co/datasets/x/y",
                          "has space/x", "org/x@with space"}) {
    INFO(bad);
    p = ParseHubRef(bad);
    CHECK_FALSE(p.ok);
    CHECK_FALSE(p.error.empty());
  }
  CHECK(IsCommitHash("0123456789abcdef0123456789abcdef01234567"));
  CHECK_FALSE(IsCommitHash("main"));
}

TEST_CASE("Hub URLs follow hf_hub_url and model_info") {
  HubRef r{"Qwen/Qwen2.5-7B-Instruct", "refs/pr/1", ""};
  CHECK(HubFileUrl("https://huggingface.co", r, "config.json") ==
        "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/resolve/refs%2Fpr%2F1/config.json");
  CHECK(HubFileUrl("https://x", HubRef{"a/b", "main", ""}, "sub dir/f.gguf") ==
        "https://x/a/b/resolve/main/sub%20dir/f.gguf");
  CHECK(HubModelApiUrl("https://x", HubRef{"a/b", "main", ""}) == "https://x/api/models/a/b?blobs=true");
  CHECK(HubModelApiUrl("https://x", r) ==
        "https://x/api/models/Qwen/Qwen2.5-7B-Instruct/revision/refs%2Fpr%2F1?blobs=true");
  CHECK(HubSearchUrl("https://x", " qwen 7b", 8).find("search=qwen%207b&sort=downloads") != std::string::npos);
  CHECK(HubCacheFolder("Qwen/Qwen2.5-7B") == "models--Qwen--Qwen2.5-7B");
  CHECK(HubEndpoint("") == "https://huggingface.co");
  CHECK(HubEndpoint("https://hf-mirror.com//") == "https://hf-mirror.com");
  std::string error;
  CHECK(HubEndpoint("ftp://x", &error) == "https://huggingface.co");
  CHECK_FALSE(error.empty());
  CHECK(HubOfflineValue("1"));
  CHECK(HubOfflineValue("yes"));
  CHECK_FALSE(HubOfflineValue("0"));
  CHECK_FALSE(HubOfflineValue(""));
}

TEST_CASE("Hub API: model info and search answers") {
  const std::string text = R"({"id":"org/m","sha":"abc","gated":"manual","downloads":12,
    "config":{"model_type":"qwen2"},"safetensors":{"parameters":{"BF16":494032768},"total":494032768},
    "siblings":[{"rfilename":"config.json","size":659},{"rfilename":"model.safetensors","lfs":{"size":988097824}}]})";
  HubInfoParse p = ReadHubModelInfo(text);
  REQUIRE(p.ok);
  CHECK(p.info.gated == "manual");
  CHECK(p.info.model_type == "qwen2");
  CHECK(p.info.safetensors_total == 494032768);
  REQUIRE(p.info.safetensors_parameters.size() == 1);
  CHECK(p.info.safetensors_parameters[0].first == "BF16");
  REQUIRE(p.info.files.size() == 2);
  CHECK(p.info.files[1].size == 988097824);
  CHECK_FALSE(ReadHubModelInfo("{\"id\": ").ok);
  CHECK_FALSE(ReadHubModelInfo("[]").ok);
  CHECK(ReadHubModelInfo(R"({"error":"Repository not found"})").error.find("Repository not found") !=
        std::string::npos);

  HubSearchParse s =
      ReadHubSearch(R"([{"id":"a/b","downloads":5,"safetensors":{"total":7}},{"id":"c/d","gguf":{"total":9}},3])");
  REQUIRE(s.ok);
  REQUIRE(s.hits.size() == 2);
  CHECK(s.hits[0].parameters == 7);
  CHECK(s.hits[1].parameters == 9);
  CHECK(s.hits[1].downloads == -1);
  CHECK_FALSE(ReadHubSearch("{}").ok);
}

TEST_CASE("Hub files: index first, then one safetensors, then GGUF") {
  HubFilePlan p =
      PlanHubFiles({{"config.json", 1}, {"model-00001-of-00002.safetensors", 5}, {"model.safetensors.index.json", 2}});
  CHECK(p.has_config);
  CHECK(p.kind == HubWeightKind::kSafetensorsIndex);
  CHECK(p.weights_file == "model.safetensors.index.json");
  p = PlanHubFiles({{"config.json", 1}, {"model.safetensors", 5}});
  CHECK(p.kind == HubWeightKind::kSafetensors);
  p = PlanHubFiles({{"m-Q8_0.gguf", 800}, {"m-Q4_K_M.gguf", 500}, {"m-Q2_K.gguf", 300}});
  CHECK(p.kind == HubWeightKind::kGguf);
  CHECK(p.weights_file == "m-Q4_K_M.gguf");
  CHECK(p.gguf_files.size() == 3);
  CHECK(PlanHubFiles({{"m-Q8_0.gguf", 800}, {"m-Q2_K.gguf", 300}}).weights_file == "m-Q2_K.gguf");
  CHECK(PlanHubFiles({{"m-Q8_0.gguf", 800}, {"m-Q2_K.gguf", 300}}, "m-Q8_0.gguf").weights_file == "m-Q8_0.gguf");
  p = PlanHubFiles({{"config.json", 1}, {"pytorch_model.bin", 9}});
  CHECK(p.kind == HubWeightKind::kNone);
  CHECK_FALSE(p.note.empty());
}

TEST_CASE("Hub errors are sentences") {
  CHECK(HubErrorMessage(401, "org/m", "config.json").find("private") != std::string::npos);
  CHECK(HubErrorMessage(404, "org/m", "config.json").find("not found") != std::string::npos);
  CHECK(HubErrorMessage(429, "org/m", "config.json").find("rate") != std::string::npos);
  CHECK(HubErrorMessage(0, "org/m", "config.json", "timed out").find("timed out") != std::string::npos);
}

TEST_CASE("Hub formats from dtypes, quantization_config and GGUF names") {
  Dtype d;
  CHECK((DtypeFromSafetensors("BF16", &d) && d == Dtype::kBf16));
  CHECK((DtypeFromSafetensors("F8_E4M3", &d) && d == Dtype::kFp8));
  CHECK((DtypeFromGgufName("org/Qwen2.5-7B-Instruct-Q4_K_M.gguf", &d) && d == Dtype::kQ4_K_M));
  CHECK((DtypeFromGgufName("x.Q8_0.gguf", &d) && d == Dtype::kQ8_0));
  CHECK_FALSE(DtypeFromGgufName("model.gguf", &d));
  const JsonParseResult q = ParseJson(R"({"quantization_config":{"quant_method":"bitsandbytes","load_in_4bit":true}})");
  CHECK((DtypeFromQuantConfig(q.value, &d) && d == Dtype::kNf4));
}

TEST_CASE("Hub: quantization_config's 2025 methods set the format when no header is read (issue 31)") {
  auto method = [](const char* q) {
    Dtype d = Dtype::kCount;
    const JsonParseResult j = ParseJson(std::string(R"({"quantization_config":)") + q + "}");
    REQUIRE(j.ok);
    return DtypeFromQuantConfig(j.value, &d) ? d : Dtype::kCount;
  };
  CHECK(method(R"({"quant_method":"mxfp4","modules_to_not_convert":["model.layers.*.self_attn"]})") == Dtype::kMxfp4);
  CHECK(method(R"({"quant_method":"modelopt","quant_algo":"NVFP4"})") == Dtype::kNvfp4);
  CHECK(method(R"({"quant_method":"modelopt","quant_algo":"FP8"})") == Dtype::kFp8);
  CHECK(method(R"({"quant_method":"fp8","weight_block_size":[128,128]})") == Dtype::kFp8);  // DeepSeek-V3 block-wise
  CHECK(method(R"({"quant_method":"compressed-tensors","format":"float-quantized"})") == Dtype::kFp8);
  CHECK(method(R"({"quant_method":"compressed-tensors","format":"nvfp4-pack-quantized"})") == Dtype::kNvfp4);
  CHECK(method(R"({"quant_method":"compressed-tensors","format":"int-quantized"})") == Dtype::kInt8);
  CHECK(method(R"({"quant_method":"compressed-tensors","format":"dense"})") == Dtype::kCount);
  // Through --hf without weight headers: gpt-oss's config comes out in MXFP4, not BF16.
  HubModelInput in;
  const std::string config = R"({"model_type":"llama","vocab_size":1000,"hidden_size":64,"num_hidden_layers":2,
    "num_attention_heads":4,"intermediate_size":128,"quantization_config":{"quant_method":"mxfp4"}})";
  in.name = "org/m";
  in.config_text = &config;
  const HubModelBuild b = BuildHubModel(in);
  CHECK(b.dtype_known);
  CHECK(b.dtype == Dtype::kMxfp4);
}

namespace {
const std::string kQwenConfig = R"({"model_type":"qwen2","vocab_size":151936,"hidden_size":896,
  "num_hidden_layers":24,"num_attention_heads":14,"num_key_value_heads":2,"intermediate_size":4864,
  "tie_word_embeddings":true,"max_position_embeddings":32768,"hidden_act":"silu"})";
}

TEST_CASE("Hub model: a known model_type gets the importer, the header its exact count") {
  using namespace llmmem::test::weight_files;
  const std::string file = Safetensors(R"({"a":{"dtype":"BF16","shape":[10,10],"data_offsets":[0,200]}})", 200);
  const WeightHeaderResult w = ParseWeightHeader(file, file.size());
  REQUIRE(w.ok());
  HubModelInfo info;
  info.safetensors_total = 100;
  HubModelInput in{"org/m", &kQwenConfig, "cache", &w, "model.safetensors", "model.safetensors", &info, "api"};
  HubModelBuild b = BuildHubModel(in);
  REQUIRE(b.ok);
  CHECK_FALSE(b.approximate);
  CHECK(b.model.hidden == 896);
  CHECK(b.model.params_override == 100);
  CHECK(b.dtype == Dtype::kBf16);
  CHECK(b.stored_bytes == 200);
  bool agree = false;
  for (const std::string& line : b.provenance) agree |= line.find("agree with the headers") != std::string::npos;
  CHECK(agree);
  info.safetensors_total = 101;
  b = BuildHubModel(in);
  CHECK(b.diagnostics.size() >= 1);
}

TEST_CASE("Hub model: an unknown model_type is read generically and marked approximate") {
  const std::string config = R"({"model_type":"brand_new","text_config":{"hidden_size":512,"num_hidden_layers":4,
    "num_attention_heads":8,"num_key_value_heads":2,"intermediate_size":1024,"vocab_size":1000}})";
  HubModelInfo info;
  info.safetensors_total = 123456;
  HubModelInput in{"org/new", &config, "net", nullptr, "", "", &info, "api"};
  HubModelBuild b = BuildHubModel(in);
  REQUIRE(b.ok);
  CHECK(b.approximate);
  CHECK(b.model.hidden == 512);
  CHECK(b.model.kv_heads == 2);
  CHECK(b.model.head_dim == 64);
  CHECK(b.model.params_override == 123456);
  CHECK(b.provenance.at(0).find("approximate: architecture brand_new read generically") != std::string::npos);
}

TEST_CASE("One config.json import: a pasted file and the Hub read an unknown model_type alike (issue 29)") {
  // A pasted config.json with an unknown model_type was refused while --hf read the same
  // file generically. Both now go through ImportHfConfig; over configs of known and unknown
  // types, the two doors give the same model.
  const char* configs[] = {
      R"({"model_type":"brand_new","text_config":{"hidden_size":512,"num_hidden_layers":4,
        "num_attention_heads":8,"num_key_value_heads":2,"intermediate_size":1024,"vocab_size":1000}})",
      R"({"n_embd":768,"n_layer":12,"n_head":12,"vocab_size":50257,"n_positions":1024})",
      R"({"model_type":"llama","hidden_size":2048,"num_hidden_layers":16,"num_attention_heads":32,
        "num_key_value_heads":8,"intermediate_size":8192,"vocab_size":128256})",
      R"({"model_type":"mystery_moe","hidden_size":1024,"num_hidden_layers":8,"num_attention_heads":16,
        "intermediate_size":2816,"vocab_size":32000,"num_experts":8,"num_experts_per_tok":2,
        "moe_intermediate_size":512})",
  };
  for (const char* text : configs) {
    CAPTURE(text);
    const std::string config = text;
    const HfImport pasted = ImportHfConfigText(config, "org/m");
    const HubModelBuild hub = BuildHubModel(HubModelInput{"org/m", &config, "net"});
    REQUIRE(pasted.ok);
    REQUIRE(hub.ok);
    CHECK(pasted.approximate == hub.approximate);
    const ParamCounts a = CountParameters(pasted.model), b = CountParameters(hub.model);
    CHECK(a.total == b.total);
    CHECK(pasted.model.hidden == hub.model.hidden);
    CHECK(pasted.model.kv_heads == hub.model.kv_heads);
    CHECK(pasted.model.experts == hub.model.experts);
    CHECK(pasted.model.max_positions == hub.model.max_positions);
    // The pasted door says it was read approximately, in a warning (never silently).
    bool warned = false;
    for (const Diagnostic& d : pasted.diagnostics) warned |= d.severity == Severity::kWarning && d.field == "model_type";
    CHECK(warned == pasted.approximate);
  }
  // Nothing to read is still an error, naming what is missing and the types read exactly.
  const HfImport empty = ImportHfConfigText("{}", "x");
  CHECK_FALSE(empty.ok);
  REQUIRE(!empty.diagnostics.empty());
  CHECK(empty.diagnostics[0].message.find("hidden_size") != std::string::npos);
  CHECK(empty.diagnostics[0].message.find("llama") != std::string::npos);
}

TEST_CASE("Hub model: malformed config and nothing to size are errors") {
  const std::string bad = "{\"model_type\": ";
  HubModelBuild b = BuildHubModel(HubModelInput{"org/m", &bad, "net"});
  CHECK_FALSE(b.ok);
  CHECK(b.diagnostics.at(0).message.find("malformed") != std::string::npos);
  const std::string empty = "{}";
  b = BuildHubModel(HubModelInput{"org/m", &empty, "net"});
  CHECK_FALSE(b.ok);
}

TEST_CASE("Hub model: quantised repos keep the architecture's count and the stored bytes") {
  using namespace llmmem::test::weight_files;
  std::string config = kQwenConfig;
  config.insert(1, R"("quantization_config":{"quant_method":"gptq","bits":4},)");
  const std::string file = Safetensors(R"({"q":{"dtype":"I32","shape":[4,4],"data_offsets":[0,64]}})", 64);
  const WeightHeaderResult w = ParseWeightHeader(file, file.size());
  REQUIRE(w.ok());
  HubModelBuild b = BuildHubModel(HubModelInput{"org/gptq", &config, "net", &w, "f", "model.safetensors"});
  REQUIRE(b.ok);
  CHECK(b.dtype == Dtype::kGptq);
  CHECK(b.model.params_override == 0);
  CHECK(b.stored_bytes == 64);
}

TEST_CASE("Hub files: a GGUF split in parts is read whole") {
  HubFilePlan p =
      PlanHubFiles({{"m-Q8_0-00002-of-00002.gguf", 5}, {"m-Q8_0-00001-of-00002.gguf", 5}, {"m-Q2_K.gguf", 3}},
                   "m-Q8_0-00001-of-00002.gguf");
  CHECK(p.weights_file == "m-Q8_0-00001-of-00002.gguf");
  REQUIRE(p.gguf_parts.size() == 2);
  CHECK(p.gguf_parts[1] == "m-Q8_0-00002-of-00002.gguf");
  p = PlanHubFiles({{"m-Q8_0-00001-of-00003.gguf", 5}}, "m-Q8_0-00001-of-00003.gguf");
  CHECK(p.gguf_parts.empty());
  CHECK(p.note.find("split in 3 parts") != std::string::npos);
  CHECK(PlanHubFiles({{"m-Q2_K.gguf", 3}}).gguf_parts.empty());
}

// Issue 28, third hostile pass: the Hub client's budget, names, hosts, secrets, errors.

TEST_CASE("Hub budget: requests, bytes, wall time, shards and split parts, one sentence each") {
  const HubBudgetLimits l = HubBudgetFor(2000);
  CHECK(l.max_wall_ms == kHubWallTimeouts * 2000);
  CHECK(HubBudgetFor(0).max_wall_ms == kHubWallTimeouts * 30000);
  HubBudget b(l, 1000);
  for (int64_t i = 0; i < l.max_requests; ++i) REQUIRE(b.Request(1000));
  CHECK_FALSE(b.Request(1000));
  CHECK(b.error().find("at most 2048 requests") != std::string::npos);
  CHECK_FALSE(b.Bytes(0));  // once spent, spent
  HubBudget t(l, 1000);
  CHECK(t.Request(1000 + l.max_wall_ms - 1));
  CHECK_FALSE(t.Time(1000 + l.max_wall_ms));
  CHECK(t.error().find("longer than 12 s in all") != std::string::npos);
  HubBudget bytes(l, 0);
  CHECK(bytes.Bytes(l.max_bytes - 1));
  CHECK(bytes.Bytes(1));
  CHECK_FALSE(bytes.Bytes(1));
  CHECK(bytes.error().find("512 MiB") != std::string::npos);
  HubBudget parts(l, 0);
  CHECK(parts.SplitParts(l.max_split_parts));
  CHECK(parts.Shards(l.max_shards));
  CHECK_FALSE(parts.SplitParts(99999));
  CHECK(parts.error().find("split in 99999 parts; at most 512") != std::string::npos);
  HubBudget shards(l, 0);
  CHECK_FALSE(shards.Shards(513));
  CHECK(shards.error().find("513 shards") != std::string::npos);
}

TEST_CASE("Hub header sum: headers added one at a time equal all of them combined") {
  using namespace llmmem::test::weight_files;
  const std::string a = Safetensors(R"({"a":{"dtype":"BF16","shape":[10,10],"data_offsets":[0,200]}})", 200);
  const std::string b = Safetensors(R"({"b":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 16);
  const std::vector<WeightHeaderResult> all = {ParseWeightHeader(a, a.size()), ParseWeightHeader(b, b.size()),
                                               ParseWeightHeader(a, a.size())};
  HubHeaderSum sum;
  for (const WeightHeaderResult& h : all) REQUIRE(sum.Add(h));
  const WeightHeaderResult whole = CombineWeightHeaders(all);
  CHECK(sum.count() == 3);
  CHECK(sum.total().parameter_count == whole.parameter_count);
  CHECK(sum.total().weight_bytes == whole.weight_bytes);
  CHECK(sum.total().tensor_count == whole.tensor_count);
  CHECK(sum.total().by_type.size() == whole.by_type.size());
  WeightHeaderResult cut = ParseWeightHeader(a.substr(0, 12), a.size());
  CHECK_FALSE(sum.Add(cut));
  CHECK_FALSE(sum.error().empty());
}

TEST_CASE("Hub names: every name from the Hub is a path inside the repo") {
  for (const char* good : {"model.safetensors", "sub/dir/model-00001-of-00002.safetensors", "a..b.gguf", "refs/pr/1",
                           ".gitattributes", "x%20y.gguf"}) {
    INFO(good);
    CHECK(HubPathProblem(good).empty());
  }
  const std::string nul("a\0b.safetensors", 15);
  for (const std::string& bad :
       {std::string("../x.safetensors"), std::string("a/../../b.safetensors"), std::string("/etc/passwd"),
        std::string("a\\..\\b.safetensors"), std::string("%2e%2e/x.safetensors"), std::string("%2E%2e/x"),
        std::string("a/%2f/b"), std::string("./x"), std::string("a//b"), std::string("a/"), std::string("C:x.gguf"),
        std::string("a\nb"), nul, std::string("")}) {
    INFO(bad);
    CHECK_FALSE(HubPathProblem(bad).empty());
  }
  CHECK(HubPathProblem("../x").find("not a path inside the repo") != std::string::npos);
  // The listing's names: a climbing GGUF name is never chosen, and the skip is said.
  HubFilePlan p = PlanHubFiles({{"../../other/m-Q4_K_M.gguf", 5}, {"m-Q8_0.gguf", 8}});
  CHECK(p.weights_file == "m-Q8_0.gguf");
  REQUIRE(p.gguf_files.size() == 1);
  CHECK(p.note.find("skipped") != std::string::npos);
  p = PlanHubFiles({{"config.json", 1}, {"/abs/model.safetensors", 5}});
  CHECK(p.kind == HubWeightKind::kNone);
  // A revision or file from a URL is a cache path too.
  CHECK_FALSE(ParseHubRef("org/m@../../../etc").ok);
  CHECK_FALSE(ParseHubRef("https://huggingface.co/org/m/blob/main/..%2F..%2Fx.gguf").ok);
  CHECK(ParseHubRef("org/m@refs/pr/1").ok);
}

TEST_CASE("Hub refs: a URL's host must be the endpoint's") {
  CHECK_FALSE(ParseHubRef("https://evil.example/org/name").ok);
  CHECK(ParseHubRef("https://evil.example/org/name").error.find("evil.example") != std::string::npos);
  CHECK_FALSE(ParseHubRef("https://huggingface.co@evil.example/org/name").ok);
  CHECK(ParseHubRef("https://huggingface.co/org/name").ok);
  CHECK(ParseHubRef("https://HF.co/org/name").ok);
  CHECK(ParseHubRef("https://huggingface.co:443/org/name").ok);
  CHECK(ParseHubRef("org/name", "http://127.0.0.1:8080").ok);  // an id names no host
  CHECK(ParseHubRef("http://127.0.0.1:8080/org/name/tree/main", "http://127.0.0.1:8080").ok);
  CHECK_FALSE(ParseHubRef("http://127.0.0.1:9999/org/name", "http://127.0.0.1:8080").ok);
  CHECK_FALSE(ParseHubRef("https://huggingface.co/org/name", "http://127.0.0.1:8080").ok);
  // A mirror of huggingface.co serves the same ids: huggingface.co URLs are taken there.
  CHECK(ParseHubRef("https://huggingface.co/org/name", "https://hf-mirror.com").ok);
  CHECK(ParseHubRef("https://hf-mirror.com/org/name", "https://hf-mirror.com").ok);
  CHECK_FALSE(ParseHubRef("https://hf-mirror.com/org/name").ok);
}

TEST_CASE("Hub secrets: HF_TOKEN and HF_ENDPOINT checked, never repeated") {
  CHECK(HubTokenProblem("").empty());
  CHECK(HubTokenProblem("hf_AbCdEf0123456789").empty());
  for (const char* bad : {"hf_abc\r\nX-Injected: 1", "hf_abc def", "hf_abc\t", "hf_\xc3\xa9"}) {
    INFO(bad);
    const std::string why = HubTokenProblem(bad);
    CHECK_FALSE(why.empty());
    CHECK(why.find("HF_TOKEN") != std::string::npos);
    CHECK(why.find("hf_abc") == std::string::npos);
    CHECK(why.find("Injected") == std::string::npos);
  }
  std::string error;
  CHECK(HubEndpoint("https://someone:s3cret@mirror.example/", &error) == "https://mirror.example");
  CHECK(error.find("password") != std::string::npos);
  CHECK(error.find("s3cret") == std::string::npos);
  CHECK(error.find("someone") == std::string::npos);
  error.clear();
  CHECK(HubEndpoint("https://mirror.example", &error) == "https://mirror.example");
  CHECK(error.empty());
  for (const char* bad : {"https://", "https:///x", "https://host?x=1", "https://host#f", "file:///etc"}) {
    INFO(bad);
    error.clear();
    CHECK(HubEndpoint(bad, &error) == kHubDefaultEndpoint);
    CHECK_FALSE(error.empty());
  }
}

TEST_CASE("Hub errors: 401, 403 and 404 told apart as the Hub tells them") {
  auto message = [](int status, const char* code, bool token, const char* said = "") {
    HubFailure f;
    f.status = status;
    f.error_code = code;
    f.error_message = said;
    f.token_sent = token;
    return HubErrorMessage(f, "org/m", "model info");
  };
  auto has = [](const std::string& text, const char* part) { return text.find(part) != std::string::npos; };
  CHECK(has(message(401, "GatedRepo", false), "is gated (HTTP 401)"));
  CHECK(has(message(401, "GatedRepo", false), "HF_TOKEN"));
  CHECK(has(message(403, "GatedRepo", true), "not been granted access (HTTP 403)"));
  CHECK(has(message(401, "RepoNotFound", false), "no such repo, or it is private (HTTP 401)"));
  CHECK_FALSE(has(message(401, "RepoNotFound", false), "gated (HTTP"));
  CHECK(has(message(404, "RepoNotFound", true), "the token given has no access to it (HTTP 404)"));
  CHECK(has(message(401, "", false), "no such repo, or it is private"));
  const std::string refused = message(401, "", true, "Invalid credentials in Authorization header");
  CHECK(has(refused, "refused the access token (HTTP 401)"));
  CHECK(has(refused, "Invalid credentials"));
  CHECK(has(message(403, "", true, "no scope"), "no permission"));
  CHECK(has(message(404, "RevisionNotFound", false, "Invalid rev id: x"), "revision is not in the repo (HTTP 404)"));
  CHECK(has(message(404, "EntryNotFound", false), "file is not in the repo"));
  CHECK(has(message(404, "", false), "not found (HTTP 404)"));
  // The Hub's message is shown terminal-safe and bounded.
  CHECK_FALSE(has(message(403, "", true, "\x1b]0;pwned\x07"), "\x1b"));
}
