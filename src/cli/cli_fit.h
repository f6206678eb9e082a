// `llmmem fit`: the inverse questions as a table (the JSON is core/fit_json.h's, as the JS API's).
#pragma once

#include <string>

#include "core/solve/compat.h"
#include "core/config/config.h"
#include "core/solve/doctor.h"
#include "core/parse/json.h"

namespace llmmem::cli {

std::string RenderFit(const core::Config& c);
std::string RenderGpuList();
std::string RenderCompat(const core::CompatEstimate& c);
std::string RenderDoctor(const std::vector<core::Remedy>& remedies);

}  // namespace llmmem::cli
