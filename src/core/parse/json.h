// A small JSON value, parser and writer for config files, presets, URL state and results.
// Pure: standard library only. Parse errors are values with a line:column position;
// nesting depth and input size are bounded so hostile input cannot exhaust the stack.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llmmem::core {

class Json {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<Json>;
  using Object = std::map<std::string, Json>;  // sorted keys: stable output

  Json() = default;
  Json(std::nullptr_t) {}
  Json(bool b) : type_(Type::kBool), bool_(b) {}
  Json(double d) : type_(Type::kNumber), number_(d) {}
  Json(int v) : Json(static_cast<double>(v)) {}
  Json(int64_t v) : Json(static_cast<double>(v)) {}
  Json(const char* s) : type_(Type::kString), string_(std::make_unique<std::string>(s)) {}
  Json(std::string s) : type_(Type::kString), string_(std::make_unique<std::string>(std::move(s))) {}
  Json(Array a) : type_(Type::kArray), array_(std::make_unique<Array>(std::move(a))) {}
  Json(Object o) : type_(Type::kObject), object_(std::make_unique<Object>(std::move(o))) {}
  Json(const Json& o);
  Json& operator=(const Json& o);
  Json(Json&&) noexcept = default;
  Json& operator=(Json&&) noexcept = default;

  Type type() const { return type_; }
  bool IsNull() const { return type_ == Type::kNull; }
  bool IsBool() const { return type_ == Type::kBool; }
  bool IsNumber() const { return type_ == Type::kNumber; }
  bool IsString() const { return type_ == Type::kString; }
  bool IsArray() const { return type_ == Type::kArray; }
  bool IsObject() const { return type_ == Type::kObject; }

  bool AsBool() const { return bool_; }
  double AsNumber() const { return number_; }
  const std::string& AsString() const;  // "" when this is not a string
  const Array& AsArray() const;         // empty when this is not an array
  const Object& AsObject() const;       // empty when this is not an object
  Array& MutableArray();                // the array's elements (a fresh list when there is none)
  Object& MutableObject();

  // Member lookup on objects; nullptr when absent or when this is not an object.
  const Json* Find(const std::string& key) const;
  // Object member assignment (turns a null into an object).
  Json& operator[](const std::string& key);

  // Compact (indent < 0) or pretty output. Non-finite numbers are written as null.
  std::string Dump(int indent = -1) const;

 private:
  // Compact: a parsed document holds one Json per value, so each is 40 bytes (not 120 with a
  // string, a vector and a map inline); only the payload its type needs is allocated.
  Type type_ = Type::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::unique_ptr<std::string> string_;
  std::unique_ptr<Array> array_;
  std::unique_ptr<Object> object_;
};

struct JsonParseResult {
  bool ok = false;
  Json value;
  std::string error;  // "line 3, column 14: expected ':' after an object key"
};

constexpr size_t kJsonMaxBytes = 8u << 20;  // 8 MiB: larger than any config.json
constexpr int kJsonMaxDepth = 64;
// Values (numbers, strings, lists, objects, members) in one document: the largest real ones
// (a safetensors index of ~100k tensors, a Hub listing of 100k files) hold a few hundred
// thousand. With ~40 bytes a value plus its list or map slot, a document's tree stays within
// ~250 MB however densely 8 MiB are packed ("[0,0,...]" is 4M values), and past the budget
// the parse stops with an error instead of exhausting memory (std::bad_alloc).
constexpr size_t kJsonMaxValues = 1u << 20;

struct JsonLimits {
  size_t max_bytes = kJsonMaxBytes;
  int max_depth = kJsonMaxDepth;
  size_t max_values = kJsonMaxValues;
  const char* what = "the JSON text";  // names the document in the size message ("a network description")
};

JsonParseResult ParseJson(const std::string& text, const JsonLimits& limits = JsonLimits());

// The value of a hex digit, or -1 (URL decoding uses it too).
int HexDigitValue(unsigned char c);

// Decodes the JSON escape at data[pos], just after its backslash, into out as UTF-8 and
// advances pos (a \uD800-\uDBFF high surrogate takes its \u low surrogate too). Returns
// an empty string, or what is wrong. Shared by ParseJson and the strict safetensors scanner.
std::string DecodeJsonEscape(const unsigned char* data, size_t size, size_t& pos, std::string& out);

// True when text is exactly one JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
// (no spaces, no hex, no "inf"/"nan", no '+').
bool IsDecimalNumber(const std::string& text);

// Writes a number the way the JSON output shows it: integers without a fraction,
// others with up to 17 significant digits (round-trips exactly).
std::string FormatJsonNumber(double v);

}  // namespace llmmem::core
