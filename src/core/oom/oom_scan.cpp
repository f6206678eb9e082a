// The OOM readers' shared scanners (oom_scan.h). Sizes are powers of 2 as PyTorch's
// format_size and nvidia-smi print them; the rounding of the printed digits is kept.
#include "core/oom/oom_scan.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace llmmem::core::oom {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Drops a line's log decoration: "# ", "> ", "//", "[rank3]: ", "[rank3]:[W ...]" stays.
size_t DecorationEnd(const std::string& raw, size_t begin, size_t end) {
  size_t p = begin;
  while (p < end && (raw[p] == ' ' || raw[p] == '\t')) ++p;
  for (int round = 0; round < 4 && p < end; ++round) {
    if (raw[p] == '#' || raw[p] == '>') {
      ++p;
    } else if (raw[p] == '/' && p + 1 < end && raw[p + 1] == '/') {
      p += 2;
    } else if (raw.compare(p, 5, "[rank") == 0) {
      size_t q = p + 5;
      while (q < end && q < p + 12 && IsDigit(raw[q])) ++q;
      if (q + 1 < end && raw[q] == ']' && raw[q + 1] == ':')
        p = q + 2;
      else
        break;
    } else {
      break;
    }
    while (p < end && (raw[p] == ' ' || raw[p] == '\t')) ++p;
  }
  return p;
}

}  // namespace

size_t FlatText::LineAt(size_t pos) const {
  if (line_starts.empty()) return 1;
  auto it = std::upper_bound(line_starts.begin(), line_starts.end(), std::make_pair(pos, static_cast<size_t>(-1)));
  if (it == line_starts.begin()) return line_starts.front().second;
  return std::prev(it)->second;
}

FlatText Flatten(const std::string& raw) {
  FlatText f;
  f.text.reserve(raw.size());
  size_t line = 1;
  size_t begin = 0;
  while (begin <= raw.size()) {
    size_t end = raw.find('\n', begin);
    if (end == std::string::npos) end = raw.size();
    f.line_starts.emplace_back(f.text.size(), line);
    for (size_t p = DecorationEnd(raw, begin, end); p < end; ++p) {
      const char c = raw[p];
      if (IsSpace(c)) {
        if (!f.text.empty() && f.text.back() != ' ') f.text.push_back(' ');
      } else {
        f.text.push_back(c);
      }
    }
    if (!f.text.empty() && f.text.back() != ' ') f.text.push_back(' ');
    if (end == raw.size()) break;
    begin = end + 1;
    ++line;
  }
  return f;
}

