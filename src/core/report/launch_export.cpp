// Launch commands and configs (launch_export.h). Each target writes the flags of its own
// source under the names that source uses; values come from ResolveServing (serving.h) so
// the command runs with exactly the defaults the estimate assumed.
//
// Index
//  [SECTION] Table
//  [SECTION] Serving: vLLM, SGLang, llama.cpp, Ollama
//  [SECTION] Training: DeepSpeed, Accelerate FSDP, HF TrainingArguments
//  [SECTION] Reading a command back
#include "core/report/launch_export.h"

#include <cctype>

#include "core/config/gpu_count.h"
#include "core/parse/json.h"
#include "core/base/safe_text.h"
#include "core/config/model_changes.h"
#include "core/catalogue/presets.h"
#include "core/estimate/serving.h"
#include "core/report/quoting.h"
#include "core/base/units.h"

namespace llmmem::core {

// [SECTION] Table ------------------------------------------------------------------------------

namespace {

constexpr LaunchTargetInfo kTargets[] = {
    {LaunchTarget::kVllm, "vllm", "", "vllm serve", "shell"},
    {LaunchTarget::kSglang, "sglang", "", "SGLang launch_server", "shell"},
    {LaunchTarget::kLlamaCpp, "llama.cpp", "llamacpp llama-server", "llama-server", "shell"},
    {LaunchTarget::kOllama, "ollama", "", "Ollama Modelfile", "modelfile"},
    {LaunchTarget::kDeepSpeed, "deepspeed", "", "DeepSpeed config", "json"},
    {LaunchTarget::kFsdp, "fsdp", "accelerate", "Accelerate FSDP config", "yaml"},
    {LaunchTarget::kHfTrainer, "hf-trainer", "", "HF TrainingArguments", "python"},
};

static_assert(OneRowPerEnumerator(kTargets, EnumCount(LaunchTarget::kLast)), "one row per LaunchTarget, in order");

bool Training(LaunchTarget t) {
  return t == LaunchTarget::kDeepSpeed || t == LaunchTarget::kFsdp || t == LaunchTarget::kHfTrainer;
}

std::string Str(int64_t v) { return std::to_string(v); }
std::string Num(double v) { return FormatJsonNumber(v); }

std::string ModelId(const Config& c) {
  // A customised preset is not the preset's repo: it is named, not pointed at the Hub.
  const Preset* p = FindPreset(c.model.preset);
  if (p != nullptr && !p->hf_id.empty() && !IsCustomised(c.model)) return p->hf_id;
  return c.model.name;
}

// The model as a command's argument: its id (Shell quotes it), or MODEL with a comment
// line saying why when no argument can carry it. The comment never repeats the name.
struct ModelWord {
  std::string word;
  std::string note;  // "" or a "# ..." line
};

ModelWord ModelArgument(const Config& c) {
  const std::string id = ModelId(c);
  const std::optional<std::string> word = ShellWord(id);
  if (id.empty()) return {"MODEL", "# The model has no name: replace MODEL with its Hub id or path\n"};
  if (!word) return {"MODEL", "# The model's name holds a NUL, which no command argument can carry: replace MODEL\n"};
  // A control character (a line break, ESC, a bidirectional override) would be obeyed by the
  // terminal the command is shown in, or shown escaped and copied as other text.
  if (TerminalSafe(id) != id)
    return {"MODEL", "# The model's name holds control characters, which a terminal would not show as they are: replace MODEL\n"};
  // A leading '-' would be read as an option, whatever the quoting.
  if (id[0] == '-') return {"MODEL", "# The model's name starts with '-', which the server would read as an option: replace MODEL\n"};
  return {id, ""};
}

std::string Upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// A GGUF file name for the weights format: "Meta-Llama-3.1-8B-Q4_K_M.gguf". A name we suggest,
// so it is made of file-name characters only ([A-Za-z0-9._+-], others as '_') and never starts
// with '-' or '.': quoted or not, it cannot be read as an option, a path outside or a command.
std::string GgufName(const Config& c) {
  std::string id = ModelId(c);
  if (const size_t slash = id.rfind('/'); slash != std::string::npos) id = id.substr(slash + 1);
  for (char& ch : id) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (!std::isalnum(u) && ch != '.' && ch != '_' && ch != '+' && ch != '-') ch = '_';
  }
  if (id.empty() || id[0] == '-' || id[0] == '.') id = "model" + id;
  std::string type = Upper(Info(c.dtype).id);
  if (c.dtype == Dtype::kFp16) type = "F16";
  if (c.dtype == Dtype::kBf16) type = "BF16";
  if (c.dtype == Dtype::kFp32) type = "F32";
  if (const size_t file = type.find("_FILE"); file != std::string::npos) type = type.substr(0, file);
  return id + "-" + type + ".gguf";
}

// A line-continued shell command from its words, each quoted as one shell word (quoting.h):
// no value can end the command, start another or expand. Words without a quoting (a NUL) were
// replaced before; MODEL stands in should one arrive.
std::string Shell(const std::string& head, const std::vector<std::string>& args) {
  std::string out = head;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool flag = args[i].size() > 1 && args[i][0] == '-';
    const std::string word = ShellWord(args[i]).value_or("MODEL");
    out += flag ? " \\\n  " + word : " " + word;
  }
  return out + "\n";
}

