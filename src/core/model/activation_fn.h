// MLP activation functions, one row each: the names transformers' ACT2FN gives them and
// the tensors eager autograd keeps inside each for backward (derivatives.yaml rules for
// the ops each is written with in transformers/activations.py).
#pragma once

#include "core/base/enum_table.h"

#include "core/model/model.h"

namespace llmmem::core {

struct ActivationFnInfo {
  ActivationFn value;
  const char* id;       // configs, URLs, --act: the ACT2FN key
  const char* aliases;  // other ACT2FN keys mapped to the same computation, space-separated
  int saved_inside;     // f-wide tensors kept inside the function, its input included, its output not
  bool keeps_output;    // the function itself keeps its output (ReLU), whatever the next op does
  const char* saved;    // which autograd nodes keep them
};

// Info, Id, ParseId (every ACT2FN key this table knows: gelu_pytorch_tanh, swish, ...), IdList:
// enum_table.h.
EnumTable<ActivationFnInfo> TableOf(ActivationFn);

}  // namespace llmmem::core
