// Weight-file headers (core/weight_headers.h): small safetensors, index and GGUF files built
// byte by byte here, exact counts and bytes per dtype, the need-more-bytes protocol, and
// malformed files (every truncation, wrong magic, hostile lengths, overflowing shapes,
// inconsistent offsets, duplicates, unknown types, random byte flips).
// Expected byte counts are written out by hand from ggml-common.h's block structs and the
// safetensors Dtype widths, not taken from the table under test.
#include <doctest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/weight_headers.h"

using namespace llmmem::core;

namespace {

// ---- byte builders ----------------------------------------------------------------------

struct Bytes {
  std::string b;
  Bytes& Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b += static_cast<char>((v >> (8 * i)) & 0xFF);
    return *this;
  }
  Bytes& U8(uint64_t v) { return Le(v, 1); }
  Bytes& U16(uint64_t v) { return Le(v, 2); }
  Bytes& U32(uint64_t v) { return Le(v, 4); }
  Bytes& U64(uint64_t v) { return Le(v, 8); }
  Bytes& Str(const std::string& s) {  // GGUF string: uint64 length, bytes
    U64(s.size());
    b += s;
    return *this;
  }
  Bytes& Raw(const std::string& s) {
    b += s;
    return *this;
  }
};

// A safetensors file: 8-byte length, the JSON header padded with spaces to 8 bytes, data.
std::string Safetensors(const std::string& json, uint64_t data_bytes, bool pad = true) {
  std::string h = json;
  while (pad && h.size() % 8 != 0) h += ' ';
  Bytes out;
  out.U64(h.size()).Raw(h);
  out.b.append(static_cast<size_t>(data_bytes), '\0');
  return out.b;
}

enum : uint32_t { kU8 = 0, kI8, kU16, kI16, kU32, kI32, kF32, kBool, kString, kArray, kU64, kI64, kF64 };

struct GgufTensorSpec {
  std::string name;
  std::vector<uint64_t> ne;
  uint32_t type;
  uint64_t bytes;            // written out by hand by the test
  int64_t offset = -1;       // -1: the packed offset a writer would use
};

class Gguf {
 public:
  uint32_t version = 3;
  uint64_t alignment = 32;
  std::optional<uint64_t> tensor_count_override;  // a count other than the tensors given
  std::optional<uint64_t> kv_count_override;

  Gguf& KvStr(const std::string& k, const std::string& v) {
    Key(k, kString).Str(v);
    return *this;
  }
  Gguf& KvU32(const std::string& k, uint32_t v) {
    Key(k, kU32).U32(v);
    return *this;
  }
  Gguf& KvU64(const std::string& k, uint64_t v) {
    Key(k, kU64).U64(v);
    return *this;
  }
  Gguf& KvI32(const std::string& k, int32_t v) {
    Key(k, kI32).U32(static_cast<uint32_t>(v));
    return *this;
  }
  Gguf& KvRaw(const std::string& k, uint32_t type, const std::string& payload) {
    Key(k, type).Raw(payload);
    return *this;
  }
  Gguf& KvStrings(const std::string& k, const std::vector<std::string>& v) {
    Key(k, kArray).U32(kString).U64(v.size());
    for (const std::string& s : v) kv_.Str(s);
    return *this;
  }
  Gguf& Tensor(GgufTensorSpec t) {
    tensors_.push_back(std::move(t));
    return *this;
  }

