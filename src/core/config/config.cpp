// LoRA target lists ("q,v", "attention", "all") <-> the bit set (the other enums of Config
// have their tables in config_enums.cpp); taking a catalogue GPU; a total GPU count into dp.
#include "core/config/config.h"

#include <cstdio>

#include "core/catalogue/gpus.h"
#include "core/config/gpu_count.h"
#include "core/parse/text.h"

namespace llmmem::core {
namespace {

struct LoraName {
  const char* id;
  uint32_t bit;
};
constexpr LoraName kLoraNames[] = {
    {"q", kLoraQ},       {"k", kLoraK},   {"v", kLoraV},       {"o", kLoraO},
    {"gate", kLoraGate}, {"up", kLoraUp}, {"down", kLoraDown},
};

}  // namespace

bool ParseLoraTargets(const std::string& s, uint32_t& out) {
  const std::string k = AsciiLower(s);
  if (k == "all" || k == "all-linear" || k == "all_linear") {
    out = kLoraAllLinear;
    return true;
  }
  if (k == "attention" || k == "attn") {
    out = kLoraAttention;
    return true;
  }
  uint32_t bits = 0;
  size_t start = 0;
  while (start <= k.size()) {
    size_t comma = k.find(',', start);
    std::string item = k.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.size() > 5 && item.compare(item.size() - 5, 5, "_proj") == 0) item.resize(item.size() - 5);
    bool found = false;
    for (const LoraName& n : kLoraNames) {
      if (item == n.id) {
        bits |= n.bit;
        found = true;
      }
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

void SelectGpu(Config& c, const Gpu& g) {
  c.gpu = g.key;
  c.gpu_memory_gb = g.UsableBytes(c.wired_limit_mb) / 1e9;
}

Config WithGpuCount(const Config& c, int64_t count) {
  Config x = c;
  if (IsGgml(c.runtime) || c.runtime == Runtime::kHfGenerate) {
    x.tp = 1;
    x.pp = count;
  } else {
    x.tp = count;
    x.pp = 1;
  }
  return x;
}

std::string ResolveGpuTotal(Config& c, int64_t total_gpus) {
  if (c.mode == Mode::kInference && c.tp == 1 && c.pp == 1 && c.cp == 1 && total_gpus >= 1) {
    c = WithGpuCount(c, total_gpus);
    c.dp = 1;
    return std::string();
  }
  // In double first: tp, pp and cp are not range-checked yet, and their product can overflow.
  const double replica = static_cast<double>(c.tp) * static_cast<double>(c.pp) * static_cast<double>(c.cp);
  const int64_t per_replica =
      replica >= 1 && replica <= static_cast<double>(total_gpus) ? GpusPerReplica(c) : 0;
  if (total_gpus < 1 || per_replica < 1 || total_gpus % per_replica != 0) {
    char r[32];
    std::snprintf(r, sizeof r, "%.0f", replica);
    return "gpus " + std::to_string(total_gpus) + " is not a multiple of tp x pp x cp = " + r;
  }
  c.dp = total_gpus / per_replica;
  return std::string();
}

}  // namespace llmmem::core
