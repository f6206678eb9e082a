// Weight-file header readers: safetensors (JSON header), model.safetensors.index.json and
// GGUF v2/v3. Every read is bounds-checked against the bytes given, every size product and
// sum is overflow-checked, and nothing recurses on input structure (JSON nesting is walked
// with an explicit, bounded stack), so hostile files end in an error value, never a crash.
// Sources: huggingface/safetensors README and safetensors/src/tensor.rs (header layout,
// MAX_HEADER_SIZE, Dtype::bitsize, validate(): offsets sorted, packed from 0, sized
// elements x bits / 8); ggml docs/gguf.md and ggml/src/gguf.cpp (v2/v3 layout, value types,
// general.alignment, offsets checked against the running padded size, GGML_MAX_DIMS = 4,
// ne[0] a multiple of the block size); ggml.h enum ggml_type and ggml-common.h block structs.
//
// Index
// [SECTION] Type tables
// [SECTION] Results, checked arithmetic, the need-more-bytes answer
// [SECTION] safetensors header (a strict JSON reader for its fixed shape)
// [SECTION] GGUF header
// [SECTION] model.safetensors.index.json
// [SECTION] Sniffing, combining shards, diagnostics
#include "core/weight_headers.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "core/json.h"

namespace llmmem::core {

static_assert(kWeightIndexMaxBytes == kJsonMaxBytes, "the index is parsed by ParseJson");

// -----------------------------------------------------------------------------------------
// [SECTION] Type tables
// -----------------------------------------------------------------------------------------

namespace {

constexpr uint32_t kQkK = 256;  // QK_K: elements per K-quant / i-quant super-block

// ggml-common.h: sizeof(block_*) and QK*; the plain types have one element per block.
constexpr GgmlTypeInfo kGgmlTypes[] = {
    {0, "F32", 1, 4},
    {1, "F16", 1, 2},
    {2, "Q4_0", 32, 18},           // ggml_half d; uint8 qs[16]
    {3, "Q4_1", 32, 20},           // d, m; qs[16]
    {4, "Q4_2", 0, 0},             // removed
    {5, "Q4_3", 0, 0},             // removed
    {6, "Q5_0", 32, 22},           // d; qh[4]; qs[16]
    {7, "Q5_1", 32, 24},           // d, m; qh[4]; qs[16]
    {8, "Q8_0", 32, 34},           // d; int8 qs[32]
    {9, "Q8_1", 32, 36},           // d, s; qs[32]
    {10, "Q2_K", kQkK, 84},        // scales[16]; qs[64]; d, dmin
    {11, "Q3_K", kQkK, 110},       // hmask[32]; qs[64]; scales[12]; d
    {12, "Q4_K", kQkK, 144},       // d, dmin; scales[12]; qs[128]
    {13, "Q5_K", kQkK, 176},       // d, dmin; scales[12]; qh[32]; qs[128]
    {14, "Q6_K", kQkK, 210},       // ql[128]; qh[64]; scales[16]; d
    {15, "Q8_K", kQkK, 292},       // float d; qs[256]; int16 bsums[16]
    {16, "IQ2_XXS", kQkK, 66},     // d; uint16 qs[32]
    {17, "IQ2_XS", kQkK, 74},      // d; uint16 qs[32]; scales[8]
    {18, "IQ3_XXS", kQkK, 98},     // d; qs[96]
    {19, "IQ1_S", kQkK, 50},       // d; qs[32]; uint16 qh[8]
    {20, "IQ4_NL", 32, 18},        // d; qs[16]
    {21, "IQ3_S", kQkK, 110},      // d; qs[64]; qh[8]; signs[32]; scales[4]
    {22, "IQ2_S", kQkK, 82},       // d; qs[64]; qh[8]; scales[8]
    {23, "IQ4_XS", kQkK, 136},     // d; uint16 scales_h; scales_l[4]; qs[128]
    {24, "I8", 1, 1},
    {25, "I16", 1, 2},
    {26, "I32", 1, 4},
    {27, "I64", 1, 8},
    {28, "F64", 1, 8},
    {29, "IQ1_M", kQkK, 56},       // qs[32]; qh[16]; scales[8]
    {30, "BF16", 1, 2},
    {31, "Q4_0_4_4", 0, 0},        // removed from GGUF files (repacked at load time now)
    {32, "Q4_0_4_8", 0, 0},
    {33, "Q4_0_8_8", 0, 0},
    {34, "TQ1_0", kQkK, 54},       // qs[48]; qh[4]; d
    {35, "TQ2_0", kQkK, 66},       // qs[64]; d
    {36, "IQ4_NL_4_4", 0, 0},      // removed
    {37, "IQ4_NL_4_8", 0, 0},
    {38, "IQ4_NL_8_8", 0, 0},
    {39, "MXFP4", 32, 17},         // uint8 e; qs[16]
};

// safetensors Dtype and Dtype::bitsize (names as serialized in headers).
constexpr SafetensorsDtypeInfo kSafetensorsDtypes[] = {
    {"BOOL", 8},        {"F4", 4},          {"F6_E2M3", 6},     {"F6_E3M2", 6},
    {"U8", 8},          {"I8", 8},          {"F8_E5M2", 8},     {"F8_E4M3", 8},
    {"F8_E8M0", 8},     {"F8_E4M3FNUZ", 8}, {"F8_E5M2FNUZ", 8}, {"I16", 16},
    {"U16", 16},        {"F16", 16},        {"BF16", 16},       {"I32", 32},
    {"U32", 32},        {"F32", 32},        {"C64", 64},        {"F64", 64},
    {"I64", 64},        {"U64", 64},
};

std::string SafetensorsDtypeList() {
  std::string s;
  for (const SafetensorsDtypeInfo& d : kSafetensorsDtypes) {
    if (!s.empty()) s += ", ";
    s += d.name;
  }
  return s;
}

}  // namespace

const GgmlTypeInfo* FindGgmlType(uint32_t id) {
  for (const GgmlTypeInfo& t : kGgmlTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

const SafetensorsDtypeInfo* FindSafetensorsDtype(std::string_view name) {
  for (const SafetensorsDtypeInfo& d : kSafetensorsDtypes) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

const char* WeightFormatName(WeightFormat f) {
  switch (f) {
    case WeightFormat::kUnknown: return "unknown";
    case WeightFormat::kSafetensors: return "safetensors";
    case WeightFormat::kSafetensorsIndex: return "safetensors_index";
    case WeightFormat::kGguf: return "gguf";
  }
  return "?";
}

const char* WeightIssueName(WeightIssue id) {
  switch (id) {
#define LLMMEM_WEIGHT_ISSUE_NAME(e, name, text) \
  case WeightIssue::e: return name;
    LLMMEM_WEIGHT_ISSUES(LLMMEM_WEIGHT_ISSUE_NAME)
#undef LLMMEM_WEIGHT_ISSUE_NAME
  }
  return "?";
}

// -----------------------------------------------------------------------------------------
// [SECTION] Results, checked arithmetic, the need-more-bytes answer
// -----------------------------------------------------------------------------------------

namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kI64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

bool AddOk(uint64_t a, uint64_t b, uint64_t& out) {
  if (b > kU64Max - a) return false;
  out = a + b;
  return true;
}

bool MulOk(uint64_t a, uint64_t b, uint64_t& out) {
  if (a != 0 && b > kU64Max / a) return false;
  out = a * b;
  return true;
}

// Rounds v up to a multiple of the power of two `align`; false on overflow.
bool AlignUpOk(uint64_t v, uint64_t align, uint64_t& out) {
  uint64_t t = 0;
  if (!AddOk(v, align - 1, t)) return false;
  out = t & ~(align - 1);
  return true;
}

uint64_t ReadLe(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string Num(uint64_t v) { return std::to_string(v); }

std::string Quoted(const std::string& s) {
  // Names in messages: shown whole up to a point, control bytes escaped.
  std::string out = "'";
  for (size_t i = 0; i < s.size() && i < 200; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > 200) out += "...";
  return out + "'";
}

std::string ShapeText(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    if (i == 8 && shape.size() > 9) {
      s += "... " + Num(shape.size() - 8) + " more";
      break;
    }
    s += Num(shape[i]);
  }
  return s + "]";
}

WeightHeaderResult Error(WeightFormat f, WeightIssue id, std::string message) {
  WeightHeaderResult r;
  r.status = WeightHeaderStatus::kError;
  r.format = f;
  r.error = id;
  r.message = std::move(message);
  return r;
}

// The parser needs the first `want` bytes to go on and has `size`. `exact`: ask for just
// that (safetensors knows its header length); otherwise ask for a doubling slice, so a GGUF
// header of H bytes takes about log2(H / first read) round trips.
WeightHeaderResult AskFor(WeightFormat f, uint64_t want, uint64_t size, uint64_t file_size,
                          uint64_t cap, bool exact, const std::string& context) {
  const std::string what = f == WeightFormat::kGguf ? "GGUF header" : "safetensors header";
  if (want == kU64Max) {
    return Error(f, WeightIssue::kHeaderTooLarge, "a length declared in the " + what + " overflows 64 bits" + context);
  }
  if (want > file_size) {
    return Error(f, WeightIssue::kTruncated,
                 "the file is " + Num(file_size) + " bytes but its " + what + " needs at least " + Num(want) + context);
  }
  if (want > cap) {
    return Error(f, WeightIssue::kHeaderTooLarge,
                 "the " + what + " needs at least " + Num(want) + " bytes; this reader stops at " + Num(cap) + context);
  }
  uint64_t need = want;
  if (!exact) {
    uint64_t grow = std::max<uint64_t>(size * 2, kWeightHeaderFirstRead);
    need = std::max(want, std::min(grow, cap));
  }
  WeightHeaderResult r;
  r.status = WeightHeaderStatus::kNeedMoreBytes;
  r.format = f;
  r.need_bytes = std::min(need, file_size);
  return r;
}

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

// -----------------------------------------------------------------------------------------
// [SECTION] safetensors header (a strict JSON reader for its fixed shape)
// -----------------------------------------------------------------------------------------
// Not core/json.h: the header may be up to 100 MB (ParseJson stops at 8 MiB), repeated
// tensor names must be reported (an object map keeps the last), and shapes and offsets are
// exact 64-bit integers, not doubles.

constexpr size_t kJsonSkipMaxDepth = 64;

class JsonCursor {
 public:
  JsonCursor(const uint8_t* p, size_t n, uint64_t file_base) : p_(p), n_(n), base_(file_base) {}

  bool ok() const { return issue_ == WeightIssue::kNone; }
  WeightIssue issue() const { return issue_; }
  const std::string& message() const { return message_; }
  size_t pos() const { return pos_; }
  bool AtEnd() const { return pos_ >= n_; }

  // An error about the bytes at the cursor (names the file offset).
  bool FailHere(WeightIssue id, const std::string& what) {
    return Fail(id, "byte " + Num(base_ + pos_) + " of the file: " + what);
  }
  // An error about a meaning (names the tensor instead).
  bool Fail(WeightIssue id, const std::string& what) {
    if (ok()) {
      issue_ = id;
      message_ = what;
    }
    return false;
  }

  void SkipSpace() {
    while (pos_ < n_ && (p_[pos_] == ' ' || p_[pos_] == '\n' || p_[pos_] == '\r' || p_[pos_] == '\t')) ++pos_;
  }
  bool Peek(char c) const { return pos_ < n_ && p_[pos_] == static_cast<uint8_t>(c); }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  bool Expect(char c, const char* what) {
    SkipSpace();
    if (Eat(c)) return true;
    return FailHere(WeightIssue::kMalformed, std::string("expected ") + what);
  }
  bool Literal(const char* word) {
    const size_t len = std::strlen(word);
    if (n_ - pos_ < len || std::memcmp(p_ + pos_, word, len) != 0) return false;
    pos_ += len;
    return true;
  }

  bool String(std::string& out) {
    SkipSpace();
    if (!Eat('"')) return FailHere(WeightIssue::kMalformed, "expected a string");
    out.clear();
    while (true) {
      if (pos_ >= n_) return FailHere(WeightIssue::kMalformed, "unterminated string");
      const uint8_t c = p_[pos_++];
      if (c == '"') return true;
      if (c < 0x20) return FailHere(WeightIssue::kMalformed, "control character inside a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (pos_ >= n_) return FailHere(WeightIssue::kMalformed, "unterminated escape");
      const uint8_t e = p_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (!(Eat('\\') && Eat('u') && Hex4(low)) || low < 0xDC00 || low > 0xDFFF) {
              return FailHere(WeightIssue::kMalformed, "unpaired UTF-16 surrogate in a \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return FailHere(WeightIssue::kMalformed, "unpaired UTF-16 surrogate in a \\u escape");
          }
          AppendUtf8(cp, out);
          break;
        }
        default: return FailHere(WeightIssue::kMalformed, "invalid escape in a string");
      }
    }
  }

  // A non-negative JSON integer that fits in 64 bits.
  bool Uint(uint64_t& out, const std::string& what) {
    SkipSpace();
    if (Peek('-')) return Fail(WeightIssue::kBadSize, what + " is negative");
    if (pos_ >= n_ || p_[pos_] < '0' || p_[pos_] > '9') {
      return FailHere(WeightIssue::kMalformed, "expected a whole number for " + what);
    }
    const bool leading_zero = p_[pos_] == '0';
    out = 0;
    size_t digits = 0;
    while (pos_ < n_ && p_[pos_] >= '0' && p_[pos_] <= '9') {
      uint64_t next = 0;
      if (!MulOk(out, 10, next) || !AddOk(next, p_[pos_] - '0', next)) {
        return Fail(WeightIssue::kBadSize, what + " does not fit in 64 bits");
      }
      out = next;
      ++pos_;
      ++digits;
    }
    if (leading_zero && digits > 1) return FailHere(WeightIssue::kMalformed, "a number with a leading zero");
    if (Peek('.') || Peek('e') || Peek('E')) {
      return FailHere(WeightIssue::kMalformed, what + " must be a whole number");
    }
    return true;
  }

  // Skips one JSON value of any shape, walking nesting with a bounded explicit stack.
  bool SkipValue() {
    std::vector<char> closers;
    while (true) {
      SkipSpace();
      if (pos_ >= n_) return FailHere(WeightIssue::kMalformed, "expected a value");
      bool have_value = false;
      if (Eat('{')) {
        SkipSpace();
        if (Eat('}')) {
          have_value = true;
        } else {
          if (closers.size() >= kJsonSkipMaxDepth) return FailHere(WeightIssue::kMalformed, "nesting too deep");
          closers.push_back('}');
          if (!MemberKey()) return false;
        }
      } else if (Eat('[')) {
        SkipSpace();
        if (Eat(']')) {
          have_value = true;
        } else {
          if (closers.size() >= kJsonSkipMaxDepth) return FailHere(WeightIssue::kMalformed, "nesting too deep");
          closers.push_back(']');
        }
      } else {
        if (!Scalar()) return false;
        have_value = true;
      }
      if (!have_value) continue;  // a container opened: its first element comes next
      // A value ended: close containers or move to the next element.
      while (true) {
        if (closers.empty()) return true;
        SkipSpace();
        if (Eat(',')) {
          if (closers.back() == '}' && !MemberKey()) return false;
          break;
        }
        if (Eat(closers.back())) {
          closers.pop_back();
          continue;
        }
        return FailHere(WeightIssue::kMalformed,
                        closers.back() == '}' ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
      }
    }
  }

  // The raw text of one value (metadata values that are not strings).
  bool RawValue(std::string& out) {
    SkipSpace();
    const size_t start = pos_;
    if (!SkipValue()) return false;
    out.assign(reinterpret_cast<const char*>(p_ + start), pos_ - start);
    return true;
  }

 private:
  bool MemberKey() {
    std::string key;
    return String(key) && Expect(':', "':' after an object key");
  }

  bool Scalar() {
    if (Peek('"')) {
      std::string s;
      return String(s);
    }
    if (Literal("true") || Literal("false") || Literal("null")) return true;
    if (Peek('-') || (pos_ < n_ && p_[pos_] >= '0' && p_[pos_] <= '9')) return Number();
    return FailHere(WeightIssue::kMalformed, "expected a value");
  }

  bool Digits() {
    if (pos_ >= n_ || p_[pos_] < '0' || p_[pos_] > '9') return FailHere(WeightIssue::kMalformed, "expected a digit");
    while (pos_ < n_ && p_[pos_] >= '0' && p_[pos_] <= '9') ++pos_;
    return true;
  }

  bool Number() {
    Eat('-');
    if (!Digits()) return false;
    if (Eat('.') && !Digits()) return false;
    if (Eat('e') || Eat('E')) {
      if (!Eat('+')) Eat('-');
      if (!Digits()) return false;
    }
    return true;
  }

  bool Hex4(uint32_t& cp) {
    if (n_ - pos_ < 4) return FailHere(WeightIssue::kMalformed, "incomplete \\u escape");
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      const uint8_t h = p_[pos_++];
      cp <<= 4;
      if (h >= '0' && h <= '9') cp |= static_cast<uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') cp |= static_cast<uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') cp |= static_cast<uint32_t>(h - 'A' + 10);
      else return FailHere(WeightIssue::kMalformed, "invalid hex digit in a \\u escape");
    }
    return true;
  }

  static void AppendUtf8(uint32_t cp, std::string& out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  const uint8_t* p_;
  size_t n_;
  uint64_t base_;
  size_t pos_ = 0;
  WeightIssue issue_ = WeightIssue::kNone;
  std::string message_;
};

struct SafetensorsSpan {
  uint64_t begin, end;
  size_t name_index;
};

class SafetensorsReader {
 public:
  SafetensorsReader(const uint8_t* json, size_t n, WeightHeaderResult& r)
      : in_(json, n, 8), meta_(r) {}

  // Parses the JSON header into tallies, spans and metadata; false on the first error.
  bool Run() {
    if (!in_.Eat('{')) return in_.FailHere(WeightIssue::kMalformed, "a safetensors header must start with '{'");
    in_.SkipSpace();
    if (!in_.Eat('}')) {
      while (true) {
        std::string key;
        if (!in_.String(key) || !in_.Expect(':', "':' after a tensor name")) return false;
        if (key == "__metadata__") {
          if (seen_metadata_) return in_.Fail(WeightIssue::kDuplicateName, "__metadata__ appears twice");
          seen_metadata_ = true;
          if (!Metadata()) return false;
        } else {
          if (!names_.insert(key).second) {
            return in_.Fail(WeightIssue::kDuplicateName, "tensor " + Quoted(key) + " appears twice in the header");
          }
          if (!Tensor(key)) return false;
        }
        in_.SkipSpace();
        if (in_.Eat(',')) continue;
        if (in_.Eat('}')) break;
        return in_.FailHere(WeightIssue::kMalformed, "expected ',' or '}' after a header entry");
      }
    }
    in_.SkipSpace();  // writers pad the header with spaces to an 8-byte boundary
    if (!in_.AtEnd()) return in_.FailHere(WeightIssue::kMalformed, "text after the header's closing '}'");
    meta_.Finish();
    return CheckPacking();
  }

  const JsonCursor& cursor() const { return in_; }
  uint64_t data_end() const { return data_end_; }
  const Tally& tally() const { return tally_; }

 private:
  bool Metadata() {
    in_.SkipSpace();
    if (in_.Literal("null")) return true;
    if (!in_.Expect('{', "'{' to open __metadata__")) return false;
    in_.SkipSpace();
    if (in_.Eat('}')) return true;
    while (true) {
      std::string key, value;
      if (!in_.String(key) || !in_.Expect(':', "':' after a metadata key")) return false;
      in_.SkipSpace();
      if (in_.Peek('"') ? !in_.String(value) : !in_.RawValue(value)) return false;
      meta_.Add(key, std::move(value));
      in_.SkipSpace();
      if (in_.Eat(',')) continue;
      if (in_.Eat('}')) return true;
      return in_.FailHere(WeightIssue::kMalformed, "expected ',' or '}' in __metadata__");
    }
  }

  bool Tensor(const std::string& name) {
    if (!in_.Expect('{', ("'{' to open tensor " + Quoted(name)).c_str())) return false;
    std::string dtype;
    std::vector<uint64_t> shape;
    uint64_t begin = 0, end = 0;
    bool has_dtype = false, has_shape = false, has_offsets = false;
    in_.SkipSpace();
    if (!in_.Eat('}')) {
      while (true) {
        std::string key;
        if (!in_.String(key) || !in_.Expect(':', "':' after a key")) return false;
        const bool dtype_key = key == "dtype", shape_key = key == "shape", offsets_key = key == "data_offsets";
        if ((dtype_key && has_dtype) || (shape_key && has_shape) || (offsets_key && has_offsets)) {
          return in_.Fail(WeightIssue::kDuplicateName, "tensor " + Quoted(name) + " states " + key + " twice");
        }
        if (dtype_key) {
          has_dtype = true;
          if (!in_.String(dtype)) return false;
        } else if (shape_key) {
          has_shape = true;
          if (!Shape(name, shape)) return false;
        } else if (offsets_key) {
          has_offsets = true;
          if (!Offsets(name, begin, end)) return false;
        } else if (!in_.SkipValue()) {
          return false;
        }
        in_.SkipSpace();
        if (in_.Eat(',')) continue;
        if (in_.Eat('}')) break;
        return in_.FailHere(WeightIssue::kMalformed, "expected ',' or '}' in tensor " + Quoted(name));
      }
    }
    const char* missing = !has_dtype ? "dtype" : !has_shape ? "shape" : !has_offsets ? "data_offsets" : nullptr;
    if (missing) {
      return in_.Fail(WeightIssue::kMissingField, "tensor " + Quoted(name) + " has no " + missing);
    }
    return Account(name, dtype, shape, begin, end);
  }

  bool Shape(const std::string& name, std::vector<uint64_t>& shape) {
    if (!in_.Expect('[', "'[' to open a shape")) return false;
    in_.SkipSpace();
    if (in_.Eat(']')) return true;
    while (true) {
      uint64_t d = 0;
      if (!in_.Uint(d, "a dimension of tensor " + Quoted(name))) return false;
      shape.push_back(d);
      in_.SkipSpace();
      if (in_.Eat(',')) continue;
      if (in_.Eat(']')) return true;
      return in_.FailHere(WeightIssue::kMalformed, "expected ',' or ']' in a shape");
    }
  }

  bool Offsets(const std::string& name, uint64_t& begin, uint64_t& end) {
    const std::string what = "a data offset of tensor " + Quoted(name);
    if (!in_.Expect('[', "'[' to open data_offsets") || !in_.Uint(begin, what) ||
        !in_.Expect(',', "data_offsets of two numbers, [begin, end]") || !in_.Uint(end, what) ||
        !in_.Expect(']', "data_offsets of two numbers, [begin, end]")) {
      return false;
    }
    return true;
  }

  bool Account(const std::string& name, const std::string& dtype, const std::vector<uint64_t>& shape,
               uint64_t begin, uint64_t end) {
    const SafetensorsDtypeInfo* info = FindSafetensorsDtype(dtype);
    if (!info) {
      return in_.Fail(WeightIssue::kUnknownDtype, "tensor " + Quoted(name) + " has dtype " + Quoted(dtype) +
                                                      ", which safetensors does not define (it knows " +
                                                      SafetensorsDtypeList() + ")");
    }
    uint64_t elements = 1;
    const bool empty = std::find(shape.begin(), shape.end(), uint64_t{0}) != shape.end();
    if (empty) {
      elements = 0;
    } else {
      for (uint64_t d : shape) {
        if (!MulOk(elements, d, elements)) {
          return in_.Fail(WeightIssue::kBadSize, "tensor " + Quoted(name) + " has shape " + ShapeText(shape) +
                                                     ", whose element count overflows 64 bits");
        }
      }
    }
    uint64_t bits = 0;
    if (!MulOk(elements, info->bits, bits)) {
      return in_.Fail(WeightIssue::kBadSize, "tensor " + Quoted(name) + " (" + dtype + ", shape " +
                                                 ShapeText(shape) + ") has a byte size that overflows 64 bits");
    }
    if (bits % 8 != 0) {
      return in_.Fail(WeightIssue::kBlockMisaligned,
                      "tensor " + Quoted(name) + " has " + Num(elements) + " elements of " + dtype + " (" +
                          Num(info->bits) + " bits each), not a whole number of bytes");
    }
    const uint64_t bytes = bits / 8;
    if (end < begin || end - begin != bytes) {
      return in_.Fail(WeightIssue::kOffsetMismatch,
                      "tensor " + Quoted(name) + " (" + dtype + ", shape " + ShapeText(shape) + ") needs " +
                          Num(bytes) + " bytes but its data_offsets [" + Num(begin) + ", " + Num(end) + "] " +
                          (end < begin ? std::string("end before they begin") : "span " + Num(end - begin)));
    }
    if (!tally_.Add(dtype, elements, bytes)) {
      return in_.Fail(WeightIssue::kBadSize, "the tensors' total size overflows 64 bits");
    }
    span_names_.push_back(name);
    spans_.push_back({begin, end, span_names_.size() - 1});
    return true;
  }

  // safetensors validate(): sorted by offsets, the tensors tile [0, end) with no gap or overlap.
  bool CheckPacking() {
    std::sort(spans_.begin(), spans_.end(), [](const SafetensorsSpan& a, const SafetensorsSpan& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    uint64_t at = 0;
    for (const SafetensorsSpan& s : spans_) {
      if (s.begin != at) {
        return in_.Fail(WeightIssue::kOffsetMismatch,
                        "tensor " + Quoted(span_names_[s.name_index]) + " starts at data byte " + Num(s.begin) +
                            " but the tensors before it end at " + Num(at) +
                            ": safetensors packs tensors without gaps or overlaps");
      }
      at = s.end;
    }
    data_end_ = at;
    return true;
  }

  JsonCursor in_;
  MetadataSink meta_;
  Tally tally_;
  std::set<std::string> names_;
  std::vector<std::string> span_names_;
  std::vector<SafetensorsSpan> spans_;
  bool seen_metadata_ = false;
  uint64_t data_end_ = 0;
};

}  // namespace

WeightHeaderResult ParseSafetensorsHeader(const uint8_t* data, size_t size, uint64_t file_size) {
  const WeightFormat f = WeightFormat::kSafetensors;
  file_size = std::max<uint64_t>(file_size, size);
  if (size < 8) {
    return AskFor(f, 8, size, file_size, kSafetensorsMaxHeaderBytes + 8, false,
                  " (a safetensors file starts with an 8-byte header length)");
  }
  const uint64_t n = ReadLe(data, 8);
  if (n > kSafetensorsMaxHeaderBytes) {
    return Error(f, WeightIssue::kHeaderTooLarge,
                 "the safetensors header declares " + Num(n) + " bytes of JSON; at most " +
                     Num(kSafetensorsMaxHeaderBytes) + " are accepted (the safetensors library's own limit)");
  }
  const uint64_t header_end = 8 + n;
  if (size < header_end || file_size < header_end) {
    return AskFor(f, header_end, size, file_size, kSafetensorsMaxHeaderBytes + 8, true,
                  " (8 + the " + Num(n) + "-byte JSON header it declares)");
  }

  WeightHeaderResult r;
  r.format = f;
  SafetensorsReader reader(data + 8, static_cast<size_t>(n), r);
  if (!reader.Run()) return Error(f, reader.cursor().issue(), reader.cursor().message());
  r.header_bytes = header_end;
  r.data_start = header_end;
  r.data_bytes = reader.data_end();
  const uint64_t data_in_file = file_size - header_end;
  if (reader.data_end() > data_in_file) {
    return Error(f, WeightIssue::kTruncated,
                 "the tensors need " + Num(reader.data_end()) + " bytes of data after the " + Num(header_end) +
                     "-byte header, but the file is " + Num(file_size) + " bytes (" + Num(data_in_file) +
                     " of data): it was cut short");
  }
  if (reader.data_end() < data_in_file) {
    r.notes.push_back({WeightIssue::kTrailingData, Severity::kWarning,
                       "the file has " + Num(data_in_file - reader.data_end()) +
                           " bytes after the last tensor; the safetensors library refuses such files"});
  }
  reader.tally().Fill(r);
  r.status = WeightHeaderStatus::kComplete;
  return r;
}

// -----------------------------------------------------------------------------------------
// [SECTION] GGUF header
// -----------------------------------------------------------------------------------------

namespace {

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

// -----------------------------------------------------------------------------------------
// [SECTION] model.safetensors.index.json
// -----------------------------------------------------------------------------------------

WeightHeaderResult ParseSafetensorsIndex(const uint8_t* data, size_t size, uint64_t file_size) {
  const WeightFormat f = WeightFormat::kSafetensorsIndex;
  file_size = std::max<uint64_t>(file_size, size);
  if (file_size > kWeightIndexMaxBytes) {
    return Error(f, WeightIssue::kHeaderTooLarge,
                 "the index file is " + Num(file_size) + " bytes; at most " + Num(kWeightIndexMaxBytes) +
                     " are accepted");
  }
  if (size < file_size) {
    WeightHeaderResult r;
    r.status = WeightHeaderStatus::kNeedMoreBytes;
    r.format = f;
    r.need_bytes = file_size;  // JSON: the whole file
    return r;
  }
  const size_t bom = (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) ? 3 : 0;
  const JsonParseResult parsed = ParseJson(std::string(reinterpret_cast<const char*>(data) + bom, size - bom));
  if (!parsed.ok) return Error(f, WeightIssue::kMalformed, "the index is not valid JSON: " + parsed.error);
  const Json* map = parsed.value.Find("weight_map");
  if (!map || !map->IsObject()) {
    return Error(f, WeightIssue::kMissingField,
                 "the index has no \"weight_map\" object (tensor name -> shard file)");
  }
  WeightHeaderResult r;
  r.format = f;
  std::set<std::string> shards;
  for (const auto& [tensor, file] : map->AsObject()) {
    if (!file.IsString()) {
      return Error(f, WeightIssue::kMalformed, "weight_map entry " + Quoted(tensor) + " is not a file name string");
    }
    shards.insert(file.AsString());
  }
  r.index.tensor_count = map->AsObject().size();
  r.index.shard_files.assign(shards.begin(), shards.end());
  const Json* meta = parsed.value.Find("metadata");
  const Json* total = meta ? meta->Find("total_size") : nullptr;
  if (total) {
    const double v = total->IsNumber() ? total->AsNumber() : -1;
    if (!(v >= 0 && v <= 9007199254740992.0 && v == static_cast<double>(static_cast<uint64_t>(v)))) {
      return Error(f, WeightIssue::kBadSize, "metadata.total_size must be a whole number of bytes, 0 to 2^53");
    }
    r.index.has_total_size = true;
    r.index.total_size = static_cast<uint64_t>(v);
    r.weight_bytes = r.index.total_size;
  }
  r.tensor_count = r.index.tensor_count;
  r.parameters_known = false;
  r.header_bytes = size;
  r.notes.push_back({WeightIssue::kNeedsShardHeaders, Severity::kInfo,
                     "the index lists " + Num(r.index.tensor_count) + " tensors in " + Num(shards.size()) +
                         " shard files; drop the shard files too to count parameters per dtype (only their "
                         "headers are read)"});
  r.status = WeightHeaderStatus::kComplete;
  return r;
}

// -----------------------------------------------------------------------------------------
// [SECTION] Sniffing, combining shards, diagnostics
// -----------------------------------------------------------------------------------------

WeightFormat SniffWeightFormat(const uint8_t* data, size_t size) {
  if (size >= 4 && std::memcmp(data, "GGUF", 4) == 0) return WeightFormat::kGguf;
  if (size >= 9) {
    const uint64_t n = ReadLe(data, 8);
    if (n >= 2 && n <= kSafetensorsMaxHeaderBytes && data[8] == '{') return WeightFormat::kSafetensors;
  }
  size_t i = 0;
  if (size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) i = 3;  // UTF-8 BOM
  while (i < size && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t')) ++i;
  if (i < size && data[i] == '{') return WeightFormat::kSafetensorsIndex;
  return WeightFormat::kUnknown;
}

WeightHeaderResult ParseWeightHeader(const uint8_t* data, size_t size, uint64_t file_size) {
  file_size = std::max<uint64_t>(file_size, size);
  if (file_size == 0) return Error(WeightFormat::kUnknown, WeightIssue::kTruncated, "the file is empty");
  const uint64_t probe = std::min<uint64_t>(9, file_size);
  if (size < probe) {
    WeightHeaderResult r;
    r.status = WeightHeaderStatus::kNeedMoreBytes;
    r.need_bytes = std::min(kWeightHeaderFirstRead, file_size);
    return r;
  }
  switch (SniffWeightFormat(data, size)) {
    case WeightFormat::kGguf: return ParseGgufHeader(data, size, file_size);
    case WeightFormat::kSafetensors: return ParseSafetensorsHeader(data, size, file_size);
    case WeightFormat::kSafetensorsIndex: return ParseSafetensorsIndex(data, size, file_size);
    case WeightFormat::kUnknown: break;
  }
  return Error(WeightFormat::kUnknown, WeightIssue::kBadMagic,
               "not a weight file this reader knows: a .safetensors file starts with an 8-byte length and '{', a "
               ".gguf file with \"GGUF\", a model.safetensors.index.json with '{'");
}

WeightHeaderResult CombineWeightHeaders(const std::vector<WeightHeaderResult>& shards) {
  WeightHeaderResult out;
  out.status = WeightHeaderStatus::kComplete;
  Tally tally;
  const WeightHeaderResult* index = nullptr;
  bool any_shard = false, first_shard = true;
  for (size_t i = 0; i < shards.size(); ++i) {
    const WeightHeaderResult& s = shards[i];
    if (!s.ok()) {
      return Error(s.format, s.error == WeightIssue::kNone ? WeightIssue::kTruncated : s.error,
                   "file #" + Num(i) + " was not read completely" + (s.message.empty() ? "" : ": " + s.message));
    }
    out.notes.insert(out.notes.end(), s.notes.begin(), s.notes.end());
    if (s.format == WeightFormat::kSafetensorsIndex) {
      if (!index) index = &s;
      continue;
    }
    any_shard = true;
    for (const WeightTypeTally& t : s.by_type) {
      if (!tally.Merge(t)) return Error(s.format, WeightIssue::kBadSize, "the shards' total size overflows 64 bits");
    }
    if (!AddOk(out.header_bytes, s.header_bytes, out.header_bytes) ||
        !AddOk(out.data_bytes, s.data_bytes, out.data_bytes)) {
      return Error(s.format, WeightIssue::kBadSize, "the shards' total size overflows 64 bits");
    }
    if (first_shard) {
      out.format = s.format;
      out.metadata = s.metadata;
      out.gguf = s.gguf;
      first_shard = false;
    }
  }
  tally.Fill(out);
  out.parameters_known = any_shard;
  if (index) {
    out.index = index->index;
    if (!any_shard) {
      out.format = WeightFormat::kSafetensorsIndex;
      out.weight_bytes = index->weight_bytes;
      out.tensor_count = index->tensor_count;
    } else if (index->index.has_total_size && index->index.total_size != out.weight_bytes) {
      out.notes.push_back({WeightIssue::kNeedsShardHeaders, Severity::kWarning,
                           "the shards hold " + Num(out.weight_bytes) + " bytes of tensors but the index says " +
                               Num(index->index.total_size) + "; are all " + Num(index->index.shard_files.size()) +
                               " shard files there?"});
    }
  }
  return out;
}

Diagnostics WeightHeaderDiagnostics(const WeightHeaderResult& r) {
  auto map_id = [](WeightIssue id) {
    switch (id) {
      case WeightIssue::kTruncated:
      case WeightIssue::kMalformed: return DiagId::kParse;
      case WeightIssue::kBadMagic:
      case WeightIssue::kUnsupportedVersion: return DiagId::kUnsupported;
      case WeightIssue::kHeaderTooLarge:
      case WeightIssue::kBadSize: return DiagId::kOutOfRange;
      case WeightIssue::kUnknownDtype: return DiagId::kUnknownValue;
      case WeightIssue::kMissingField:
      case WeightIssue::kNeedsShardHeaders: return DiagId::kMissingField;
      case WeightIssue::kMetadataCapped: return DiagId::kIgnoredSetting;
      case WeightIssue::kNone:
      case WeightIssue::kOffsetMismatch:
      case WeightIssue::kBlockMisaligned:
      case WeightIssue::kDuplicateName:
      case WeightIssue::kTrailingData: break;
    }
    return DiagId::kInconsistent;
  };
  Diagnostics d;
  if (r.status == WeightHeaderStatus::kError) {
    d.push_back({map_id(r.error), Severity::kError, "weights_file", r.message});
  }
  for (const WeightNote& n : r.notes) d.push_back({map_id(n.id), n.severity, "weights_file", n.message});
  return d;
}

}  // namespace llmmem::core
