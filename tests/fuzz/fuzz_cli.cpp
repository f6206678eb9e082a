// libFuzzer: command-line arguments (NUL-separated). Parsing never crashes; files are
// never read (the reader refuses), and every error names a flag or argument.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/cli_args.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace llmmem;
  std::vector<std::string> args(1);
  for (size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0)
      args.emplace_back();
    else
      args.back() += static_cast<char>(data[i]);
  }
  const cli::CliParse r = cli::ParseCli(args, [](const std::string&, std::string& error) -> std::optional<std::string> {
    error = "not read while fuzzing";
    return std::nullopt;
  });
  for (const core::Diagnostic& d : r.diagnostics) {
    if (d.message.empty()) std::abort();
  }
  return 0;
}
