// The GGUF v2/v3 header reader (MakeGgufParser, behind WeightHeaderReader and
// ParseGgufHeader in core/weight_headers.h): metadata key/values, tensor infos with exact
// elements and bytes per ggml type, the model facts a front end can pre-fill (GgufModelInfo,
// refused when negative or past 2^63), and the tensor offsets checked against the file size.
// Incremental and linear: items are read as their bytes arrive, values that are not kept
// (a tokenizer's strings) are skipped; counts, names and the header are capped
// (weight_headers.h). Every read is bounds-checked and every size product and sum
// overflow-checked. Standard library only (plus core/json.h for number text and
// core/weight_headers_internal.h).
// Sources: ggml docs/gguf.md and ggml/src/gguf.cpp (v2/v3 layout, value types,
// general.alignment, offsets checked against the running padded size, GGML_MAX_DIMS = 4,
// ne[0] a multiple of the block size); block sizes from ggml_types.cpp.
//
// Index
// [SECTION] Value types and limits
// [SECTION] The header reader: key/values, tensor infos, model facts, the data section
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "core/parse/json.h"
#include "core/parse/weight_headers.h"
#include "core/parse/weight_headers_internal.h"

namespace llmmem::core {

using namespace detail;

namespace {

// -----------------------------------------------------------------------------------------
// [SECTION] Value types and limits
// -----------------------------------------------------------------------------------------

enum GgufValueType : uint32_t {
  kGgufU8 = 0,
  kGgufI8 = 1,
  kGgufU16 = 2,
  kGgufI16 = 3,
  kGgufU32 = 4,
  kGgufI32 = 5,
  kGgufF32 = 6,
  kGgufBool = 7,
  kGgufString = 8,
  kGgufArray = 9,
  kGgufU64 = 10,
  kGgufI64 = 11,
  kGgufF64 = 12,
};
constexpr uint32_t kGgufTypeCount = 13;
const char* const kGgufTypeNames[kGgufTypeCount] = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                                    "int32",  "float32", "bool",   "string", "array",
                                                    "uint64", "int64",   "float64"};
constexpr uint64_t kGgufFixedSize[kGgufTypeCount] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
constexpr uint32_t kGgmlMaxDims = 4;

// -----------------------------------------------------------------------------------------
// [SECTION] The header reader: key/values, tensor infos, model facts, the data section
// -----------------------------------------------------------------------------------------
// Resumable between items: pos_ is the start of the next key/value, string-array element
// or tensor info, and an item is read only when all its bytes are in the window (a value's
// bytes past what is kept are skipped, not read). Each item costs time proportional to its
// bytes, and what is kept is bounded: the names, 16 bytes per tensor, the model facts.

// Model facts read from "<arch>.<suffix>" (the architecture may come after them).
const char* const kFactSuffixes[] = {"block_count",
                                     "embedding_length",
                                     "feed_forward_length",
                                     "attention.head_count",
                                     "attention.head_count_kv",
                                     "attention.key_length",
                                     "context_length",
                                     "expert_count",
                                     "expert_used_count",
                                     "vocab_size"};
constexpr size_t kMaxFactCandidates = 256;

bool IsFactKey(const std::string& key) {
  if (key == "general.parameter_count" || key == "general.file_type") return true;
  for (const char* suffix : kFactSuffixes) {
    const size_t n = std::strlen(suffix);
    if (key.size() > n + 1 && key[key.size() - n - 1] == '.' && key.compare(key.size() - n, n, suffix) == 0)
      return true;
  }
  return false;
}

// A fact as read: an integer, or why it is not one (negative, above 2^63, not an integer).
struct Fact {
  bool is_int = false;
  int64_t value = 0;
  std::string text;  // the value as written, for messages
};

class GgufParser : public IncrementalParser {
 public:
  explicit GgufParser(uint64_t file_size) : file_size_(file_size), meta_(result) {
    result.format = WeightFormat::kGguf;
  }

  uint64_t keep_from() const override { return pos_; }
  uint64_t resume_at() const override { return pos_; }
  uint64_t need_end() const override { return need_end_; }
  uint64_t read_limit() const override { return std::min(file_size_, kGgufMaxHeaderBytes); }

