// The GGUF v2/v3 header reader (ParseGgufHeader in core/weight_headers.h): metadata
// key/values, tensor infos with exact elements and bytes per ggml type, the model facts a
// front end can pre-fill (GgufModelInfo), and the tensor offsets checked against the file
// size. Every read is bounds-checked and every size product and sum overflow-checked; a short
// buffer answers with a doubling slice to read next. Standard library only (plus
// core/json.h for number text and core/weight_headers_internal.h).
// Sources: ggml docs/gguf.md and ggml/src/gguf.cpp (v2/v3 layout, value types,
// general.alignment, offsets checked against the running padded size, GGML_MAX_DIMS = 4,
// ne[0] a multiple of the block size); block sizes from ggml_types.cpp.
//
// Index
// [SECTION] Value types and limits
// [SECTION] The header reader: key/values, tensor infos
// [SECTION] Model facts from the key/values
// [SECTION] ParseGgufHeader: offsets, data section, tallies
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/weight_headers.h"
#include "core/weight_headers_internal.h"

namespace llmmem::core {

using namespace detail;

namespace {

// -----------------------------------------------------------------------------------------
// [SECTION] Value types and limits
// -----------------------------------------------------------------------------------------

enum GgufValueType : uint32_t {
  kGgufU8 = 0, kGgufI8 = 1, kGgufU16 = 2, kGgufI16 = 3, kGgufU32 = 4, kGgufI32 = 5,
  kGgufF32 = 6, kGgufBool = 7, kGgufString = 8, kGgufArray = 9, kGgufU64 = 10,
  kGgufI64 = 11, kGgufF64 = 12,
};
constexpr uint32_t kGgufTypeCount = 13;
const char* const kGgufTypeNames[kGgufTypeCount] = {"uint8", "int8", "uint16", "int16", "uint32",
                                                     "int32", "float32", "bool", "string", "array",
                                                     "uint64", "int64", "float64"};
constexpr uint64_t kGgufFixedSize[kGgufTypeCount] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
constexpr uint32_t kGgmlMaxDims = 4;
// Smallest encodings, to refuse absurd declared counts before reading anything.
constexpr uint64_t kGgufMinKvBytes = 8 + 4 + 1;           // key length, type, 1-byte value
constexpr uint64_t kGgufMinTensorInfoBytes = 8 + 4 + 4 + 8;  // name length, n_dims, type, offset

struct GgufTensor {
  std::string name;
  const GgmlTypeInfo* type = nullptr;
  uint64_t elements = 0, bytes = 0, offset = 0;
};

// -----------------------------------------------------------------------------------------
// [SECTION] The header reader: key/values, tensor infos
// -----------------------------------------------------------------------------------------

class GgufReader {
 public:
  GgufReader(const uint8_t* p, size_t size, WeightHeaderResult& r) : p_(p), size_(size), r_(r), meta_(r) {}

  // True when the header up to the end of the tensor infos was read; false either on an
  // error (issue() != kNone) or when more bytes are needed (want()).
  bool Run() {
    if (!Have(4)) return false;
    if (std::memcmp(p_, "GGUF", 4) != 0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "the file starts with bytes %02x %02x %02x %02x, not \"GGUF\"", p_[0], p_[1],
                    p_[2], p_[3]);
      return Fail(WeightIssue::kBadMagic, buf);
    }
    pos_ = 4;
    uint32_t version = 0;
    if (!U32(version)) return false;
    const uint32_t swapped = ((version & 0xFF) << 24) | ((version & 0xFF00) << 8) | ((version >> 8) & 0xFF00) | (version >> 24);
    if (version == 1) {
      return Fail(WeightIssue::kUnsupportedVersion,
                  "GGUF version 1 (32-bit counts, before August 2023) is not read; convert the model again with a "
                  "current llama.cpp");
    }
    if (version != 2 && version != 3) {
      if (swapped >= 1 && swapped <= 3) {
        return Fail(WeightIssue::kUnsupportedVersion, "a big-endian GGUF file; only little-endian files are read");
      }
      return Fail(WeightIssue::kUnsupportedVersion,
                  "GGUF version " + Num(version) + "; versions 2 and 3 are read");
    }
    r_.gguf.version = version;
    uint64_t tensor_count = 0, kv_count = 0;
    if (!U64(tensor_count) || !U64(kv_count)) return false;
    if (tensor_count > kI64Max || kv_count > kI64Max) {
      return Fail(WeightIssue::kBadSize, "the tensor or key/value count is negative");
    }
    if (tensor_count > kGgufMaxHeaderBytes / kGgufMinTensorInfoBytes ||
        kv_count > kGgufMaxHeaderBytes / kGgufMinKvBytes) {
      return Fail(WeightIssue::kHeaderTooLarge,
                  "the header declares " + Num(tensor_count) + " tensors and " + Num(kv_count) +
                      " key/values; that many could not fit in the " + Num(kGgufMaxHeaderBytes) +
                      " bytes this reader accepts");
    }
    r_.gguf.kv_count = kv_count;
    for (uint64_t i = 0; i < kv_count; ++i) {
      if (!KeyValue(i)) return false;
    }
    for (uint64_t i = 0; i < tensor_count; ++i) {
      if (!TensorInfo(i)) return false;
    }
    meta_.Finish();
    return true;
  }

