// Megatron-LM's theoretical memory report, ported line by line from
//   NVIDIA/Megatron-LM megatron/training/theoretical_memory_usage.py @ d98e8a64ddf34856e74b24714e3bedb2f5a39553
//     compute_weight_and_optimizer_memory, compute_activation_memory (Korthikanti Table 2:
//     sequence parallelism + selective recompute), compute_activation_memory_without_sp and
//     report_theoretical_memory's dispatch between them,
// with the arguments filled as megatron/training/arguments.py (same commit) fills them:
// kv_channels and ffn_hidden_size defaults, sequence_parallel switched off at tp = 1,
// expert_tensor_parallel_size = tp, and the vocabulary padded by
// megatron/training/vocab_utils.py calculate_padded_vocab_size (--make-vocab-size-divisible-by 128).
// num_microbatches is what megatron/training/training.py passes when it prints the report at
// iteration 1: get_num_microbatches(), the gradient accumulation steps, so a 1F1B pipeline fed
// fewer micro-batches than it has stages keeps min(m, p) in flight and its activations are
// scaled by min(1, m / p). (tools/report_theoretical_memory.py passes None: p in flight; said
// as a departure.) The arithmetic runs in doubles in Python's order.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/solve/compat.h"
#include "core/estimate/estimate.h"
#include "core/config/gpu_count.h"
#include "core/model/model.h"
#include "core/base/units.h"

