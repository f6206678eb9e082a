// JSON parser and writer. Recursive descent with an explicit depth bound; every error
// names the position and what was expected.
#include "core/parse/json.h"

#include "core/base/safe_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace llmmem::core {

namespace {
template <class T>
std::unique_ptr<T> CopyOf(const std::unique_ptr<T>& p) {
  return p ? std::make_unique<T>(*p) : nullptr;
}
}  // namespace

Json::Json(const Json& o)
    : type_(o.type_),
      bool_(o.bool_),
      number_(o.number_),
      string_(CopyOf(o.string_)),
      array_(CopyOf(o.array_)),
      object_(CopyOf(o.object_)) {}

Json& Json::operator=(const Json& o) {
  if (this != &o) *this = Json(o);
  return *this;
}

const std::string& Json::AsString() const {
  static const std::string kEmpty;
  return string_ ? *string_ : kEmpty;
}
const Json::Array& Json::AsArray() const {
  static const Array kEmpty;
  return array_ ? *array_ : kEmpty;
}
const Json::Object& Json::AsObject() const {
  static const Object kEmpty;
  return object_ ? *object_ : kEmpty;
}
Json::Array& Json::MutableArray() {
  if (!array_) array_ = std::make_unique<Array>();
  return *array_;
}
Json::Object& Json::MutableObject() {
  if (!object_) object_ = std::make_unique<Object>();
  return *object_;
}

const Json* Json::Find(const std::string& key) const {
  if (type_ != Type::kObject || !object_) return nullptr;
  auto it = object_->find(key);
  return it == object_->end() ? nullptr : &it->second;
}

Json& Json::operator[](const std::string& key) {
  if (type_ != Type::kObject) {
    *this = Json(Object{});
  }
  return MutableObject()[key];
}

std::string FormatJsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  if (std::fabs(v) < 9.007199254740992e15 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", v);
    // Prefer the shortest representation that round-trips.
    for (int precision = 6; precision < 17; ++precision) {
      char shorter[40];
      std::snprintf(shorter, sizeof shorter, "%.*g", precision, v);
      if (std::strtod(shorter, nullptr) == v) {
        return shorter;
      }
    }
  }
  return buf;
}

namespace {

// Always valid UTF-8 JSON: an invalid byte becomes U+FFFD, and the characters a terminal or
// a JavaScript parser would obey (C0, DEL, C1, bidirectional overrides, U+2028/9) are
// written as \u escapes (core/safe_text.h).
void DumpString(const std::string& s, std::string& out) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t n = Utf8SequenceAt(s, i, &cp);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    switch (cp) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (IsControlCodePoint(cp)) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
          out += buf;
        } else {
          out.append(s.data() + i, n);
        }
    }
    i += n;
  }
  out += '"';
}

void DumpValue(const Json& v, int indent, int level, std::string& out) {
  auto newline = [&](int l) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * l), ' ');
  };
  switch (v.type()) {
    case Json::Type::kNull:
      out += "null";
      break;
    case Json::Type::kBool:
      out += v.AsBool() ? "true" : "false";
      break;
    case Json::Type::kNumber:
      out += FormatJsonNumber(v.AsNumber());
      break;
    case Json::Type::kString:
      DumpString(v.AsString(), out);
      break;
    case Json::Type::kArray: {
      if (v.AsArray().empty()) {
        out += "[]";
        break;
      }
      out += '[';
      bool first = true;
      for (const Json& e : v.AsArray()) {
        if (!first) out += ',';
        first = false;
        newline(level + 1);
        DumpValue(e, indent, level + 1, out);
      }
      newline(level);
      out += ']';
      break;
    }
    case Json::Type::kObject: {
      if (v.AsObject().empty()) {
        out += "{}";
        break;
      }
      out += '{';
      bool first = true;
      for (const auto& [key, e] : v.AsObject()) {
        if (!first) out += ',';
        first = false;
        newline(level + 1);
        DumpString(key, out);
        out += indent < 0 ? ":" : ": ";
        DumpValue(e, indent, level + 1, out);
      }
      newline(level);
      out += '}';
      break;
    }
  }
}

