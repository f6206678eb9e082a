// One budget for every sequence of Hub requests that loads a model (issue 28): how many
// requests, how many bytes, how long in all, how many shards of an index and how many parts
// of a split GGUF. The CLI and the desktop (src/net/hub_loader.cpp) and the page (web/hub.js,
// through the JS API's HubBudget class) spend the same budget, so they refuse the same
// models with the same sentence. Pure: the caller passes the clock's reading.
// Why these numbers (the largest public repos, 2026): DeepSeek-V3's index lists 163 shards,
// Llama-3.1-405B's 191; llama.cpp's gguf-split writes a few dozen parts for the largest
// models (its names allow 99,999). A shard costs 2-3 Range requests and a GGUF part up to
// about 10 (the reader asks for doubling slices), so 512 of either fits in 2,048 requests.
// Headers: a safetensors header is at most 100 MB (core::kSafetensorsMaxHeaderBytes) and
// a real one some KB to a few MB; 512 MiB in all holds many real ones and bounds a hostile
// repo. The wall time is a multiple of the per-request timeout (HF_HUB_DOWNLOAD_TIMEOUT,
// huggingface_hub's constants.py), so a user who allows slow answers allows a slow load.
#pragma once

#include <cstdint>
#include <string>

namespace llmmem::core {

struct HubBudgetLimits {
  int64_t max_requests = 2048;
  uint64_t max_bytes = 512ull << 20;  // every body received, headers and JSON together
  int64_t max_wall_ms = 0;            // from HubBudgetFor(timeout)
  int64_t max_shards = 512;           // files an index lists
  int64_t max_split_parts = 512;      // parts of a split GGUF
};

// The wall time allowed: this many per-request timeouts (30 s: 3 minutes).
constexpr int64_t kHubWallTimeouts = 6;
HubBudgetLimits HubBudgetFor(int64_t per_request_timeout_ms);

// The accounting. Each call says whether the budget still holds; once one fails, every
// later call fails too with the same sentence (a loader stops at the first).
class HubBudget {
 public:
  HubBudget(const HubBudgetLimits& limits, int64_t start_ms) : limits_(limits), start_ms_(start_ms) {}
  bool Request(int64_t now_ms);  // before each request (counts it; checks the time too)
  bool Time(int64_t now_ms);     // the wall time alone (after a request that timed out)
  bool Bytes(uint64_t n);        // a body's bytes as they arrive
  bool Shards(int64_t n);        // an index's shard count, before any is read
  bool SplitParts(int64_t n);    // a split GGUF's part count, before any is read
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }  // a sentence for the user
  const HubBudgetLimits& limits() const { return limits_; }
  int64_t start_ms() const { return start_ms_; }
  int64_t requests() const { return requests_; }
  uint64_t bytes() const { return bytes_; }

 private:
  bool Fail(const std::string& why);
  HubBudgetLimits limits_;
  int64_t start_ms_ = 0;
  int64_t requests_ = 0;
  uint64_t bytes_ = 0;
  std::string error_;
};

}  // namespace llmmem::core