std::string GgmlCacheType(Dtype d) {
  if (d == Dtype::kFp16) return "f16";
  if (d == Dtype::kFp32) return "f32";
  if (d == Dtype::kBf16) return "bf16";
  return Info(d).id;
}

std::string DtypeName(Dtype d) { return d == Dtype::kFp16 ? "float16" : d == Dtype::kFp32 ? "float32" : "bfloat16"; }

std::string NotApplicable(const Config& c, LaunchTarget t) {
  const bool training = c.mode != Mode::kInference;
  if (Training(t) == training || std::string(Info(t).format) == "json") return "";
  return std::string("# Note: the configuration is ") + (training ? "training" : "inference") +
         "; this export is for " + (Training(t) ? "training" : "serving") + " and uses its settings as they are.\n";
}

}  // namespace

EnumTable<LaunchTargetInfo> TableOf(LaunchTarget) { return TableFrom(kTargets); }

// [SECTION] Serving: vLLM, SGLang, llama.cpp, Ollama --------------------------------------------

namespace {

// The --quantization value vLLM and SGLang both take for a checkpoint's format; "" when none.
const char* ServerQuantization(Dtype d) {
  if (d == Dtype::kAwq) return "awq";
  if (d == Dtype::kGptq) return "gptq";
  if (d == Dtype::kFp8) return "fp8";
  if (d == Dtype::kMxfp4) return "mxfp4";
  if (d == Dtype::kNvfp4) return "modelopt_fp4";  // vLLM's ModelOpt NVFP4 method
  return "";
}

std::string Vllm(const Config& c) {
  Config x = c;
  x.mode = Mode::kInference;
  x.runtime = Runtime::kVllm;
  const ServingSettings s = ResolveServing(x);
  const ModelWord model = ModelArgument(c);
  std::vector<std::string> a = {model.word};
  if (c.tp > 1) a.insert(a.end(), {"--tensor-parallel-size", Str(c.tp)});
  if (c.pp > 1) a.insert(a.end(), {"--pipeline-parallel-size", Str(c.pp)});
  a.insert(a.end(), {"--max-model-len", Str(c.seq), "--gpu-memory-utilization", Num(s.mem_fraction), "--max-num-seqs",
                     Str(s.max_num_seqs), "--max-num-batched-tokens", Str(s.batched_tokens)});
  if (*ServerQuantization(c.dtype) != '\0')
    a.insert(a.end(), {"--quantization", ServerQuantization(c.dtype)});
  else if (c.dtype == Dtype::kNf4 || c.dtype == Dtype::kInt4)
    a.insert(a.end(), {"--quantization", "bitsandbytes"});
  else if (c.dtype <= Dtype::kBf16)
    a.insert(a.end(), {"--dtype", DtypeName(c.dtype)});
  if (c.kv_dtype == Dtype::kFp8) a.insert(a.end(), {"--kv-cache-dtype", "fp8"});
  if (!c.cuda_graphs) a.push_back("--enforce-eager");
  std::string note = model.note;
  if (c.dtype == Dtype::kInt8) note += "# int8 (w8a8) checkpoints carry their quantization_config: vLLM detects it\n";
  return note + Shell("vllm serve", a);
}

std::string Sglang(const Config& c) {
  Config x = c;
  x.mode = Mode::kInference;
  x.runtime = Runtime::kSglang;
  const ServingSettings s = ResolveServing(x);
  const ModelWord model = ModelArgument(c);
  std::vector<std::string> a = {"--model-path", model.word};
  if (c.tp > 1) a.insert(a.end(), {"--tp", Str(c.tp)});
  if (c.pp > 1) a.insert(a.end(), {"--pp-size", Str(c.pp)});
  a.insert(a.end(), {"--context-length", Str(c.seq), "--mem-fraction-static", Num(s.mem_fraction),
                     "--chunked-prefill-size", Str(s.batched_tokens), "--cuda-graph-max-bs", Str(s.max_num_seqs),
                     "--max-running-requests", Str(std::max<int64_t>(c.batch, 1))});
  if (*ServerQuantization(c.dtype) != '\0')
    a.insert(a.end(), {"--quantization", ServerQuantization(c.dtype)});
  else if (c.dtype <= Dtype::kBf16)
    a.insert(a.end(), {"--dtype", DtypeName(c.dtype)});
  if (c.kv_dtype == Dtype::kFp8) a.insert(a.end(), {"--kv-cache-dtype", "fp8_e4m3"});
  if (!c.cuda_graphs) a.push_back("--disable-cuda-graph");
  return model.note + Shell("python -m sglang.launch_server", a);
}

std::string LlamaCpp(const Config& c) {
  Config x = c;
  x.mode = Mode::kInference;
  x.runtime = Runtime::kLlamaCpp;
  const ServingSettings s = ResolveServing(x);
  std::vector<std::string> a = {"-m",   GgufName(c),
                                "-c",   Str(s.n_ctx),
                                "-np",  Str(s.slots),
                                "-ngl", Str(s.gpu_layers),
                                "-b",   Str(std::min<int64_t>(2048, s.n_ctx)),
                                "-ub",  Str(s.n_ubatch),
                                "-ctk", GgmlCacheType(s.k_type),
                                "-ctv", GgmlCacheType(s.v_type),
                                "-fa",  c.flash_attn ? "on" : "off"};
  const int64_t gpus = std::max(c.pp, c.tp);  // llama.cpp splits layers over all its GPUs
  if (gpus > 1) {
    std::string split;
    for (int64_t i = 0; i < gpus; ++i) split += (i ? "," : "") + std::string("1");
    a.insert(a.end(), {"--split-mode", "layer", "--tensor-split", split});
  }
  const bool gguf = c.dtype <= Dtype::kBf16 || c.dtype >= Dtype::kQ8_0;
  return (gguf ? ""
               : std::string("# ") + Info(c.dtype).id + " is not a GGUF type: choose one (q4_k_m is the usual)\n") +
         Shell("llama-server", a);
}

std::string Ollama(const Config& c) {
  Config x = c;
  x.mode = Mode::kInference;
  x.runtime = Runtime::kOllama;
  const ServingSettings s = ResolveServing(x);
  std::string out = "# Modelfile (ollama create NAME -f Modelfile)\n";
  out += "FROM " + ModelfileValue("./" + GgufName(c)).value_or("./model.gguf") + "\n";
  out += "PARAMETER num_ctx " + Str(c.seq) + "\n";
  out += "PARAMETER num_gpu " + Str(s.gpu_layers) + "\n";
  out += "PARAMETER num_batch " + Str(s.n_ubatch) + "\n";
  out += "# The server's environment: slots and cache type are set where ollama serve starts\n";
  // envconfig OLLAMA_KV_CACHE_TYPE: f16 (default), q8_0 or q4_0.
  const std::string kv = s.k_type == Dtype::kQ8_0 || s.k_type == Dtype::kQ4_0 ? GgmlCacheType(s.k_type) : "f16";
  out += "# OLLAMA_NUM_PARALLEL=" + Str(s.slots) + " OLLAMA_KV_CACHE_TYPE=" + kv +
         " OLLAMA_FLASH_ATTENTION=" + (c.flash_attn ? "1" : "0") + " ollama serve\n";
  if (s.k_type != s.v_type)
    out += "# Ollama sets one type for K and V: -ctv " + GgmlCacheType(s.v_type) + " needs llama-server\n";
  return out;
}

// [SECTION] Training: DeepSpeed, Accelerate FSDP, HF TrainingArguments ---------------------------

const char* OffloadDevice(Offload o) { return o == Offload::kNvme ? "nvme" : "cpu"; }

std::string DeepSpeed(const Config& c) {
  Json j(Json::Object{});
  j["train_micro_batch_size_per_gpu"] = Json(static_cast<double>(c.batch));
  j["gradient_accumulation_steps"] = Json(static_cast<double>(c.grad_accum));
  j["gradient_clipping"] = Json(1.0);
  Json on(Json::Object{});
  on["enabled"] = Json(true);
  if (c.dtype == Dtype::kFp16)
    j["fp16"] = on;
  else if (c.dtype == Dtype::kBf16)
    j["bf16"] = on;
  Json z(Json::Object{});
  z["stage"] = Json(static_cast<double>(c.zero));
  if (c.zero >= 1) {
    z["overlap_comm"] = Json(true);
    z["contiguous_gradients"] = Json(true);
    z["reduce_bucket_size"] = Json(c.reduce_bucket);
  }
  if (c.zero == 1 || c.zero == 2) z["allgather_bucket_size"] = Json(c.allgather_bucket);
  if (c.zero == 3) z["stage3_prefetch_bucket_size"] = Json(c.prefetch_bucket);
  if (c.offload_optimizer != Offload::kNone) {
    Json o(Json::Object{});
    o["device"] = Json(OffloadDevice(c.offload_optimizer));
    o["pin_memory"] = Json(true);
    z["offload_optimizer"] = std::move(o);
  }
  if (c.offload_params != Offload::kNone && c.zero == 3) {
    Json o(Json::Object{});
    o["device"] = Json(OffloadDevice(c.offload_params));
    o["pin_memory"] = Json(true);
    z["offload_param"] = std::move(o);
  }
  j["zero_optimization"] = std::move(z);
  if (c.recompute == Recompute::kFull && c.offload_activations) {
    Json a(Json::Object{});
    a["partition_activations"] = Json(true);
    a["cpu_checkpointing"] = Json(true);
    j["activation_checkpointing"] = std::move(a);
  }
  return j.Dump(2) + "\n";
}

std::string Fsdp(const Config& c) {
  const int64_t gpus = TotalGpus(c);
  const char* strategy = c.zero == 0                               ? "NO_SHARD"
                         : c.zero <= 2                             ? "SHARD_GRAD_OP"
                         : c.zero_group > 0 && c.zero_group < c.dp ? "HYBRID_SHARD"
                                                                   : "FULL_SHARD";
  std::string out = NotApplicable(c, LaunchTarget::kFsdp);
  out += "# Accelerate config (accelerate launch --config_file fsdp.yaml train.py)\n";
  out += "compute_environment: LOCAL_MACHINE\n";
  out += "distributed_type: FSDP\n";
  out += std::string("mixed_precision: ") +
         (c.dtype == Dtype::kFp16   ? "fp16"
          : c.dtype == Dtype::kFp32 ? "no"
                                    : "bf16") +
         "\n";
  out += "num_machines: " + Str(gpus > 8 ? (gpus + 7) / 8 : 1) + "\n";
  out += "num_processes: " + Str(gpus) + "\n";
  out += "fsdp_config:\n";
  out += std::string("  fsdp_sharding_strategy: ") + strategy + "\n";
  out += std::string("  fsdp_offload_params: ") +
         (c.offload_params != Offload::kNone || c.offload_optimizer != Offload::kNone ? "true" : "false") + "\n";
  out += "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n";
  out += "  fsdp_backward_prefetch: BACKWARD_PRE\n";
  out += "  fsdp_state_dict_type: SHARDED_STATE_DICT\n";
  out += "  fsdp_use_orig_params: true\n";
  out += std::string("  fsdp_activation_checkpointing: ") + (c.recompute == Recompute::kFull ? "true" : "false") + "\n";
  out += std::string("  fsdp_reshard_after_forward: ") + (c.reshard_after_forward ? "true" : "false") +
         "  # FSDP2 (fsdp_version: 2)\n";
  return out;
}

std::string Optim(const Config& c) {
  switch (c.optimizer) {
    case Optimizer::kAdamW:
      return c.optimizer_impl == OptimizerImpl::kFused ? "adamw_torch_fused" : "adamw_torch";
    case Optimizer::kAdam8bit:
      return c.paged_optimizer ? "paged_adamw_8bit" : "adamw_bnb_8bit";
    case Optimizer::kAdafactor:
      return "adafactor";
    case Optimizer::kLion:
      return "lion_32bit";
    case Optimizer::kSgd:
    case Optimizer::kSgdMomentum:
      return "sgd";
  }
  return "adamw_torch";
}

std::string HfTrainer(const Config& c) {
  std::string out = NotApplicable(c, LaunchTarget::kHfTrainer);
  const bool adapters = c.mode == Mode::kLora || c.mode == Mode::kQlora;
  out += "from transformers import TrainingArguments\n";
  if (adapters) out += "from peft import LoraConfig\n";
  if (c.mode == Mode::kQlora) out += "from transformers import BitsAndBytesConfig\nimport torch\n";
  if (!ModelId(c).empty()) out += "\nmodel_id = " + PythonString(ModelId(c)) + "  # from_pretrained(model_id)\n";
  out += "\nargs = TrainingArguments(\n";
  out += "    output_dir=\"out\",\n";
  out += "    per_device_train_batch_size=" + Str(c.batch) + ",\n";
  out += "    gradient_accumulation_steps=" + Str(c.grad_accum) + ",\n";
  if (c.dtype == Dtype::kBf16) out += "    bf16=True,\n";
  if (c.dtype == Dtype::kFp16) out += "    fp16=True,\n";
  out += std::string("    gradient_checkpointing=") + (c.recompute == Recompute::kFull ? "True" : "False") + ",\n";
  out += "    optim=\"" + Optim(c) + "\",\n";
  if (c.optimizer == Optimizer::kSgdMomentum) out += "    optim_args=\"momentum=0.9\",\n";
  if (c.zero > 0)
    out += "    deepspeed=\"ds_config.json\",  # llmmem --export deepspeed (or fsdp=\"full_shard auto_wrap\")\n";
  out += ")\n";
  out += "# sequences of " + Str(c.seq) + " tokens (TRL SFTConfig(max_length=" + Str(c.seq) + "))\n";
  if (adapters) {
    std::string targets;
    const char* names[] = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
    for (int i = 0; i < 7; ++i) {
      if (c.lora_targets & (1u << i)) targets += (targets.empty() ? "\"" : ", \"") + std::string(names[i]) + "\"";
    }
    out += "lora = LoraConfig(r=" + Str(c.lora_rank) + ", lora_alpha=" + Str(2 * c.lora_rank) + ", target_modules=[" +
           targets + "], lora_dropout=" + (c.lora_dropout ? "0.05" : "0.0") + ", task_type=\"CAUSAL_LM\")\n";
  }
  if (c.mode == Mode::kQlora) {
    out += std::string(
               "bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\", bnb_4bit_use_double_quant=") +
           (c.quant.nf4_double_quant ? "True" : "False") + ", bnb_4bit_compute_dtype=torch.bfloat16)\n";
  }
  return out;
}

}  // namespace

