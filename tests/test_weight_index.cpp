// The model.safetensors.index.json reader (src/core/parse/weight_index.cpp): shard files and
// total_size from the index, the whole-file read, and malformed indexes with stable ids.
#include <doctest.h>

#include <string>

#include "core/parse/weight_headers.h"
#include "weight_file_builders.h"

using namespace llmmem::core;
using namespace llmmem::test::weight_files;

TEST_CASE("Weight headers: model.safetensors.index.json lists shards; counts need their headers") {
  const std::string index = R"({
    "metadata": {"total_size": 147},
    "weight_map": {
      "model.embed.weight": "model-00001-of-00002.safetensors",
      "model.norm.weight": "model-00001-of-00002.safetensors",
      "lm_head.weight": "model-00002-of-00002.safetensors"
    }
  })";
  WeightHeaderResult r = Parse(index);
  INFO(r.message);
  REQUIRE(r.ok());
  CHECK(r.format == WeightFormat::kSafetensorsIndex);
  CHECK(r.index.has_total_size);
  CHECK(r.index.total_size == 147);
  CHECK(r.weight_bytes == 147);
  CHECK(r.tensor_count == 3);
  CHECK(r.index.tensor_count == 3);
  REQUIRE(r.index.shard_files.size() == 2);
  CHECK(r.index.shard_files[0] == "model-00001-of-00002.safetensors");
  CHECK_FALSE(r.parameters_known);
  CHECK(HasNote(r, WeightIssue::kNeedsShardHeaders));
  CHECK(WeightHeaderDiagnostics(r).at(0).severity == Severity::kInfo);

  // JSON is read whole: a prefix asks for the file.
  r = Parse(index.substr(0, 20), index.size());
  CHECK(r.status == WeightHeaderStatus::kNeedMoreBytes);
  CHECK(r.need_bytes == index.size());
  CHECK(Parse("\xEF\xBB\xBF" + index).ok());  // a byte-order mark is allowed

  CheckError(Parse(index.substr(0, 20)), WeightIssue::kMalformed, "JSON");
  CheckError(Parse(std::string(R"({"metadata": {"total_size": 1}})")), WeightIssue::kMissingField, "weight_map");
  CheckError(Parse(std::string(R"({"weight_map": {"a": 1}})")), WeightIssue::kMalformed, "'a'");
  for (const char* bad : {"-1", "1.5", "\"147\"", "1e300"}) {
    CheckError(Parse(std::string(R"({"metadata": {"total_size": )") + bad + R"(}, "weight_map": {}})"),
               WeightIssue::kBadSize, "total_size");
  }
  CheckError(Parse(std::string(R"({"weight_map": {}})"), 9ull << 20), WeightIssue::kHeaderTooLarge);
  // Without total_size the index still lists the shards.
  r = Parse(std::string(R"({"weight_map": {"a": "x.safetensors"}})"));
  REQUIRE(r.ok());
  CHECK_FALSE(r.index.has_total_size);
}
