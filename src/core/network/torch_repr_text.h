// Reading print(model)'s text (torch_repr.cpp converts what is read into layers): the
// repr into a module tree, and one module's extra_repr into its arguments.
//
// The text format is nn.Module.__repr__ (torch/nn/modules/module.py): "Name(" then either
// the extra_repr on the same line and ")", or one line per extra_repr line and per child
// "(key): Child(...)", then ")" on its own line. nn.ModuleList in PyTorch 2.x prints runs
// of equal children once: "(0-11): 12 x EncoderBlock(".
// Internal to torch_repr.cpp (its only includer). May include: core only.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/base/diagnostics.h"
#include "core/base/safe_text.h"
#include "core/parse/text.h"
#include "core/network/torch_repr.h"

namespace llmmem::core::repr_internal {

constexpr size_t kMaxReprBytes = kTorchReprMaxBytes;
constexpr int kMaxReprDepth = 64;
constexpr int kMaxModules = 20000;

// A count printed in the repr ("12 x", "(0-11)"): at most 9 digits and at most `max`, so
// "4294967297 x" is refused rather than wrapped to 1 by atoi. False when it is not one.
inline bool ReadCount(const std::string& digits, int64_t max, int64_t& out) {
  if (digits.empty() || digits.size() > 9) return false;
  int64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > max) return false;
  out = v;
  return true;
}

// The 1-based line of `pos` in `text` (counted only when a message needs it).
inline int LineOf(const std::string& text, size_t pos) {
  int n = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) n += text[i] == '\n';
  return n;
}

// [SECTION] Reading
struct Module {
  std::string key;   // "conv1", "0"
  std::string type;  // "Conv2d"
  std::string args;  // extra_repr text
  int repeat = 1;    // "(0-11): 12 x ..."
  size_t offset = 0;  // where its name starts in the text read (for a line number)
  std::vector<std::unique_ptr<Module>> children;
  const Module* Child(const std::string& k) const {
    for (const auto& c : children)
      if (c->key == k) return c.get();
    return nullptr;
  }
};

class Reader {
 public:
  Reader(const std::string& t, Diagnostics& d) : t_(t), d_(d) {}

  std::unique_ptr<Module> Root() {
    SkipSpace();
    auto m = std::make_unique<Module>();
    if (!ModuleAt(*m, 0)) return nullptr;
    SkipSpace();
    if (p_ < t_.size()) Warn("text after the model's closing parenthesis was ignored");
    return m;
  }

 private:
  void Fail(const std::string& msg) {
    if (failed_) return;
    failed_ = true;
    d_.push_back({DiagId::kParse, Severity::kError, "torch_repr", "line " + std::to_string(Line()) + ": " + msg});
  }
  void Warn(const std::string& msg) { d_.push_back({DiagId::kParse, Severity::kWarning, "torch_repr", msg}); }
  int Line() const { return LineOf(t_, p_); }
  void SkipSpace() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  void SkipBlanks() {  // spaces and tabs, not newlines
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\r')) ++p_;
  }

  // Name "(" ...  ")"
  bool ModuleAt(Module& m, int depth) {
    if (depth > kMaxReprDepth) return Fail("modules nest deeper than 64"), false;
    if (++count_ > kMaxModules) return Fail("more than 20000 modules"), false;
    const size_t start = p_;
    m.offset = start;
    while (p_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_' || t_[p_] == '.')) ++p_;
    if (p_ == start) return Fail("expected a module name such as Conv2d( or Sequential("), false;
    m.type = t_.substr(start, p_ - start);
    if (p_ >= t_.size() || t_[p_] != '(') return Fail("expected '(' after " + m.type), false;
    ++p_;
    SkipBlanks();
    if (p_ < t_.size() && t_[p_] == '\n') return Body(m, depth);
    // One line: the extra_repr up to the matching parenthesis.
    int level = 1;
    const size_t a = p_;
    while (p_ < t_.size()) {
      const char c = t_[p_];
      if (c == '\n') return Fail("unbalanced parentheses in " + m.type + "(...)"), false;
      if (c == '(' || c == '[' || c == '{') ++level;
      if (c == ')' || c == ']' || c == '}') {
        if (--level == 0) break;
      }
      ++p_;
    }
    if (p_ >= t_.size()) return Fail("missing ')' for " + m.type), false;
    m.args = t_.substr(a, p_ - a);
    ++p_;
    return true;
  }

  bool Body(Module& m, int depth) {
    while (true) {
      SkipSpace();
      if (p_ >= t_.size()) return Fail("missing ')' closing " + m.type), false;
      if (t_[p_] == ')') {
        ++p_;
        return true;
      }
      // A child: "(key): [N x ]Type(" ; anything else is an extra_repr line.
      size_t q = p_;
      if (t_[q] == '(') {
        const size_t close = t_.find(')', q);
        const size_t eol = t_.find('\n', q);
        if (close != std::string::npos && (eol == std::string::npos || close < eol) && close + 1 < t_.size() &&
            t_[close + 1] == ':') {
          auto child = std::make_unique<Module>();
          child->key = t_.substr(q + 1, close - q - 1);
          p_ = close + 2;
          SkipBlanks();
          // "12 x EncoderBlock(" (ModuleList runs, PyTorch 2.x)
          size_t r = p_;
          while (r < t_.size() && std::isdigit(static_cast<unsigned char>(t_[r]))) ++r;
          if (r > p_ && r + 3 < t_.size() && t_.compare(r, 3, " x ") == 0) {
            int64_t repeat = 0;
            if (!ReadCount(t_.substr(p_, r - p_), kMaxModules, repeat) || repeat < 1)
              return Fail("the repeat count \"" + EchoValue(t_.substr(p_, r - p_)) + " x\" is out of range (1 to " +
                          std::to_string(kMaxModules) + ")"),
                     false;
            child->repeat = static_cast<int>(repeat);
            count_ += child->repeat;
            p_ = r + 3;
          }
          if (!ModuleAt(*child, depth + 1)) return false;
          m.children.push_back(std::move(child));
          continue;
        }
      }
      const size_t eol = t_.find('\n', p_);
      const size_t end = eol == std::string::npos ? t_.size() : eol;
      if (!m.args.empty()) m.args += ", ";
      m.args += t_.substr(p_, end - p_);
      p_ = end;
    }
  }

  const std::string& t_;
  Diagnostics& d_;
  size_t p_ = 0;
  int count_ = 0;
  bool failed_ = false;
};

// [SECTION] Arguments
struct Args {
  std::vector<std::string> pos;
  std::map<std::string, std::string> kw;