  WeightIssue issue() const { return issue_; }
  const std::string& message() const { return message_; }
  uint64_t want() const { return want_; }
  uint64_t pos() const { return pos_; }
  const std::string& context() const { return context_; }
  std::vector<GgufTensor>& tensors() { return tensors_; }
  const std::map<std::string, int64_t>& ints() const { return ints_; }
  int64_t token_count() const { return token_count_; }

 private:
  bool Fail(WeightIssue id, const std::string& what) {
    if (issue_ == WeightIssue::kNone) {
      issue_ = id;
      message_ = what;
    }
    return false;
  }
  // Records how many bytes the read at pos_ needs when the buffer is short.
  bool Have(uint64_t n) {
    uint64_t end = 0;
    if (!AddOk(pos_, n, end)) end = kU64Max;
    if (end <= size_) return true;
    want_ = end;
    return false;
  }
  bool U32(uint32_t& v) {
    if (!Have(4)) return false;
    v = static_cast<uint32_t>(ReadLe(p_ + pos_, 4));
    pos_ += 4;
    return true;
  }
  bool U64(uint64_t& v) {
    if (!Have(8)) return false;
    v = ReadLe(p_ + pos_, 8);
    pos_ += 8;
    return true;
  }
  bool Skip(uint64_t n) {
    if (!Have(n)) return false;
    pos_ += n;
    return true;
  }
  bool Str(std::string& s) {
    uint64_t len = 0;
    if (!U64(len) || !Have(len)) return false;
    s.assign(reinterpret_cast<const char*>(p_ + pos_), static_cast<size_t>(len));
    pos_ += len;
    return true;
  }

  bool KeyValue(uint64_t i) {
    std::string key;
    context_ = " (reading metadata key/value #" + Num(i) + ")";
    if (!Str(key)) return false;
    context_ = " (reading metadata key " + Quoted(key) + ")";
    if (!keys_.insert(key).second) return Fail(WeightIssue::kDuplicateName, "metadata key " + Quoted(key) + " appears twice");
    uint32_t type = 0;
    if (!U32(type)) return false;
    if (type >= kGgufTypeCount) {
      return Fail(WeightIssue::kMalformed,
                  "metadata key " + Quoted(key) + " has value type " + Num(type) + "; GGUF defines types 0 to 12");
    }
    if (key == "general.alignment" && type != kGgufU32) {
      return Fail(WeightIssue::kMalformed, "general.alignment must be a uint32, not a " + std::string(kGgufTypeNames[type]));
    }
    if (type == kGgufArray) return ArrayValue(key);
    return ScalarValue(key, type);
  }

  bool ArrayValue(const std::string& key) {
    uint32_t elem = 0;
    uint64_t count = 0;
    if (!U32(elem) || !U64(count)) return false;
    if (elem >= kGgufTypeCount) {
      return Fail(WeightIssue::kMalformed, "metadata key " + Quoted(key) + " is an array of value type " + Num(elem) +
                                               "; GGUF defines types 0 to 12");
    }
    if (elem == kGgufArray) {
      return Fail(WeightIssue::kMalformed,
                  "metadata key " + Quoted(key) + " is an array of arrays, which llama.cpp's GGUF reader rejects too");
    }
    if (elem == kGgufString) {
      for (uint64_t j = 0; j < count; ++j) {  // each string takes >= 8 bytes: ends at the buffer's end
        uint64_t len = 0;
        if (!U64(len) || !Skip(len)) return false;
      }
    } else {
      uint64_t bytes = 0;
      if (!MulOk(count, kGgufFixedSize[elem], bytes)) bytes = kU64Max;
      if (!Skip(bytes)) return false;
    }
    if (key == "tokenizer.ggml.tokens" && count <= kI64Max) token_count_ = static_cast<int64_t>(count);
    meta_.Add(key, std::string("array<") + kGgufTypeNames[elem] + ">[" + Num(count) + "]");
    return true;
  }

