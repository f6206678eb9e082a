// The OOM readers' text as UTF-8 (oom_evidence.h: OomTextAsUtf8). Windows consoles write
// UTF-16: PowerShell 5's redirection (2> and >) and Out-File default to "Unicode", which is
// UTF-16LE with the BOM FF FE (Microsoft, about_Redirection and about_Character_Encoding).
// Sources: RFC 2781 (UTF-16, its BOMs and surrogate pairs); RFC 3629 (UTF-8).
#include <algorithm>
#include <cstdint>

#include "core/base/safe_text.h"
#include "core/oom/oom_evidence.h"

namespace llmmem::core {
namespace {

// UTF-16 code units from `begin` into UTF-8; an unpaired surrogate becomes U+FFFD.
std::string FromUtf16(const std::string& raw, size_t begin, bool little_endian) {
  auto unit = [&](size_t i) -> uint32_t {
    const auto a = static_cast<unsigned char>(raw[i]), b = static_cast<unsigned char>(raw[i + 1]);
    return little_endian ? (b << 8 | a) : (a << 8 | b);
  };
  std::string out;
  out.reserve((raw.size() - begin) / 2);
  for (size_t i = begin; i + 1 < raw.size(); i += 2) {
    uint32_t cp = unit(i);
    if (cp >= 0xD800 && cp <= 0xDBFF && i + 3 < raw.size() && unit(i + 2) >= 0xDC00 && unit(i + 2) <= 0xDFFF) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (unit(i + 2) - 0xDC00);
      i += 2;
    } else if (cp >= 0xD800 && cp <= 0xDFFF) {
      cp = 0xFFFD;
    }
    AppendUtf8(cp, out);
  }
  return out;
}

// Without a BOM: UTF-16 when, in the first 256 bytes, the bytes at one parity are all NUL
// and those at the other are not (ASCII text in UTF-16; UTF-8 text holds no NUL).
int Utf16WithoutBom(const std::string& raw) {
  const size_t n = std::min<size_t>(raw.size(), 256) & ~size_t{1};
  if (n < 8) return 0;
  size_t zero_even = 0, zero_odd = 0;
  for (size_t i = 0; i < n; ++i) (i % 2 ? zero_odd : zero_even) += raw[i] == '\0';
  if (zero_odd == n / 2 && zero_even == 0) return 1;  // little-endian
  if (zero_even == n / 2 && zero_odd == 0) return 2;  // big-endian
  return 0;
}

}  // namespace

std::string OomTextAsUtf8(const std::string& raw, std::string* note) {
  note->clear();
  if (raw.compare(0, 3, "\xEF\xBB\xBF") == 0) return raw.substr(3);
  const bool le_bom = raw.compare(0, 2, "\xFF\xFE") == 0, be_bom = raw.compare(0, 2, "\xFE\xFF") == 0;
  const int guessed = le_bom || be_bom ? 0 : Utf16WithoutBom(raw);
  if (!le_bom && !be_bom && guessed == 0) return raw;
  const bool little = le_bom || guessed == 1;
  *note = std::string("the text is UTF-16 (") + (little ? "little" : "big") + "-endian" +
          (le_bom || be_bom ? ", with a byte-order mark" : ", without a byte-order mark") +
          "), as Windows PowerShell's 2> and Out-File write it: it was converted to UTF-8 to be read" +
          (raw.size() % 2 ? "; its last, odd byte was dropped" : "");
  return FromUtf16(raw, le_bom || be_bom ? 2 : 0, little);
}

}  // namespace llmmem::core
