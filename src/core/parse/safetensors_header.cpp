// The safetensors header reader (MakeSafetensorsParser, behind WeightHeaderReader and
// ParseSafetensorsHeader in core/weight_headers.h): the 8-byte little-endian length, then a
// strict JSON reader for the header's fixed shape that tallies exact parameters and bytes
// per dtype and checks the data offsets. Incremental and linear: each top-level entry is
// read once its bytes have arrived. Every read is bounds-checked, every size product and
// sum overflow-checked, and JSON nesting is walked with an explicit, bounded stack, so
// hostile headers end in an error value, never a crash.
// Standard library only (plus core/weight_headers_internal.h).
// Sources: huggingface/safetensors README and safetensors/src/tensor.rs (header layout,
// MAX_HEADER_SIZE, Dtype::bitsize, validate(): offsets sorted, packed from 0, sized
// elements x bits / 8).
//
// Index
// [SECTION] A strict JSON cursor
// [SECTION] The header reader: entries as they arrive, tensors, __metadata__, packing
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/parse/weight_headers.h"
#include "core/parse/json.h"
#include "core/base/safe_text.h"
#include "core/parse/weight_headers_internal.h"

namespace llmmem::core {

using namespace detail;

namespace {

bool EndsWith(const std::string& s, const char* tail) {
  const size_t n = std::char_traits<char>::length(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

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
  void Seek(size_t pos) { pos_ = pos; }
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
      if (c >= 0x80) {  // the header is UTF-8 JSON (serde_json refuses anything else)
        uint32_t cp = 0;
        const size_t len = Utf8SequenceAt(std::string_view(reinterpret_cast<const char*>(p_), n_), pos_ - 1, &cp);
        if (len == 0) {
          --pos_;
          return FailHere(WeightIssue::kMalformed, "invalid UTF-8 inside a string");
        }
        out.append(reinterpret_cast<const char*>(p_) + pos_ - 1, len);
        pos_ += len - 1;
        continue;
      }
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      const std::string error = DecodeJsonEscape(p_, n_, pos_, out);
      if (!error.empty()) return FailHere(WeightIssue::kMalformed, error);
    }
  }

  // A non-negative JSON integer that fits in 64 bits; `what` and `name` name it in messages
  // (built only on failure: this runs for every dimension of every tensor).
  bool Uint(uint64_t& out, const char* what_prefix, const std::string& name) {
    if (Digit()) {  // the common case, without the message
      const size_t start = pos_;
      uint64_t v = 0;
      while (pos_ < n_ && p_[pos_] >= '0' && p_[pos_] <= '9' && pos_ - start < 19) v = v * 10 + (p_[pos_++] - '0');
      const bool more =
          pos_ < n_ && (p_[pos_] == '.' || p_[pos_] == 'e' || p_[pos_] == 'E' || (p_[pos_] >= '0' && p_[pos_] <= '9'));
      if (!more && !(p_[start] == '0' && pos_ - start > 1)) {
        out = v;
        return true;
      }
      pos_ = start;
    }
    return Uint(out, what_prefix + Quoted(name));
  }
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

