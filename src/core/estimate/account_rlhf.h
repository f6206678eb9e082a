// RLHF: the models resident at once and which of them train.
//  PPO: actor (trained), critic (trained), reference (frozen), reward model (frozen)
//  GRPO: actor, reference, optionally a reward model; no critic (Shao et al. 2024)
//  DPO: policy (trained) and reference (frozen) (Rafailov et al. 2023)
// A colocated rollout engine (verl, OpenRLHF with vLLM/SGLang) keeps its own 16-bit copy
// of the actor and a KV cache that lives during generation only. Every role uses the
// configured parallel layout; the critic is counted as the actor's size (its value head
// replaces the LM head). Seed 002's verl example is the reference case (Z4).
#pragma once

#include "core/estimate/account_inference.h"
#include "core/estimate/account_model_states.h"

namespace llmmem::core {

template <class Sink>
void AccountRlhfModels(const Derived& d, Sink& s) {
  const Config& c = d.c;
  const bool ppo = c.rlhf == Rlhf::kPpo;
  const bool dpo = c.rlhf == Rlhf::kDpo;
  s.Begin("actor", dpo ? "Policy (trained)" : "Actor (trained)");
  AccountWeights(d, s, "weights", "Weights", c.dtype);
  AccountTrainingStates(d, s, d.P_gpu);
  s.End();
  if (ppo) {
    s.Begin("critic", "Critic (trained)");
    AccountWeights(d, s, "weights", "Weights", c.dtype);
    AccountTrainingStates(d, s, d.P_gpu);
    s.End();
  }
  s.Begin("reference", "Reference (frozen)");
  AccountWeights(d, s, "weights", "Weights", c.dtype);
  s.End();
  if (!dpo && c.reward_model) {
    s.Begin("reward", "Reward model (frozen)");
    AccountWeights(d, s, "weights", "Weights", c.dtype);
    s.End();
  }
}

template <class Sink>
void AccountRollout(const Derived& d, Sink& s) {
  const Config& c = d.c;
  if (c.rlhf == Rlhf::kDpo || !c.rollout_engine || !d.has_arch) return;
  s.Begin("rollout", "Rollout engine (generation)");
  s.Note([&] {
    return Explanation{"a colocated inference engine: its own 16-bit weights, and a KV cache for " +
                           FormatCount(static_cast<int64_t>(d.b)) + " sequences of " +
                           FormatCount(static_cast<int64_t>(d.s)) + " tokens, alive while it generates",
                       src::kRlhf};
  });
  const double engine_bpp = Info(Dtype::kBf16).bits / 8.0;  // engines serve 16-bit weights
  const double weights = d.P_gpu * engine_bpp;
  s.Leaf("engine_weights", "Engine weights (16-bit copy of the actor)", Category::kWeights, Live::Both(weights), [&] {
    return Explanation{detail::PerParam(engine_bpp, d.P_gpu, "params on this GPU"), src::kRlhf};
  });
  AccountKvCache(d, s, &Live::GenerationOnly);
  s.End();
}

}  // namespace llmmem::core
