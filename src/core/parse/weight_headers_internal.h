// Private helpers shared by the weight-header readers (safetensors_header.cpp, gguf_header.cpp,
// weight_index.cpp, weight_headers.cpp): checked 64-bit arithmetic, little-endian reads,
// message text, the error and need-more-bytes results, per-type tallies and the bounded
// metadata list. Not a public header: only the weight-header sources in src/core include it.
// Standard library and core/weight_headers.h only; definitions in weight_headers_internal.cpp
// and (SafetensorsDtypeList) ggml_types.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/safe_text.h"
#include "core/parse/weight_headers.h"
#include "core/base/stable_order.h"

namespace llmmem::core::detail {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kI64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

inline bool AddOk(uint64_t a, uint64_t b, uint64_t& out) {
  if (b > kU64Max - a) return false;
  out = a + b;
  return true;
}

inline bool MulOk(uint64_t a, uint64_t b, uint64_t& out) {
  if (a != 0 && b > kU64Max / a) return false;
  out = a * b;
  return true;
}

// Rounds v up to a multiple of the power of two `align`; false on overflow.
inline bool AlignUpOk(uint64_t v, uint64_t align, uint64_t& out) {
  uint64_t t = 0;
  if (!AddOk(v, align - 1, t)) return false;
  out = t & ~(align - 1);
  return true;
}

inline uint64_t ReadLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline std::string Num(uint64_t v) { return std::to_string(v); }

// Names in messages: quoted, control bytes escaped, cut after 200 bytes.
std::string Quoted(const std::string& s);
// "[4, 10]"; shapes of more than 9 dimensions are elided after the 8th.
std::string ShapeText(const std::vector<uint64_t>& shape);
// "BOOL, F4, ...": every safetensors dtype name, for unknown-dtype messages.
std::string SafetensorsDtypeList();

WeightHeaderResult Error(WeightFormat f, WeightIssue id, std::string message);

// ---- Incremental reading (WeightHeaderReader) -------------------------------------------

// The file's bytes [base, base + bytes.size()) the reader holds now.
struct Window {
  uint64_t base = 0;
  std::string bytes;
  uint64_t end() const { return base + bytes.size(); }
  const uint8_t* at(uint64_t offset) const { return reinterpret_cast<const uint8_t*>(bytes.data()) + (offset - base); }
};

// One format's reader, resumable between items: Parse reads whole items (a key/value, a
// tensor info, a header entry) from the window and stops before one that is not all there.
class IncrementalParser {
 public:
  virtual ~IncrementalParser() = default;
  // kComplete, kError (result says why) or kNeedMoreBytes: then the bytes from resume_at()
  // up to need_end() are needed, and window bytes before keep_from() are not.
  virtual WeightHeaderStatus Parse(const Window& w) = 0;
  virtual uint64_t keep_from() const = 0;
  virtual uint64_t resume_at() const = 0;
  virtual uint64_t need_end() const = 0;
  // Bytes past this end are never needed (safetensors: the header's end).
  virtual uint64_t read_limit() const = 0;
  // For a prefix read (ParseWeightHeader's need_bytes): the end the header is known to
  // reach (safetensors once its length is read), or 0: grow a doubling slice (GGUF).
  virtual uint64_t known_end() const { return 0; }
  WeightHeaderResult result;
};

std::unique_ptr<IncrementalParser> MakeGgufParser(uint64_t file_size);
std::unique_ptr<IncrementalParser> MakeSafetensorsParser(uint64_t file_size);

// Names seen once (tensor names, keys), in order, with their duplicates found in O(1):
// the names in one arena, an open-addressing table of indices. Memory: the names' bytes
// plus about 24 bytes each.
class NameSet {
 public:
  size_t size() const { return offsets_.size(); }
  std::string_view operator[](size_t i) const {
    return std::string_view(arena_).substr(static_cast<size_t>(offsets_[i].first), offsets_[i].second);
  }
  // False when the name was inserted before.
  bool Insert(std::string_view name) {
    if ((offsets_.size() + 1) * 2 > table_.size()) Grow();
    const uint64_t h = Hash(name);
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    const size_t mask = table_.size() - 1;
    for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
      Slot& slot = table_[i];
      if (slot.index == 0) {
        offsets_.emplace_back(arena_.size(), static_cast<uint32_t>(name.size()));
        arena_.append(name.data(), name.size());
        slot = {static_cast<uint32_t>(offsets_.size()), tag};  // index + 1
        return true;
      }
      if (slot.tag == tag && (*this)[slot.index - 1] == name) return false;
    }
  }

