// `llmmem --model resnet50 --image-size 224`, `--network FILE`, `--torch-repr FILE`: any
// network, layer by layer (issue 17). The flags are the keys of core/network_request.h in
// kebab case; files are read through the callback (the core does no I/O).
#pragma once

#include <string>
#include <vector>

#include "cli/cli_args.h"

namespace llmmem::cli {

// True when the arguments ask about a layer stack: --network, --torch-repr,
// --list-networks, --image-size, or --model naming a network preset.
bool IsNetworkCommand(const std::vector<std::string>& args);

// Runs it: prints the seed's view (or --json, --layers for every layer). Exit status as the
// main command: 0 fits, 1 does not fit, 2 bad input.
// --network files are read with read_network, --torch-repr files with read_repr (each names
// its kind and cap in its messages).
int RunNetworkCommand(const std::vector<std::string>& args, const ReadFileFn& read_network,
                      const ReadFileFn& read_repr);

}  // namespace llmmem::cli