  // The file; header_end gets the end of the tensor infos. with_data=false stops there.
  std::string Build(bool with_data = true, uint64_t* header_end = nullptr, uint64_t* file_size = nullptr) const {
    Bytes out;
    out.Raw("GGUF").U32(version);
    out.U64(tensor_count_override.value_or(tensors_.size()));
    out.U64(kv_count_override.value_or(kv_count_));
    out.Raw(kv_.b);
    uint64_t at = 0;
    for (const GgufTensorSpec& t : tensors_) {
      out.Str(t.name).U32(t.ne.size());
      for (uint64_t d : t.ne) out.U64(d);
      out.U32(t.type).U64(t.offset >= 0 ? static_cast<uint64_t>(t.offset) : at);
      at += (t.bytes + alignment - 1) / alignment * alignment;
    }
    if (header_end) *header_end = out.b.size();
    const uint64_t data_start = (out.b.size() + alignment - 1) / alignment * alignment;
    if (file_size) *file_size = data_start + at;
    if (with_data) out.b.resize(static_cast<size_t>(data_start + at), '\0');
    return out.b;
  }

 private:
  Bytes& Key(const std::string& k, uint32_t type) {
    ++kv_count_;
    return kv_.Str(k).U32(type);
  }
  Bytes kv_;
  uint64_t kv_count_ = 0;
  std::vector<GgufTensorSpec> tensors_;
};

WeightHeaderResult Parse(const std::string& bytes, uint64_t file_size) {
  return ParseWeightHeader(std::string_view(bytes), file_size);
}
WeightHeaderResult Parse(const std::string& file) { return Parse(file, file.size()); }

// What a front end does: read a first slice, then whatever the parser asks for.
WeightHeaderResult Drive(const std::string& file, uint64_t first_read, int* reads = nullptr) {
  uint64_t have = std::min<uint64_t>(first_read, file.size());
  int n = 1;
  WeightHeaderResult r;
  for (int guard = 0; guard < 64; ++guard) {
    r = ParseWeightHeader(std::string_view(file.data(), static_cast<size_t>(have)), file.size());
    if (r.status != WeightHeaderStatus::kNeedMoreBytes) break;
    REQUIRE(r.need_bytes > have);
    REQUIRE(r.need_bytes <= file.size());
    have = r.need_bytes;
    ++n;
  }
  if (reads) *reads = n;
  return r;
}

const WeightTypeTally* FindType(const WeightHeaderResult& r, const std::string& type) {
  for (const WeightTypeTally& t : r.by_type) {
    if (t.type == type) return &t;
  }
  return nullptr;
}

void CheckType(const WeightHeaderResult& r, const std::string& type, uint64_t tensors, uint64_t params,
               uint64_t bytes) {
  INFO("type " << type);
  const WeightTypeTally* t = FindType(r, type);
  REQUIRE(t != nullptr);
  CHECK(t->tensors == tensors);
  CHECK(t->parameters == params);
  CHECK(t->bytes == bytes);
}

bool HasNote(const WeightHeaderResult& r, WeightIssue id) {
  for (const WeightNote& n : r.notes) {
    if (n.id == id) return true;
  }
  return false;
}

std::string Metadata(const WeightHeaderResult& r, const std::string& key) {
  for (const auto& [k, v] : r.metadata) {
    if (k == key) return v;
  }
  return "<absent>";
}

void CheckError(const WeightHeaderResult& r, WeightIssue id, const char* needle = nullptr) {
  INFO("message: " << r.message);
  CHECK(r.status == WeightHeaderStatus::kError);
  CHECK(WeightIssueName(r.error) == std::string(WeightIssueName(id)));
  CHECK_FALSE(r.message.empty());
  if (needle) CHECK(r.message.find(needle) != std::string::npos);
}

// ---- the sample files -------------------------------------------------------------------

// Tensors listed out of offset order; one scalar, one empty tensor, a 4-bit dtype.
const char* const kSampleJson =
    R"({"lm_head.weight":{"dtype":"F8_E4M3","shape":[4,10],"data_offsets":[96,136]},)"
    R"("__metadata__":{"format":"pt","nested":{"a":[1,2.5e3,{"b":null}],"t":true}},)"
    R"("model.embed.weight":{"dtype":"BF16","shape":[10,4],"data_offsets":[0,80]},)"
    R"("model.norm.weight":{"dtype":"F32","shape":[4],"data_offsets":[80,96],"extra":{"x":[[]]}},)"
    R"("scale":{"dtype":"F4","shape":[2,3],"data_offsets":[136,139]},)"
    R"("step":{"dtype":"I64","shape":[],"data_offsets":[139,147]},)"
    R"("empty\u00e9":{"dtype":"F16","shape":[0,5],"data_offsets":[147,147]}})";
