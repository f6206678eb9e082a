// The configuration's JSON Schema (draft 2020-12), generated from the field table: one
// property per row with its type, range, default and the row's one help text, the model's
// fields under "model". `llmmem --schema` prints it and the JS API's configSchema() returns
// it, so editors and other tools validate a config.json the way the estimator reads it.
#pragma once

#include "core/parse/json.h"

namespace llmmem::core {

Json ConfigSchema();

}  // namespace llmmem::core
