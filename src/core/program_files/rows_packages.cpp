// A Python environment's packages (pip freeze, pip list, requirements, conda list: the
// parser is core/parse/package_list.h) as the training program and version they imply
// (issue 30: "a user names a program and a version"). The stack is the most specific program
// installed (verl over TRL over transformers: a program on top of the HF Trainer is run by its
// own entry point) at its version, which picks that program's row (stacks.h); hf-trainer's
// version is transformers'. Every other package is listed with what it means here.
#include <string>

#include "core/config/stacks.h"
#include "core/parse/package_list.h"
#include "core/program_files/key_rows.h"

namespace llmmem::core::program_files {
namespace {

struct ProgramPackage {
  const char* package;  // PEP 503 name
  const char* stack;    // stacks.h row name
};

// Most specific first: the first installed one is the program.
constexpr ProgramPackage kPrograms[] = {
    {"verl", "verl"},         {"openrlhf", "openrlhf"},         {"axolotl", "axolotl"},
    {"llamafactory", "llama-factory"}, {"llmtuner", "llama-factory"}, {"ms-swift", "ms-swift"},
    {"unsloth", "unsloth"},   {"torchtune", "torchtune"},       {"torchtitan", "torchtitan"},
    {"litgpt", "litgpt"},     {"megatron-core", "megatron"},    {"nemo-toolkit", "megatron"},
    {"megatron-bridge", "megatron"}, {"trl", "trl"},            {"transformers", "hf-trainer"},
};

// Packages that matter to memory without being the program, and what they mean here.
struct Noted {
  const char* package;
  const char* note;
};
constexpr Noted kNoted[] = {
    {"torch", "PyTorch: the allocator and kernels the estimate models"},
    {"peft", "LoRA and QLoRA adapters: as the program's row runs them"},
    {"accelerate", "FSDP and mixed precision under the HF Trainer: as the program's row runs them"},
    {"deepspeed", "installed: a DeepSpeed config (--from ds_config.json) says when it runs and how"},
    {"bitsandbytes", "8-bit optimizers and 4-bit (NF4) bases: when the settings choose them"},
    {"flash-attn", "FlashAttention: the attention kernel, when the settings choose it"},
    {"liger-kernel", "Liger's fused kernels: the loss path when the program turns them on"},
    {"vllm", "vLLM: a serving runtime, or an RL program's rollout engine"},
    {"sglang", "SGLang: a serving runtime, or an RL program's rollout engine"},
    {"xformers", "xFormers' attention: when the settings choose it"},
};

void PackageKey(const SettingsEntry& e, ImportState& s) {
  for (const ProgramPackage& p : kPrograms)
    if (e.path == p.package) return;  // decided once every package is read (FinishPackages)
  for (const Noted& n : kNoted)
    if (e.path == n.package) return s.Ignore(e, n.note);
  s.Ignore(e, "installed; no memory setting of its own");
}

}  // namespace

const std::vector<KeyRow>& PackageRows() {
  static const std::vector<KeyRow> rows = {Handled("*", PackageKey, "an installed package")};
  return rows;
}

void FinishPackages(ImportState& s) {
  const SettingsEntry* chosen = nullptr;
  const char* stack = nullptr;
  for (const ProgramPackage& p : kPrograms) {
    const SettingsEntry* e = s.Find(p.package);
    if (e == nullptr) continue;
    if (chosen != nullptr) {
      s.Ignore(*e, std::string("installed too; ") + chosen->path + " is taken as the program (the more specific)");
      continue;
    }
    chosen = e;
    stack = p.stack;
  }
  if (chosen == nullptr) {
    s.out().diagnostics.push_back({DiagId::kUnsupported, Severity::kWarning, "stack",
                                   "none of the packages is a training program llmmem has rows for (transformers, trl, "
                                   "axolotl, llamafactory, ms-swift, unsloth, torchtune, torchtitan, litgpt, "
                                   "megatron-core, verl, openrlhf): the default " +
                                       std::string(kDefaultStack) + " is assumed"});
    return;
  }
  const std::string version = PackageVersion(chosen->value);
  std::string value = stack;
  std::string why = std::string(stack) + (std::string(stack) == "hf-trainer" ? " (its version is transformers')" : "");
  if (!version.empty()) {
    if (FindStack(value + "@" + version) != nullptr) {
      value += "@" + version;
      why += chosen->value.compare(0, 2, "==") == 0 ? " at the version installed"
                                                    : " at " + version + ", the least the file allows";
    } else {
      // Older than every row: the earliest row is the closest known behaviour.
      for (const StackRow& r : StackRows())
        if (r.name == std::string(stack)) {
          value += std::string("@") + r.version;
          why += " " + version + ", older than any row: its earliest row, " + r.version + ", the closest known";
          break;
        }
    }
  } else {
    why += ": no version given, its latest row";
  }
  s.Set(*chosen, "stack", value, why);  // over the format's assumption
  s.out().stack = stack;
}

}  // namespace llmmem::core::program_files
