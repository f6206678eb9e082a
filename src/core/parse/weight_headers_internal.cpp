// The shared weight-header helpers declared in core/weight_headers_internal.h that are not
// inline: message text (quoted names, shapes), the error value, and the need-more-bytes
// answer with its doubling-slice growth. Standard library only.
#include "core/parse/weight_headers_internal.h"

#include <cstdio>

#include "core/base/safe_text.h"

namespace llmmem::core::detail {

std::string Quoted(const std::string& s) {
  // Names in messages: shown whole up to a point (cut on a character boundary), control
  // characters escaped (core/safe_text.h).
  return "'" + EchoValue(s, 200) + "'";
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
WeightHeaderResult AskFor(WeightFormat f, uint64_t want, uint64_t size, uint64_t file_size, uint64_t cap, bool exact,
                          const std::string& context) {
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

}  // namespace llmmem::core::detail
