// Quantities every accounting step reads, computed once per estimate from a Config and
// the pipeline stage being estimated. Plain doubles: byte counts are exact integers below
// 2^53 and fractional where a format stores fractions of a byte per weight or a shard
// divides unevenly; the sinks round each leaf up to whole bytes (sinks.h WholeBytes).
#pragma once

#include "core/config/config.h"
#include "core/model/model.h"
#include "core/config/model_facts.h"

namespace llmmem::core {

namespace detail {
// Weight bytes and parameters of one GPU by ParamGroup, before a given total rescales them
// (account_weights.h WeightsByGroup).
struct WeightBytes {
  double group[5] = {0, 0, 0, 0, 0};  // by ParamGroup
  double params[5] = {0, 0, 0, 0, 0};
  double total = 0;
};
}  // namespace detail

// Per-layer tensors (attention, MLP, the layers' norms), which pipeline stages divide.
inline bool InLayers(const TensorShape& t) {
  return t.group == ParamGroup::kAttention || t.group == ParamGroup::kMlp ||
         (t.group == ParamGroup::kNorms && t.role == TensorRole::kNorm && t.count > 1);
}

// The sums over the model's tensors (Derived::SumTensors): they depend on the model and the
// layout, not on batch or sequence.
struct TensorSums {
  // Parameters held by this GPU before ZeRO sharding: its stage's tensors, matrices split
  // t ways, routed experts split ep ways, vectors replicated.
  double P_gpu = 0;
  double T_gpu = 0;             // trainable share of P_gpu (LoRA: the adapters')
  double layer_params_gpu = 0;  // one layer's parameters on this GPU (ZeRO-3 gathers one at a time)
  double layer_matmul_params =
      0;  // one layer's attention and MLP weights before TP (routed experts / ep): what autocast casts

  double lora_params = 0;    // r(d_in + d_out) summed over the adapted matrices
  double lora_factored = 0;  // Adafactor state elements of the adapters
  double full_factored = 0;  // Adafactor state elements of the whole model
  double lora_in_width = 0;
  double lora_qkv_in_width = 0;    // the part of lora_in_width on Q, K and V (the layer's input)
  double lora_per_layer_mats = 0;  // adapted matrices per layer, weighted by routing
  double largest_trainable = 0;    // elements of the largest trainable tensor on this GPU (before ZeRO)
  double lora_matrices = 0;        // adapted matrices of the whole model (each adds an A and a B tensor)
  // The weights in their own format (QLoRA: NF4; else dtype), summed in the same pass over
  // the tensors as the figures above (WeightsByGroup takes them from here).
  detail::WeightBytes own_weights;
  // Share's values: [in layers, embeddings, other][matrix][routed expert].
  double share[3][2][2] = {};
};

struct Derived : TensorSums {
  const Config& c;
  const ModelFacts& facts;  // the model's tensor list and counts, computed once per model
  ParamCounts counts;
  bool training = false;  // any mode with a backward pass
  bool adapters = false;  // LoRA or QLoRA
  bool has_arch = false;
  double P = 0;         // parameters of the whole model (params_override or the count)
  double P_active = 0;  // of P, those one token runs through (MoE: top-k experts); P when dense
  double T = 0;         // trainable parameters of the whole model: P, adapters, or 0
  // Korthikanti et al.'s symbols, named as every formula the estimate prints names them
  // ("sbh"): micro-batch b, sequence s, hidden h, heads a, KV heads kv, head dim hd, layers L,
  // vocabulary V, MLP width f.
  double b = 0, s = 0, h = 0, a = 0, kv = 0, hd = 0, L = 0, V = 0, f = 0;

  // Parallel layout. The GPU estimated is on pipeline stage `stage` (0-based).
  double t = 1;  // tensor-parallel size
  double pp = 1, cp = 1, ep = 1, dp = 1;
  int stage = 0;
  bool first_stage = true, last_stage = true;
  Dtype own_format = Dtype::kCount;  // the weights' own format (QLoRA: NF4; else dtype), summed in TensorSums
  double stage_layers = 0;           // layers on this stage: ceil(L / pp) on the most loaded one
  double shard = 1;                  // ZeRO/FSDP shard group size (zero_group, else dp x cp)
  double in_flight = 1;              // micro-batches whose activations this stage holds at once
  double s_local = 0;                // tokens of a sequence this GPU holds: s / cp

  Derived(const Config& config, int pipeline_stage);

  // The share of a tensor family this GPU holds (pipeline stage x TP x EP): one of the
  // values of TensorSums::share, computed with the sums, not per tensor.
  double Share(const TensorShape& ts) const {
    const int where = InLayers(ts) ? 0 : ts.group == ParamGroup::kEmbedding ? 1 : 2;
    return share[where][ts.cols > 1 ? 1 : 0][ts.routed_expert ? 1 : 0] * KvReplicas(ts);
  }
  // With more TP ranks than KV heads each rank keeps one whole KV head, so the K and V
  // projections are split kv ways, not t: tp / kv copies of each (vLLM linear.py
  // QKVParallelLinear at 9e109c98: num_kv_heads = 1, num_kv_head_replicas = tp /
  // total_num_kv_heads; SGLang the same), as the KV cache is (account_inference.h). Megatron
  // refuses such a layout in training (validate.cpp CheckLayout). MLA's latent is not split by heads.
  double KvReplicas(const TensorShape& ts) const {
    const bool kv_matrix = (ts.role == TensorRole::kK || ts.role == TensorRole::kV) && ts.cols > 1;
    return kv_matrix && kv > 0 && kv < t && c.model.kv_lora_rank == 0 ? t / kv : 1.0;
  }
  // ZeRO divisors: how many GPUs split each model state.
  double WeightShards() const { return c.zero >= 3 ? shard : 1; }
  double GradShards() const { return c.zero >= 2 ? shard : 1; }
  double OptimizerShards() const { return c.zero >= 1 ? shard : 1; }

 private:
  void FillShares();
  TensorSums SumTensors() const;
};

// Weights narrower than fp32 are updated through an fp32 master copy when enabled.
inline bool HasMasterCopy(Dtype d) { return d != Dtype::kFp32; }

// The pipeline stage with the most layers (and the embeddings): 0. The last stage holds
// the output head and the logits; EstimateTotals evaluates both and keeps the larger.
int LastStage(const Config& c);

}  // namespace llmmem::core