  bool Digit() {
    SkipSpace();
    return pos_ < n_ && p_[pos_] >= '0' && p_[pos_] <= '9';
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
// [SECTION] The header reader: entries as they arrive, tensors, __metadata__, packing
// -----------------------------------------------------------------------------------------
// Incremental: a scanner that survives between feeds finds where each top-level entry ends
// (the ',' or '}' at depth 1, outside strings), then the entry is read whole by the strict
// cursor above, bounded by that end. So each byte is scanned once and parsed once, and only
// the entry being read is kept; tensor names go to one arena (NameSet).

struct SafetensorsSpan {
  uint64_t begin, end;
  size_t name_index;
};

class SafetensorsParser : public IncrementalParser {
 public:
  explicit SafetensorsParser(uint64_t file_size) : file_size_(file_size), meta_(result) {
    result.format = WeightFormat::kSafetensors;
  }

  uint64_t keep_from() const override { return pos_; }
  uint64_t resume_at() const override { return scan_; }
  uint64_t need_end() const override { return need_end_; }
  uint64_t read_limit() const override { return header_end_ > 0 ? header_end_ : std::min<uint64_t>(file_size_, 8); }
  uint64_t known_end() const override { return header_end_; }

  WeightHeaderStatus Parse(const Window& w) override {
    w_ = &w;
    while (true) {
      bool ok = true;
      switch (phase_) {
        case Phase::kLength:
          ok = Length();
          break;
        case Phase::kOpen:
          ok = Open();
          break;
        case Phase::kEntries:
          ok = NextEntry();
          break;
        case Phase::kTrailer:
          ok = Trailer();
          break;
        case Phase::kDone:
          return result.status;
      }
      if (!ok) {
        if (issue_ == WeightIssue::kNone) return WeightHeaderStatus::kNeedMoreBytes;
        phase_ = Phase::kDone;
        result = Error(WeightFormat::kSafetensors, issue_, message_);
        return result.status;
      }
    }
  }

 private:
  enum class Phase { kLength, kOpen, kEntries, kTrailer, kDone };

  bool Fail(WeightIssue id, const std::string& what) {
    if (issue_ == WeightIssue::kNone) {
      issue_ = id;
      message_ = what;
    }
    return false;
  }
  bool FailAt(uint64_t at, WeightIssue id, const std::string& what) {
    return Fail(id, "byte " + Num(at) + " of the file: " + what);
  }
  bool FailFrom(const JsonCursor& c) { return Fail(c.issue(), c.message()); }
  // The window's bytes up to `end` of the header, as a cursor positioned at pos_.
  JsonCursor Cursor(uint64_t end) const {
    JsonCursor c(w_->at(w_->base), static_cast<size_t>(end - w_->base), w_->base);
    c.Seek(static_cast<size_t>(pos_ - w_->base));
    return c;
  }
  bool NeedHeader() {  // the next byte of the header; each is scanned once
    scan_ = std::max(scan_, w_->end());
    need_end_ = scan_ + 1;
    return false;
  }

  bool Length() {
    if (w_->end() < 8) {
      if (file_size_ < 8) {
        return Fail(WeightIssue::kTruncated, "the file is " + Num(file_size_) +
                                                 " bytes; a safetensors file starts with an 8-byte header length");
      }
      need_end_ = 8;
      scan_ = w_->end();
      return false;
    }
    const uint64_t n = ReadLe(w_->at(0), 8);
    if (n > kSafetensorsMaxHeaderBytes) {
      return Fail(WeightIssue::kHeaderTooLarge, "the safetensors header declares " + Num(n) +
                                                    " bytes of JSON; at most " + Num(kSafetensorsMaxHeaderBytes) +
                                                    " are accepted (the safetensors library's own limit)");
    }
    header_end_ = 8 + n;
    if (file_size_ < header_end_) {
      return Fail(WeightIssue::kTruncated, "the file is " + Num(file_size_) +
                                               " bytes but its safetensors header needs at least " + Num(header_end_) +
                                               " (8 + the " + Num(n) + "-byte JSON header it declares)");
    }
    pos_ = scan_ = 8;
    phase_ = Phase::kOpen;
    return true;
  }

  bool Open() {  // '{' at byte 8, as the sniffer and the safetensors writers have it
    const uint64_t end = std::min(w_->end(), header_end_);
    if (pos_ == header_end_) return FailAt(pos_, WeightIssue::kMalformed, "a safetensors header must start with '{'");
    if (pos_ == end) return NeedHeader();
    if (*w_->at(pos_) != '{') return FailAt(pos_, WeightIssue::kMalformed, "a safetensors header must start with '{'");
    scan_ = ++pos_;
    phase_ = Phase::kEntries;
    return true;
  }

  // Scans for the end of the entry that starts at pos_; reads it when found.
  bool NextEntry() {
    const uint64_t end = std::min(w_->end(), header_end_);
    uint64_t sep = 0;
    bool found = false;
    for (; scan_ < end; ++scan_) {
      const uint8_t c = *w_->at(scan_);
      if (in_string_) {
        if (escape_)
          escape_ = false;
        else if (c == '\\')
          escape_ = true;
        else if (c == '"')
          in_string_ = false;
        continue;
      }
      if (c == '"') {
        in_string_ = true;
      } else if (c == '{' || c == '[') {
        ++depth_;
      } else if ((c == '}' || c == ']') && depth_ > 0) {
        --depth_;
      } else if (c == '}' || (c == ',' && depth_ == 0)) {
        sep = scan_;
        found = true;
        break;
      }
    }
    if (!found) {
      if (end < header_end_) return NeedHeader();
      // The header ends inside this entry: the cursor says where it breaks.
      JsonCursor c = Cursor(header_end_);
      if (!Entry(c)) return false;
      return FailAt(header_end_, WeightIssue::kMalformed, "the header ends before its closing '}'");
    }
    const bool closing = *w_->at(sep) == '}';
    JsonCursor c = Cursor(sep);
    c.SkipSpace();
    if (!(closing && entries_ == 0 && c.AtEnd())) {  // "{}" has no entry
      c.Seek(static_cast<size_t>(pos_ - w_->base));
      if (!Entry(c)) return false;
      c.SkipSpace();
      if (!c.AtEnd()) {
        c.FailHere(WeightIssue::kMalformed, "expected ',' or '}' after a header entry");
        return FailFrom(c);
      }
      ++entries_;
    }
    pos_ = scan_ = sep + 1;
    depth_ = 0;
    if (closing) phase_ = Phase::kTrailer;
    return true;
  }

  // One "name": {...} or "__metadata__": {...}.
  bool Entry(JsonCursor& in) {
    std::string key;
    if (!in.String(key) || !in.Expect(':', "':' after a tensor name")) return FailFrom(in);
    if (key == "__metadata__") {
      if (seen_metadata_) return Fail(WeightIssue::kDuplicateName, "__metadata__ appears twice");
      seen_metadata_ = true;
      return Metadata(in) || FailFrom(in);
    }
    if (!names_.Insert(key))
      return Fail(WeightIssue::kDuplicateName, "tensor " + Quoted(key) + " appears twice in the header");
    if (names_.size() > kWeightMaxTensors) {
      return Fail(WeightIssue::kHeaderTooLarge,
                  "the header lists more than " + Num(kWeightMaxTensors) + " tensors, the most this reader accepts");
    }
    return Tensor(in, key) || FailFrom(in);
  }

  // Spaces up to the header's end (writers pad the header to an 8-byte boundary).
  bool Trailer() {
    const uint64_t end = std::min(w_->end(), header_end_);
    while (pos_ < end && IsSpace(*w_->at(pos_))) ++pos_;
    scan_ = pos_;
    if (pos_ < end) return FailAt(pos_, WeightIssue::kMalformed, "text after the header's closing '}'");
    if (pos_ < header_end_) return NeedHeader();
    return Finish();
  }

  static bool IsSpace(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

  bool Metadata(JsonCursor& in) {
    in.SkipSpace();
    if (in.Literal("null")) return true;
    if (!in.Expect('{', "'{' to open __metadata__")) return false;
    in.SkipSpace();
    if (in.Eat('}')) return true;
    while (true) {
      std::string key, value;
      if (!in.String(key) || !in.Expect(':', "':' after a metadata key")) return false;
      in.SkipSpace();
      if (in.Peek('"') ? !in.String(value) : !in.RawValue(value)) return false;
      meta_.Add(key, std::move(value));
      in.SkipSpace();
      if (in.Eat(',')) continue;
      if (in.Eat('}')) return true;
      return in.FailHere(WeightIssue::kMalformed, "expected ',' or '}' in __metadata__");
    }
  }

  bool Tensor(JsonCursor& in, const std::string& name) {
    in.SkipSpace();
    if (!in.Eat('{')) return in.FailHere(WeightIssue::kMalformed, "expected '{' to open tensor " + Quoted(name));
    std::string dtype;
    std::vector<uint64_t> shape;
    uint64_t begin = 0, end = 0;
    bool has_dtype = false, has_shape = false, has_offsets = false;
    in.SkipSpace();
    if (!in.Eat('}')) {
      while (true) {
        std::string key;
        if (!in.String(key) || !in.Expect(':', "':' after a key")) return false;
        const bool dtype_key = key == "dtype", shape_key = key == "shape", offsets_key = key == "data_offsets";
        if ((dtype_key && has_dtype) || (shape_key && has_shape) || (offsets_key && has_offsets)) {
          return in.Fail(WeightIssue::kDuplicateName, "tensor " + Quoted(name) + " states " + key + " twice");
        }
        if (dtype_key) {
          has_dtype = true;
          if (!in.String(dtype)) return false;
        } else if (shape_key) {
          has_shape = true;
          if (!Shape(in, name, shape)) return false;
        } else if (offsets_key) {
          has_offsets = true;
          if (!Offsets(in, name, begin, end)) return false;
        } else if (!in.SkipValue()) {
          return false;
        }
        in.SkipSpace();
        if (in.Eat(',')) continue;
        if (in.Eat('}')) break;
        return in.FailHere(WeightIssue::kMalformed, "expected ',' or '}' in tensor " + Quoted(name));
      }
    }
    const char* missing = !has_dtype ? "dtype" : !has_shape ? "shape" : !has_offsets ? "data_offsets" : nullptr;
    if (missing) return in.Fail(WeightIssue::kMissingField, "tensor " + Quoted(name) + " has no " + missing);
    return Account(in, name, dtype, shape, begin, end);
  }

  bool Shape(JsonCursor& in, const std::string& name, std::vector<uint64_t>& shape) {
    if (!in.Expect('[', "'[' to open a shape")) return false;
    in.SkipSpace();
    if (in.Eat(']')) return true;
    while (true) {
      uint64_t d = 0;
      if (!in.Uint(d, "a dimension of tensor ", name)) return false;
      shape.push_back(d);
      in.SkipSpace();
      if (in.Eat(',')) continue;
      if (in.Eat(']')) return true;
      return in.FailHere(WeightIssue::kMalformed, "expected ',' or ']' in a shape");
    }
  }

  bool Offsets(JsonCursor& in, const std::string& name, uint64_t& begin, uint64_t& end) {
    const char* what = "a data offset of tensor ";
    return in.Expect('[', "'[' to open data_offsets") && in.Uint(begin, what, name) &&
           in.Expect(',', "data_offsets of two numbers, [begin, end]") && in.Uint(end, what, name) &&
           in.Expect(']', "data_offsets of two numbers, [begin, end]");
  }

  bool Account(JsonCursor& in, const std::string& name, const std::string& dtype, const std::vector<uint64_t>& shape,
               uint64_t begin, uint64_t end) {
    const SafetensorsDtypeInfo* info = FindSafetensorsDtype(dtype);
    if (!info) {
      return in.Fail(WeightIssue::kUnknownDtype, "tensor " + Quoted(name) + " has dtype " + Quoted(dtype) +
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
          return in.Fail(WeightIssue::kBadSize, "tensor " + Quoted(name) + " has shape " + ShapeText(shape) +
                                                    ", whose element count overflows 64 bits");
        }
      }
    }
    uint64_t bits = 0;
    if (!MulOk(elements, info->bits, bits)) {
      return in.Fail(WeightIssue::kBadSize, "tensor " + Quoted(name) + " (" + dtype + ", shape " + ShapeText(shape) +
                                                ") has a byte size that overflows 64 bits");
    }
    if (bits % 8 != 0) {
      return in.Fail(WeightIssue::kBlockMisaligned, "tensor " + Quoted(name) + " has " + Num(elements) +
                                                        " elements of " + dtype + " (" + Num(info->bits) +
                                                        " bits each), not a whole number of bytes");
    }
    const uint64_t bytes = bits / 8;
    if (end < begin || end - begin != bytes) {
      return in.Fail(WeightIssue::kOffsetMismatch,
                     "tensor " + Quoted(name) + " (" + dtype + ", shape " + ShapeText(shape) + ") needs " + Num(bytes) +
                         " bytes but its data_offsets [" + Num(begin) + ", " + Num(end) + "] " +
                         (end < begin ? std::string("end before they begin") : "span " + Num(end - begin)));
    }
    // gpt-oss / OCP MX checkpoints keep MXFP4 weights as U8 `*_blocks`, two 4-bit values a byte
    // ([..., 16] bytes per 32 values), and their E8M0 exponents as U8 `*_scales`, one per 32
    // values: stored bytes, not parameters (transformers integrations/mxfp4.py, OCP MX v1.0).
    std::string type = dtype;
    uint64_t parameters = elements;
    if (dtype == "U8" && EndsWith(name, "_blocks")) {
      type = "MXFP4";
      if (!MulOk(elements, 2, parameters)) {
        return in.Fail(WeightIssue::kBadSize, "tensor " + Quoted(name) + " has a parameter count that overflows 64 bits");
      }
    } else if (dtype == "U8" && EndsWith(name, "_scales")) {
      type = "MXFP4 scales (E8M0)";
      parameters = 0;
    }
    if (!tally_.Add(type, parameters, bytes)) {
      return in.Fail(WeightIssue::kBadSize, "the tensors' total size exceeds 2^63 (at tensor " + Quoted(name) + ")");
    }
    spans_.push_back({begin, end, names_.size() - 1});
    return true;
  }

  // safetensors validate(): sorted by offsets, the tensors tile [0, end) with no gap or overlap.
  bool Finish() {
    meta_.Finish();
    std::sort(spans_.begin(), spans_.end(), [](const SafetensorsSpan& a, const SafetensorsSpan& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    uint64_t at = 0;
    for (const SafetensorsSpan& sp : spans_) {
      if (sp.begin != at) {
        return Fail(WeightIssue::kOffsetMismatch, "tensor " + Quoted(std::string(names_[sp.name_index])) +
                                                      " starts at data byte " + Num(sp.begin) +
                                                      " but the tensors before it end at " + Num(at) +
                                                      ": safetensors packs tensors without gaps or overlaps");
      }
      at = sp.end;
    }
    result.header_bytes = header_end_;
    result.data_start = header_end_;
    result.data_bytes = at;
    const uint64_t data_in_file = file_size_ - header_end_;
    if (at > data_in_file) {
      return Fail(WeightIssue::kTruncated, "the tensors need " + Num(at) + " bytes of data after the " +
                                               Num(header_end_) + "-byte header, but the file is " + Num(file_size_) +
                                               " bytes (" + Num(data_in_file) + " of data): it was cut short");
    }
    if (at < data_in_file) {
      result.notes.push_back({WeightIssue::kTrailingData, Severity::kWarning,
                              "the file has " + Num(data_in_file - at) +
                                  " bytes after the last tensor; the safetensors library refuses such files"});
    }
    tally_.Fill(result);
    result.status = WeightHeaderStatus::kComplete;
    phase_ = Phase::kDone;
    return true;
  }

  const uint64_t file_size_;
  const Window* w_ = nullptr;
  MetadataSink meta_;
  Phase phase_ = Phase::kLength;
  uint64_t header_end_ = 0;
  uint64_t pos_ = 0;   // start of the entry being read
  uint64_t scan_ = 0;  // the scanner's next byte
  uint64_t need_end_ = 0;
  uint64_t depth_ = 0;  // nesting inside the entry
  bool in_string_ = false, escape_ = false;
  uint64_t entries_ = 0;
  bool seen_metadata_ = false;
  WeightIssue issue_ = WeightIssue::kNone;
  std::string message_;
  Tally tally_;
  NameSet names_;
  std::vector<SafetensorsSpan> spans_;
};

}  // namespace

std::unique_ptr<IncrementalParser> detail::MakeSafetensorsParser(uint64_t file_size) {
  return std::make_unique<SafetensorsParser>(file_size);
}

}  // namespace llmmem::core
