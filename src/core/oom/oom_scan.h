// Internal to the OOM readers (oom_parse_*.cpp): the pasted text in the two shapes they
// read it in, and the small bounded scanners for sizes, integers and literals. No regex:
// every scan is one forward pass with a fixed look-ahead, so hostile text costs linear time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/oom/oom_evidence.h"

namespace llmmem::core::oom {

// The text with each line's log decoration dropped (leading "#", ">", "[rank3]:") and every
// run of white space collapsed to one space: PyTorch's messages wrap anywhere in a paste.
struct FlatText {
  std::string text;
  std::vector<std::pair<size_t, size_t>> line_starts;  // (position in text, 1-based line)
  size_t LineAt(size_t pos) const;
};
FlatText Flatten(const std::string& raw);

// The raw lines, without their line ends.
std::vector<std::string> SplitLines(const std::string& raw);
std::string Trim(const std::string& s);

// How a size was printed, which decides its rounding.
enum class SizeStyle {
  kFormatSize,  // PyTorch's format_size: "86.00 MiB", "0 bytes" (two decimals: +- half a hundredth)
  kFloored,     // memory_summary: "14324 MiB" floored to whole units (+- one unit)
  kWholeMiB,    // nvidia-smi: "22136MiB" (+- half a MiB)
};

// Reads "<number> <unit>" (or "<number><unit>") at pos, skipping one leading space. Units:
// bytes/B, KiB/KB, MiB/MB, GiB/GB, TiB/TB, all powers of 2 as PyTorch and nvidia-smi mean them.
// On success advances pos past the unit; otherwise leaves pos and returns false.
bool ReadSize(const std::string& s, size_t& pos, Figure& out, SizeStyle style);
// A non-negative integer of at most max_digits digits.
bool ReadInt(const std::string& s, size_t& pos, int64_t& out, int max_digits = 18);
// Exactly `lit` at pos (after skipping spaces when skip_space); advances past it.
bool ReadLiteral(const std::string& s, size_t& pos, const char* lit, bool skip_space = true);
void SkipSpaces(const std::string& s, size_t& pos);

// Text around [begin, end) for an excerpt, at most max_chars.
std::string Excerpt(const std::string& s, size_t begin, size_t end, size_t max_chars = 600);

// What the readers found, at most kMaxObservationsRead at once (all forms together) so the
// memory they hold stays in proportion whatever a log repeats; the rest are only counted.
constexpr size_t kMaxObservationsRead = 16384;
class ObservationList {
 public:
  // False (and counted) when the list is full.
  bool push_back(Observation&& o) {
    if (items_.size() >= kMaxObservationsRead) {
      ++dropped_;
      return false;
    }
    items_.push_back(std::move(o));
    return true;
  }
  size_t size() const { return items_.size(); }
  Observation& operator[](size_t i) { return items_[i]; }
  Observation& back() { return items_.back(); }
  std::vector<Observation>& items() { return items_; }
  size_t dropped() const { return dropped_; }

 private:
  std::vector<Observation> items_;
  size_t dropped_ = 0;
};

// The readers, each appending what it found.
void ReadTorchOom(const FlatText& flat, ObservationList& out);
void ReadNvidiaSmi(const std::vector<std::string>& lines, ObservationList& out);
void ReadNvidiaSmiCsv(const std::vector<std::string>& lines, ObservationList& out);
void ReadTorchSummaries(const std::string& raw, const std::vector<std::string>& lines, ObservationList& out);

}  // namespace llmmem::core::oom
