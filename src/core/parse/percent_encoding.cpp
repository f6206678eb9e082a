#include "core/parse/percent_encoding.h"

#include <cctype>

#include "core/parse/json.h"

namespace llmmem::core {

std::string PercentEncode(std::string_view s, std::string_view keep) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || keep.find(ch) != std::string_view::npos) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string PercentDecode(std::string_view s, bool plus_is_space) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const int hi = s[i] == '%' && i + 2 < s.size() ? HexDigitValue(static_cast<unsigned char>(s[i + 1])) : -1;
    const int lo = hi >= 0 ? HexDigitValue(static_cast<unsigned char>(s[i + 2])) : -1;
    if (lo >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += plus_is_space && s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

}  // namespace llmmem::core
