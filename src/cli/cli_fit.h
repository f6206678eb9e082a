// `llmmem fit`: the inverse questions, as a table or JSON.
#pragma once

#include <string>

#include "core/config.h"
#include "core/json.h"

namespace llmmem::cli {

core::Json FitToJson(const core::Config& c);
std::string RenderFit(const core::Config& c);
std::string RenderGpuList();

}  // namespace llmmem::cli