  WeightHeaderStatus Parse(const Window& w) override {
    w_ = &w;
    while (true) {
      bool ok = true;
      switch (phase_) {
        case Phase::kHeader:
          ok = Header();
          break;
        case Phase::kKeyValues:
          if (kv_index_ == kv_count_) {
            phase_ = Phase::kTensorInfos;
            continue;
          }
          ok = KeyValue();
          break;
        case Phase::kStringArray:
          ok = StringArrayElements();
          break;
        case Phase::kTensorInfos:
          if (tensor_index_ == tensor_count_) return Finish();
          ok = TensorInfo();
          break;
        case Phase::kDone:
          return result.status;
      }
      if (!ok)
        return issue_ != WeightIssue::kNone ? Done(Error(WeightFormat::kGguf, issue_, message_))
                                            : WeightHeaderStatus::kNeedMoreBytes;
    }
  }

 private:
  enum class Phase { kHeader, kKeyValues, kStringArray, kTensorInfos, kDone };

  WeightHeaderStatus Done(WeightHeaderResult r) {
    phase_ = Phase::kDone;
    result = std::move(r);
    return result.status;
  }
  bool Fail(WeightIssue id, const std::string& what) {
    if (issue_ == WeightIssue::kNone) {
      issue_ = id;
      message_ = what;
    }
    return false;
  }
  // Where the reader is, for messages about a length or a short file.
  std::string Context() const {
    switch (phase_) {
      case Phase::kHeader:
        return " (reading the header's counts)";
      case Phase::kKeyValues:
        return item_name_.empty() ? " (reading metadata key/value #" + Num(kv_index_) + ")"
                                  : " (reading metadata key " + Quoted(item_name_) + ")";
      case Phase::kStringArray:
        return " (reading metadata key " + Quoted(item_name_) + ")";
      case Phase::kTensorInfos:
        return " (reading tensor info #" + Num(tensor_index_) + (item_name_.empty() ? "" : " " + Quoted(item_name_)) +
               ")";
      case Phase::kDone:
        break;
    }
    return "";
  }
  // True when the n bytes at `at` are in the window. Otherwise false: an error when they
  // lie past the file or the header cap, else a request (need_end_).
  bool Have(uint64_t at, uint64_t n) {
    uint64_t end = 0;
    if (!AddOk(at, n, end))
      return Fail(WeightIssue::kHeaderTooLarge, "a length declared in the GGUF header overflows 64 bits" + Context());
    if (end <= w_->end() && at >= w_->base) return true;
    if (end > file_size_) {
      return Fail(WeightIssue::kTruncated, "the file is " + Num(file_size_) +
                                               " bytes but its GGUF header needs at least " + Num(end) + Context());
    }
    if (end > kGgufMaxHeaderBytes) {
      return Fail(WeightIssue::kHeaderTooLarge, "the GGUF header needs at least " + Num(end) +
                                                    " bytes; this reader stops at " + Num(kGgufMaxHeaderBytes) +
                                                    Context());
    }
    need_end_ = end;
    return false;
  }
  uint64_t Le(uint64_t at, int n) const { return ReadLe(w_->at(at), n); }
  // A name (key or tensor name) at `at`: its length, then the bytes; `at` moves past it.
  bool Name(uint64_t& at, const char* what) {
    if (!Have(at, 8)) return false;
    const uint64_t len = Le(at, 8);
    uint64_t end = 0;
    if (!AddOk(at + 8, len, end) || end > file_size_ || end > kGgufMaxHeaderBytes) return Have(at + 8, len);
    if (len > kWeightMaxNameBytes) {
      return Fail(WeightIssue::kMalformed, std::string(what) + " is " + Num(len) +
                                               " bytes long; this reader accepts names up to " +
                                               Num(kWeightMaxNameBytes) + " bytes" + Context());
    }
    if (!Have(at + 8, len)) return false;
    item_name_.assign(reinterpret_cast<const char*>(w_->at(at + 8)), static_cast<size_t>(len));
    at += 8 + len;
    return true;
  }