  bool ScalarValue(const std::string& key, uint32_t type) {
    std::string text;
    if (type == kGgufString) {
      if (!Str(text)) return false;
      if (key == "general.architecture") r_.gguf.architecture = text;
      if (key == "general.name") r_.gguf.name = text;
      meta_.Add(key, std::move(text));
      return true;
    }
    const uint64_t width = kGgufFixedSize[type];
    if (!Have(width)) return false;
    const uint64_t raw = ReadLe(p_ + pos_, static_cast<int>(width));
    pos_ += width;
    bool is_int = true;
    int64_t value = 0;
    switch (type) {
      case kGgufU8: case kGgufU16: case kGgufU32: value = static_cast<int64_t>(raw); break;
      case kGgufI8: value = static_cast<int8_t>(raw); break;
      case kGgufI16: value = static_cast<int16_t>(raw); break;
      case kGgufI32: value = static_cast<int32_t>(raw); break;
      case kGgufI64: value = static_cast<int64_t>(raw); break;
      case kGgufU64:
        is_int = raw <= kI64Max;
        value = static_cast<int64_t>(raw & kI64Max);
        text = Num(raw);
        break;
      case kGgufBool:
        is_int = false;
        text = raw ? "true" : "false";
        break;
      case kGgufF32: {
        is_int = false;
        float f = 0;
        const uint32_t bits = static_cast<uint32_t>(raw);
        std::memcpy(&f, &bits, sizeof f);
        text = FormatJsonNumber(f);
        break;
      }
      default: {  // kGgufF64
        is_int = false;
        double d = 0;
        std::memcpy(&d, &raw, sizeof d);
        text = FormatJsonNumber(d);
        break;
      }
    }
    if (is_int) {
      if (text.empty()) text = std::to_string(value);
      ints_[key] = value;
    }
    if (key == "general.alignment") {
      if (raw == 0 || (raw & (raw - 1)) != 0) {
        return Fail(WeightIssue::kMalformed, "general.alignment is " + Num(raw) + "; it must be a power of two");
      }
      r_.gguf.alignment = static_cast<uint32_t>(raw);
    }
    meta_.Add(key, std::move(text));
    return true;
  }

  bool TensorInfo(uint64_t i) {
    GgufTensor t;
    context_ = " (reading tensor info #" + Num(i) + ")";
    if (!Str(t.name)) return false;
    context_ = " (reading tensor info #" + Num(i) + " " + Quoted(t.name) + ")";
    if (!tensor_names_.insert(t.name).second) {
      return Fail(WeightIssue::kDuplicateName, "tensor " + Quoted(t.name) + " appears twice");
    }
    uint32_t n_dims = 0;
    if (!U32(n_dims)) return false;
    if (n_dims > kGgmlMaxDims) {
      return Fail(WeightIssue::kMalformed, "tensor " + Quoted(t.name) + " has " + Num(n_dims) +
                                               " dimensions; ggml allows at most " + Num(kGgmlMaxDims));
    }
    std::vector<uint64_t> ne;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t v = 0;
      if (!U64(v)) return false;
      ne.push_back(v);
    }
    uint32_t type_id = 0;
    if (!U32(type_id) || !U64(t.offset)) return false;
    // Checks on bytes fully read (a short buffer above only asks for more).
    for (uint64_t v : ne) {
      if (v > kI64Max) {
        return Fail(WeightIssue::kBadSize, "tensor " + Quoted(t.name) + " has a negative dimension " +
                                               std::to_string(static_cast<int64_t>(v)));
      }
    }
    t.elements = 1;
    for (uint64_t v : ne) {
      if (!MulOk(t.elements, v, t.elements) || t.elements > kI64Max) {
        return Fail(WeightIssue::kBadSize, "tensor " + Quoted(t.name) + " has shape " + ShapeText(ne) +
                                               ", whose element count overflows int64");
      }
    }
    t.type = FindGgmlType(type_id);
    if (!t.type) {
      return Fail(WeightIssue::kUnknownDtype, "tensor " + Quoted(t.name) + " has ggml type " + Num(type_id) +
                                                  ", which ggml does not define");
    }
    if (t.type->block_bytes == 0) {
      return Fail(WeightIssue::kUnknownDtype, "tensor " + Quoted(t.name) + " has ggml type " + Num(type_id) + " (" +
                                                  t.type->name +
                                                  "), which ggml removed from GGUF files; convert the model again");
    }
    const uint64_t row = ne.empty() ? 1 : ne[0];
    if (row % t.type->block_elems != 0) {
      return Fail(WeightIssue::kBlockMisaligned,
                  "tensor " + Quoted(t.name) + " has rows of " + Num(row) + " elements, not a multiple of the " +
                      Num(t.type->block_elems) + "-element blocks of " + t.type->name);
    }
    if (!MulOk(t.elements / t.type->block_elems, t.type->block_bytes, t.bytes)) {
      return Fail(WeightIssue::kBadSize, "tensor " + Quoted(t.name) + " has a byte size that overflows 64 bits");
    }
    tensors_.push_back(std::move(t));
    return true;
  }

