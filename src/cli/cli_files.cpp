// The CLI's file kinds and the log's tail; see cli_files.h.
#include "cli/cli_files.h"

#include <algorithm>

#include "core/oom/oom_evidence.h"
#include "io/bounded_file.h"

namespace llmmem::cli {

ReadFileFn ReaderFor(const char* what, uint64_t max_bytes) {
  return [what, max_bytes](const std::string& path, std::string& error) -> std::optional<std::string> {
    io::ReadResult r = io::ReadWholeFile(path, max_bytes, what);
    if (!r.ok) {
      error = r.error;
      return std::nullopt;
    }
    return std::move(r.bytes);
  };
}

std::optional<std::string> ReadLogTail(const std::string& path, std::string& error, std::string* note) {
  note->clear();
  std::string head;
  io::ReadResult r = io::ReadFileTail(path, core::kOomMaxTextBytes, 3, &head);
  if (!r.ok) {
    error = r.error;
    return std::nullopt;
  }
  if (r.bytes.size() >= r.file_size) return std::move(r.bytes);
  // Cut: start at a whole line, in the log's own code units (UTF-16: PowerShell's 2>).
  const bool le = head.compare(0, 2, "\xFF\xFE") == 0, be = head.compare(0, 2, "\xFE\xFF") == 0;
  std::string& t = r.bytes;
  size_t start = 0;
  if (le || be) {
    start = (r.file_size - t.size()) % 2;  // the tail's first byte at an even offset of the file
    const char* nl = le ? "\n\0" : "\0\n";
    while (start + 1 < t.size() && t.compare(start, 2, nl, 2) != 0) start += 2;
    start = std::min(start + 2, t.size());
  } else {
    const size_t nl = t.find('\n');
    start = nl == std::string::npos ? 0 : nl + 1;
  }
  *note = "is " + std::to_string(r.file_size) + " bytes; its last 8 MiB were read (a log is read from its end, " +
          "where a run's failure is)";
  return (le || be ? head.substr(0, 2) : std::string()) + t.substr(start);
}

LogCommand ReadLogCommand(const std::vector<std::string>& args, const ReadFileFn& read_file, const char* command,
                          const char* usage, const std::vector<std::string>& extra, std::ostream& err) {
  LogCommand c;
  std::vector<std::string> rest;
  for (size_t i = 1; i < args.size(); ++i) {
    if (c.path.empty() && (args[i] == "-" || args[i].compare(0, 1, "-") != 0)) {
      c.path = args[i];
      continue;
    }
    if (std::find(extra.begin(), extra.end(), args[i]) != extra.end()) {
      c.seen.push_back(args[i]);
      continue;
    }
    rest.push_back(args[i]);
    c.settings |= args[i] != "--json";
  }
  const std::string name = std::string("llmmem ") + command;
  if (c.path.empty()) {
    err << name << ": give a file with the log (or - to read it from standard input)\n" << "usage: " << usage << "\n";
    c.exit_code = 2;
    return c;
  }
  c.parsed = ParseCli(rest, read_file);
  bool errors = false;
  for (const core::Diagnostic& d : c.parsed.diagnostics) {
    errors |= d.severity == core::Severity::kError;
    err << "llmmem: " << core::SeverityName(d.severity) << ": " << d.message << "\n";
  }
  if (errors) {
    c.exit_code = 2;
    return c;
  }
  // Files and standard input ("-") alike through the bounded reader: a log's last 8 MiB
  // and, for a pipe, within a time limit (io/bounded_file.h).
  std::string error, note;
  const std::optional<std::string> file = ReadLogTail(c.path, error, &note);
  if (!file) {
    err << name << ": cannot read the log \"" << c.path << "\": " << error << "\n";
    c.exit_code = 2;
    return c;
  }
  if (!note.empty()) err << name << ": note: \"" << c.path << "\" " << note << "\n";
  c.text = *file;
  return c;
}

}  // namespace llmmem::cli
