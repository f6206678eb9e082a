// The run readers' shared scanners and sink (run_scan.h).
#include "core/run/run_scan.h"

#include <cmath>
#include <cstring>

#include "core/oom/oom_evidence.h"
#include "core/oom/oom_scan.h"

namespace llmmem::core::run {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

void FigureSink::SetLine(size_t number, const std::string& text, const std::string& device) {
  line_ = number;
  text_ = oom::Trim(text);
  if (text_.size() > kRunMaxLineChars) text_ = text_.substr(0, kRunMaxLineChars) + " ...";
  device_ = device;
}

void FigureSink::Bytes(MeasuredKind k, RunSource s, const char* form, double bytes, double tolerance) {
  Count(k, s, form, bytes, tolerance);
}

void FigureSink::Count(MeasuredKind k, RunSource s, const char* form, double value, double tolerance, double of) {
  if (!std::isfinite(value) || value < 0) return;
  if (log_.figures.size() >= kRunMaxFigures) {
    ++log_.dropped;
    return;
  }
  MeasuredFigure f;
  f.kind = k;
  f.source = s;
  f.value = value;
  f.tolerance = tolerance;
  f.of = of;
  f.device = device_;
  f.form = form;
  f.line = line_;
  f.text = text_;
  log_.figures.push_back(std::move(f));
}

size_t Find(const std::string& s, const char* lit, size_t pos) { return pos > s.size() ? std::string::npos : s.find(lit, pos); }

bool SizeAt(const std::string& s, size_t& pos, double& bytes, double& tolerance) {
  size_t p = pos;
  oom::SkipSpaces(s, p);
  Figure f;
  if (!oom::ReadSize(s, p, f, oom::SizeStyle::kFormatSize)) return false;
  bytes = f.bytes;
  tolerance = f.tolerance;
  pos = p;
  return true;
}

bool SizeAfter(const std::string& s, const char* lit, double& bytes, double& tolerance, size_t* after, size_t from) {
  const size_t at = Find(s, lit, from);
  if (at == std::string::npos) return false;
  size_t p = at + std::strlen(lit);
  if (!SizeAt(s, p, bytes, tolerance)) return false;
  if (after) *after = p;
  return true;
}

bool CountAt(const std::string& s, size_t& pos, int64_t& value) {
  size_t p = pos;
  oom::SkipSpaces(s, p);
  int64_t v = 0;
  int digits = 0;
  while (p < s.size()) {
    if (IsDigit(s[p])) {
      if (++digits > 15) return false;
      v = v * 10 + (s[p] - '0');
      ++p;
    } else if (s[p] == ',' && digits > 0 && p + 3 < s.size() && IsDigit(s[p + 1]) &&
               IsDigit(s[p + 2]) && IsDigit(s[p + 3]) && (p + 4 >= s.size() || !IsDigit(s[p + 4]))) {
      ++p;  // a thousands mark: exactly three digits follow
    } else {
      break;
    }
  }
  if (digits == 0) return false;
  value = v;
  pos = p;
  return true;
}

bool CountAfter(const std::string& s, const char* lit, int64_t& value, size_t* after, size_t from) {
  const size_t at = Find(s, lit, from);
  if (at == std::string::npos) return false;
  size_t p = at + std::strlen(lit);
  if (!CountAt(s, p, value)) return false;
  if (after) *after = p;
  return true;
}

bool DecimalAt(const std::string& s, size_t& pos, double& value, int& decimals) {
  size_t p = pos;
  oom::SkipSpaces(s, p);
  int64_t whole = 0;
  if (!CountAt(s, p, whole)) return false;
  double v = static_cast<double>(whole);
  decimals = 0;
  if (p + 1 < s.size() && s[p] == '.' && IsDigit(s[p + 1])) {
    ++p;
    double scale = 0.1;
    while (p < s.size() && IsDigit(s[p]) && decimals < 12) {
      v += scale * (s[p] - '0');
      scale /= 10;
      ++decimals;
      ++p;
    }
  }
  value = v;
  pos = p;
  return true;
}

bool DecimalAfter(const std::string& s, const char* lit, double& value, int& decimals, size_t* after, size_t from) {
  const size_t at = Find(s, lit, from);
  if (at == std::string::npos) return false;
  size_t p = at + std::strlen(lit);
  if (!DecimalAt(s, p, value, decimals)) return false;
  if (after) *after = p;
  return true;
}

std::string WordAfter(const std::string& s, const char* key, size_t max_chars) {
  const size_t at = Find(s, key);
  if (at == std::string::npos) return "";
  size_t p = at + std::strlen(key);
  oom::SkipSpaces(s, p);
  char quote = 0;
  if (p < s.size() && (s[p] == '\'' || s[p] == '"')) quote = s[p++];
  std::string out;
  while (p < s.size() && out.size() < max_chars) {
    const char c = s[p++];
    if (quote ? c == quote : (c == ' ' || c == ',' || c == ')' || c == '"' || c == '\'')) break;
    if (static_cast<unsigned char>(c) < 0x20) break;
    out += c;
  }
  return out;
}

}  // namespace llmmem::core::run
