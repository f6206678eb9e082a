// The files the CLI reads, each named by what it is and capped at what that kind needs, so a
// limit's message says what was being read ("a network description is at most 8 MiB"), and a
// log is read from its end (where a run's failure is) in bounded memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cli/cli_args.h"

namespace llmmem::cli {

// A whole file (or "-" for standard input) of at most max_bytes; `what` names it ("a
// config.json", "a network description", "a print(model) text").
ReadFileFn ReaderFor(const char* what, uint64_t max_bytes);

// A log's last kOomMaxTextBytes, from its first whole line, in the encoding the log has (a
// UTF-16 log keeps its byte-order mark and an even start). *note says when it was cut.
std::optional<std::string> ReadLogTail(const std::string& path, std::string& error, std::string* note);

}  // namespace llmmem::cli
