// The GGUF header reader (src/core/parse/gguf_header.cpp): exact counts and bytes per ggml type and
// the model facts from a sample v2/v3 file built byte by byte, the doubling-slice protocol,
// every truncation, and malformed headers (magic, version, hostile counts and lengths,
// shapes, types, blocks, offsets, duplicates, value types, alignment) with their stable ids.
#include <doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/parse/weight_headers.h"
#include "weight_file_builders.h"

using namespace llmmem::core;
using namespace llmmem::test::weight_files;

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
    CheckError(ParseGgufHeader(reinterpret_cast<const uint8_t*>(f.data()), f.size(), f.size()), WeightIssue::kBadMagic,
               "GGUF");
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
