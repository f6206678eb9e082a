// Internal to the run readers (read_*.cpp): one line at a time, found by a literal and read
// forward from it with the OOM reader's bounded scanners (oom/oom_scan.h: sizes in powers of
// 2 with the printed digits' rounding). No regex: every scan is one forward pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/run/run_log.h"

namespace llmmem::core::run {

// One line form a reader knows: its id (in MeasuredFigure::form), the runtime, the shape
// of the line and where the format string is (file at a tag or commit).
struct LineForm {
  const char* id;
  RunSource source;
  const char* example;
  const char* cite;
};
const std::vector<LineForm>& LineForms();
// The forms of every source, one per line ("- vLLM: Model loading took X GiB ..."), for the
// error that says what was expected.
std::string ExpectedFormsText();

// What the readers found, bounded at kRunMaxFigures.
class FigureSink {
 public:
  explicit FigureSink(RunLog& log) : log_(log) {}
  // The line being read: its number, its text and the device its prefix names.
  void SetLine(size_t number, const std::string& text, const std::string& device);
  // A byte figure `size` found in the current line (tolerance from its printed digits).
  void Bytes(MeasuredKind k, RunSource s, const char* form, double bytes, double tolerance);
  void Count(MeasuredKind k, RunSource s, const char* form, double value, double tolerance = 0, double of = -1);
  // A figure for another device than the line's prefix names ("CUDA0" in llama.cpp's rows).
  void SetDevice(const std::string& device) { device_ = device; }
  const std::string& Device() const { return device_; }

 private:
  RunLog& log_;
  size_t line_ = 0;
  std::string text_;
  std::string device_;
};

// Finds `lit` in s at or after pos; npos when absent.
size_t Find(const std::string& s, const char* lit, size_t pos = 0);
// The size printed after `lit` (spaces allowed between): "Model loading took 14.9889 GiB".
// Returns false when lit is absent or no size follows; `after` (optional) is set past it.
bool SizeAfter(const std::string& s, const char* lit, double& bytes, double& tolerance, size_t* after = nullptr,
               size_t from = 0);
// A size at pos (after spaces).
bool SizeAt(const std::string& s, size_t& pos, double& bytes, double& tolerance);
// A count after `lit`: digits with optional thousands commas ("158,656").
bool CountAfter(const std::string& s, const char* lit, int64_t& value, size_t* after = nullptr, size_t from = 0);
bool CountAt(const std::string& s, size_t& pos, int64_t& value);
// A decimal number after `lit` ("4.84" in "...: 4.84x"); decimals gives its rounding.
bool DecimalAfter(const std::string& s, const char* lit, double& value, int& decimals, size_t* after = nullptr,
                  size_t from = 0);
bool DecimalAt(const std::string& s, size_t& pos, double& value, int& decimals);
// The quoted or bare value after `key` up to a delimiter (' ', ',', ')', '"', '\''): model names.
std::string WordAfter(const std::string& s, const char* key, size_t max_chars = 200);

// Sets a setting the log printed, the first time only.
template <typename T>
void SetOnce(T& field, size_t& field_line, T value, size_t line) {
  if (field_line != 0) return;
  field = value;
  field_line = line;
}

// The readers, each adding what it recognises in one line.
void ReadVllmLine(const std::string& line, FigureSink& sink, RunSettingsSeen& seen, size_t number);
void ReadSglangLine(const std::string& line, FigureSink& sink, RunSettingsSeen& seen, size_t number);
void ReadLlamaCppLine(const std::string& line, FigureSink& sink, RunSettingsSeen& seen, size_t number);
void ReadOllamaLine(const std::string& line, FigureSink& sink, RunSettingsSeen& seen, size_t number);
// "offloaded N/M layers to GPU" (llama.cpp's load_tensors; Ollama's engine since v0.12).
bool ReadOffloaded(const std::string& line, FigureSink& sink, RunSource source);
// A memory_stats() JSON dump; false when the text is not one (nothing added).
bool ReadMemoryStatsJson(const std::string& text, RunLog& log);

}  // namespace llmmem::core::run
