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
#include <string>
#include <utility>
#include <vector>

#include "core/weight_headers.h"

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

// The parser needs the first `want` bytes to go on and has `size`. `exact`: ask for just
// that (safetensors knows its header length); otherwise ask for a doubling slice, so a GGUF
// header of H bytes takes about log2(H / first read) round trips.
WeightHeaderResult AskFor(WeightFormat f, uint64_t want, uint64_t size, uint64_t file_size,
                          uint64_t cap, bool exact, const std::string& context);

// Per-type sums with checked totals (the per-type sums are bounded by the totals).
class Tally {
 public:
  bool Add(const std::string& type, uint64_t parameters, uint64_t bytes) {
    return Merge({type, 1, parameters, bytes});
  }
  bool Merge(const WeightTypeTally& x) {
    uint64_t t = 0, p = 0, b = 0;
    if (!AddOk(tensors_, x.tensors, t) || !AddOk(parameters_, x.parameters, p) ||
        !AddOk(bytes_, x.bytes, b)) {
      return false;
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
    std::stable_sort(r.by_type.begin(), r.by_type.end(),
                     [](const WeightTypeTally& a, const WeightTypeTally& b) { return a.bytes > b.bytes; });
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
      value.resize(kWeightMetadataMaxValueBytes);
      value += "... (" + Num(full) + " bytes)";
    }
    r_.metadata.emplace_back(key, std::move(value));
  }
  void Finish() {
    if (dropped_ == 0) return;
    r_.notes.push_back({WeightIssue::kMetadataCapped, Severity::kInfo,
                        "listed the first " + Num(kWeightMetadataMaxEntries) + " metadata entries; " +
                            Num(dropped_) + " more are not listed"});
  }

 private:
  WeightHeaderResult& r_;
  uint64_t dropped_ = 0;
};

}  // namespace llmmem::core::detail