  static std::string Trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
  }
  explicit Args(const std::string& text) {
    int level = 0;
    std::string cur;
    char quote = 0;
    auto flush = [&] {
      const std::string piece = Trim(cur);
      cur.clear();
      if (piece.empty()) return;
      const size_t eq = piece.find('=');
      if (eq != std::string::npos && piece.find('(') > eq && piece.find('\'') > eq) {
        kw[Trim(piece.substr(0, eq))] = Trim(piece.substr(eq + 1));
      } else {
        pos.push_back(piece);
      }
    };
    for (char c : text) {
      if (quote) {
        if (c == quote) quote = 0;
        cur += c;
        continue;
      }
      if (c == '\'' || c == '"') quote = c;
      if (c == '(' || c == '[') ++level;
      if (c == ')' || c == ']') --level;
      if (c == ',' && level == 0) {
        flush();
        continue;
      }
      cur += c;
    }
    flush();
  }
  // Keyword, else the i-th positional, else empty.
  std::string Get(const char* key, size_t i = 99) const {
    auto it = kw.find(key);
    if (it != kw.end()) return it->second;
    return i < pos.size() ? pos[i] : "";
  }
  // A number that is not whole ("8.5", "1e3"): its digits are not a count.
  static bool NotWhole(const std::string& v) {
    bool digit = false;
    for (char c : v) {
      if (std::isdigit(static_cast<unsigned char>(c))) digit = true;
      else if (digit && (c == '.' || c == 'e' || c == 'E')) return true;
      else if (c != '-' && c != '+') digit = false;
    }
    return false;
  }
  // Numbers of "3", "(3, 3)", "(3,)": the first and the second (or the first again). Only
  // whole numbers: "8.5" and "1e3" are not read as 8 and 1.
  static bool Ints(const std::string& v, int64_t (&out)[2]) {
    if (NotWhole(v)) return false;
    std::vector<int64_t> xs;
    std::string num;
    for (char c : v + ",") {
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '-') {
        num += c;
      } else if (!num.empty()) {
        const long long x = std::strtoll(num.c_str(), nullptr, 10);
        if (x < -(1ll << 31) || x > (1ll << 31)) return false;
        xs.push_back(x);
        num.clear();
      }
    }
    if (xs.empty() || xs.size() > 2) return false;
    out[0] = xs[0];
    out[1] = xs.size() > 1 ? xs[1] : xs[0];
    return true;
  }
  bool Int(const char* key, size_t i, int64_t& out) const {
    int64_t v[2];
    if (!Checked(key, i, v)) return false;
    out = v[0];
    return true;
  }
  bool Pair(const char* key, size_t i, int64_t (&out)[2]) const { return Checked(key, i, out); }
  // The first size or count asked for that was printed as a non-whole number ("in_features=8.5").
  mutable std::string not_whole;

 private:
  bool Checked(const char* key, size_t i, int64_t (&out)[2]) const {
    const std::string v = Get(key, i);
    if (not_whole.empty() && NotWhole(v)) not_whole = std::string(key) + "=" + v;
    return Ints(v, out);
  }

 public:
  bool Bool(const char* key, bool fallback) const {
    const std::string v = Get(key);
    if (v == "True") return true;
    if (v == "False") return false;
    return fallback;
  }
  double Num(const char* key, size_t i, double fallback) const {
    const std::string v = Get(key, i);
    if (v.empty()) return fallback;
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    return end == v.c_str() ? fallback : x;
  }
};

}  // namespace llmmem::core::repr_internal
