// The safetensors header reader (src/core/parse/safetensors_header.cpp): exact counts and bytes per
// dtype from a sample file built byte by byte, the need-more-bytes protocol, every
// truncation, and malformed headers (hostile lengths, overflowing shapes, inconsistent
// offsets, duplicates, unknown dtypes, JSON syntax) with their stable ids.
#include <doctest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "core/parse/weight_headers.h"
#include "weight_file_builders.h"

using namespace llmmem::core;
using namespace llmmem::test::weight_files;

TEST_CASE("Weight headers: safetensors counts parameters and bytes per dtype exactly") {
  const std::string file = SampleSafetensors();
  const WeightHeaderResult r = Parse(file);
  INFO(r.message);
  REQUIRE(r.ok());
  CHECK(r.format == WeightFormat::kSafetensors);
  CHECK(r.tensor_count == 6);
  CHECK(r.parameter_count == 40 + 4 + 40 + 6 + 1 + 0);
  CHECK(r.weight_bytes == kSampleData);
  CHECK(r.parameters_known);
  CHECK(r.header_bytes == file.size() - kSampleData);
  CHECK(r.data_start == r.header_bytes);
  CHECK(r.data_bytes == kSampleData);
  REQUIRE(r.by_type.size() == 6);
  CHECK(r.by_type[0].type == "BF16");  // largest first
  CheckType(r, "BF16", 1, 40, 80);
  CheckType(r, "F32", 1, 4, 16);
  CheckType(r, "F8_E4M3", 1, 40, 40);
  CheckType(r, "F4", 1, 6, 3);
  CheckType(r, "I64", 1, 1, 8);
  CheckType(r, "F16", 1, 0, 0);
  CHECK(Metadata(r, "format") == "pt");
  CHECK(Metadata(r, "nested") == R"({"a":[1,2.5e3,{"b":null}],"t":true})");  // raw JSON text
  CHECK(r.notes.empty());
  CHECK(WeightHeaderDiagnostics(r).empty());

  // Only the header is needed: the data need not be there, only the file size.
  const std::string header_only = file.substr(0, static_cast<size_t>(r.header_bytes));
  const WeightHeaderResult h = Parse(header_only, file.size());
  REQUIRE(h.ok());
  CHECK(h.weight_bytes == r.weight_bytes);

  // An empty header is a valid file with no tensors.
  const WeightHeaderResult empty = Parse(Safetensors("{}", 0, false));
  REQUIRE(empty.ok());
  CHECK(empty.tensor_count == 0);
  CHECK(empty.by_type.empty());
}

TEST_CASE("Weight headers: MXFP4 blocks hold two parameters a byte, their scales none (gpt-oss naming)") {
  // gpt-oss stores each MXFP4 weight as U8 `*_blocks` of [..., 16] bytes per 32 values and U8
  // `*_scales` (one E8M0 exponent per 32 values); here 2 x 4 x 3 blocks of 32 values.
  const std::string json =
      "{\"model.layers.0.mlp.experts.down_proj_blocks\":{\"dtype\":\"U8\",\"shape\":[2,4,3,16],"
      "\"data_offsets\":[0,384]},"
      "\"model.layers.0.mlp.experts.down_proj_scales\":{\"dtype\":\"U8\",\"shape\":[2,4,3],"
      "\"data_offsets\":[384,408]},"
      "\"model.layers.0.self_attn.sinks\":{\"dtype\":\"BF16\",\"shape\":[4,4],\"data_offsets\":[408,440]}}";
  const WeightHeaderResult r = Parse(Safetensors(json, 440));
  INFO(r.message);
  REQUIRE(r.ok());
  CHECK(r.parameter_count == 2 * 4 * 3 * 32 + 16);
  CHECK(r.weight_bytes == 440);
  CheckType(r, "MXFP4", 1, 768, 384);
  CheckType(r, "MXFP4 scales (E8M0)", 1, 0, 24);
  // A U8 tensor not named as MXFP4 blocks or scales stays one parameter a byte.
  const std::string plain =
      "{\"lm_head.qweight\":{\"dtype\":\"U8\",\"shape\":[4,16],\"data_offsets\":[0,64]}}";
  const WeightHeaderResult u8 = Parse(Safetensors(plain, 64));
  REQUIRE(u8.ok());
  CheckType(u8, "U8", 1, 64, 64);
}

