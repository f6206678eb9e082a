// The accounting, in the order the tree shows it. Both EstimateTotals and Explain run
// this one function, with different sinks (sinks.h).
#pragma once

#include "core/estimate/account_activations.h"
#include "core/estimate/account_inference.h"
#include "core/estimate/account_model_states.h"
#include "core/estimate/account_parallel_buffers.h"
#include "core/estimate/account_rlhf.h"
#include "core/estimate/account_serving.h"
#include "core/estimate/account_workspaces.h"
#include "core/estimate/derived.h"

namespace llmmem::core {

template <class Sink>
void Account(const Derived& d, Sink& s) {
  const bool rlhf = d.c.mode == Mode::kRlhf;
  s.Begin("model_states", d.training ? "Model states" : "Model");
  if (rlhf) {
    AccountRlhfModels(d, s);
  } else if (UsesServingRuntime(d.c) && IsGgml(d.c.runtime) && d.has_arch) {
    AccountGgmlWeights(d, PlanServing(d), s);  // llama.cpp: layers on the GPU, the rest in RAM
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
    s.Begin("inference", UsesServingRuntime(d.c) ? Info(d.c.runtime).label : "Inference state");
    if (UsesServingRuntime(d.c))
      AccountServing(d, s);
    else
      AccountInference(d, s);
    s.End();
  }
  AccountLibraryWorkspaces(d, s);
  AccountOverheads(d.c, s);
}

}  // namespace llmmem::core
