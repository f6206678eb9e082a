// `llmmem --hf MODEL` and `llmmem --hf-search TEXT`: the CLI's side of the Hub loader
// (src/net/hub_loader.h). Built only when CMake found libcurl (LLMMEM_HAVE_HUB).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/cli_args.h"

namespace llmmem::cli {

// For ParseCli: the model named by `ref` (cache first, then the Hub), as --hf applies it.
HubModelLoad LoadHubForCli(const std::string& ref, const std::string& gguf_file);

// True when args ask for a search; then it prints the hits (or the error) and sets *exit_code.
bool RunHubSearch(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, int* exit_code);

}  // namespace llmmem::cli
