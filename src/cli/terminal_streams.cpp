// The terminal-safe std::cout / std::cerr filter; see terminal_streams.h.
#include "cli/terminal_streams.h"

#include <iostream>
#include <string_view>

#include "core/base/safe_text.h"

namespace llmmem::cli {
namespace {
constexpr size_t kChunkBytes = 1 << 16;  // written on once this much is held
}

TerminalSafeBuf::~TerminalSafeBuf() { Finish(); }

void TerminalSafeBuf::Finish() {
  Drain(true);
  sink_->pubsync();
}

void TerminalSafeBuf::Drain(bool all) {
  const size_t n = all ? pending_.size() : core::Utf8CompleteLength(pending_);
  if (n == 0) return;
  const std::string safe = core::TerminalSafe(std::string_view(pending_).substr(0, n), true);
  sink_->sputn(safe.data(), static_cast<std::streamsize>(safe.size()));
  pending_.erase(0, n);
}

TerminalSafeBuf::int_type TerminalSafeBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return sync() == 0 ? traits_type::not_eof(c) : c;
  pending_ += traits_type::to_char_type(c);
  if (pending_.size() >= kChunkBytes) Drain(false);
  return c;
}

std::streamsize TerminalSafeBuf::xsputn(const char* s, std::streamsize n) {
  pending_.append(s, static_cast<size_t>(n));
  if (pending_.size() >= kChunkBytes) Drain(false);
  return n;
}

int TerminalSafeBuf::sync() {
  Drain(false);
  return sink_->pubsync();
}

TerminalSafeStdStreams::TerminalSafeStdStreams()
    : out_(std::cout.rdbuf()), err_(std::cerr.rdbuf()), saved_out_(std::cout.rdbuf()), saved_err_(std::cerr.rdbuf()) {
  std::cout.rdbuf(&out_);
  std::cerr.rdbuf(&err_);
}

TerminalSafeStdStreams::~TerminalSafeStdStreams() {
  std::cout.flush();
  std::cerr.flush();
  out_.Finish();
  err_.Finish();
  std::cout.rdbuf(saved_out_);
  std::cerr.rdbuf(saved_err_);
}

}  // namespace llmmem::cli
