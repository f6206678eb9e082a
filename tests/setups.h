// Model and workload set-ups shared by the tests, named after the reference cases
// (../shared/REFERENCE_CASES.md).
#pragma once

#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>

#include <doctest.h>

#include "core/config/config.h"
#include "core/model/activation_fn.h"
#include "core/config/config_json.h"
#include "core/config/fields.h"
#include "core/config/stacks.h"
#include "core/estimate/estimate.h"
#include "core/solve/fit.h"
#include "core/catalogue/presets.h"
#include "core/config/validate.h"

namespace llmmem::test {

using namespace llmmem::core;

using Settings = std::initializer_list<std::pair<const char*, const char*>>;

// The random-configuration generators draw enumerators from their tables (enum_table.h), so
// a new row (a seventh optimizer, a sixth runtime) is drawn without touching a test (issue
// 29). A plain modulo of mt19937_64's output, as the generators use everywhere: the
// standard fixes it, so native and WASM draw the same configurations.
template <typename E>
int EnumSize() {
  return static_cast<int>(TableOf(E{}).count);
}
template <typename E, typename Rng>
E DrawEnum(Rng& rng) {
  return static_cast<E>(rng() % static_cast<uint64_t>(EnumSize<E>()));
}

// Settings by their field names, as a link or the CLI gives them; one the table refuses
// fails the test, named.
inline void Apply(Config& c, Settings settings) {
  for (const auto& kv : settings) REQUIRE_MESSAGE(FindField(kv.first)->set(c, kv.second).empty(), kv.first);
}

// A configuration as a user's settings make it: the fields they did not set follow the
// training program's defaults for the result (core/config/stacks.h FollowDefaults), as the
// CLI, JSON and links do; a field set here to its old default moves with the others.
inline Config Followed(Config c) {
  FollowDefaults(c, DefaultConfig());
  return c;
}

// DeepSpeed's (and Megatron's) mixed precision: bf16 weights with fp32 master weights and
// AdamW states, 16 bytes a parameter (ZeRO §3); the HF Trainer's default is pure bf16.
inline void MixedPrecision(Config& c) {
  c.master_weights = true;
  c.optimizer_dtype = Dtype::kFp32;
}

// The default configuration on a preset's model, with `settings` applied.
inline Config WithSettings(const char* preset, Settings settings) {
  Config c = DefaultConfig();
  c.model = FindPreset(preset)->model;
  Apply(c, settings);
  return c;
}

// fms-acceleration's benchmark runs (scripts/benchmarks/benchmark.py, scenarios.yaml, defaults.yaml
// @24bdadb228e2d55bc0c69deec034b86a73da6917): packed 4096-token samples, gradient checkpointing,
// flash_attention_2, one A100-80GB per process; `settings` add the scenario's.
inline Config FmsAcceleration(const char* preset, Settings settings) {
  Config c = WithSettings(
      preset, {{"seq", "4096"}, {"recompute", "full"}, {"framework", "hf-flash2"}, {"gpu", "A100-SXM-80GB"}});
  Apply(c, settings);
  return c;
}

// Its PEFT scenarios: LoRA r 16 on q, k, v and o, lora_dropout 0.1.
inline Config FmsAccelerationPeft(const char* preset, Settings settings) {
  Config c = FmsAcceleration(preset, {{"lora_rank", "16"}, {"lora_targets", "q,k,v,o"}, {"lora_dropout", "1"}});
  Apply(c, settings);
  return c;
}

// torchtitan's Llama 3.1 runs on H100s (benchmarks/llama3_h100_202412_torchtitan.md@820504e):
// FSDP2 FULL_SHARD with bf16 compute over fp32 parameters, gradients and AdamW states, full AC.
inline Config Torchtitan(const char* preset, Settings settings) {
  Config c = WithSettings(preset, {{"mode", "train"},
                                   {"recompute", "full"},
                                   {"gpu", "H100-SXM-80GB"},
                                   {"zero", "3"},
                                   {"sharding", "fsdp"},
                                   {"dtype", "bf16"},
                                   {"master_weights", "1"},
                                   {"grad_dtype", "fp32"},
                                   {"optimizer_dtype", "fp32"}});
  Apply(c, settings);
  return c;
}

// A configuration with every overhead at zero, so a case's figures stand alone. The
// seeds' worked cases follow the paper's accounting: the megatron profile.
inline Config Bare() {
  Config c;
  c.framework = Framework::kMegatron;
  c.cuda_context_gb = 0;
  c.fragmentation_pct = 0;
  c.comm_buffer_gb = 0;
  c.cublas_workspace_mib = 0;
  return c;
}

// A model known only by its size (the seeds' "14B", "7B").
inline Config ParamsOnly(double params) {
  Config c = Bare();
  c.model = ModelSpec{};
  c.model.name = "params-only";
  c.model.hidden = 0;
  c.model.layers = 0;
  c.model.heads = 0;
  c.model.params_override = static_cast<int64_t>(params);
  return c;
}

// Korthikanti et al. 2022's transformer: MHA, 2-matrix GeLU MLP of 4h, two LayerNorms,
// dropout on, no FlashAttention, 16-bit activations.
inline Config Korthikanti(int64_t h, int64_t a, int64_t L, int64_t s, int64_t b) {
  Config c = Bare();
  ModelSpec& m = c.model;
  m.name = "korthikanti";
  m.hidden = h;
  m.heads = a;
  m.kv_heads = a;
  m.head_dim = h / a;
  m.layers = L;
  m.ffn = 4 * h;
  m.vocab = 32000;
  m.mlp = MlpKind::kPlain;
  m.norm = NormKind::kLayerNorm;
  c.seq = s;
  c.batch = b;
  c.dropout = true;
  c.flash_attn = false;
  c.recompute = Recompute::kNone;
  return c;
}

// Baichuan-7B (seed 002's Model Memory Calculator example).
inline ModelSpec Baichuan7B() {
  ModelSpec m;
  m.name = "Baichuan-7B";
  m.vocab = 64000;
  m.hidden = 4096;
  m.layers = 32;
  m.heads = 32;
  m.kv_heads = 32;
  m.head_dim = 128;
  m.ffn = 11008;
  return m;
}

// Llama-2-7B: Baichuan's shape with a 32000-token vocabulary.
inline ModelSpec Llama2_7B() {
  ModelSpec m = Baichuan7B();
  m.name = "Llama-2-7B";
  m.vocab = 32000;
  return m;
}

// A breakdown node's figures; a missing node fails the test (a -1 could pass a check such
// as "<= x" and hide a renamed or vanished row).
inline const BreakdownNode& NodeOf(const Estimate& e, const std::string& id) {
  const BreakdownNode* n = e.tree.Find(id);
  REQUIRE_MESSAGE(n != nullptr, "the breakdown has no node " << id);
  return *n;
}

inline double Bytes(const Estimate& e, const std::string& id) { return NodeOf(e, id).bytes; }

inline double PerLayer(const Estimate& e, const std::string& id) { return NodeOf(e, id).per_layer_bytes; }

// What a row holds at a moment; 0 when the row is absent, as a mechanism's row is while it does
// not apply.
inline double BytesAt(const Estimate& e, const std::string& id, Moment m) {
  const BreakdownNode* n = e.tree.Find(id);
  return n == nullptr ? 0 : n->moment_bytes[static_cast<int>(m)];
}

}  // namespace llmmem::test