TEST_CASE("Weight headers: safetensors asks for the 8-byte length, then exactly the header") {
  const std::string file = SampleSafetensors();
  const uint64_t header_end = file.size() - kSampleData;
  WeightHeaderResult r = ParseSafetensorsHeader(nullptr, 0, 10'000'000);
  CHECK(r.status == WeightHeaderStatus::kNeedMoreBytes);
  CHECK(r.need_bytes == kWeightHeaderFirstRead);
  r = ParseWeightHeader(nullptr, 0, file.size());
  CHECK(r.status == WeightHeaderStatus::kNeedMoreBytes);
  CHECK(r.need_bytes == file.size());  // min(first read, file size)

  // With the data in a big file, a 16-byte first slice leads to exactly 8 + n.
  const uint64_t big = header_end + (5ull << 30);
  r = ParseWeightHeader(std::string_view(file.data(), 16), big);
  CHECK(r.status == WeightHeaderStatus::kNeedMoreBytes);
  CHECK(r.need_bytes == header_end);
  r = ParseWeightHeader(std::string_view(file.data(), static_cast<size_t>(header_end)), big);
  CHECK(r.status == WeightHeaderStatus::kComplete);  // the data span is checked against the size
  CHECK(HasNote(r, WeightIssue::kTrailingData));

  int reads = 0;
  r = Drive(file, 9, &reads);
  CHECK(r.ok());
  CHECK(reads == 2);
}

TEST_CASE("Weight headers: every truncation of a safetensors file is an error or a request") {
  const std::string file = SampleSafetensors();
  for (size_t len = 0; len <= file.size(); ++len) {
    INFO("prefix length " << len);
    const std::string_view prefix(file.data(), len);
    // A prefix of the file: complete once the header is there, else a request for more.
    const WeightHeaderResult more = ParseWeightHeader(prefix, file.size());
    CHECK(more.status != WeightHeaderStatus::kError);
    if (more.status == WeightHeaderStatus::kNeedMoreBytes) {
      CHECK(more.need_bytes > len);
      CHECK(more.need_bytes <= file.size());
    }
    // The file really cut there: an error, unless nothing is missing.
    const WeightHeaderResult cut = ParseWeightHeader(prefix, len);
    if (len == file.size()) {
      CHECK(cut.ok());
    } else {
      CHECK(cut.status == WeightHeaderStatus::kError);
    }
    const WeightHeaderResult direct = ParseSafetensorsHeader(reinterpret_cast<const uint8_t*>(file.data()), len, len);
    CHECK((len == file.size() ? direct.ok() : direct.status == WeightHeaderStatus::kError));
  }
}

