// The weight-header entry points (src/core/parse/weight_headers.cpp): combining shard results with
// an index into one count, and random byte flips of the sample safetensors, GGUF and index
// files through ParseWeightHeader, which must never crash and keep the protocol's promises.
#include <doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/parse/weight_headers.h"
#include "weight_file_builders.h"

using namespace llmmem::core;
using namespace llmmem::test::weight_files;

TEST_CASE("Weight headers: shards combine into one count; the index checks the total") {
  const std::string index = R"({"metadata": {"total_size": 92},
    "weight_map": {"a": "s1.safetensors", "b": "s1.safetensors", "c": "s2.safetensors"}})";
  const WeightHeaderResult i = Parse(index);
  const WeightHeaderResult s1 = Parse(Safetensors(
      R"({"a":{"dtype":"BF16","shape":[10,4],"data_offsets":[0,80]},"b":{"dtype":"F32","shape":[2],"data_offsets":[80,88]}})",
      88));
  const WeightHeaderResult s2 = Parse(Safetensors(R"({"c":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4));
  REQUIRE(i.ok());
  REQUIRE(s1.ok());
  REQUIRE(s2.ok());

  WeightHeaderResult all = CombineWeightHeaders({i, s1, s2});
  REQUIRE(all.ok());
  CHECK(all.format == WeightFormat::kSafetensors);
  CHECK(all.parameters_known);
  CHECK(all.tensor_count == 3);
  CHECK(all.parameter_count == 43);
  CHECK(all.weight_bytes == 92);
  CheckType(all, "F32", 2, 3, 12);
  CheckType(all, "BF16", 1, 40, 80);
  CHECK(all.index.shard_files.size() == 2);
  int warnings = 0;
  for (const WeightNote& n : all.notes) warnings += n.severity == Severity::kWarning;
  CHECK(warnings == 0);

  // A missing shard shows as a total below the index's.
  all = CombineWeightHeaders({i, s1});
  REQUIRE(all.ok());
  CHECK(all.weight_bytes == 88);
  bool warned = false;
  for (const WeightNote& n : all.notes) warned |= n.severity == Severity::kWarning;
  CHECK(warned);

  // The index alone: bytes known, parameters not.
  all = CombineWeightHeaders({i});
  CHECK(all.ok());
  CHECK_FALSE(all.parameters_known);
  CHECK(all.weight_bytes == 92);

  // An unfinished input is an error, not a silent partial sum.
  WeightHeaderResult pending;
  pending.status = WeightHeaderStatus::kNeedMoreBytes;
  CHECK(CombineWeightHeaders({s1, pending}).status == WeightHeaderStatus::kError);
}

TEST_CASE("Weight headers: random byte flips never crash and keep the protocol's promises") {
  const std::vector<std::string> seeds = {SampleSafetensors(), SampleGgufBuilder().Build(),
                                          R"({"metadata":{"total_size":4},"weight_map":{"a":"b"}})"};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int complete = 0, errors = 0, requests = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string f = seeds[static_cast<size_t>(iter) % seeds.size()];
    const int flips = 1 + static_cast<int>(next() % 4);
    for (int k = 0; k < flips; ++k) {
      const size_t at = static_cast<size_t>(next() % f.size());
      switch (next() % 4) {
        case 0:
          f[at] = static_cast<char>(next());
          break;
        case 1:
          f[at] = static_cast<char>(f[at] ^ (1 << (next() % 8)));
          break;
        case 2:
          f[at] = static_cast<char>(0xFF);
          break;
        default:
          f.resize(std::max<size_t>(at, 1));
          break;
      }
    }
    const uint64_t file_size = f.size() + (next() % 2 ? 0 : next() % 100000);
    const WeightHeaderResult r = Parse(f, file_size);
    if (r.status == WeightHeaderStatus::kNeedMoreBytes) {
      ++requests;
      CHECK(r.need_bytes > f.size());
      CHECK(r.need_bytes <= file_size);
    } else if (r.status == WeightHeaderStatus::kError) {
      ++errors;
      CHECK(r.error != WeightIssue::kNone);
      CHECK_FALSE(r.message.empty());
    } else {
      ++complete;
      uint64_t params = 0, bytes = 0;
      for (const WeightTypeTally& t : r.by_type) {
        params += t.parameters;
        bytes += t.bytes;
      }
      if (r.parameters_known) {
        CHECK(params == r.parameter_count);
        CHECK(bytes == r.weight_bytes);
      }
    }
  }
  CHECK(errors > 0);
  CHECK(complete + errors + requests == 3000);
}