  bool Header() {
    if (!Have(0, 4)) return false;
    const uint8_t* p = w_->at(0);
    if (std::memcmp(p, "GGUF", 4) != 0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "the file starts with bytes %02x %02x %02x %02x, not \"GGUF\"", p[0], p[1], p[2],
                    p[3]);
      return Fail(WeightIssue::kBadMagic, buf);
    }
    if (!Have(4, 4)) return false;
    const uint32_t version = static_cast<uint32_t>(Le(4, 4));
    const uint32_t swapped =
        ((version & 0xFF) << 24) | ((version & 0xFF00) << 8) | ((version >> 8) & 0xFF00) | (version >> 24);
    if (version == 1) {
      return Fail(WeightIssue::kUnsupportedVersion,
                  "GGUF version 1 (32-bit counts, before August 2023) is not read; convert the model again with a "
                  "current llama.cpp");
    }
    if (version != 2 && version != 3) {
      if (swapped >= 1 && swapped <= 3) {
        return Fail(WeightIssue::kUnsupportedVersion, "a big-endian GGUF file; only little-endian files are read");
      }
      return Fail(WeightIssue::kUnsupportedVersion, "GGUF version " + Num(version) + "; versions 2 and 3 are read");
    }
    if (!Have(8, 16)) return false;
    result.gguf.version = version;
    tensor_count_ = Le(8, 8);
    kv_count_ = Le(16, 8);
    if (tensor_count_ > kI64Max || kv_count_ > kI64Max) {
      return Fail(WeightIssue::kBadSize, "the tensor or key/value count is negative (" +
                                             std::to_string(static_cast<int64_t>(tensor_count_)) + " tensors, " +
                                             std::to_string(static_cast<int64_t>(kv_count_)) + " key/values)");
    }
    if (tensor_count_ > kWeightMaxTensors || kv_count_ > kGgufMaxKeyValues) {
      return Fail(WeightIssue::kHeaderTooLarge,
                  "the header declares " + Num(tensor_count_) + " tensors and " + Num(kv_count_) +
                      " key/values; this reader accepts at most " + Num(kWeightMaxTensors) + " tensors and " +
                      Num(kGgufMaxKeyValues) + " key/values (llama.cpp's files have a few thousand and a few dozen)");
    }
    result.gguf.kv_count = kv_count_;
    pos_ = 24;
    phase_ = Phase::kKeyValues;
    return true;
  }

  bool KeyValue() {
    item_name_.clear();
    uint64_t at = pos_;
    if (!Name(at, "a metadata key")) return false;
    const std::string& key = item_name_;
    if (!Have(at, 4)) return false;
    const uint32_t type = static_cast<uint32_t>(Le(at, 4));
    at += 4;
    if (type >= kGgufTypeCount) {
      return Fail(WeightIssue::kMalformed,
                  "metadata key " + Quoted(key) + " has value type " + Num(type) + "; GGUF defines types 0 to 12");
    }
    if (key == "general.alignment" && type != kGgufU32) {
      return Fail(WeightIssue::kMalformed,
                  "general.alignment must be a uint32, not a " + std::string(kGgufTypeNames[type]));
    }
    if (type == kGgufArray) return ArrayValue(key, at);
    return ScalarValue(key, type, at);
  }

  // Commits the current key/value: its key is new, its value ends at `end`.
  bool Commit(const std::string& key, uint64_t end) {
    if (!keys_.Insert(key)) return Fail(WeightIssue::kDuplicateName, "metadata key " + Quoted(key) + " appears twice");
    pos_ = end;
    ++kv_index_;
    return true;
  }

  bool ArrayValue(const std::string& key, uint64_t at) {
    if (!Have(at, 12)) return false;
    const uint32_t elem = static_cast<uint32_t>(Le(at, 4));
    const uint64_t count = Le(at + 4, 8);
    at += 12;
    if (elem >= kGgufTypeCount) {
      return Fail(WeightIssue::kMalformed, "metadata key " + Quoted(key) + " is an array of value type " + Num(elem) +
                                               "; GGUF defines types 0 to 12");
    }
    if (elem == kGgufArray) {
      return Fail(WeightIssue::kMalformed,
                  "metadata key " + Quoted(key) + " is an array of arrays, which llama.cpp's GGUF reader rejects too");
    }
    uint64_t end = at;
    if (elem != kGgufString) {
      uint64_t bytes = 0;
      if (!MulOk(count, kGgufFixedSize[elem], bytes) || !AddOk(at, bytes, end)) {
        return Fail(WeightIssue::kHeaderTooLarge, "a length declared in the GGUF header overflows 64 bits" + Context());
      }
      // The elements are skipped, not read; a skip past the file or the cap is reported here.
      if (end > file_size_ || end > kGgufMaxHeaderBytes) return Have(at, end - at);
    }
    if (key == "tokenizer.ggml.tokens" && count <= kI64Max) token_count_ = static_cast<int64_t>(count);
    meta_.Add(key, std::string("array<") + kGgufTypeNames[elem] + ">[" + Num(count) + "]");
    if (!Commit(key, end)) return false;
    if (elem == kGgufString) {
      --kv_index_;  // counted once its elements are read
      array_left_ = count;
      phase_ = Phase::kStringArray;
    }
    return true;
  }

