#include "core/estimate/derived.h"

#include "core/estimate/account_weights.h"  // TensorBytes

#include <algorithm>
#include <cmath>

namespace llmmem::core {
namespace {

uint32_t LoraBit(TensorRole role) {
  switch (role) {
    case TensorRole::kQ:
      return kLoraQ;
    case TensorRole::kK:
      return kLoraK;
    case TensorRole::kV:
      return kLoraV;
    case TensorRole::kO:
      return kLoraO;
    case TensorRole::kGate:
      return kLoraGate;
    case TensorRole::kUp:
      return kLoraUp;
    case TensorRole::kDown:
      return kLoraDown;
    default:
      return 0;
  }
}

}  // namespace

int LastStage(const Config& c) { return static_cast<int>(c.pp > 1 ? c.pp - 1 : 0); }

// Share's values. Pipeline: layers spread over stages; embeddings on the first, head and
// final norm on the last. TP splits matrices (vocab-parallel embeddings too), EP the routed
// experts. Divided in this order, as a share per tensor always was.
void Derived::FillShares() {
  for (int where = 0; where < 3; ++where) {
    for (int matrix = 0; matrix < 2; ++matrix) {
      for (int routed = 0; routed < 2; ++routed) {
        double v = where == 0 ? stage_layers / L : where == 1 ? (first_stage ? 1 : 0) : (last_stage ? 1 : 0);
        if (matrix) v /= t;
        if (routed) v /= ep;
        share[where][matrix][routed] = v;
      }
    }
  }
}

// One pass over the model's tensors for every sum Derived needs of them (Share's values
// already in place).
TensorSums Derived::SumTensors() const {
  const ModelSpec& m = c.model;
  const double r = static_cast<double>(c.lora_rank);
  TensorSums sum;
  std::copy(&share[0][0][0], &share[0][0][0] + 12, &sum.share[0][0][0]);
  facts.ForEachTensor([&](const TensorShape& ts) {
    const double rows = static_cast<double>(ts.rows), cols = static_cast<double>(ts.cols);
    const double n = static_cast<double>(ts.count);
    const double share = Share(ts);
    sum.P_gpu += rows * cols * n * share;
    const double bytes = detail::StoredTensorBytes(ts, own_format, c) * share;
    const int g = static_cast<int>(ts.group);
    sum.own_weights.group[g] += bytes;
    sum.own_weights.params[g] += rows * cols * n * share;
    sum.own_weights.total += bytes;
    if (InLayers(ts) && L > 0)
      sum.layer_params_gpu +=
          rows * cols * n / L * (ts.cols > 1 ? KvReplicas(ts) / t : 1) / (ts.routed_expert ? ep : 1);
    if ((ts.group == ParamGroup::kAttention || ts.group == ParamGroup::kMlp) && L > 0)
      sum.layer_matmul_params += rows * cols * n / L / (ts.routed_expert ? ep : 1);
    sum.full_factored += (ts.cols > 1 ? rows + cols : rows) * n * share;
    if (adapters && (LoraBit(ts.role) & c.lora_targets)) {
      sum.lora_params += r * (rows + cols) * n;
      sum.T_gpu += r * (rows + cols) * n * share;
      sum.lora_factored += ((rows + r) + (r + cols)) * n * share;
      // Activations per layer: a token passes only its top-k routed experts.
      const double active = ts.routed_expert && m.experts > 0
                                ? static_cast<double>(m.experts_per_token) / static_cast<double>(m.experts)
                                : 1.0;
      const double per_layer = n * active / (L > 0 ? L : 1);
      sum.lora_in_width += rows * per_layer;
      if (ts.role == TensorRole::kQ || ts.role == TensorRole::kK || ts.role == TensorRole::kV)
        sum.lora_qkv_in_width += rows * per_layer;
      sum.lora_per_layer_mats += per_layer;
      sum.lora_matrices += n;
      sum.largest_trainable = std::max(sum.largest_trainable, r * std::max(rows, cols));  // A or B of one adapter
    }
  });
  return sum;
}

Derived::Derived(const Config& config, int pipeline_stage)
    : c(config), facts(FactsOf(config.model)), stage(pipeline_stage) {
  const ModelSpec& m = c.model;
  has_arch = m.HasArchitecture();
  if (has_arch) counts = facts.counted ? facts.counts : CountParameters(m);
  if (facts.counted) {
    P = facts.P;
    P_active = facts.P_active;
  } else {
    P = static_cast<double>(m.params_override > 0 ? m.params_override : counts.total);
    // A given total keeps the architecture's active share (dense: all of it).
    P_active =
        counts.total > 0 ? std::round(P * (static_cast<double>(counts.active) / static_cast<double>(counts.total))) : P;
  }
  training = c.mode != Mode::kInference;
  adapters = c.mode == Mode::kLora || c.mode == Mode::kQlora;
  b = static_cast<double>(c.batch);
  s = static_cast<double>(c.seq);
  h = static_cast<double>(m.hidden);
  a = static_cast<double>(m.heads);
  kv = static_cast<double>(m.kv_heads);
  hd = static_cast<double>(m.head_dim);
  L = static_cast<double>(m.layers);
  V = static_cast<double>(m.vocab);
  f = static_cast<double>(m.ffn);

  t = static_cast<double>(c.tp);
  pp = static_cast<double>(c.pp);
  cp = static_cast<double>(c.cp);
  ep = static_cast<double>(c.ep);
  dp = static_cast<double>(c.dp);
  first_stage = stage == 0;
  last_stage = stage == LastStage(c);
  stage_layers = L > 0 ? std::ceil(L / pp) : 0;
  if (!first_stage && stage_layers * (pp - 1) > L) stage_layers = L - std::ceil(L / pp) * (pp - 1);
  if (stage_layers < 0) stage_layers = 0;
  // Context-parallel GPUs hold the same parameters, so ZeRO/FSDP shards over dp x cp:
  // Megatron's distributed optimizer uses the data-parallel-with-CP group, torchtitan's
  // FSDP the dp_shard_cp mesh, DeepSpeed-Ulysses the sequence-data-parallel group.
  shard = c.zero_group > 0 ? static_cast<double>(c.zero_group) : dp * cp;
  s_local = s / cp;

  // Micro-batches in flight on this stage (Korthikanti §4.2.3; Narayanan et al. 2021 §2.2):
  // 1F1B: stage i holds min(pp - i, m); GPipe: all m; interleaved: Megatron's factor
  // 1 + (pp - 1) / (pp * v) on pp micro-batches.
  const double m_batches = static_cast<double>(c.grad_accum);
  switch (c.schedule) {
    case Schedule::k1F1B:
      in_flight = std::min(pp - stage, m_batches);
      break;
    case Schedule::kGpipe:
      in_flight = m_batches;
      break;
    case Schedule::kInterleaved:
      in_flight = pp > 1 ? (1 + (pp - 1) / (pp * static_cast<double>(c.vpp))) * std::min(pp - stage, m_batches) : 1;
      break;
  }
  if (pp == 1) in_flight = 1;

  own_format = c.mode == Mode::kQlora ? Dtype::kNf4 : HeldWeightFormat(c);
  if (has_arch) {
    // The sums over the model's tensors depend on the model and the layout alone, not on
    // batch, sequence or the optimizer: kept from the last estimate while those are the same
    // (the fit map, the solver and the charts vary batch and sequence over one layout).
    struct Key {
      uint64_t model;
      int stage;
      int64_t pp, tp, ep, lora_rank, group_size, gptq_bits;
      uint32_t lora_targets;
      bool adapters, nf4_double_quant, norms_fp32, quantized_head;
      Dtype format;
      bool operator==(const Key& o) const {
        return model == o.model && stage == o.stage && pp == o.pp && tp == o.tp && ep == o.ep &&
               lora_rank == o.lora_rank && group_size == o.group_size && gptq_bits == o.gptq_bits &&
               lora_targets == o.lora_targets && adapters == o.adapters && nf4_double_quant == o.nf4_double_quant &&
               norms_fp32 == o.norms_fp32 && quantized_head == o.quantized_head && format == o.format;
      }
    };
    const Key key{facts.generation,
                  stage,
                  c.pp,
                  c.tp,
                  c.ep,
                  c.lora_rank,
                  c.quant.group_size,
                  c.quant.gptq_bits,
                  c.lora_targets,
                  adapters,
                  c.quant.nf4_double_quant,
                  c.norms_fp32,
                  c.quantized_head,
                  own_format};
    thread_local bool filled = false;
    thread_local Key last_key;
    thread_local TensorSums last_sums;
    if (!filled || !(last_key == key)) {
      FillShares();
      last_sums = SumTensors();
      last_key = key;
      filled = true;
    }
    static_cast<TensorSums&>(*this) = last_sums;
  } else {
    FillShares();
    P_gpu = P / (t * pp);  // a parameter count alone: assume an even split
    layer_params_gpu = 0;
  }
  if (m.params_override > 0 && has_arch && counts.total > 0) {
    // Scale the architecture's split to the given total.
    const double k = P / static_cast<double>(counts.total);
    P_gpu *= k;
    layer_params_gpu *= k;
  }
  if (!adapters && has_arch) largest_trainable = static_cast<double>(counts.largest_tensor) / t;
  T = !training ? 0 : adapters ? lora_params : P;
  if (!training)
    T_gpu = 0;
  else if (!adapters)
    T_gpu = P_gpu;
}

}  // namespace llmmem::core