TEST_CASE("Weight headers: malformed safetensors headers are errors with stable ids") {
  auto one = [](const std::string& tensor, uint64_t data = 12) { return Parse(Safetensors("{" + tensor + "}", data)); };
  const std::string ok_bf16 = R"("w":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]})";
  REQUIRE(one(ok_bf16).ok());

  // Declared header lengths: above the cap, past the end of the file.
  Bytes huge;
  huge.U64(200'000'000).Raw("{}      ");
  CheckError(ParseSafetensorsHeader(reinterpret_cast<const uint8_t*>(huge.b.data()), huge.b.size(), 1ull << 40),
             WeightIssue::kHeaderTooLarge, "100000000");
  Bytes past;
  past.U64(1000).Raw("{}      ");
  CheckError(ParseSafetensorsHeader(reinterpret_cast<const uint8_t*>(past.b.data()), past.b.size(), past.b.size()),
             WeightIssue::kTruncated);
  Bytes top;
  top.U64(~0ull).Raw("{");
  CheckError(ParseSafetensorsHeader(reinterpret_cast<const uint8_t*>(top.b.data()), top.b.size(), ~0ull),
             WeightIssue::kHeaderTooLarge);

  // Shapes: overflowing products and dimensions, negative and fractional dimensions.
  CheckError(one(R"("w":{"dtype":"F32","shape":[4294967296,4294967296,2],"data_offsets":[0,0]})"),
             WeightIssue::kBadSize, "overflows");
  CheckError(one(R"("w":{"dtype":"F32","shape":[4294967296,1073741824],"data_offsets":[0,0]})"),
             WeightIssue::kBadSize);  // 2^62 elements fit, their 2^67 bits do not
  CheckError(one(R"("w":{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,0]})"), WeightIssue::kBadSize,
             "64 bits");
  CheckError(one(R"("w":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]})"), WeightIssue::kBadSize, "negative");
  CheckError(one(R"("w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,0]})"), WeightIssue::kMalformed);
  CheckError(one(R"("w":{"dtype":"F32","shape":[01],"data_offsets":[0,4]})"), WeightIssue::kMalformed);
  // A zero dimension empties the tensor whatever the others are.
  CHECK(one(R"("w":{"dtype":"F32","shape":[18446744073709551615,0,7],"data_offsets":[0,0]})", 0).ok());

  // Offsets against dtype x shape, and the packing of the data section.
  CheckError(one(R"("w":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,10]})"), WeightIssue::kOffsetMismatch,
             "needs 12 bytes");
  CheckError(one(R"("w":{"dtype":"BF16","shape":[2,3],"data_offsets":[12,0]})"), WeightIssue::kOffsetMismatch);
  CheckError(one(R"("a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},)"
                 R"("b":{"dtype":"U8","shape":[4],"data_offsets":[8,12]})"),
             WeightIssue::kOffsetMismatch, "'b'");  // a gap
  CheckError(one(R"("a":{"dtype":"U8","shape":[8],"data_offsets":[0,8]},)"
                 R"("b":{"dtype":"U8","shape":[4],"data_offsets":[4,8]})"),
             WeightIssue::kOffsetMismatch);  // an overlap
  CheckError(one(R"("w":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12,16]})"), WeightIssue::kMalformed);
  CheckError(one(R"("w":{"dtype":"F4","shape":[3],"data_offsets":[0,1]})"), WeightIssue::kBlockMisaligned);

  // Duplicates (escapes decoded first), unknown dtypes, missing fields.
  CheckError(one(ok_bf16 + "," + ok_bf16), WeightIssue::kDuplicateName, "'w'");
  CheckError(one(ok_bf16 + R"(,"\u0077":{"dtype":"BF16","shape":[0],"data_offsets":[12,12]})"),
             WeightIssue::kDuplicateName);
  CheckError(one(R"("w":{"dtype":"BF16","dtype":"F16","shape":[2,3],"data_offsets":[0,12]})"),
             WeightIssue::kDuplicateName);
  CheckError(one(R"("__metadata__":{},"__metadata__":{})"), WeightIssue::kDuplicateName);
  CheckError(one(R"("w":{"dtype":"Q4","shape":[2,3],"data_offsets":[0,12]})"), WeightIssue::kUnknownDtype, "'Q4'");
  CheckError(one(R"("w":{"dtype":"bf16","shape":[2,3],"data_offsets":[0,12]})"), WeightIssue::kUnknownDtype);
  CheckError(one(R"("w":{"dtype":"BF16","shape":[2,3]})"), WeightIssue::kMissingField, "data_offsets");
  CheckError(one(R"("w":{"shape":[2,3],"data_offsets":[0,12]})"), WeightIssue::kMissingField, "dtype");
  CheckError(one(R"("w":{})"), WeightIssue::kMissingField);

  // Syntax: the header's first byte, text after it, nesting, strings.
  CheckError(Parse(Safetensors(" {}", 0)), WeightIssue::kBadMagic);  // byte 8 is not '{': not sniffed
  {
    const std::string s = Safetensors(" {}", 0);
    CheckError(ParseSafetensorsHeader(reinterpret_cast<const uint8_t*>(s.data()), s.size(), s.size()),
               WeightIssue::kMalformed, "start with '{'");
  }
  CheckError(one(ok_bf16 + "} x"), WeightIssue::kMalformed);
  CheckError(one(ok_bf16 + ","), WeightIssue::kMalformed);
  CheckError(one(R"("__metadata__":{"deep":)" + std::string(100, '[') + std::string(100, ']') + "}"),
             WeightIssue::kMalformed, "nesting");
  CheckError(one("\"w\x01\":{}"), WeightIssue::kMalformed, "control");
  CheckError(one(R"("\ud800":{})"), WeightIssue::kMalformed, "surrogate");
  CheckError(one(R"("w":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12],"x":tru})"), WeightIssue::kMalformed);

  // The data section against the file size.
  CheckError(one(ok_bf16, 11), WeightIssue::kTruncated, "cut short");
  const WeightHeaderResult extra = one(ok_bf16, 20);
  REQUIRE(extra.ok());
  CHECK(HasNote(extra, WeightIssue::kTrailingData));
  const Diagnostics d = WeightHeaderDiagnostics(extra);
  REQUIRE(d.size() == 1);
  CHECK(d[0].severity == Severity::kWarning);
  CHECK(d[0].field == "weights_file");

  // Metadata may be null; values that are not strings are kept as JSON text.
  const WeightHeaderResult meta = one(R"("__metadata__":null,)" + ok_bf16);
  REQUIRE(meta.ok());
  CHECK(meta.metadata.empty());
}