 private:
  struct Slot {
    uint32_t index = 0;  // 0: empty
    uint32_t tag = 0;    // the hash's high half, compared before the names
  };
  static uint64_t Hash(std::string_view s) {  // FNV-1a, then a 64-bit finaliser (murmur3's)
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
  }
  void Grow() {
    std::vector<Slot> old = std::move(table_);
    table_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    const size_t mask = table_.size() - 1;
    for (const Slot& v : old) {
      if (v.index == 0) continue;
      size_t i = static_cast<size_t>(Hash((*this)[v.index - 1])) & mask;
      while (table_[i].index != 0) i = (i + 1) & mask;
      table_[i] = v;
    }
  }
  std::string arena_;
  std::vector<std::pair<uint64_t, uint32_t>> offsets_;
  std::vector<Slot> table_;
};

// The parser needs the first `want` bytes to go on and has `size`. `exact`: ask for just
// that (safetensors knows its header length); otherwise ask for a doubling slice, so a GGUF
// header of H bytes takes about log2(H / first read) round trips.
WeightHeaderResult AskFor(WeightFormat f, uint64_t want, uint64_t size, uint64_t file_size, uint64_t cap, bool exact,
                          const std::string& context);

// Per-type sums with checked totals (the per-type sums are bounded by the totals).
class Tally {
 public:
  bool Add(const std::string& type, uint64_t parameters, uint64_t bytes) { return Merge({type, 1, parameters, bytes}); }
  bool Merge(const WeightTypeTally& x) {
    uint64_t t = 0, p = 0, b = 0;
    if (!AddOk(tensors_, x.tensors, t) || !AddOk(parameters_, x.parameters, p) || !AddOk(bytes_, x.bytes, b) ||
        p > kI64Max || b > kI64Max) {
      return false;  // totals stay below 2^63: front ends show them as signed counts
    }
    tensors_ = t;
    parameters_ = p;
    bytes_ = b;
    WeightTypeTally& e = by_type_[x.type];
    e.type = x.type;
    e.tensors += x.tensors;
    e.parameters += x.parameters;
    e.bytes += x.bytes;
    return true;
  }
  void Fill(WeightHeaderResult& r) const {
    r.by_type.clear();
    for (const auto& kv : by_type_) r.by_type.push_back(kv.second);
    StableSort(r.by_type, [](const WeightTypeTally& a, const WeightTypeTally& b) { return a.bytes > b.bytes; });
    r.tensor_count = tensors_;
    r.parameter_count = parameters_;
    r.weight_bytes = bytes_;
  }

 private:
  std::map<std::string, WeightTypeTally> by_type_;
  uint64_t tensors_ = 0, parameters_ = 0, bytes_ = 0;
};

// Metadata kept in the result: bounded in count and value length.
class MetadataSink {
 public:
  explicit MetadataSink(WeightHeaderResult& r) : r_(r) {}
  void Add(const std::string& key, std::string value) {
    if (r_.metadata.size() >= kWeightMetadataMaxEntries) {
      ++dropped_;
      return;
    }
    if (value.size() > kWeightMetadataMaxValueBytes) {
      const size_t full = value.size();
      value.resize(Utf8CutPoint(value, kWeightMetadataMaxValueBytes));
      value += "... (" + Num(full) + " bytes)";
    }
    r_.metadata.emplace_back(key, std::move(value));
  }
  void Finish() {
    if (dropped_ == 0) return;
    r_.notes.push_back({WeightIssue::kMetadataCapped, Severity::kInfo,
                        "listed the first " + Num(kWeightMetadataMaxEntries) + " metadata entries; " + Num(dropped_) +
                            " more are not listed"});
  }

 private:
  WeightHeaderResult& r_;
  uint64_t dropped_ = 0;
};

}  // namespace llmmem::core::detail