constexpr uint64_t kSampleData = 147;

std::string SampleSafetensors() { return Safetensors(kSampleJson, kSampleData); }

Gguf SampleGgufBuilder() {
  Gguf g;
  g.KvStr("general.architecture", "llama")
      .KvStr("general.name", "tiny")
      .KvU64("general.parameter_count", 123456)
      .KvU32("general.file_type", 15)
      .KvU32("llama.block_count", 2)
      .KvU32("llama.embedding_length", 256)
      .KvU32("llama.attention.head_count", 4)
      .KvI32("llama.attention.head_count_kv", 2)
      .KvU64("llama.feed_forward_length", 512)
      .KvU32("llama.context_length", 4096)
      .KvRaw("llama.rope.freq_base", kF32, Bytes().U32(0x461C4000).b)  // 10000.0f
      .KvRaw("x.f64", kF64, Bytes().U64(0x3FE0000000000000ull).b)      // 0.5
      .KvRaw("x.bool", kBool, Bytes().U8(1).b)
      .KvRaw("x.i8", kI8, Bytes().U8(0xFD).b)  // -3
      .KvRaw("x.u16", kU16, Bytes().U16(65535).b)
      .KvRaw("x.i16", kI16, Bytes().U16(0x8000).b)  // -32768
      .KvRaw("x.u8", kU8, Bytes().U8(7).b)
      .KvRaw("x.i64", kI64, Bytes().U64(static_cast<uint64_t>(-5)).b)
      .KvStrings("tokenizer.ggml.tokens", {"<s>", "</s>", "a", "b", "\xc3\xa9"})
      .KvRaw("tokenizer.ggml.scores", kArray, Bytes().U32(kF32).U64(5).U32(0).U32(0).U32(0).U32(0).U32(0).b);
  // bytes: Q4_K 5 blocks x 144; F32 256 x 4; Q8_0 6 x 34; Q6_K 2 x 210; IQ2_XXS 1 x 66;
  // BF16 6 x 2; MXFP4 1 x 17; TQ1_0 1 x 54; a 0-dim F32 scalar 4.
  g.Tensor({"token_embd.weight", {256, 5}, 12, 720})
      .Tensor({"blk.0.attn_norm.weight", {256}, 0, 1024})
      .Tensor({"blk.0.ffn_down.weight", {64, 3}, 8, 204})
      .Tensor({"output.weight", {256, 2}, 14, 420})
      .Tensor({"blk.0.iq", {256}, 16, 66})
      .Tensor({"bf", {3, 2}, 30, 12})
      .Tensor({"mx", {32}, 39, 17})
      .Tensor({"tq", {256, 1, 1, 1}, 34, 54})
      .Tensor({"scalar", {}, 0, 4});
  return g;
}

}  // namespace

// ---- tables -----------------------------------------------------------------------------

