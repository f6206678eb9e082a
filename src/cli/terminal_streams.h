// The CLI's one output path to a terminal: main() routes std::cout and std::cerr through a
// filter that writes every byte via core::TerminalSafe (core/base/safe_text.h), so no text a
// reader brings in (model, layer, GPU or process names; echoed values) can move the cursor,
// set the title (OSC), hide text (NUL) or reorder a line (bidi overrides), whichever command
// prints it and however it was formatted. JSON output is unchanged by it: Json::Dump writes
// those characters as \u escapes already. Standard library and core only.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>

namespace llmmem::cli {

// A streambuf that passes text on to `sink` terminal-safe, keeping newlines and tabs. A UTF-8
// sequence split across two writes is held until it is whole (or the stream ends).
class TerminalSafeBuf : public std::streambuf {
 public:
  explicit TerminalSafeBuf(std::streambuf* sink) : sink_(sink) {}
  TerminalSafeBuf(const TerminalSafeBuf&) = delete;
  TerminalSafeBuf& operator=(const TerminalSafeBuf&) = delete;
  ~TerminalSafeBuf() override;
  // Writes what is held, a cut-short sequence at the end as \xNN.
  void Finish();

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void Drain(bool all);
  std::streambuf* sink_;
  std::string pending_;
};

// While alive, std::cout and std::cerr write through a TerminalSafeBuf each; restores them
// (after writing everything held) when it ends.
class TerminalSafeStdStreams {
 public:
  TerminalSafeStdStreams();
  TerminalSafeStdStreams(const TerminalSafeStdStreams&) = delete;
  TerminalSafeStdStreams& operator=(const TerminalSafeStdStreams&) = delete;
  ~TerminalSafeStdStreams();

 private:
  TerminalSafeBuf out_, err_;
  std::streambuf* saved_out_;
  std::streambuf* saved_err_;
};

}  // namespace llmmem::cli
