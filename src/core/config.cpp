// Stable ids for the enums of Config, shared by JSON, URL and CLI.
#include "core/config.h"

#include "core/text.h"

namespace llmmem::core {
namespace {


struct LoraName {
  const char* id;
  uint32_t bit;
};
constexpr LoraName kLoraNames[] = {
    {"q", kLoraQ}, {"k", kLoraK}, {"v", kLoraV}, {"o", kLoraO},
    {"gate", kLoraGate}, {"up", kLoraUp}, {"down", kLoraDown},
};

}  // namespace

const char* ModeId(Mode m) {
  switch (m) {
    case Mode::kInference: return "infer";
    case Mode::kTraining: return "train";
    case Mode::kLora: return "lora";
    case Mode::kQlora: return "qlora";
    case Mode::kRlhf: return "rlhf";
  }
  return "?";
}

const char* RecomputeId(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kSelective: return "selective";
    case Recompute::kFull: return "full";
    case Recompute::kOpSelective: return "op_selective";
  }
  return "?";
}

const char* OptimizerId(Optimizer o) {
  switch (o) {
    case Optimizer::kSgd: return "sgd";
    case Optimizer::kSgdMomentum: return "momentum";
    case Optimizer::kAdamW: return "adamw";
    case Optimizer::kAdam8bit: return "adam8bit";
    case Optimizer::kAdafactor: return "adafactor";
    case Optimizer::kLion: return "lion";
  }
  return "?";
}

const char* ScheduleId(Schedule s) {
  switch (s) {
    case Schedule::k1F1B: return "1f1b";
    case Schedule::kInterleaved: return "interleaved";
    case Schedule::kGpipe: return "gpipe";
  }
  return "?";
}

const char* OffloadId(Offload o) {
  switch (o) {
    case Offload::kNone: return "none";
    case Offload::kCpu: return "cpu";
    case Offload::kNvme: return "nvme";
  }
  return "?";
}

const char* RlhfId(Rlhf r) {
  switch (r) {
    case Rlhf::kPpo: return "ppo";
    case Rlhf::kGrpo: return "grpo";
    case Rlhf::kDpo: return "dpo";
  }
  return "?";
}

bool ParseSchedule(const std::string& s, Schedule& out) {
  const std::string k = AsciiLower(s);
  if (k == "1f1b") { out = Schedule::k1F1B; return true; }
  if (k == "interleaved" || k == "interleaved-1f1b" || k == "vpp") { out = Schedule::kInterleaved; return true; }
  if (k == "gpipe") { out = Schedule::kGpipe; return true; }
  return false;
}

bool ParseOffload(const std::string& s, Offload& out) {
  const std::string k = AsciiLower(s);
  if (k == "none" || k == "0" || k == "off") { out = Offload::kNone; return true; }
  if (k == "cpu") { out = Offload::kCpu; return true; }
  if (k == "nvme") { out = Offload::kNvme; return true; }
  return false;
}

bool ParseRlhf(const std::string& s, Rlhf& out) {
  const std::string k = AsciiLower(s);
  if (k == "ppo") { out = Rlhf::kPpo; return true; }
  if (k == "grpo") { out = Rlhf::kGrpo; return true; }
  if (k == "dpo") { out = Rlhf::kDpo; return true; }
  return false;
}

bool ParseMode(const std::string& s, Mode& out) {
  const std::string k = AsciiLower(s);
  if (k == "infer" || k == "inference") { out = Mode::kInference; return true; }
  if (k == "train" || k == "training" || k == "full") { out = Mode::kTraining; return true; }
  if (k == "lora") { out = Mode::kLora; return true; }
  if (k == "qlora") { out = Mode::kQlora; return true; }
  if (k == "rlhf") { out = Mode::kRlhf; return true; }
  return false;
}

bool ParseRecompute(const std::string& s, Recompute& out) {
  const std::string k = AsciiLower(s);
  if (k == "none") { out = Recompute::kNone; return true; }
  if (k == "selective") { out = Recompute::kSelective; return true; }
  if (k == "full") { out = Recompute::kFull; return true; }
  if (k == "op_selective" || k == "op") { out = Recompute::kOpSelective; return true; }
  return false;
}

bool ParseOptimizer(const std::string& s, Optimizer& out) {
  const std::string k = AsciiLower(s);
  if (k == "sgd") { out = Optimizer::kSgd; return true; }
  if (k == "momentum" || k == "sgd_momentum") { out = Optimizer::kSgdMomentum; return true; }
  if (k == "adamw" || k == "adam") { out = Optimizer::kAdamW; return true; }
  if (k == "adam8bit" || k == "adamw8bit") { out = Optimizer::kAdam8bit; return true; }
  if (k == "adafactor") { out = Optimizer::kAdafactor; return true; }
  if (k == "lion") { out = Optimizer::kLion; return true; }
  return false;
}

bool ParseLoraTargets(const std::string& s, uint32_t& out) {
  const std::string k = AsciiLower(s);
  if (k == "all" || k == "all-linear" || k == "all_linear") { out = kLoraAllLinear; return true; }
  if (k == "attention" || k == "attn") { out = kLoraAttention; return true; }
  uint32_t bits = 0;
  size_t start = 0;
  while (start <= k.size()) {
    size_t comma = k.find(',', start);
    std::string item = k.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.size() > 5 && item.compare(item.size() - 5, 5, "_proj") == 0) item.resize(item.size() - 5);
    bool found = false;
    for (const LoraName& n : kLoraNames) {
      if (item == n.id) { bits |= n.bit; found = true; }
    }
    if (!found) return false;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (bits == 0) return false;
  out = bits;
  return true;
}

std::string LoraTargetsId(uint32_t targets) {
  if (targets == kLoraAllLinear) return "all";
  std::string out;
  for (const LoraName& n : kLoraNames) {
    if (targets & n.bit) {
      if (!out.empty()) out += ',';
      out += n.id;
    }
  }
  return out;
}

}  // namespace llmmem::core