TEST_CASE("Weight headers: ggml type table matches ggml.h ids and ggml-common.h blocks") {
  struct Row { uint32_t id; const char* name; uint32_t elems, bytes; };
  const Row rows[] = {
      {0, "F32", 1, 4},        {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},     {3, "Q4_1", 32, 20},
      {6, "Q5_0", 32, 22},     {7, "Q5_1", 32, 24},      {8, "Q8_0", 32, 34},     {9, "Q8_1", 32, 36},
      {10, "Q2_K", 256, 84},   {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},  {13, "Q5_K", 256, 176},
      {14, "Q6_K", 256, 210},  {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
      {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},  {20, "IQ4_NL", 32, 18},  {21, "IQ3_S", 256, 110},
      {22, "IQ2_S", 256, 82},  {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},        {25, "I16", 1, 2},
      {26, "I32", 1, 4},       {27, "I64", 1, 8},        {28, "F64", 1, 8},       {29, "IQ1_M", 256, 56},
      {30, "BF16", 1, 2},      {34, "TQ1_0", 256, 54},   {35, "TQ2_0", 256, 66},  {39, "MXFP4", 32, 17},
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
    if (ParseDtype(id, d)) CHECK(Info(d).bits == doctest::Approx(row.bytes * 8.0 / row.elems));
  }
  for (uint32_t removed : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u}) {
    REQUIRE(FindGgmlType(removed) != nullptr);
    CHECK(FindGgmlType(removed)->block_bytes == 0);
  }
  CHECK(FindGgmlType(40) == nullptr);
  CHECK(FindGgmlType(1000) == nullptr);

  CHECK(FindSafetensorsDtype("BF16")->bits == 16);
  CHECK(FindSafetensorsDtype("F4")->bits == 4);
  CHECK(FindSafetensorsDtype("F6_E3M2")->bits == 6);
  CHECK(FindSafetensorsDtype("F8_E8M0")->bits == 8);
  CHECK(FindSafetensorsDtype("C64")->bits == 64);
  CHECK(FindSafetensorsDtype("bf16") == nullptr);  // names are case-sensitive, as in the format
}

// ---- safetensors ------------------------------------------------------------------------

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
  auto one = [](const std::string& tensor, uint64_t data = 12) {
    return Parse(Safetensors("{" + tensor + "}", data));
  };
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
  CheckError(one(R"("w":{"dtype":"F32","shape":[18446744073709551616],"data_offsets":[0,0]})"),
             WeightIssue::kBadSize, "64 bits");
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

// ---- GGUF -------------------------------------------------------------------------------

TEST_CASE("Weight headers: GGUF counts parameters and bytes per ggml type exactly") {
  uint64_t header_end = 0;
  const std::string file = SampleGgufBuilder().Build(true, &header_end);
  const WeightHeaderResult r = Parse(file);
  INFO(r.message);
  REQUIRE(r.ok());
  CHECK(r.format == WeightFormat::kGguf);
  CHECK(r.tensor_count == 9);
  CHECK(r.parameter_count == 1280 + 256 + 192 + 512 + 256 + 6 + 32 + 256 + 1);
  CHECK(r.weight_bytes == 720 + 1024 + 204 + 420 + 66 + 12 + 17 + 54 + 4);
  CHECK(r.header_bytes == header_end);
  CHECK(r.data_start == (header_end + 31) / 32 * 32);
  CheckType(r, "Q4_K", 1, 1280, 720);
  CheckType(r, "F32", 2, 257, 1028);
  CheckType(r, "Q8_0", 1, 192, 204);
  CheckType(r, "Q6_K", 1, 512, 420);
  CheckType(r, "IQ2_XXS", 1, 256, 66);
  CheckType(r, "BF16", 1, 6, 12);
  CheckType(r, "MXFP4", 1, 32, 17);
  CheckType(r, "TQ1_0", 1, 256, 54);
  CHECK(r.by_type[0].type == "F32");

  const GgufModelInfo& g = r.gguf;
  CHECK(g.version == 3);
  CHECK(g.alignment == 32);
  CHECK(g.kv_count == 20);
  CHECK(g.architecture == "llama");
  CHECK(g.name == "tiny");
  CHECK(g.parameter_count == 123456);
  CHECK(g.file_type == 15);
  CHECK(g.block_count == 2);
  CHECK(g.embedding_length == 256);
  CHECK(g.head_count == 4);
  CHECK(g.head_count_kv == 2);
  CHECK(g.feed_forward_length == 512);
  CHECK(g.context_length == 4096);
  CHECK(g.vocab_size == 5);
  CHECK(g.key_length == -1);
  CHECK(g.expert_count == -1);

  CHECK(Metadata(r, "llama.rope.freq_base") == "10000");
  CHECK(Metadata(r, "x.f64") == "0.5");
  CHECK(Metadata(r, "x.bool") == "true");
  CHECK(Metadata(r, "x.i8") == "-3");
  CHECK(Metadata(r, "x.u16") == "65535");
  CHECK(Metadata(r, "x.i16") == "-32768");
  CHECK(Metadata(r, "x.i64") == "-5");
  CHECK(Metadata(r, "tokenizer.ggml.tokens") == "array<string>[5]");
  CHECK(Metadata(r, "tokenizer.ggml.scores") == "array<float32>[5]");

  // Only the header up to the tensor infos is needed, plus the file size.
  const WeightHeaderResult h = Parse(file.substr(0, static_cast<size_t>(header_end)), file.size());
  REQUIRE(h.ok());
  CHECK(h.weight_bytes == r.weight_bytes);

  // Version 2 has the same layout; general.alignment moves the offsets.
  Gguf v2 = SampleGgufBuilder();
  v2.version = 2;
  v2.alignment = 64;
  v2.KvU32("general.alignment", 64);
  const std::string f2 = v2.Build(true, &header_end);
  const WeightHeaderResult r2 = Parse(f2);
  INFO(r2.message);
  REQUIRE(r2.ok());
  CHECK(r2.gguf.version == 2);
  CHECK(r2.gguf.alignment == 64);
  CHECK(r2.data_start % 64 == 0);
  CHECK(r2.weight_bytes == r.weight_bytes);
}