namespace llmmem::core {
namespace {

// The args the report reads, as Megatron would hold them for this config.
struct Args {
  double num_layers, hidden_size, ffn_hidden_size, kv_channels, num_attention_heads, num_query_groups;
  bool swiglu, rms_norm, untie;
  double padded_vocab_size;
  // MoE: --num-experts (0: None), --moe-layer-freq as [0] x dense_layers + [1] x the rest.
  double num_experts, num_moe_layers, moe_ffn_hidden_size, shared_expert_size;
  bool add_bias_linear, shared_expert_gate;
  // MLA: --multi-latent-attention with q_lora_rank (0: None), kv_lora_rank, qk_head_dim, ...
  bool mla;
  double q_lora_rank, kv_lora_rank, qk_head_dim, qk_pos_emb_head_dim, v_head_dim;
  double tp, pp, dp, ep, world_size, vpp;  // vpp 0: None
  bool distributed_optimizer, sequence_parallel, selective;
  double seq_length, micro_batch_size;
  double num_microbatches;  // get_num_microbatches(): gradient accumulation steps
};

Args FromConfig(const Config& c) {
  const ModelSpec& m = c.model;
  Args a{};
  a.num_layers = static_cast<double>(m.layers);
  a.hidden_size = static_cast<double>(m.hidden);
  a.swiglu = m.mlp == MlpKind::kGated;
  // arguments.py: ffn_hidden_size defaults to 4h, or int((4h x 2/3) / 64) x 64 with SwiGLU.
  a.ffn_hidden_size = m.ffn > 0  ? static_cast<double>(m.ffn)
                      : a.swiglu ? std::trunc((4 * a.hidden_size * 2 / 3) / 64) * 64
                                 : 4 * a.hidden_size;
  a.kv_channels = m.head_dim > 0 ? static_cast<double>(m.head_dim) : std::floor(a.hidden_size / m.heads);
  a.num_attention_heads = static_cast<double>(m.heads);
  a.num_query_groups = static_cast<double>(m.kv_heads > 0 ? m.kv_heads : m.heads);
  a.rms_norm = m.norm == NormKind::kRmsNorm;
  a.untie = !m.tied_embeddings;
  a.padded_vocab_size = static_cast<double>(MegatronPaddedVocab(m.vocab, c.tp));
  if (m.IsMoe()) {
    a.num_experts = static_cast<double>(m.experts);
    a.num_moe_layers = static_cast<double>(m.layers - std::min(m.dense_layers, m.layers));
    a.moe_ffn_hidden_size = static_cast<double>(m.moe_ffn > 0 ? m.moe_ffn : m.ffn);
    a.shared_expert_size = static_cast<double>(m.shared_experts * m.shared_ffn);
    a.add_bias_linear = m.mlp_bias;
    a.shared_expert_gate = m.shared_expert_gate;
  }
  a.mla = m.IsMla();
  a.q_lora_rank = static_cast<double>(m.q_lora_rank);
  a.kv_lora_rank = static_cast<double>(m.kv_lora_rank);
  a.qk_head_dim = static_cast<double>(m.qk_nope_dim);
  a.qk_pos_emb_head_dim = static_cast<double>(m.qk_rope_dim);
  a.v_head_dim = static_cast<double>(m.v_head_dim);
  a.tp = static_cast<double>(c.tp);
  a.pp = static_cast<double>(c.pp);
  a.dp = static_cast<double>(c.dp);
  a.ep = static_cast<double>(c.ep);
  a.world_size = static_cast<double>(TotalGpus(c));
  // --num-virtual-stages-per-pipeline-rank; 1 becomes None, and Megatron needs pp > 1 for it.
  a.vpp = c.schedule == Schedule::kInterleaved && c.pp > 1 && c.vpp > 1 ? static_cast<double>(c.vpp) : 0;
  a.distributed_optimizer = c.zero >= 1;
  a.sequence_parallel = c.sp && c.tp > 1;  // arguments.py turns it off at tp = 1
  a.selective = c.recompute == Recompute::kSelective;
  a.seq_length = static_cast<double>(c.seq);
  a.micro_batch_size = static_cast<double>(c.batch);
  a.num_microbatches = static_cast<double>(c.grad_accum);
  return a;
}

// compute_weight_and_optimizer_memory (no MTP block, no latent MoE: the config has neither).
double WeightAndOptimizer(const Args& a, double* params_on_shard) {
  const double h = a.hidden_size;
  const double query_projection_to_hidden_size_ratio = a.kv_channels * a.num_attention_heads / h;
  const double num_experts = a.num_experts > 0 ? a.num_experts : 1;
  const double gated_linear_multiplier = a.swiglu ? 3.0 / 2 : 1;
  const double num_moe_layers = a.num_experts > 0 ? a.num_moe_layers : 0;
  const double num_dense_layers = a.num_layers - num_moe_layers;
  const double moe_ffn_hidden_size = a.num_experts > 0 ? a.moe_ffn_hidden_size : 0;
  const double norm_size = a.rms_norm ? 1 : 2;
  double self_attn_term = 0;
  if (a.mla) {
    const double heads = a.num_attention_heads;
    const double q_term = a.q_lora_rank <= 0
                              ? h * heads * (a.qk_head_dim + a.qk_pos_emb_head_dim)
                              : a.q_lora_rank * (h + heads * (a.qk_head_dim + a.qk_pos_emb_head_dim) + norm_size);
    self_attn_term = q_term + a.kv_lora_rank * (h + heads * (a.qk_head_dim + a.v_head_dim) + norm_size) +
                     h * a.qk_pos_emb_head_dim + (heads * a.v_head_dim) * h;
  } else {
    self_attn_term =
        2 * h * h * ((1 + (a.num_query_groups / a.num_attention_heads)) * query_projection_to_hidden_size_ratio);
  }
  const double embedding_size = h * a.padded_vocab_size;
  const double final_layernorm = norm_size * h;
  const double attention_params = self_attn_term;
  const double dense_mlp_params = 2 * h * a.ffn_hidden_size * gated_linear_multiplier;
  const double shared_expert_params = 2 * h * a.shared_expert_size * gated_linear_multiplier;
  const double routed_expert_params = 2 * h * moe_ffn_hidden_size * num_experts * gated_linear_multiplier;
  const double layernorm_params = 2 * h * norm_size;
  const double router_params = a.num_experts > 0 ? (h * num_experts) + (a.add_bias_linear ? num_experts : 0) : 0;
  const double shared_expert_gate_params = a.shared_expert_size > 0 && a.shared_expert_gate ? h : 0;

  const double etp = a.tp;  // expert_tensor_parallel_size defaults to tp
  const double expert_data_parallel_size = std::floor(a.world_size / (etp * a.ep * a.pp));
  const double tp_sharded_params_in_transformer_block = (attention_params + dense_mlp_params) * num_dense_layers +
                                                        (attention_params + shared_expert_params) * num_moe_layers;
  const double replicated_params_in_transformer_block =
      layernorm_params * num_dense_layers +
      (layernorm_params + router_params + shared_expert_gate_params) * num_moe_layers + final_layernorm;
  const double expert_sharded_params_in_transformer_block = routed_expert_params * num_moe_layers;

  // "Most loaded model shard has 1/pp_size transformer layers, 1 mtp block, and 1 embedding layer."
  double tp_sharded = ((tp_sharded_params_in_transformer_block / a.pp) + embedding_size) / a.tp;
  const double replicated = replicated_params_in_transformer_block / a.pp;
  const double expert_sharded = (expert_sharded_params_in_transformer_block / a.pp) / (etp * a.ep);
  if (a.untie && a.pp == 1) tp_sharded += embedding_size / a.tp;
  *params_on_shard = tp_sharded + replicated + expert_sharded;
  auto num_bytes_per_parameter = [&](double data_parallel_size) {
    return a.distributed_optimizer ? 6 + (12 / data_parallel_size) : 18;
  };
  return (tp_sharded + replicated) * num_bytes_per_parameter(a.dp) +
         expert_sharded * num_bytes_per_parameter(expert_data_parallel_size);
}

// The tail both activation functions share: embedding input and dropout for pp micro-batches,
// the interleaved penalty, and without interleaving the discount when fewer micro-batches than
// stages are in flight: x min(1, num_microbatches / pp).
double EmbeddingAndSchedule(const Args& a, double memory) {
  memory += 8 * a.seq_length * a.micro_batch_size * a.pp;
  memory += a.seq_length * a.micro_batch_size * a.hidden_size * a.pp;
  if (a.vpp > 0) memory *= 1 + ((a.pp - 1) / (a.pp * a.vpp));
  if (a.vpp == 0 && a.pp > 1) memory *= std::min(1.0, a.num_microbatches / a.pp);
  return memory;
}

// "Number of in-flight microbatches" as the report prints it.
double InFlight(const Args& a) {
  if (a.vpp > 0) return std::ceil((1 + (a.pp - 1) / (a.pp * a.vpp)) * a.pp);
  return a.pp > 1 ? std::min(a.num_microbatches, a.pp) : a.pp;
}

// compute_activation_memory: with sequence parallelism and selective recompute.
double ActivationWithSp(const Args& a) {
  double memory =
      (a.seq_length * a.micro_batch_size * a.hidden_size) * (18 + (4 * (a.ffn_hidden_size / a.hidden_size)));
  memory *= a.num_layers;
  memory = EmbeddingAndSchedule(a, memory);
  if (a.pp == 1) {
    memory += a.seq_length * a.micro_batch_size * a.hidden_size * 4 * (1 + (a.padded_vocab_size / a.hidden_size));
  }
  return memory / a.tp;
}

// compute_activation_memory_without_sp: (10 + 24/t) sbh per layer, embeddings unsharded, x 1.05.
double ActivationWithoutSp(const Args& a) {
  const double per_layer_memory = a.seq_length * a.micro_batch_size * a.hidden_size * (10 + (24 / a.tp));
  double memory = EmbeddingAndSchedule(a, per_layer_memory * a.num_layers);
  if (a.pp == 1) {
    const double logits_size = a.seq_length * a.micro_batch_size * a.padded_vocab_size / a.tp;
    const double final_ln_output = a.seq_length * a.micro_batch_size * a.hidden_size;
    memory += (logits_size + final_ln_output) * 2;
  }
  return memory * 1.05;
}

}  // namespace

int64_t MegatronPaddedVocab(int64_t vocab, int64_t tp, int64_t divisible_by) {
  const int64_t multiple = divisible_by * std::max<int64_t>(1, tp);
  return (vocab + multiple - 1) / multiple * multiple;
}

CompatEstimate MegatronEstimate(const Config& c) {
  CompatEstimate r;
  r.tool = "Megatron-LM report_theoretical_memory";
  const ModelSpec& m = c.model;
  if (!m.HasArchitecture()) {
    r.error = "Megatron's report needs the architecture";
    return r;
  }
  r.ok = true;
  const Args a = FromConfig(c);
  double params_on_shard = 0;
  const double weights = WeightAndOptimizer(a, &params_on_shard);
  const bool with_sp = a.sequence_parallel && a.selective;  // report_theoretical_memory's dispatch
  const double act = with_sp ? ActivationWithSp(a) : ActivationWithoutSp(a);

  // Which stage the figures describe: Megatron reports the first, assuming it is the most loaded.
  const std::string p = std::to_string(c.pp);
  const std::string stage = c.pp > 1 ? " (stage 1 of " + p + ")" : "";
  // Megatron's "Number of in-flight microbatches": ceil(penalty x pp) interleaved, else min(m, pp).
  const double in_flight = InFlight(a);
  r.scope = c.pp > 1 ? "pipeline stage 1 of " + p + ", the first: " + FormatNumber(a.num_layers / a.pp, 2) +
                           " layers, the embedding, " + FormatNumber(in_flight, 0) +
                           " micro-batches in flight (num_microbatches=" + std::to_string(c.grad_accum) + ")"
                     : "the one pipeline stage: all layers, the embedding and the output layer";
  const std::string bytes = a.distributed_optimizer ? FormatNumber(6 + 12 / a.dp, 4) + " B (6 + 12/dp)" : "18 B";
  r.lines = {
      {"weight and optimizer" + stage, weights, 0,
       "compute_weight_and_optimizer_memory: " + bytes + " x " +
           FormatCount(static_cast<int64_t>(std::llround(params_on_shard))) + " params on the shard" +
           (m.IsMoe() ? ", routed experts at 6 + 12/expert-dp" : "")},
      {std::string(with_sp ? "activation, SP + selective formula" : "activation, without-SP formula") + stage, act, 0,
       with_sp ? "compute_activation_memory: sbh(18 + 4 ffn/h) x L, embedding input and dropout x pp" +
                     std::string(c.pp == 1 ? ", output layer 4sbh(1 + V/h)" : "") + ", all / t"
               : "compute_activation_memory_without_sp: sbh(10 + 24/t) x L, embedding input and dropout x pp" +
                     std::string(c.pp == 1 ? ", output layer 2(sbV/t + sbh)" : "") + ", all x 1.05"},
  };
  r.gpu_bytes = weights + act;
  const int our_stage = EstimateTotals(c).pipeline_stage;
  r.departures = {
      c.pp == 1 ? "one pipeline stage: the same GPU as this calculator's"
      : our_stage == 0
          ? "the figures are for pipeline stage 1 of " + p + ", the stage this calculator finds most loaded too"
          : "the figures are for pipeline stage 1 of " + p +
                ", which Megatron assumes is the most loaded; this "
                "calculator's table is for stage " +
                std::to_string(our_stage + 1) + " of " + p + " (output head and logits), the one it finds most loaded",
      "bf16 weights, fp32 main gradients, fp32 main weights and Adam whatever is configured: 18 B/param, "
      "6 + 12/dp with the distributed optimizer (zero >= 1)",
      "vocabulary padded to a multiple of 128 x tp: " + FormatCount(m.vocab) + " -> " +
          FormatCount(static_cast<int64_t>(a.padded_vocab_size)),
      "the weights count no linear biases, position embeddings or q/k norms; an untied output head only when pp = 1",
      with_sp ? "activations follow Korthikanti's SP + selective formula: no GQA, SwiGLU or FlashAttention terms"
              : "without SP + selective recompute, activations are (10 + 24/t) sbh per layer whatever the model, "
                "recompute, dropout or FlashAttention",
      "context parallelism is ignored (the whole sequence on each GPU); no buffers, CUDA context or fragmentation",
      "Megatron prints MB = 2^20 bytes",
  };
  if (c.pp > 1 && a.vpp == 0 && c.grad_accum < c.pp) {
    // tools/report_theoretical_memory.py, run before training, passes num_microbatches=None.
    const double m_over_p = static_cast<double>(c.grad_accum) / a.pp;
    r.departures.push_back("num_microbatches = " + std::to_string(c.grad_accum) +
                           " (gradient accumulation), as training.py passes it, scales the activations by " +
                           FormatNumber(m_over_p, 3) + "; tools/report_theoretical_memory.py passes None and prints " +
                           FormatBytesBoth(act / m_over_p) + " for them");
  }
  return r;
}

}  // namespace llmmem::core
