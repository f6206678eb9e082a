// The CLI's human-readable output: the breakdown tree as an aligned table.
#pragma once

#include <string>

#include "core/config/config.h"
#include "core/estimate/estimate.h"

namespace llmmem::cli {

// "FITS H100-SXM-80GB (85.52 GB / 79.65 GiB): ...", "DOES NOT FIT ...", or "INCOMPLETE ...:
// the counted X fits (...), but weights only: ..." (core Totals::Judge, VerdictNote).
std::string VerdictLine(const core::Config& c, const core::Totals& t);
std::string RenderTable(const core::Config& c, const core::Estimate& e, bool formulas);
std::string RenderModelList();

}  // namespace llmmem::cli