  // Each element: a length (read), then its bytes (skipped).
  bool StringArrayElements() {
    while (array_left_ > 0) {
      if (!Have(pos_, 8)) return false;
      uint64_t end = 0;
      if (!AddOk(pos_ + 8, Le(pos_, 8), end)) {
        return Fail(WeightIssue::kHeaderTooLarge, "a length declared in the GGUF header overflows 64 bits" + Context());
      }
      if (end > file_size_ || end > kGgufMaxHeaderBytes) return Have(pos_, end - pos_);
      pos_ = end;
      --array_left_;
    }
    ++kv_index_;
    phase_ = Phase::kKeyValues;
    return true;
  }

  bool ScalarValue(const std::string& key, uint32_t type, uint64_t at) {
    std::string text;
    if (type == kGgufString) {
      if (!Have(at, 8)) return false;
      const uint64_t len = Le(at, 8);
      uint64_t end = 0;
      if (!AddOk(at + 8, len, end)) {
        return Fail(WeightIssue::kHeaderTooLarge, "a length declared in the GGUF header overflows 64 bits" + Context());
      }
      if (end > file_size_ || end > kGgufMaxHeaderBytes) return Have(at, end - at);
      // Kept: what the metadata list shows (and the name and architecture); the rest is skipped.
      const uint64_t kept = std::min<uint64_t>(len, kWeightMetadataMaxValueBytes);
      if (!Have(at + 8, kept)) return false;
      text.assign(reinterpret_cast<const char*>(w_->at(at + 8)), static_cast<size_t>(kept));
      if (kept < len) text.resize(Utf8CompleteLength(text));  // cut on a character boundary
      if (!Commit(key, end)) return false;
      if (key == "general.architecture") result.gguf.architecture = text;
      if (key == "general.name") result.gguf.name = text;
      if (kept < len) text += "... (" + Num(len) + " bytes)";
      meta_.Add(key, std::move(text));
      return true;
    }
    const uint64_t width = kGgufFixedSize[type];
    if (!Have(at, width)) return false;
    const uint64_t raw = Le(at, static_cast<int>(width));
    Fact fact;
    fact.is_int = true;
    switch (type) {
      case kGgufU8:
      case kGgufU16:
      case kGgufU32:
        fact.value = static_cast<int64_t>(raw);
        break;
      case kGgufI8:
        fact.value = static_cast<int8_t>(raw);
        break;
      case kGgufI16:
        fact.value = static_cast<int16_t>(raw);
        break;
      case kGgufI32:
        fact.value = static_cast<int32_t>(raw);
        break;
      case kGgufI64:
        fact.value = static_cast<int64_t>(raw);
        break;
      case kGgufU64:
        fact.is_int = raw <= kI64Max;
        fact.value = static_cast<int64_t>(raw & kI64Max);
        text = Num(raw);
        break;
      case kGgufBool:
        fact.is_int = false;
        text = raw ? "true" : "false";
        break;
      case kGgufF32: {
        fact.is_int = false;
        float f = 0;
        const uint32_t bits = static_cast<uint32_t>(raw);
        std::memcpy(&f, &bits, sizeof f);
        text = FormatJsonNumber(f);
        break;
      }
      default: {  // kGgufF64
        fact.is_int = false;
        double d = 0;
        std::memcpy(&d, &raw, sizeof d);
        text = FormatJsonNumber(d);
        break;
      }
    }
    if (fact.is_int && text.empty()) text = std::to_string(fact.value);
    if (key == "general.alignment" && (raw == 0 || (raw & (raw - 1)) != 0)) {
      return Fail(WeightIssue::kMalformed, "general.alignment is " + Num(raw) + "; it must be a power of two");
    }
    if (!Commit(key, at + width)) return false;
    if (key == "general.alignment") result.gguf.alignment = static_cast<uint32_t>(raw);
    if (IsFactKey(key) && facts_.size() < kMaxFactCandidates) {
      fact.text = text;
      facts_.emplace(key, std::move(fact));
    }
    meta_.Add(key, std::move(text));
    return true;
  }