std::string GgufFileName(const Config& c) { return GgufName(c); }

bool ServingLaunchTarget(Runtime runtime, LaunchTarget& target) {
  switch (runtime) {
    case Runtime::kVllm:
      target = LaunchTarget::kVllm;
      return true;
    case Runtime::kSglang:
      target = LaunchTarget::kSglang;
      return true;
    case Runtime::kLlamaCpp:
      target = LaunchTarget::kLlamaCpp;
      return true;
    case Runtime::kOllama:
      target = LaunchTarget::kOllama;
      return true;
    case Runtime::kHfGenerate:
      return false;
  }
  return false;
}

std::string ExportLaunch(const Config& c, LaunchTarget target) {
  switch (target) {
    case LaunchTarget::kVllm:
      return NotApplicable(c, target) + Vllm(c);
    case LaunchTarget::kSglang:
      return NotApplicable(c, target) + Sglang(c);
    case LaunchTarget::kLlamaCpp:
      return NotApplicable(c, target) + LlamaCpp(c);
    case LaunchTarget::kOllama:
      return NotApplicable(c, target) + Ollama(c);
    case LaunchTarget::kDeepSpeed:
      return DeepSpeed(c);
    case LaunchTarget::kFsdp:
      return Fsdp(c);
    case LaunchTarget::kHfTrainer:
      return HfTrainer(c);
  }
  return "";
}

// [SECTION] Reading a command back --------------------------------------------------------------

std::map<std::string, std::string> ParseLaunchFlags(const std::string& command) {
  const std::vector<std::string> words = ShellSplit(command);
  std::map<std::string, std::string> flags;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.size() > 1 && w[0] == '-') {
      const bool value = i + 1 < words.size() && !(words[i + 1].size() > 1 && words[i + 1][0] == '-' &&
                                                   !std::isdigit(static_cast<unsigned char>(words[i + 1][1])));
      flags[w] = value ? words[++i] : "";
    } else {
      flags[""] += (flags[""].empty() ? "" : " ") + w;
    }
  }
  return flags;
}

}  // namespace llmmem::core
