// The "Read an OOM" tab's state: the pasted (or dropped) text and its reading, redone when
// the text or the configuration changes. The text box holds at most kOomBoxMaxBytes.
// May include: core (no imgui).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/oom/oom_report.h"

namespace llmmem::app {

constexpr size_t kOomBoxMaxBytes = 1u << 20;  // 1 MiB: a log's tail, more than any message

struct OomView {
  std::string text;
  core::OomReport report;
  bool dirty = false;        // the text changed since the last reading
  std::string config_query;  // the configuration the reading was made with
  int device = 0;            // the observation shown when the text has several
  // The text is read in the background (hooks.background "oom_evidence": the page's worker);
  // the report is built from its evidence here, again when the configuration changes.
  core::Evidence evidence;
  int64_t seq = 0;       // the reading asked for; 0 none
  bool reading = false;  // its answer has not come yet
  std::string error;     // the background's, when it could not read the text
};

}  // namespace llmmem::app