  bool TensorInfo() {
    item_name_.clear();
    uint64_t at = pos_;
    if (!Name(at, "a tensor name")) return false;
    const std::string& name = item_name_;
    if (!Have(at, 4)) return false;
    const uint32_t n_dims = static_cast<uint32_t>(Le(at, 4));
    at += 4;
    if (n_dims > kGgmlMaxDims) {
      return Fail(WeightIssue::kMalformed, "tensor " + Quoted(name) + " has " + Num(n_dims) +
                                               " dimensions; ggml allows at most " + Num(kGgmlMaxDims));
    }
    if (!Have(at, 8 * n_dims + 12)) return false;
    std::vector<uint64_t> ne;
    for (uint32_t d = 0; d < n_dims; ++d) ne.push_back(Le(at + 8 * d, 8));
    at += 8 * n_dims;
    const uint32_t type_id = static_cast<uint32_t>(Le(at, 4));
    const uint64_t offset = Le(at + 4, 8);
    at += 12;
    if (!tensor_names_.Insert(name))
      return Fail(WeightIssue::kDuplicateName, "tensor " + Quoted(name) + " appears twice");
    for (uint64_t v : ne) {
      if (v > kI64Max) {
        return Fail(WeightIssue::kBadSize,
                    "tensor " + Quoted(name) + " has a negative dimension " + std::to_string(static_cast<int64_t>(v)));
      }
    }
    uint64_t elements = 1;
    for (uint64_t v : ne) {
      if (!MulOk(elements, v, elements) || elements > kI64Max) {
        return Fail(WeightIssue::kBadSize,
                    "tensor " + Quoted(name) + " has shape " + ShapeText(ne) + ", whose element count overflows int64");
      }
    }
    const GgmlTypeInfo* type = FindGgmlType(type_id);
    if (!type) {
      return Fail(WeightIssue::kUnknownDtype,
                  "tensor " + Quoted(name) + " has ggml type " + Num(type_id) + ", which ggml does not define");
    }
    if (type->block_bytes == 0) {
      return Fail(WeightIssue::kUnknownDtype, "tensor " + Quoted(name) + " has ggml type " + Num(type_id) + " (" +
                                                  type->name +
                                                  "), which ggml removed from GGUF files; convert the model again");
    }
    const uint64_t row = ne.empty() ? 1 : ne[0];
    if (row % type->block_elems != 0) {
      return Fail(WeightIssue::kBlockMisaligned, "tensor " + Quoted(name) + " has rows of " + Num(row) +
                                                     " elements, not a multiple of the " + Num(type->block_elems) +
                                                     "-element blocks of " + type->name);
    }
    uint64_t bytes = 0;
    if (!MulOk(elements / type->block_elems, type->block_bytes, bytes)) {
      return Fail(WeightIssue::kBadSize, "tensor " + Quoted(name) + " has a byte size that overflows 64 bits");
    }
    // gguf.cpp: each tensor's offset is the running size of the tensors before it, each
    // padded to the alignment (general.alignment comes with the key/values, before).
    if (offset != expected_offset_) {
      return Fail(WeightIssue::kOffsetMismatch,
                  "tensor " + Quoted(name) + " has data offset " + Num(offset) + ", expected " + Num(expected_offset_) +
                      " (GGUF packs tensors in header order, each padded to " + Num(result.gguf.alignment) + " bytes)");
    }
    uint64_t padded = 0, end = 0;
    if (!AlignUpOk(bytes, result.gguf.alignment, padded) || !AddOk(expected_offset_, padded, expected_offset_) ||
        !AddOk(offset, bytes, end)) {
      return Fail(WeightIssue::kBadSize, "tensor " + Quoted(name) + " ends past 2^64 bytes");
    }
    if (!tally_.Add(type->name, elements, bytes)) {
      return Fail(WeightIssue::kBadSize, "the tensors' total size exceeds 2^63 (at tensor " + Quoted(name) + ")");
    }
    data_ends_.push_back(end);
    pos_ = at;
    ++tensor_index_;
    return true;
  }

