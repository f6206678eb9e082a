// The weight-header type tables (src/core/model/ggml_types.cpp): every ggml_type id against ggml.h
// and the block structs of ggml-common.h, the ids ggml removed, and safetensors dtype widths.
// Expected values are written out by hand, not taken from the tables under test; the
// estimator's own GGUF bit widths (core/dtype.h) are checked against the same rows.
#include <doctest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

#include "core/model/dtype.h"
#include "core/parse/weight_headers.h"
#include "weight_file_builders.h"

using namespace llmmem::core;
using namespace llmmem::test::weight_files;

TEST_CASE("Weight headers: ggml type table matches ggml.h ids and ggml-common.h blocks") {
  struct Row {
    uint32_t id;
    const char* name;
    uint32_t elems, bytes;
  };
  const Row rows[] = {
      {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},      {3, "Q4_1", 32, 20},
      {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},      {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},
      {10, "Q2_K", 256, 84},    {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
      {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
      {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},   {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},
      {22, "IQ2_S", 256, 82},   {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {25, "I16", 1, 2},
      {26, "I32", 1, 4},        {27, "I64", 1, 8},        {28, "F64", 1, 8},        {29, "IQ1_M", 256, 56},
      {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},   {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},
  };
  for (const Row& row : rows) {
    INFO("ggml type " << row.id);
    const GgmlTypeInfo* t = FindGgmlType(row.id);
    REQUIRE(t != nullptr);
    CHECK(std::string(t->name) == row.name);
    CHECK(t->block_elems == row.elems);
    CHECK(t->block_bytes == row.bytes);
    // The estimator's own GGUF bit widths (core/dtype.cpp) agree with the block layouts.
    std::string id = row.name;
    std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
    Dtype d{};
    if (ParseId(id, d)) CHECK(Info(d).bits == doctest::Approx(row.bytes * 8.0 / row.elems));
  }
  for (uint32_t removed : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u}) {
    REQUIRE(FindGgmlType(removed) != nullptr);
    CHECK(FindGgmlType(removed)->block_bytes == 0);
  }
  // NVFP4 (ggml.h GGML_TYPE_NVFP4 = 40; ggml-common.h block_nvfp4: 4 UE4M3 scales + 32 bytes of
  // E2M1 per 64 elements = 4.5 bits), in llama.cpp since 2026.
  REQUIRE(FindGgmlType(40) != nullptr);
  CHECK(FindGgmlType(40)->block_elems == 64);
  CHECK(FindGgmlType(40)->block_bytes == 36);
  CHECK(FindGgmlType(41) == nullptr);
  CHECK(FindGgmlType(1000) == nullptr);

  CHECK(FindSafetensorsDtype("BF16")->bits == 16);
  CHECK(FindSafetensorsDtype("F4")->bits == 4);
  CHECK(FindSafetensorsDtype("F6_E3M2")->bits == 6);
  CHECK(FindSafetensorsDtype("F8_E8M0")->bits == 8);
  CHECK(FindSafetensorsDtype("C64")->bits == 64);
  CHECK(FindSafetensorsDtype("bf16") == nullptr);  // names are case-sensitive, as in the format
}

TEST_CASE("Formats: the runtimes' own spellings parse (llama.cpp f16, vLLM fp8_e4m3/fp8_e5m2)") {
  Dtype d{};
  REQUIRE(ParseId("f16", d));
  CHECK(d == Dtype::kFp16);
  REQUIRE(ParseId("f32", d));
  CHECK(d == Dtype::kFp32);
  REQUIRE(ParseId("q8_0", d));
  CHECK(d == Dtype::kQ8_0);
  REQUIRE(ParseId("fp8_e4m3", d));
  CHECK(d == Dtype::kFp8);
  REQUIRE(ParseId("fp8_e5m2", d));
  CHECK(d == Dtype::kFp8);
  // MXFP4: 32 E2M1 values + one E8M0 scale; NVFP4: 16 E2M1 values + one E4M3 scale.
  REQUIRE(ParseId("mxfp4", d));
  CHECK(Info(d).bits == (32 * 4 + 8) / 32.0);
  REQUIRE(ParseId("nvfp4", d));
  CHECK(Info(d).bits == (16 * 4 + 8) / 16.0);
}
