// The Hub's pure parts (src/core/hub/hub_ref.*, hub_api.*, hub_model.*): references and URLs
// as huggingface_hub builds them, the API's JSON, the choice of files, the generic config
// fallback, and a model from config + headers + API totals.
#include <doctest.h>

#include <string>

#include "core/hub/hub_api.h"
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
  p = ParseHubRef("https://hf-mirror.com/org/m/blob/main/sub/model.safetensors?download=true");
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
  CHECK(HubErrorMessage(401, "org/m", "config.json").find("gated") != std::string::npos);
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
