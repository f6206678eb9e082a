// The serving report (serving.h) as JSON: the figures by name, and the report's lines.
#pragma once

#include "core/json.h"
#include "core/serving.h"

namespace llmmem::core {

Json ServingToJson(const ServingReport& r);

}  // namespace llmmem::core