std::vector<std::string> SplitLines(const std::string& raw) {
  std::vector<std::string> lines;
  size_t begin = 0;
  while (begin <= raw.size()) {
    size_t end = raw.find('\n', begin);
    if (end == std::string::npos) end = raw.size();
    size_t stop = end;
    if (stop > begin && raw[stop - 1] == '\r') --stop;
    lines.push_back(raw.substr(begin, stop - begin));
    if (end == raw.size()) break;
    begin = end + 1;
  }
  return lines;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

void SkipSpaces(const std::string& s, size_t& pos) {
  while (pos < s.size() && IsSpace(s[pos])) ++pos;
}

bool ReadLiteral(const std::string& s, size_t& pos, const char* lit, bool skip_space) {
  size_t p = pos;
  if (skip_space) SkipSpaces(s, p);
  const size_t n = std::strlen(lit);
  if (s.compare(p, n, lit) != 0) return false;
  pos = p + n;
  return true;
}

bool ReadInt(const std::string& s, size_t& pos, int64_t& out, int max_digits) {
  size_t p = pos;
  int64_t v = 0;
  int digits = 0;
  while (p < s.size() && IsDigit(s[p])) {
    if (++digits > max_digits) return false;
    v = v * 10 + (s[p] - '0');
    ++p;
  }
  if (digits == 0) return false;
  out = v;
  pos = p;
  return true;
}

// The number at p as consoles print it: "23.65", PyTorch's two decimals; "23,65" under a
// locale with a decimal comma; thousands grouped by the other mark ("1,024.00", "1.024,00",
// "14,324"). A lone mark followed by 1 or 2 digits is the decimal mark; a lone comma followed
// by 3 digits groups thousands, a lone point followed by 3 a decimal point (as before).
// Groups after the first are 3 digits. False for anything else ("1,0245", "1.2.3,4,5").
bool ReadNumber(const std::string& s, size_t& p, double& value, int& decimals) {
  const size_t start = p;
  std::string digits;  // without marks; '.' where the decimal mark was
  std::vector<std::pair<char, size_t>> marks;  // (mark, digits after it up to the next)
  size_t run = 0;
  while (p < s.size() && p - start < 40) {
    const char c = s[p];
    if (IsDigit(c)) {
      digits += c;
      ++run;
      ++p;
    } else if ((c == ',' || c == '.') && run > 0 && p + 1 < s.size() && IsDigit(s[p + 1])) {
      if (!marks.empty()) marks.back().second = run;
      marks.emplace_back(c, 0);
      run = 0;
      ++p;
    } else {
      break;
    }
  }
  if (digits.empty() || (p < s.size() && IsDigit(s[p]))) return false;
  if (!marks.empty()) marks.back().second = run;
  const size_t first_run = digits.size() - [&] {
    size_t n = 0;
    for (const auto& m : marks) n += m.second;
    return n;
  }();
  // Which mark is decimal: the last one when both kinds appear; else by the rule above.
  char decimal = 0;
  if (!marks.empty()) {
    const char last = marks.back().first;
    bool both = false;
    for (const auto& m : marks) both |= m.first != last;
    const size_t after = marks.back().second;
    if (both || (marks.size() == 1 && (after <= 2 || last == '.'))) decimal = last;
  }
  // Every grouping mark: 1-3 digits before the first, exactly 3 between.
  const size_t groups = marks.size() - (decimal ? 1 : 0);
  if (groups > 0 && (first_run > 3 || first_run == 0)) return false;
  for (size_t i = 0; i < groups; ++i)
    if (marks[i].first == decimal || marks[i].second != 3) return false;
  decimals = decimal ? static_cast<int>(marks.back().second) : 0;
  if (decimals > 12 || digits.size() - decimals > 19) return false;
  std::string plain = digits;
  if (decimal) plain.insert(plain.size() - decimals, ".");
  value = std::strtod(plain.c_str(), nullptr);
  return true;
}

bool ReadSize(const std::string& s, size_t& pos, Figure& out, SizeStyle style) {
  size_t p = pos;
  if (p < s.size() && s[p] == ' ') ++p;
  double value = 0;
  int decimals = 0;
  if (!ReadNumber(s, p, value, decimals)) return false;
  size_t u = p;
  if (u < s.size() && s[u] == ' ') ++u;
  struct Unit {
    const char* name;
    double bytes;
  };
  static const Unit kUnits[] = {
      {"bytes", 1},
      {"KiB", 1024.0},
      {"MiB", 1048576.0},
      {"GiB", 1073741824.0},
      {"TiB", 1099511627776.0},
      {"KB", 1024.0},
      {"MB", 1048576.0},
      {"GB", 1073741824.0},
      {"TB", 1099511627776.0},
      {"PiB", 1125899906842624.0},
      {"PB", 1125899906842624.0},
      {"B", 1},
  };
  for (const Unit& unit : kUnits) {
    const size_t n = std::strlen(unit.name);
    if (s.compare(u, n, unit.name) != 0) continue;
    // A unit is a whole word: "MiB" not "MiBs", "B" not "Bus".
    if (u + n < s.size() && std::isalpha(static_cast<unsigned char>(s[u + n]))) continue;
    const double bytes = value * unit.bytes;
    if (!std::isfinite(bytes) || bytes > 1e18) return false;  // no GPU holds an exabyte
    out.bytes = bytes;
    switch (style) {
      case SizeStyle::kFormatSize:
        out.tolerance = unit.bytes == 1 && decimals == 0 ? 0 : 0.5 * std::pow(10.0, -decimals) * unit.bytes;
        break;
      case SizeStyle::kFloored:
        out.tolerance = unit.bytes == 1 ? 0 : unit.bytes;
        break;
      case SizeStyle::kWholeMiB:
        out.tolerance = unit.bytes == 1 ? 0 : 0.5 * unit.bytes;
        break;
    }
    pos = u + n;
    return true;
  }
  return false;
}

std::string Excerpt(const std::string& s, size_t begin, size_t end, size_t max_chars) {
  if (begin > s.size()) begin = s.size();
  if (end > s.size()) end = s.size();
  if (end < begin) end = begin;
  std::string out = Trim(s.substr(begin, std::min(end - begin, max_chars)));
  if (end - begin > max_chars) out += " ...";
  return out;
}

}  // namespace llmmem::core::oom
