// The Hub's pure parts as the pages call them (issue 15), one implementation for two doors:
// the JS API's Embind functions (embind_hub.cpp: node and web/hub.js under node) and the page's
// plain C calls (platform/web_hub_abi.cpp), which spare the page Embind's runtime. Each takes
// and returns JSON text as documented in embind_hub.cpp.
#pragma once

#include <string>

#include "core/hub/hub_budget.h"
#include "core/hub/hub_model.h"
#include "core/parse/json.h"
#include "core/parse/weight_headers.h"

namespace llmmem::bindings::hub {

std::string ParseRef(const std::string& text, const std::string& endpoint);
std::string Endpoint(const std::string& value);
std::string Mirrors();
std::string FileUrl(const std::string& endpoint, const std::string& id, const std::string& rev,
                    const std::string& file);
std::string ApiUrl(const std::string& endpoint, const std::string& id, const std::string& rev);
std::string SearchUrl(const std::string& endpoint, const std::string& query, int limit);
std::string Plan(const std::string& info_text, const std::string& chosen_gguf);
std::string ReadSearch(const std::string& text);
std::string IndexShards(const std::string& bytes);
std::string InspectHeader(const std::string& bytes, double file_size, const std::string& name);
std::string ErrorMessage(int status, const std::string& id, const std::string& what, const std::string& transport,
                         const std::string& code, const std::string& message, bool token_sent);
std::string TokenProblem(const std::string& token);

// inspectWeightHeader with the format taken from the file's name.
core::WeightHeaderResult ParseWeightHeaderByName(const std::string& bytes, double file_size, const std::string& name);
int64_t HubMs(double v);      // a JS time in ms as an int64 (0 outside the range)
uint64_t HubCount(double v);  // a JS count as a uint64 (0 outside the range)

// core::HubBudget for the page: each call answers "" or the sentence that stops the load.
class HubBudgetCalls {
 public:
  HubBudgetCalls(double timeout_ms, double now_ms) : b_(core::HubBudgetFor(HubMs(timeout_ms)), HubMs(now_ms)) {}
  std::string Request(double now_ms) { return b_.Request(HubMs(now_ms)) ? "" : b_.error(); }
  std::string Time(double now_ms) { return b_.Time(HubMs(now_ms)) ? "" : b_.error(); }
  std::string Bytes(double n) { return b_.Bytes(HubCount(n)) ? "" : b_.error(); }
  std::string Shards(double n) { return b_.Shards(static_cast<int64_t>(HubCount(n))) ? "" : b_.error(); }
  std::string SplitParts(double n) { return b_.SplitParts(static_cast<int64_t>(HubCount(n))) ? "" : b_.error(); }
  double Requests() const { return static_cast<double>(b_.requests()); }
  double Received() const { return static_cast<double>(b_.bytes()); }
  std::string Limits() const;  // {max_requests, max_bytes, max_wall_ms, max_shards, max_split_parts}

 private:
  core::HubBudget b_;
};

// core::HubHeaderSum for the page: one header's bytes in, summed, dropped.
class HeaderSumCalls {
 public:
  // "" or why the header cannot be added (parsed by name, as InspectHeader).
  std::string Add(const std::string& bytes, double file_size, const std::string& name);
  double Count() const { return static_cast<double>(sum_.count()); }
  const core::HubHeaderSum& sum() const { return sum_; }

 private:
  core::HubHeaderSum sum_;
};

// hubBuildModel: request {name, config_text (absent: no config.json), config_source, info_text,
// info_source, weights_file, weights_source}; the headers summed in `headers`.
std::string BuildModel(const core::Json& request, const HeaderSumCalls& headers);

}  // namespace llmmem::bindings::hub