TEST_CASE("Weight headers: GGUF asks for doubling slices; a large vocabulary takes few reads") {
  Gguf g;
  std::vector<std::string> tokens;
  for (int i = 0; i < 200000; ++i) tokens.push_back("token_" + std::to_string(i));  // ~3.5 MB
  g.KvStr("general.architecture", "qwen2").KvStrings("tokenizer.ggml.tokens", tokens);
  g.KvU32("qwen2.block_count", 1);
  g.Tensor({"w", {512, 2}, 12, 4 * 144});
  const std::string file = g.Build();
  int reads = 0;
  const WeightHeaderResult r = Drive(file, kWeightHeaderFirstRead, &reads);
  INFO(r.message);
  REQUIRE(r.ok());
  CHECK(reads == 3);  // 1 MiB, 2 MiB, 4 MiB (clamped to the file)
  CHECK(r.gguf.vocab_size == 200000);
  CHECK(r.gguf.block_count == 1);
  CheckType(r, "Q4_K", 1, 1024, 576);

  // A small first slice grows to the minimum first read, not byte by byte.
  const WeightHeaderResult first = ParseGgufHeader(reinterpret_cast<const uint8_t*>(file.data()), 100, file.size());
  CHECK(first.status == WeightHeaderStatus::kNeedMoreBytes);
  CHECK(first.need_bytes == kWeightHeaderFirstRead);
}

TEST_CASE("Weight headers: every truncation of a GGUF file is an error or a request") {
  const std::string file = SampleGgufBuilder().Build();
  const WeightHeaderResult whole = Parse(file);
  REQUIRE(whole.ok());
  // The last tensor's padding may be cut: llama.cpp reads only up to its data's end.
  const uint64_t data_end = whole.data_start + whole.data_bytes;
  CHECK(data_end == file.size() - 28);  // the 4-byte scalar, padded to 32
  for (size_t len = 0; len <= file.size(); ++len) {
    INFO("prefix length " << len);
    const std::string_view prefix(file.data(), len);
    const WeightHeaderResult more = ParseWeightHeader(prefix, file.size());
    CHECK(more.status != WeightHeaderStatus::kError);
    if (more.status == WeightHeaderStatus::kNeedMoreBytes) {
      CHECK(more.need_bytes > len);
      CHECK(more.need_bytes <= file.size());
    }
    const WeightHeaderResult cut = ParseWeightHeader(prefix, len);
    if (len >= data_end) {
      CHECK(cut.ok());
    } else {
      CHECK(cut.status == WeightHeaderStatus::kError);
    }
    const WeightHeaderResult direct = ParseGgufHeader(reinterpret_cast<const uint8_t*>(file.data()), len, len);
    CHECK((len >= data_end ? direct.ok() : direct.status == WeightHeaderStatus::kError));
  }
}

