// The safetensors header reader (ParseSafetensorsHeader in core/weight_headers.h): the 8-byte
// little-endian length, then a strict JSON reader for the header's fixed shape that tallies
// exact parameters and bytes per dtype and checks the data offsets. Every read is
// bounds-checked, every size product and sum overflow-checked, and JSON nesting is walked
// with an explicit, bounded stack, so hostile headers end in an error value, never a crash.
// Standard library only (plus core/weight_headers_internal.h).
// Sources: huggingface/safetensors README and safetensors/src/tensor.rs (header layout,
// MAX_HEADER_SIZE, Dtype::bitsize, validate(): offsets sorted, packed from 0, sized
// elements x bits / 8).
//
// Index
// [SECTION] A strict JSON cursor
// [SECTION] The header reader: tensors, __metadata__, packing
// [SECTION] ParseSafetensorsHeader
#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/weight_headers.h"
#include "core/json.h"
#include "core/weight_headers_internal.h"

namespace llmmem::core {

using namespace detail;

namespace {

// -----------------------------------------------------------------------------------------
// [SECTION] A strict JSON cursor
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
      const std::string error = DecodeJsonEscape(p_, n_, pos_, out);
      if (!error.empty()) return FailHere(WeightIssue::kMalformed, error);
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

  const uint8_t* p_;
  size_t n_;
  uint64_t base_;
  size_t pos_ = 0;
  WeightIssue issue_ = WeightIssue::kNone;
  std::string message_;
};

// -----------------------------------------------------------------------------------------
// [SECTION] The header reader: tensors, __metadata__, packing
// -----------------------------------------------------------------------------------------

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

// -----------------------------------------------------------------------------------------
// [SECTION] ParseSafetensorsHeader
// -----------------------------------------------------------------------------------------

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

}  // namespace llmmem::core
