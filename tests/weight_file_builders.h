// Weight files built byte by byte for the weight-header tests (test_safetensors_header.cpp,
// test_gguf_header.cpp, test_weight_index.cpp, test_weight_headers.cpp): a little-endian
// byte writer, safetensors and GGUF file builders, the two sample files, a driver that
// answers the need-more-bytes protocol as a front end does, and result checks.
// Expected byte counts are written out by hand from ggml-common.h's block structs and the
// safetensors Dtype widths, not taken from the table under test.
#pragma once

#include <doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/parse/weight_headers.h"

namespace llmmem::test::weight_files {

using namespace llmmem::core;

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
inline std::string Safetensors(const std::string& json, uint64_t data_bytes, bool pad = true) {
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
  uint64_t bytes;       // written out by hand by the test
  int64_t offset = -1;  // -1: the packed offset a writer would use
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

inline WeightHeaderResult Parse(const std::string& bytes, uint64_t file_size) {
  return ParseWeightHeader(std::string_view(bytes), file_size);
}
inline WeightHeaderResult Parse(const std::string& file) { return Parse(file, file.size()); }

// What a front end does: read a first slice, then whatever the parser asks for.
inline WeightHeaderResult Drive(const std::string& file, uint64_t first_read, int* reads = nullptr) {
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

inline const WeightTypeTally* FindType(const WeightHeaderResult& r, const std::string& type) {
  for (const WeightTypeTally& t : r.by_type) {
    if (t.type == type) return &t;
  }
  return nullptr;
}

inline void CheckType(const WeightHeaderResult& r, const std::string& type, uint64_t tensors, uint64_t params,
                      uint64_t bytes) {
  INFO("type " << type);
  const WeightTypeTally* t = FindType(r, type);
  REQUIRE(t != nullptr);
  CHECK(t->tensors == tensors);
  CHECK(t->parameters == params);
  CHECK(t->bytes == bytes);
}

inline bool HasNote(const WeightHeaderResult& r, WeightIssue id) {
  for (const WeightNote& n : r.notes) {
    if (n.id == id) return true;
  }
  return false;
}

inline std::string Metadata(const WeightHeaderResult& r, const std::string& key) {
  for (const auto& [k, v] : r.metadata) {
    if (k == key) return v;
  }
  return "<absent>";
}

inline void CheckError(const WeightHeaderResult& r, WeightIssue id, const char* needle = nullptr) {
  INFO("message: " << r.message);
  CHECK(r.status == WeightHeaderStatus::kError);
  CHECK(WeightIssueName(r.error) == std::string(WeightIssueName(id)));
  CHECK_FALSE(r.message.empty());
  if (needle) CHECK(r.message.find(needle) != std::string::npos);
}

// ---- the sample files -------------------------------------------------------------------

// Tensors listed out of offset order; one scalar, one empty tensor, a 4-bit dtype.
inline const char* const kSampleJson =
    R"({"lm_head.weight":{"dtype":"F8_E4M3","shape":[4,10],"data_offsets":[96,136]},)"
    R"("__metadata__":{"format":"pt","nested":{"a":[1,2.5e3,{"b":null}],"t":true}},)"
    R"("model.embed.weight":{"dtype":"BF16","shape":[10,4],"data_offsets":[0,80]},)"
    R"("model.norm.weight":{"dtype":"F32","shape":[4],"data_offsets":[80,96],"extra":{"x":[[]]}},)"
    R"("scale":{"dtype":"F4","shape":[2,3],"data_offsets":[136,139]},)"
    R"("step":{"dtype":"I64","shape":[],"data_offsets":[139,147]},)"
    R"("empty\u00e9":{"dtype":"F16","shape":[0,5],"data_offsets":[147,147]}})";
inline constexpr uint64_t kSampleData = 147;

inline std::string SampleSafetensors() { return Safetensors(kSampleJson, kSampleData); }

inline Gguf SampleGgufBuilder() {
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

}  // namespace llmmem::test::weight_files
