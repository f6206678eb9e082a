// Exports of an estimate for sharing: Markdown (a table for issues and chats) and CSV (a
// flat row per breakdown node). JSON is result_json.h. The CLI, the UI and the JS API share
// these, so an export always shows the numbers on screen.
#pragma once

#include <string>

#include "core/config/config.h"
#include "core/estimate/estimate.h"

namespace llmmem::core {

std::string EstimateToMarkdown(const Config& c, const Estimate& e);
std::string EstimateToCsv(const Estimate& e);

}  // namespace llmmem::core
