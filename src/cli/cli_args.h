// Command-line parsing for `llmmem`. Every Config field is a flag (--batch, --grad-dtype,
// --lora-targets, --hidden, ...; kebab or snake case), plus --model, --hf-config,
// --config, --json, --list-models and --help. Files are read through a callback so
// the parser stays testable; errors name the flag and what is allowed.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/base/diagnostics.h"
#include "core/model/dtype.h"
#include "core/model/model.h"
#include "core/program_files/program_file.h"

namespace llmmem::cli {

struct CliOptions {
  core::Config config;
  bool json = false;
  std::string format;  // "markdown" or "csv" (--format); --json sets "json"
  bool help = false;
  bool list_models = false;
  bool list_gpus = false;
  bool schema = false;  // --schema: the configuration's JSON Schema
  bool fit = false;     // `llmmem fit ...`: the inverse questions
  std::string compat;   // "deepspeed" or "megatron": also print that tool's figure
  int gpus_per_node = 8;
  std::vector<std::string> weights_files;  // --weights-file: inspect headers instead of estimating
  bool show_formulas = false;
  bool doctor = false;
  std::string hf_ref;         // --hf: the model as given (id, URL or id@rev)
  // --from FILE (issue 30 part 2): each training-program file read, with its name; its
  // settings were applied as if typed first, so the flags override them.
  std::vector<std::pair<std::string, core::ProgramFileImport>> from_files;
  std::string export_target;  // --export vllm|sglang|llama.cpp|ollama|deepspeed|fsdp|hf-trainer (core/launch_export.h)
};

struct CliParse {
  CliOptions options;
  core::Diagnostics diagnostics;  // any error: exit code 2
};

// A Hugging Face model fetched for --hf (src/net/hub_loader.h natively; nothing in tests
// that do not ask). ok false: `error` says why, and the configuration keeps its model.
struct HubModelLoad {
  bool ok = false;
  std::string error;
  core::ModelSpec model;
  bool dtype_known = false;  // the weights' stored format (bf16, gptq, q4_k_m, ...)
  core::Dtype dtype = core::Dtype::kBf16;
  std::vector<std::string> provenance;  // what came from where, printed as notes
};
using HubLoadFn = std::function<HubModelLoad(const std::string& ref, const std::string& gguf_file)>;

// Returns the file's text, or nullopt with `error` set.
using ReadFileFn = std::function<std::optional<std::string>(const std::string& path, std::string& error)>;

// `hub` answers --hf (with --hf-file's GGUF choice); without one, --hf is refused.
CliParse ParseCli(const std::vector<std::string>& args, const ReadFileFn& read_file, const HubLoadFn& hub = nullptr);
std::string HelpText();

}  // namespace llmmem::cli