  const uint8_t* p_;
  uint64_t size_;
  WeightHeaderResult& r_;
  MetadataSink meta_;
  uint64_t pos_ = 0;
  uint64_t want_ = 0;
  WeightIssue issue_ = WeightIssue::kNone;
  std::string message_;
  std::string context_;
  std::set<std::string> keys_, tensor_names_;
  std::map<std::string, int64_t> ints_;
  int64_t token_count_ = -1;
  std::vector<GgufTensor> tensors_;
};

// -----------------------------------------------------------------------------------------
// [SECTION] Model facts from the key/values
// -----------------------------------------------------------------------------------------

int64_t IntOr(const std::map<std::string, int64_t>& ints, const std::string& key, int64_t fallback) {
  auto it = ints.find(key);
  return it == ints.end() ? fallback : it->second;
}

void FillModelInfo(const GgufReader& in, GgufModelInfo& g) {
  const auto& ints = in.ints();
  g.parameter_count = IntOr(ints, "general.parameter_count", -1);
  g.file_type = IntOr(ints, "general.file_type", -1);
  if (g.architecture.empty()) return;
  const std::string a = g.architecture + ".";
  g.block_count = IntOr(ints, a + "block_count", -1);
  g.embedding_length = IntOr(ints, a + "embedding_length", -1);
  g.feed_forward_length = IntOr(ints, a + "feed_forward_length", -1);
  g.head_count = IntOr(ints, a + "attention.head_count", -1);
  g.head_count_kv = IntOr(ints, a + "attention.head_count_kv", -1);
  g.key_length = IntOr(ints, a + "attention.key_length", -1);
  g.context_length = IntOr(ints, a + "context_length", -1);
  g.expert_count = IntOr(ints, a + "expert_count", -1);
  g.expert_used_count = IntOr(ints, a + "expert_used_count", -1);
  g.vocab_size = in.token_count() >= 0 ? in.token_count() : IntOr(ints, a + "vocab_size", -1);
}

}  // namespace

// -----------------------------------------------------------------------------------------
// [SECTION] ParseGgufHeader: offsets, data section, tallies
// -----------------------------------------------------------------------------------------

WeightHeaderResult ParseGgufHeader(const uint8_t* data, size_t size, uint64_t file_size) {
  const WeightFormat f = WeightFormat::kGguf;
  file_size = std::max<uint64_t>(file_size, size);
  WeightHeaderResult r;
  r.format = f;
  GgufReader in(data, size, r);
  if (!in.Run()) {
    if (in.issue() != WeightIssue::kNone) return Error(f, in.issue(), in.message());
    return AskFor(f, in.want(), size, file_size, kGgufMaxHeaderBytes, false, in.context());
  }
  r.header_bytes = in.pos();
  if (!AlignUpOk(r.header_bytes, r.gguf.alignment, r.data_start)) {
    return Error(f, WeightIssue::kBadSize, "the data section's start overflows 64 bits");
  }
  // gguf.cpp: each tensor's offset is the running size of the tensors before it, each
  // padded to the alignment; and llama.cpp refuses tensor data past the end of the file.
  Tally tally;
  uint64_t expected = 0, data_end = 0;
  for (const GgufTensor& t : in.tensors()) {
    if (t.offset != expected) {
      return Error(f, WeightIssue::kOffsetMismatch,
                   "tensor " + Quoted(t.name) + " has data offset " + Num(t.offset) + ", expected " + Num(expected) +
                       " (GGUF packs tensors in header order, each padded to " + Num(r.gguf.alignment) + " bytes)");
    }
    uint64_t padded = 0, end = 0;
    if (!AlignUpOk(t.bytes, r.gguf.alignment, padded) || !AddOk(expected, padded, expected) ||
        !AddOk(r.data_start, t.offset, end) || !AddOk(end, t.bytes, end)) {
      return Error(f, WeightIssue::kBadSize, "tensor " + Quoted(t.name) + " ends past 2^64 bytes");
    }
    if (end > file_size) {
      return Error(f, WeightIssue::kTruncated,
                   "tensor " + Quoted(t.name) + "'s data ends at byte " + Num(end) + " but the file is " +
                       Num(file_size) + " bytes: it was cut short");
    }
    data_end = end - r.data_start;
    if (!tally.Add(t.type->name, t.elements, t.bytes)) {
      return Error(f, WeightIssue::kBadSize, "the tensors' total size overflows 64 bits");
    }
  }
  r.data_bytes = data_end;
  tally.Fill(r);
  FillModelInfo(in, r.gguf);
  r.status = WeightHeaderStatus::kComplete;
  return r;
}

}  // namespace llmmem::core