class Parser {
 public:
  Parser(const std::string& text, const JsonLimits& limits) : s_(text), limits_(limits) {}

  JsonParseResult Run() {
    JsonParseResult r;
    if (s_.size() > limits_.max_bytes) {
      r.error = std::string(limits_.what) + " is " + std::to_string(s_.size()) + " bytes; at most " +
                std::to_string(limits_.max_bytes) + " are accepted";
      return r;
    }
    if (s_.compare(0, 3, "\xEF\xBB\xBF") == 0) {
      r.error =
          "the text starts with a UTF-8 byte-order mark (bytes EF BB BF), which JSON does not allow; save the "
          "file as UTF-8 without a BOM";
      return r;
    }
    SkipSpace();
    if (!ParseValue(r.value, 0)) {
      r.error = error_;
      return r;
    }
    SkipSpace();
    if (pos_ != s_.size()) {
      r.error = Where() + "unexpected text after the end of the JSON value";
      return r;
    }
    r.ok = true;
    return r;
  }

 private:
  std::string Where() const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col) + ": ";
  }
  bool Fail(const std::string& what) {
    if (error_.empty()) error_ = Where() + what;
    return false;
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool Literal(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (s_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }

  bool ParseValue(Json& out, int depth) {
    if (depth > limits_.max_depth) return Fail("nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
    if (++values_ > limits_.max_values)
      return Fail("more than " + std::to_string(limits_.max_values) +
                  " values (numbers, strings, lists, objects); no document this program reads holds that many");
    if (pos_ >= s_.size()) return Fail("unexpected end of input, expected a value");
    char c = s_[pos_];
    if (c == '{') return ParseObject(out, depth);
    if (c == '[') return ParseArray(out, depth);
    if (c == '"') {
      std::string str;
      if (!ParseString(str)) return false;
      out = Json(std::move(str));
      return true;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
    if (Literal("true")) {
      out = Json(true);
      return true;
    }
    if (Literal("false")) {
      out = Json(false);
      return true;
    }
    if (Literal("null")) {
      out = Json(nullptr);
      return true;
    }
    if (Literal("NaN") || Literal("Infinity") || Literal("-Infinity")) {
      return Fail("NaN and Infinity are not valid JSON numbers");
    }
    uint32_t cp = 0;
    const size_t n = Utf8SequenceAt(s_, pos_, &cp);
    return Fail("unexpected character '" + EchoValue(s_.substr(pos_, n == 0 ? 1 : n)) + "', expected a value");
  }

  bool ParseObject(Json& out, int depth) {
    ++pos_;  // '{'
    Json::Object obj;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      out = Json(std::move(obj));
      return true;
    }
    while (true) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') return Fail("expected a quoted object key");
      std::string key;
      if (!ParseString(key)) return false;
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return Fail("expected ':' after an object key");
      ++pos_;
      SkipSpace();
      Json value;
      if (!ParseValue(value, depth + 1)) return false;
      obj[key] = std::move(value);  // a repeated key keeps the last value, as JavaScript does
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        break;
      }
      return Fail("expected ',' or '}' in an object");
    }
    out = Json(std::move(obj));
    return true;
  }

  bool ParseArray(Json& out, int depth) {
    ++pos_;  // '['
    Json::Array arr;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      out = Json(std::move(arr));
      return true;
    }
    while (true) {
      SkipSpace();
      Json value;
      if (!ParseValue(value, depth + 1)) return false;
      arr.push_back(std::move(value));
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        break;
      }
      return Fail("expected ',' or ']' in an array");
    }
    out = Json(std::move(arr));
    return true;
  }

  bool ParseString(std::string& out) {
    ++pos_;  // opening quote
    while (true) {
      if (pos_ >= s_.size()) return Fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character inside a string");
      if (static_cast<unsigned char>(c) >= 0x80) {  // JSON text is UTF-8 (RFC 8259 section 8.1)
        uint32_t cp = 0;
        const size_t n = Utf8SequenceAt(s_, pos_ - 1, &cp);
        if (n == 0) {
          --pos_;
          return Fail("invalid UTF-8 inside a string (JSON text must be UTF-8)");
        }
        out.append(s_, pos_ - 1, n);
        pos_ += n - 1;
        continue;
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      const std::string error =
          DecodeJsonEscape(reinterpret_cast<const unsigned char*>(s_.data()), s_.size(), pos_, out);
      if (!error.empty()) return Fail(error);
    }
  }

  bool ParseNumber(Json& out) {
    size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) return Fail("a digit must follow '-'");
    if (s_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) return Fail("a digit must follow '.'");
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) return Fail("a digit must follow the exponent");
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    double v = std::strtod(s_.substr(start, pos_ - start).c_str(), nullptr);
    if (!std::isfinite(v)) return Fail("number out of range");
    out = Json(v);
    return true;
  }

  const std::string& s_;
  const JsonLimits& limits_;
  size_t pos_ = 0;
  size_t values_ = 0;
  std::string error_;
};

}  // namespace