TEST_CASE("Weight headers: malformed GGUF headers are errors with stable ids") {
  auto parse = [](const Gguf& g) { return Parse(g.Build()); };
  auto tensor = [](GgufTensorSpec t) {
    Gguf g;
    g.KvStr("general.architecture", "llama");
    g.Tensor(std::move(t));
    return g;
  };
  REQUIRE(parse(tensor({"w", {256, 2}, 12, 288})).ok());

  // Magic and version.
  {
    std::string f = SampleGgufBuilder().Build();
    f[3] = 'X';
    CheckError(ParseGgufHeader(reinterpret_cast<const uint8_t*>(f.data()), f.size(), f.size()),
               WeightIssue::kBadMagic, "GGUF");
    CheckError(Parse(f), WeightIssue::kBadMagic);
    CheckError(Parse(std::string("hello, world: not a weight file")), WeightIssue::kBadMagic);
    CheckError(Parse(std::string("\x01\x02\x03", 3)), WeightIssue::kBadMagic);
    CheckError(Parse(std::string()), WeightIssue::kTruncated, "empty");
  }
  for (uint32_t v : {0u, 1u, 4u, 0x03000000u}) {
    Gguf g = SampleGgufBuilder();
    g.version = v;
    CheckError(parse(g), WeightIssue::kUnsupportedVersion, v == 0x03000000u ? "big-endian" : "version");
  }

  // Hostile counts and lengths.
  {
    Gguf g;
    g.tensor_count_override = 1ll << 60;
    CheckError(Parse(g.Build(), 1ull << 62), WeightIssue::kHeaderTooLarge, "tensors");
    g.tensor_count_override = ~0ull - 1;  // negative as int64
    CheckError(Parse(g.Build(), 1ull << 62), WeightIssue::kBadSize, "negative");
    Gguf k;
    k.kv_count_override = 1ll << 40;
    CheckError(Parse(k.Build(), 1ull << 62), WeightIssue::kHeaderTooLarge);
  }
  {
    Bytes b;
    b.Raw("GGUF").U32(3).U64(0).U64(1).U64(1ull << 62).Raw("k");  // key length 2^62
    CheckError(Parse(b.b, 1ull << 63), WeightIssue::kHeaderTooLarge);
    CheckError(Parse(b.b), WeightIssue::kTruncated);
    Bytes s;
    s.Raw("GGUF").U32(3).U64(0).U64(1).Str("k").U32(kArray).U32(kU64).U64(1ull << 62);  // 2^65 bytes of array
    CheckError(Parse(s.b, 1ull << 62), WeightIssue::kHeaderTooLarge, "overflows");
    Bytes t;
    t.Raw("GGUF").U32(3).U64(0).U64(1).Str("k").U32(kArray).U32(kString).U64(~0ull).U64(3).Raw("abc");
    CheckError(Parse(t.b), WeightIssue::kTruncated);  // 2^64-1 strings: stops at the buffer's end
  }

  // Shapes: overflow, negative, too many dimensions; types; blocks.
  CheckError(parse(tensor({"w", {1ull << 32, 1ull << 32}, 0, 0})), WeightIssue::kBadSize, "overflows");
  CheckError(parse(tensor({"w", {1ull << 31, 1ull << 32}, 0, 0})), WeightIssue::kBadSize, "int64");
  CheckError(parse(tensor({"w", {~0ull}, 0, 0})), WeightIssue::kBadSize, "negative");
  CheckError(parse(tensor({"w", {1, 1, 1, 1, 1}, 0, 4})), WeightIssue::kMalformed, "at most 4");
  CheckError(parse(tensor({"w", {32}, 99, 0})), WeightIssue::kUnknownDtype, "99");
  CheckError(parse(tensor({"w", {32}, 31, 18})), WeightIssue::kUnknownDtype, "removed");
  CheckError(parse(tensor({"w", {100, 3}, 12, 0})), WeightIssue::kBlockMisaligned, "256");
  CheckError(parse(tensor({"w", {16}, 8, 0})), WeightIssue::kBlockMisaligned, "Q8_0");

  // Offsets and the data section.
  {
    Gguf g = tensor({"a", {8}, 0, 32});
    g.Tensor({"b", {8}, 0, 32, 64});  // packed, b would be at 32
    CheckError(parse(g), WeightIssue::kOffsetMismatch, "expected 32");
    Gguf h = tensor({"a", {8}, 0, 32, 32});
    CheckError(parse(h), WeightIssue::kOffsetMismatch, "expected 0");
  }
  {
    uint64_t header_end = 0, full = 0;
    const std::string f = SampleGgufBuilder().Build(false, &header_end, &full);
    const WeightHeaderResult whole = Parse(f, full);
    REQUIRE(whole.ok());
    const uint64_t data_end = whole.data_start + whole.data_bytes;
    CHECK(Parse(f, data_end).ok());
    CheckError(Parse(f, data_end - 1), WeightIssue::kTruncated, "cut short");
    CheckError(Parse(f), WeightIssue::kTruncated);
  }

  // Duplicates.
  {
    Gguf g = tensor({"w", {32}, 0, 128});
    g.Tensor({"w", {32}, 0, 128});
    CheckError(parse(g), WeightIssue::kDuplicateName, "'w'");
    Gguf k;
    k.KvU32("a", 1).KvU32("a", 2);
    CheckError(parse(k), WeightIssue::kDuplicateName, "'a'");
  }

  // Value types and general.alignment.
  {
    Gguf g;
    g.KvRaw("k", 13, "");
    CheckError(parse(g), WeightIssue::kMalformed, "type 13");
    Gguf n;
    n.KvRaw("k", kArray, Bytes().U32(kArray).U64(1).U32(kU8).U64(1).U8(0).b);
    CheckError(parse(n), WeightIssue::kMalformed, "array of arrays");
    Gguf e;
    e.KvRaw("k", kArray, Bytes().U32(77).U64(0).b);
    CheckError(parse(e), WeightIssue::kMalformed);
    Gguf a;
    a.KvU32("general.alignment", 48);
    CheckError(parse(a), WeightIssue::kMalformed, "power of two");
    Gguf z;
    z.KvU32("general.alignment", 0);
    CheckError(parse(z), WeightIssue::kMalformed);
    Gguf w;
    w.KvU64("general.alignment", 32);
    CheckError(parse(w), WeightIssue::kMalformed, "uint32");
  }

  // Diagnostics for the UI.
  const Diagnostics d = WeightHeaderDiagnostics(parse(tensor({"w", {32}, 99, 0})));
  REQUIRE(d.size() == 1);
  CHECK(d[0].id == DiagId::kUnknownValue);
  CHECK(d[0].severity == Severity::kError);
}

// ---- index and shards -------------------------------------------------------------------

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

// ---- robustness ---------------------------------------------------------------------------

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
        case 0: f[at] = static_cast<char>(next()); break;
        case 1: f[at] = static_cast<char>(f[at] ^ (1 << (next() % 8))); break;
        case 2: f[at] = static_cast<char>(0xFF); break;
        default: f.resize(std::max<size_t>(at, 1)); break;
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
