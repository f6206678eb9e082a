// The Hub load's budget; see hub_budget.h for the numbers and why.
#include "core/hub/hub_budget.h"

namespace llmmem::core {

HubBudgetLimits HubBudgetFor(int64_t per_request_timeout_ms) {
  HubBudgetLimits l;
  l.max_wall_ms = kHubWallTimeouts * (per_request_timeout_ms > 0 ? per_request_timeout_ms : 30000);
  return l;
}

bool HubBudget::Fail(const std::string& why) {
  if (error_.empty()) error_ = "stopped: " + why;
  return false;
}

bool HubBudget::Request(int64_t now_ms) {
  if (!ok()) return false;
  if (requests_ >= limits_.max_requests) {
    return Fail("the load needs more than " + std::to_string(limits_.max_requests) + " requests, and at most " +
                std::to_string(limits_.max_requests) +
                " requests are made for one model (the server answers in very small pieces, or the repo is unusual); "
                "try again later or pick a mirror");
  }
  if (!Time(now_ms)) return false;
  ++requests_;
  return true;
}

bool HubBudget::Time(int64_t now_ms) {
  if (!ok()) return false;
  if (limits_.max_wall_ms > 0 && now_ms - start_ms_ >= limits_.max_wall_ms) {
    const int64_t s = limits_.max_wall_ms / 1000;
    return Fail("the load took longer than " + std::to_string(s) + " s in all (" + std::to_string(kHubWallTimeouts) +
                " times the per-request timeout, HF_HUB_DOWNLOAD_TIMEOUT); the Hub is slow: try again later, pick a "
                "mirror, or allow more time with HF_HUB_DOWNLOAD_TIMEOUT");
  }
  return true;
}

bool HubBudget::Bytes(uint64_t n) {
  if (!ok()) return false;
  if (n > limits_.max_bytes - bytes_) {
    return Fail("the load received more than " + std::to_string(limits_.max_bytes >> 20) +
                " MiB of answers and headers, the most read for one model; the repo's headers are unusually large");
  }
  bytes_ += n;
  return true;
}

bool HubBudget::Shards(int64_t n) {
  if (!ok()) return false;
  if (n > limits_.max_shards) {
    return Fail("the index lists " + std::to_string(n) + " shards; at most " + std::to_string(limits_.max_shards) +
                " are read for one model");
  }
  return true;
}

bool HubBudget::SplitParts(int64_t n) {
  if (!ok()) return false;
  if (n > limits_.max_split_parts) {
    return Fail("the GGUF file is split in " + std::to_string(n) + " parts; at most " +
                std::to_string(limits_.max_split_parts) +
                " are read for one model: pick another GGUF file of the repo (--hf-file, or the list of files)");
  }
  return true;
}

}  // namespace llmmem::core
