// The accounting, in the order the tree shows it. Both EstimateTotals and Explain run
// this one function, with different sinks (sinks.h).
#pragma once

#include "core/account_activations.h"
#include "core/account_inference.h"
#include "core/account_model_states.h"
#include "core/account_parallel_buffers.h"
#include "core/account_rlhf.h"
#include "core/derived.h"

namespace llmmem::core {

template <class Sink>
void Account(const Derived& d, Sink& s) {
  const bool rlhf = d.c.mode == Mode::kRlhf;
  s.Begin("model_states", d.training ? "Model states" : "Model");
  if (rlhf) {
    AccountRlhfModels(d, s);
  } else {
    AccountWeights(d, s);
    if (d.training) AccountTrainingStates(d, s);
  }
  s.End();
  AccountParallelBuffers(d, s);
  if (d.training) {
    AccountActivations(d, s);
    if (rlhf) AccountRollout(d, s);
  } else {
    s.Begin("inference", "Inference state");
    AccountInference(d, s);
    s.End();
  }
  AccountOverheads(d.c, s);
}

}  // namespace llmmem::core
