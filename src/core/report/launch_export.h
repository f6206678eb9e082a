// The launch command for the current configuration (issue 16 part 5): what to pass to the
// runtime so that it allocates what the estimate describes. One row per target (the table in
// launch_export.cpp); the CLI (--export), the UI's copy buttons and the JS API share it.
//  - vllm:       vllm serve ...                       (vllm/engine/arg_utils.py flag names)
//  - sglang:     python -m sglang.launch_server ...   (sglang/srt/server_args.py)
//  - llama.cpp:  llama-server ...                     (common/arg.cpp)
//  - ollama:     a Modelfile with its PARAMETERs and the server's environment
//  - deepspeed:  a DeepSpeed config JSON (ZeRO stage, offload, buckets, precision)
//  - fsdp:       an Accelerate config YAML for FSDP
//  - hf-trainer: transformers TrainingArguments (and the PEFT LoraConfig) in Python
// ParseLaunchFlags reads a command line back (the tests check every export round-trips).
#pragma once

#include <map>
#include <string>

#include "core/config/config.h"
#include "core/base/enum_table.h"

namespace llmmem::core {

enum class LaunchTarget : uint8_t {
  kVllm,
  kSglang,
  kLlamaCpp,
  kOllama,
  kDeepSpeed,
  kFsdp,
  kHfTrainer,
  kLast = kHfTrainer
};

struct LaunchTargetInfo {
  LaunchTarget value;
  const char* id;       // --export ID
  const char* aliases;  // other spellings accepted, space-separated
  const char* label;    // UI button
  const char* format;   // "shell", "modelfile", "json", "yaml", "python"
};

EnumTable<LaunchTargetInfo> TableOf(LaunchTarget);  // Info, Id, ParseId, IdList: enum_table.h

// The text for one target. Serving targets describe inference, training targets training;
// the other kind is exported anyway with a first comment line saying it does not apply.
std::string ExportLaunch(const Config& c, LaunchTarget target);

// The GGUF file name the llama.cpp and Ollama exports suggest for the weights format
// ("Llama-3.1-8B-Q4_K_M.gguf"): file-name characters only, never starting with '-' or '.'.
std::string GgufFileName(const Config& c);

// The launch target a serving runtime is started with (vLLM, SGLang, llama.cpp, Ollama);
// false under HF generate, which has no command of its own.
bool ServingLaunchTarget(Runtime runtime, LaunchTarget& target);

// "--flag value" / "-f value" / "--flag" pairs of a shell command line (quotes and line
// continuations handled); a bare flag maps to "". Positional words go under "" in order,
// space-separated.
std::map<std::string, std::string> ParseLaunchFlags(const std::string& command);

}  // namespace llmmem::core
