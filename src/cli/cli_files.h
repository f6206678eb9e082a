// The files the CLI reads, each named by what it is and capped at what that kind needs, so a
// limit's message says what was being read ("a network description is at most 8 MiB"), and a
// log is read from its end (where a run's failure is) in bounded memory.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/cli_args.h"

namespace llmmem::cli {

// A whole file (or "-" for standard input) of at most max_bytes; `what` names it ("a
// config.json", "a network description", "a print(model) text").
ReadFileFn ReaderFor(const char* what, uint64_t max_bytes);

// A log's last kOomMaxTextBytes, from its first whole line, in the encoding the log has (a
// UTF-16 log keeps its byte-order mark and an even start). *note says when it was cut.
std::optional<std::string> ReadLogTail(const std::string& path, std::string& error, std::string* note);

// The common half of `llmmem oom FILE|-` and `llmmem run FILE|-`: the file (the first
// argument that is not a flag, or "-"), the other flags parsed as the estimate's (ParseCli),
// and the log's bounded tail (ReadLogTail). `extra` flags are the command's own (--from-log):
// set in `seen`, not passed on. Errors are printed with the command's name; exit_code is 2
// then, -1 when the command goes on.
struct LogCommand {
  std::string path;
  CliParse parsed;
  bool settings = false;  // a setting beyond --json was given: compare with the estimate
  std::string text;
  std::vector<std::string> seen;  // the extra flags given
  int exit_code = -1;
};
LogCommand ReadLogCommand(const std::vector<std::string>& args, const ReadFileFn& read_file, const char* command,
                          const char* usage, const std::vector<std::string>& extra, std::ostream& err);

}  // namespace llmmem::cli
