// Command-line parsing for `llmmem`. Every Config field is a flag (--batch, --grad-dtype,
// --lora-targets, --hidden, ...; kebab or snake case), plus --model, --hf-config,
// --config, --json, --list-models and --help. Files are read through a callback so
// the parser stays testable; errors name the flag and what is allowed.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/diagnostics.h"

namespace llmmem::cli {

struct CliOptions {
  core::Config config;
  bool json = false;
  std::string format;           // "markdown" or "csv" (--format); --json sets "json"
  bool help = false;
  bool list_models = false;
  bool list_gpus = false;
  bool fit = false;             // `llmmem fit ...`: the inverse questions
  std::string compat;           // "deepspeed" or "megatron": also print that tool's figure
  int gpus_per_node = 8;
  std::vector<std::string> weights_files;  // --weights-file: inspect headers instead of estimating
  bool show_formulas = false;
  bool doctor = false;
  std::string export_target;    // --export vllm|sglang|llama.cpp|ollama|deepspeed|fsdp|hf-trainer (core/launch_export.h)
};

struct CliParse {
  CliOptions options;
  core::Diagnostics diagnostics;  // any error: exit code 2
};

// Returns the file's text, or nullopt with `error` set.
using ReadFileFn = std::function<std::optional<std::string>(const std::string& path, std::string& error)>;

CliParse ParseCli(const std::vector<std::string>& args, const ReadFileFn& read_file);
std::string HelpText();

}  // namespace llmmem::cli
