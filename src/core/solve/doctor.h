// The OOM doctor: for a configuration that does not fit, the remedies of seed 002's ranked
// list (and the scale-out ones of issue 6), each applied to a copy of the configuration and
// re-estimated, so every saving shown is computed, not guessed. Best first.
#pragma once

#include <string>
#include <vector>

#include "core/config/config.h"

namespace llmmem::core {

struct Remedy {
  std::string id;                 // "flash_attn", "zero3", ...
  std::string title;              // "Turn on FlashAttention"
  std::string change;             // what changes, in the config's terms: "flash_attn=1"
  std::string tradeoff;           // what it costs: "about 33% more compute"
  Config config;                  // the configuration with the remedy applied
  double peak_bytes = 0;          // per GPU after the remedy
  double saving_bytes = 0;        // per GPU
  bool fits = false;              // the remedy alone makes it fit
  bool changes_workload = false;  // it changes what is trained (shorter context, LoRA, a quantised model)
};

// Remedies that save memory for `c`, largest saving first (those that fit ahead of those
// that do not). Empty when nothing applicable saves anything or `c` is invalid.
std::vector<Remedy> Diagnose(const Config& c);

}  // namespace llmmem::core