  // A model fact: -1 when absent; an error when it is not a count (negative, above 2^63, a
  // fraction or a string where llama.cpp reads an integer).
  bool FactValue(const std::string& key, int64_t& out) {
    out = -1;
    auto it = facts_.find(key);
    if (it == facts_.end()) return true;
    if (!it->second.is_int) {
      return Fail(WeightIssue::kBadSize,
                  key + " is " + it->second.text + ", which is not a count that fits in 63 bits");
    }
    if (it->second.value < 0) {
      return Fail(WeightIssue::kBadSize, key + " is " + it->second.text + "; a count cannot be negative");
    }
    out = it->second.value;
    return true;
  }

  bool FillModelInfo() {
    GgufModelInfo& g = result.gguf;
    if (!FactValue("general.parameter_count", g.parameter_count) || !FactValue("general.file_type", g.file_type))
      return false;
    if (g.architecture.empty()) return true;
    const std::string a = g.architecture + ".";
    int64_t tokens_or_vocab = -1;
    if (!FactValue(a + "block_count", g.block_count) || !FactValue(a + "embedding_length", g.embedding_length) ||
        !FactValue(a + "feed_forward_length", g.feed_forward_length) ||
        !FactValue(a + "attention.head_count", g.head_count) ||
        !FactValue(a + "attention.head_count_kv", g.head_count_kv) ||
        !FactValue(a + "attention.key_length", g.key_length) || !FactValue(a + "context_length", g.context_length) ||
        !FactValue(a + "expert_count", g.expert_count) || !FactValue(a + "expert_used_count", g.expert_used_count) ||
        !FactValue(a + "vocab_size", tokens_or_vocab)) {
      return false;
    }
    g.vocab_size = token_count_ >= 0 ? token_count_ : tokens_or_vocab;
    return true;
  }

  WeightHeaderStatus Finish() {
    meta_.Finish();
    result.header_bytes = pos_;
    if (!AlignUpOk(result.header_bytes, result.gguf.alignment, result.data_start)) {
      return Done(Error(WeightFormat::kGguf, WeightIssue::kBadSize, "the data section's start overflows 64 bits"));
    }
    // llama.cpp refuses tensor data past the end of the file.
    for (size_t i = 0; i < data_ends_.size(); ++i) {
      uint64_t end = 0;
      if (!AddOk(result.data_start, data_ends_[i], end)) {
        return Done(Error(WeightFormat::kGguf, WeightIssue::kBadSize,
                          "tensor " + Quoted(std::string(tensor_names_[i])) + " ends past 2^64 bytes"));
      }
      if (end > file_size_) {
        return Done(Error(WeightFormat::kGguf, WeightIssue::kTruncated,
                          "tensor " + Quoted(std::string(tensor_names_[i])) + "'s data ends at byte " + Num(end) +
                              " but the file is " + Num(file_size_) + " bytes: it was cut short"));
      }
    }
    result.data_bytes = data_ends_.empty() ? 0 : data_ends_.back();
    tally_.Fill(result);
    if (!FillModelInfo()) return Done(Error(WeightFormat::kGguf, issue_, message_));
    result.status = WeightHeaderStatus::kComplete;
    phase_ = Phase::kDone;
    return result.status;
  }

  const uint64_t file_size_;
  const Window* w_ = nullptr;
  MetadataSink meta_;
  Phase phase_ = Phase::kHeader;
  uint64_t pos_ = 0;
  uint64_t need_end_ = 0;
  uint64_t tensor_count_ = 0, kv_count_ = 0, kv_index_ = 0, tensor_index_ = 0, array_left_ = 0;
  uint64_t expected_offset_ = 0;
  std::string item_name_;  // the key or tensor name being read (for messages)
  WeightIssue issue_ = WeightIssue::kNone;
  std::string message_;
  NameSet keys_, tensor_names_;
  std::map<std::string, Fact> facts_;
  int64_t token_count_ = -1;
  std::vector<uint64_t> data_ends_;  // each tensor's end in the data section
  Tally tally_;
};

}  // namespace

std::unique_ptr<IncrementalParser> detail::MakeGgufParser(uint64_t file_size) {
  return std::make_unique<GgufParser>(file_size);
}

}  // namespace llmmem::core
