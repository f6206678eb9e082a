// The CLI's human-readable output: the breakdown tree as an aligned table.
#pragma once

#include <string>

#include "core/config/config.h"
#include "core/estimate/estimate.h"

namespace llmmem::cli {

std::string RenderTable(const core::Config& c, const core::Estimate& e, bool formulas);
std::string RenderModelList();

}  // namespace llmmem::cli