int HexDigitValue(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

namespace {

// Four hex digits at data[pos]; false when there are fewer or one is not a digit.
bool ReadHex4(const unsigned char* data, size_t size, size_t& pos, uint32_t& cp) {
  if (size - pos < 4) return false;
  cp = 0;
  for (int i = 0; i < 4; ++i) {
    const int v = HexDigitValue(data[pos++]);
    if (v < 0) return false;
    cp = (cp << 4) | static_cast<uint32_t>(v);
  }
  return true;
}

}  // namespace

std::string DecodeJsonEscape(const unsigned char* data, size_t size, size_t& pos, std::string& out) {
  if (pos >= size) return "unterminated escape";
  const unsigned char e = data[pos++];
  switch (e) {
    case '"':
      out += '"';
      return {};
    case '\\':
      out += '\\';
      return {};
    case '/':
      out += '/';
      return {};
    case 'b':
      out += '\b';
      return {};
    case 'f':
      out += '\f';
      return {};
    case 'n':
      out += '\n';
      return {};
    case 'r':
      out += '\r';
      return {};
    case 't':
      out += '\t';
      return {};
    case 'u': {
      uint32_t cp = 0;
      if (!ReadHex4(data, size, pos, cp)) return "invalid \\u escape: four hex digits are needed";
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        uint32_t low = 0;
        if (size - pos < 2 || data[pos] != '\\' || data[pos + 1] != 'u') {
          return "unpaired UTF-16 surrogate in a \\u escape";
        }
        pos += 2;
        if (!ReadHex4(data, size, pos, low) || low < 0xDC00 || low > 0xDFFF) {
          return "unpaired UTF-16 surrogate in a \\u escape";
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return "unpaired UTF-16 surrogate in a \\u escape";
      }
      AppendUtf8(cp, out);
      return {};
    }
    default:
      return "invalid escape '\\" + TerminalSafe(std::string(1, static_cast<char>(e))) +
             "'";  // the byte shown, not sent
  }
}

bool IsDecimalNumber(const std::string& t) {
  size_t i = 0;
  const size_t n = t.size();
  auto digits = [&]() {
    const size_t start = i;
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
    return i > start;
  };
  if (i < n && t[i] == '-') ++i;
  if (i < n && t[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < n && t[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}

std::string Json::Dump(int indent) const {
  std::string out;
  DumpValue(*this, indent, 0, out);
  return out;
}

JsonParseResult ParseJson(const std::string& text, const JsonLimits& limits) { return Parser(text, limits).Run(); }

}  // namespace llmmem::core
