// LoRA target lists ("q,v", "attention", "all") <-> the bit set; the other enums of
// Config have their tables in config_enums.cpp.
#include "core/config/config.h"

#include "core/catalogue/gpus.h"
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
  c.gpu_memory_gb = g.UsableBytes() / 1e9;
}

}  // namespace llmmem::core
