// Which settings change the estimate, whatever the UI shows: each workload setting (not a
// model dimension) whose value differs from the defaults' and whose reset to the default
// changes the figures, or whether they can be computed at all (with none, each setting an
// error names, though another error stands). A link or a file can set any
// setting, including ones the current mode has no control for (pp in inference, the
// DeepSpeed buckets, offload_activations); the UI lists those it does not draw, so every
// value that changes the result is visible. Standard library only.
#pragma once

#include <string>
#include <vector>

#include "core/config/config.h"

namespace llmmem::core {

// Field names (as in JSON, URL and CLI), in the order of Fields().
std::vector<std::string> FieldsInEffect(const Config& c);

}  // namespace llmmem::core
