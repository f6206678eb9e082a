// The verdict's inputs beyond the GPU's figures (issue 28: no confident answer that is
// wrong): which parts of the memory cannot be counted, and the words that say so. The
// verdict itself is Totals::Judge (estimate.h); Validate emits the warnings below, Explain
// the host RAM's, and LimitsVerdict (diagnostics.h) classifies every warning id.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/phrase.h"
#include "core/config/config.h"
#include "core/estimate/estimate.h"

namespace llmmem::core {

// "the host RAM set (ram_gb 16 GB) cannot hold the 814 GB kept there (...)"; empty when
// it can or is not checked.
std::string HostShortNote(const Config& c, const Totals& t);

// Issue 31: on a unified-memory card, what the OS lets the GPU use and how it is raised
// (catalogue/gpu_budget.h), shown beside the verdict; empty text on other cards and on a
// card whose memory was set apart (gpu_memory_gb not the card's).
Phrase GpuBudgetNote(const Config& c);

}  // namespace llmmem::core
